package gonum

import (
	"math"
	"runtime"

	"github.com/yinsh-zero/yinsh/internal/sgemm"
	"github.com/yinsh-zero/yinsh/model"
)

// Layouts used in this package:
//
//	NCHW   [n][C][121]     the input planes (as env.Observation writes them)
//	CS     [C][n*121]      activations inside the net: one row per channel, S = n*121 columns
//	                       (sample-major within the row); a 3×3 conv is then one GEMM
//	                       out[Cout][S] = W[Cout][Cin*9] × col[Cin*9][S] per chunk of samples
//	flat   [n][C*121]      head features after flatten (PyTorch order: channel*121 + cell)
//
// A cell is col*11 + row-1 (H = column, W = row-1).

const (
	side  = model.BoardSize
	cells = model.NumCells
)

// parallel splits [0, n) into contiguous ranges, one per worker (at most GOMAXPROCS), runs fn on each
// and waits. w is the worker index, in [0, workers(n)): each index runs exactly once, so fn may use
// per-index scratch. The ranges go to the backend's one pool of helper goroutines (pool.go): idle
// helpers take ranges, the caller runs the rest itself, and a call made while every helper is busy
// (nested, or from concurrent Predict calls) runs on its own goroutine, so the backend never has more
// runnable goroutines doing its work than GOMAXPROCS plus its callers.
func parallel(n int, fn func(w, lo, hi int)) {
	nw := workers(n)
	if nw <= 1 {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	thePool.run(nw, func(w int) { fn(w, n*w/nw, n*(w+1)/nw) })
}

// parallelMin is parallel for element-wise work: it stays on the calling goroutine below minPer
// elements per worker.
func parallelMin(n, minPer int, fn func(lo, hi int)) {
	if n < 2*minPer {
		fn(0, n)
		return
	}
	parallel(n/minPer, func(w, lo, hi int) {
		nw := workers(n / minPer)
		fn(n*w/nw, n*(w+1)/nw)
	})
}

// workers is the number of goroutines parallel(n, …) uses.
func workers(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n))
}

// gemm computes C = op(A)·op(B) + beta·C on row-major matrices (op(A) m×k, op(B) k×n) with
// internal/sgemm (the AVX-512 or AVX2/FMA kernels where the CPU has them, gonum's blas32 otherwise; sgemm.Kernel
// says which). A product of at least gemmSplitFLOPs is split by columns of C (or by rows when C is
// narrow) between the pool's workers; inside a parallel region the pool's helpers are busy and it
// runs on the calling goroutine.
func gemm(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	nw := workers(max(m, n))
	if nw <= 1 || 2*m*n*k < gemmSplitFLOPs {
		sgemm.Gemm(tA, tB, m, n, k, a, lda, b, ldb, beta, c, ldc)
		return
	}
	if n >= 64 { // split columns, in whole 16-column panels
		panels := (n + 15) / 16
		thePool.run(nw, func(w int) {
			j0, j1 := min(n, panels*w/nw*16), min(n, panels*(w+1)/nw*16)
			if j0 == j1 {
				return
			}
			boff := j0
			if tB {
				boff = j0 * ldb
			}
			sgemm.Gemm(tA, tB, m, j1-j0, k, a, lda, b[boff:], ldb, beta, c[j0:], ldc)
		})
		return
	}
	thePool.run(nw, func(w int) { // split rows
		i0, i1 := m*w/nw, m*(w+1)/nw
		if i0 == i1 {
			return
		}
		aoff := i0 * lda
		if tA {
			aoff = i0
		}
		sgemm.Gemm(tA, tB, i1-i0, n, k, a[aoff:], lda, b, ldb, beta, c[i0*ldc:], ldc)
	})
}

// gemmSplitFLOPs is the smallest product gemm splits between workers (about 50 µs of work).
const gemmSplitFLOPs = 4 << 20

// scratchOf holds per-worker buffers, grown on demand.
type scratchOf[T any] struct {
	bufs [][]T
}

// scratch is the usual float32 kind.
type scratch = scratchOf[float32]

// reserve makes room for nw workers' buffers; call it before starting the workers.
func (s *scratchOf[T]) reserve(nw int) {
	for len(s.bufs) < nw {
		s.bufs = append(s.bufs, nil)
	}
}

// get returns worker w's buffer with at least size elements (contents undefined). Workers may call
// it concurrently for distinct w after reserve.
func (s *scratchOf[T]) get(w, size int) []T {
	if cap(s.bufs[w]) < size {
		s.bufs[w] = make([]T, size)
	}
	return s.bufs[w][:size]
}

// im2col writes the 3×3, pad-1 patches of samples [n0, n1) into col, laid out [cin*9][m] with
// m = (n1-n0)*121, row index ci*9 + ky*3 + kx (matching weights [out][in][3][3]). The input value of
// channel ci, sample s, cell p is in[ci*cs + s*ns + p].
func im2col(in []float32, cs, ns, cin, n0, n1 int, col []float32) {
	m := (n1 - n0) * cells
	for ci := 0; ci < cin; ci++ {
		for ky := 0; ky < 3; ky++ {
			dy := ky - 1
			for kx := 0; kx < 3; kx++ {
				dx := kx - 1
				row := col[(ci*9+ky*3+kx)*m : (ci*9+ky*3+kx+1)*m]
				jlo, jhi := max(0, -dx), min(side, side-dx)
				for s := n0; s < n1; s++ {
					src := in[ci*cs+s*ns : ci*cs+s*ns+cells]
					dst := row[(s-n0)*cells : (s-n0+1)*cells]
					for i := 0; i < side; i++ {
						si := i + dy
						d := dst[i*side : i*side+side]
						if si < 0 || si >= side {
							clear(d)
							continue
						}
						if jlo > 0 {
							d[0] = 0
						}
						if jhi < side {
							d[side-1] = 0
						}
						copy(d[jlo:jhi], src[si*side+jlo+dx:si*side+jhi+dx])
					}
				}
			}
		}
	}
}

// col2im adds the patch gradients dcol ([cin*9][m], as im2col writes) into din, laid out [cin][S]
// with S = ldi (sample s, cell p at din[ci*ldi + s*121 + p]), for samples [n0, n1).
func col2im(dcol []float32, cin, n0, n1 int, din []float32, ldi int) {
	m := (n1 - n0) * cells
	for ci := 0; ci < cin; ci++ {
		for ky := 0; ky < 3; ky++ {
			dy := ky - 1
			for kx := 0; kx < 3; kx++ {
				dx := kx - 1
				row := dcol[(ci*9+ky*3+kx)*m : (ci*9+ky*3+kx+1)*m]
				jlo, jhi := max(0, -dx), min(side, side-dx)
				for s := n0; s < n1; s++ {
					dst := din[ci*ldi+s*cells : ci*ldi+(s+1)*cells]
					src := row[(s-n0)*cells : (s-n0+1)*cells]
					for i := 0; i < side; i++ {
						si := i + dy
						if si < 0 || si >= side {
							continue
						}
						d := dst[si*side+jlo+dx : si*side+jhi+dx]
						for j, v := range src[i*side+jlo : i*side+jhi] {
							d[j] += v
						}
					}
				}
			}
		}
	}
}

// convChunk is the number of samples per im2col + GEMM in the forward 3×3 convolutions. With one
// sample the GEMM (cout × cin*9 times cin*9 × 121) is small enough for gonum's serial kernel, whose
// operands stay in L2; the batch is split between goroutines instead. Measured ~25% faster than 2 or
// 4 samples per GEMM on the small net (which make gonum split each GEMM between goroutines).
var convChunk = 1

// convBackChunk is the number of samples per GEMM in the backward 3×3 convolutions.
var convBackChunk = 4

// conv3 computes a 3×3, pad-1 convolution of n samples: out[co][s*121+p] (CS layout, row stride
// n*121) = Σ w[co][ci*9+k] · in(ci, s, neighbour k of p), with in addressed as in im2col. Work is
// split over the batch between goroutines; epi, if not nil, is applied to each finished chunk of
// samples (in the goroutine that computed it) while the data is in cache: bias, residual and ReLU.
// pw is w packed (sgemm.PackA(false, cout, cin*9, w, cin*9)), or nil to pack it here. On the SIMD
// kernel the convolution is an implicit GEMM over zero-padded planes (implicit.go); on the fallback
// it is im2col + GEMM.
func conv3(sc *scratch, w []float32, pw *sgemm.PackedA, cout, cin int, in []float32, cs, ns, n int, out []float32, epi *epilogue) {
	if implicitConv() {
		conv3Implicit(sc, w, pw, cout, cin, in, cs, ns, n, out, epi)
		return
	}
	conv3Im2col(sc, w, cout, cin, in, cs, ns, n, out, epi)
}

// conv3Im2col is conv3 by im2col + GEMM, one chunk of convChunk samples at a time.
func conv3Im2col(sc *scratch, w []float32, cout, cin int, in []float32, cs, ns, n int, out []float32, epi *epilogue) {
	k := cin * 9
	ldo := n * cells
	sc.reserve(workers(n))
	parallel(n, func(wk, lo, hi int) {
		for s0 := lo; s0 < hi; s0 += convChunk {
			s1 := min(s0+convChunk, hi)
			m := (s1 - s0) * cells
			col := sc.get(wk, k*m)
			im2col(in, cs, ns, cin, s0, s1, col)
			gemm(false, false, cout, m, k, w, k, col, m, 0, out[s0*cells:], ldo)
			if epi != nil {
				biasAct(out, epi.bias, epi.res, ldo, s0, s1, epi.act)
			}
		}
	})
}

// conv3Backward computes, for the convolution conv3 computed, the weight gradient gw ([cout][cin*9],
// overwritten) from dout (CS layout [cout][n*121]), and, when din is not nil, the input gradient
// din (CS layout [cin][n*121], overwritten). sc, dsc and psc are per-worker scratch for patches,
// patch gradients and weight-gradient partials (summed into gw at the end).
func conv3Backward(sc, dsc, psc *scratch, w []float32, cout, cin int, in []float32, cs, ns, n int, dout []float32, gw, din []float32) {
	if implicitConv() {
		conv3BackwardImplicit(sc, dsc, psc, w, cout, cin, in, cs, ns, n, dout, gw, din)
		return
	}
	conv3BackwardIm2col(sc, dsc, psc, w, cout, cin, in, cs, ns, n, dout, gw, din)
}

// conv3BackwardIm2col is conv3Backward by im2col + GEMM and col2im.
func conv3BackwardIm2col(sc, dsc, psc *scratch, w []float32, cout, cin int, in []float32, cs, ns, n int, dout []float32, gw, din []float32) {
	k := cin * 9
	ldo := n * cells
	nw := workers(n)
	sc.reserve(nw)
	dsc.reserve(nw)
	psc.reserve(nw)
	parallel(n, func(wk, lo, hi int) {
		part := psc.get(wk, cout*k)
		clear(part)
		if din != nil {
			for ci := 0; ci < cin; ci++ {
				clear(din[ci*ldo+lo*cells : ci*ldo+hi*cells])
			}
		}
		for s0 := lo; s0 < hi; s0 += convBackChunk {
			s1 := min(s0+convBackChunk, hi)
			m := (s1 - s0) * cells
			col := sc.get(wk, k*m)
			im2col(in, cs, ns, cin, s0, s1, col)
			// gw += dout_chunk · colᵀ
			gemm(false, true, cout, k, m, dout[s0*cells:], ldo, col, m, 1, part, k)
			if din != nil {
				dcol := dsc.get(wk, k*m)
				// dcol = wᵀ · dout_chunk
				gemm(true, false, k, m, cout, w, k, dout[s0*cells:], ldo, 0, dcol, m)
				col2im(dcol, cin, s0, s1, din, ldo)
			}
		}
	})
	sumPartials(gw[:cout*k], psc, nw)
}

// sumPartials sets dst to the sum of the first nw workers' buffers in sc (each at least len(dst)).
func sumPartials(dst []float32, sc *scratch, nw int) {
	copy(dst, sc.bufs[0][:len(dst)])
	for wk := 1; wk < nw; wk++ {
		for i, v := range sc.bufs[wk][:len(dst)] {
			dst[i] += v
		}
	}
}

// conv1 computes a 1×1 convolution out[co][S] = w[co][ci] · in[ci][S] (CS layouts, S = n*121).
func conv1(w []float32, cout, cin int, in []float32, n int, out []float32) {
	s := n * cells
	parallel(n, func(_, lo, hi int) {
		gemm(false, false, cout, (hi-lo)*cells, cin, w, cin, in[lo*cells:], s, 0, out[lo*cells:], s)
	})
}

// toFlat copies CS activations x [c][n*121] into flat features [n][c*121].
func toFlat(x []float32, c, n int, flat []float32) {
	s := n * cells
	parallel(n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			for ch := 0; ch < c; ch++ {
				copy(flat[(i*c+ch)*cells:(i*c+ch+1)*cells], x[ch*s+i*cells:ch*s+(i+1)*cells])
			}
		}
	})
}

// fromFlat is the inverse of toFlat.
func fromFlat(flat []float32, c, n int, x []float32) {
	s := n * cells
	parallel(n, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			for ch := 0; ch < c; ch++ {
				copy(x[ch*s+i*cells:ch*s+(i+1)*cells], flat[(i*c+ch)*cells:(i*c+ch+1)*cells])
			}
		}
	})
}

// linear computes y[n][out] = x[n][in] · wᵀ + b for w [out][in] (PyTorch layout).
func linear(x []float32, n, in int, w, b []float32, out int, y []float32) {
	for i := 0; i < n; i++ {
		copy(y[i*out:(i+1)*out], b)
	}
	gemm(false, true, n, out, in, x, in, w, in, 1, y, out)
}

// linearP computes y[n][out] = x[n][in] · wᵀ + b for a weight packed once (the inference engine's
// fully connected layers: pw = sgemm.PackB(true, in, out, w, in) for w [out][in]), split by whole
// 16-column panels between the pool's workers when large enough.
func linearP(x []float32, n, in int, pw *sgemm.PackedB, b []float32, out int, y []float32) {
	for i := 0; i < n; i++ {
		copy(y[i*out:(i+1)*out], b)
	}
	nw := workers((out + 15) / 16)
	if nw <= 1 || 2*n*out*in < gemmSplitFLOPs {
		sgemm.GemmPackedB(false, n, x, in, pw, 0, out, 1, y, out)
		return
	}
	panels := (out + 15) / 16
	thePool.run(nw, func(w int) {
		j0, j1 := min(out, panels*w/nw*16), min(out, panels*(w+1)/nw*16)
		sgemm.GemmPackedB(false, n, x, in, pw, j0, j1, 1, y, out)
	})
}

// linearBackward computes gw [out][in] = dyᵀ·x, gb [out] = Σ dy and, when dx is not nil,
// dx [n][in] = dy·w (all overwritten).
func linearBackward(x []float32, n, in int, w []float32, out int, dy, gw, gb, dx []float32) {
	gemm(true, false, out, in, n, dy, out, x, in, 0, gw, in)
	clear(gb)
	for i := 0; i < n; i++ {
		for j, v := range dy[i*out : (i+1)*out] {
			gb[j] += v
		}
	}
	if dx != nil {
		gemm(false, false, n, in, out, dy, out, w, in, 0, dx, in)
	}
}

// relu applies max(0, ·) in place.
func relu(x []float32) {
	for i, v := range x {
		x[i] = max(v, 0) // branch-free: a data-dependent branch here mispredicts half the time
	}
}

// reluFloor is the lower bound that max(·, floor) applies: 0 for a ReLU, −Inf for none.
func reluFloor(act bool) float32 {
	if act {
		return 0
	}
	return float32(math.Inf(-1))
}

// epilogue is what conv3 applies to its output: out = ReLU(out + bias[c] (+ res)), ReLU when act;
// res, if not nil, has out's CS layout.
type epilogue struct {
	bias []float32
	res  []float32
	act  bool
}

// biasAct adds b[c] to row c of the CS region of samples [s0, s1) (row stride ld) and, when res is
// not nil, the same region of res; then applies ReLU when act is set.
func biasAct(x []float32, b []float32, res []float32, ld, s0, s1 int, act bool) {
	floor := reluFloor(act)
	for c, bv := range b {
		lo, hi := c*ld+s0*cells, c*ld+s1*cells
		row := x[lo:hi]
		if res != nil {
			r := res[lo:hi]
			r = r[:len(row)]
			for i, v := range row {
				v += bv + r[i]
				v = max(v, floor)
				row[i] = v
			}
			continue
		}
		for i, v := range row {
			v += bv
			v = max(v, floor)
			row[i] = v
		}
	}
}
