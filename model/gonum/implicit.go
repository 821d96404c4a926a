package gonum

import (
	"sync"

	"github.com/yinsh-zero/yinsh/internal/sgemm"
)

// The implicit-GEMM 3×3 convolution (used with the SIMD kernel). Each sample's 11×11 plane is
// copied into a zero-padded 12×12 one (row r, column c at r*12 + c; column 11 and row 11 are zero),
// the samples of a chunk one after another after padLead zeros, padTail zeros after them: a
// channel's padded row has padLen(ns) floats. The neighbour (r+dy, c+dx) of a cell is then at a fixed
// offset dy*12 + dx — off the board it lands on a zero (the previous row's column 11, the sample's
// row 11, or the lead) — so the GEMM's row for input channel ci and tap (ky, kx) is channel ci's
// padded plane read at that offset (sgemm.GemmRows), with no im2col. Output columns are padded
// cells too (12*12 per sample; 23 of 144 are computed and dropped), copied back into the CS layout.
const (
	padW    = 12
	padS    = padW * padW
	padLead = 16 // ≥ 13: the tap (−1, −1) of the first cell
	padTail = 32 // ≥ 13 + 15: the tap (+1, +1) of the last cell plus the kernel's panel overrun
)

// padLen is the length of one channel's padded row for ns samples.
func padLen(ns int) int { return padLead + ns*padS + padTail }

// implicitChunk is the number of samples per GEMM in the implicit forward convolution.
var implicitChunk = 2

// implicitBackChunk is the number of samples per GEMM in the implicit backward convolution.
var implicitBackChunk = 4

// implicitConv reports whether conv3 takes the implicit-GEMM path (the SIMD kernel is in use).
func implicitConv() bool { return sgemm.Kernel() != sgemm.KernelGonum }

// padPlanes writes samples [s0, s1) of c channels (value of channel ci, sample s, cell p at
// src[ci*cs + s*ns + p]) into dst as padded rows of length L = padLen(s1-s0), zeros elsewhere.
func padPlanes(src []float32, cs, ns, c, s0, s1 int, dst []float32, L int) {
	clear(dst[:c*L])
	for ci := 0; ci < c; ci++ {
		for s := s0; s < s1; s++ {
			from := src[ci*cs+s*ns : ci*cs+s*ns+cells]
			to := dst[ci*L+padLead+(s-s0)*padS:]
			for r := 0; r < side; r++ {
				copy(to[r*padW:r*padW+side], from[r*side:(r+1)*side])
			}
		}
	}
}

// unpad copies the c rows of padded output t ([c][ldt], sample s-s0 at (s-s0)*144) into the CS
// layout out (row stride ldo) for samples [s0, s1).
func unpad(t []float32, ldt, c, s0, s1 int, out []float32, ldo int) {
	for ch := 0; ch < c; ch++ {
		for s := s0; s < s1; s++ {
			from := t[ch*ldt+(s-s0)*padS:]
			to := out[ch*ldo+s*cells : ch*ldo+(s+1)*cells]
			for r := 0; r < side; r++ {
				copy(to[r*side:(r+1)*side], from[r*padW:r*padW+side])
			}
		}
	}
}

// unpadEpilogue is unpad with the epilogue fused: out = max(t + bias (+ res), floor) in one pass.
func unpadEpilogue(t []float32, ldt, c, s0, s1 int, out []float32, ldo int, epi *epilogue) {
	floor := reluFloor(epi.act)
	for ch := 0; ch < c; ch++ {
		bv := epi.bias[ch]
		for s := s0; s < s1; s++ {
			from := t[ch*ldt+(s-s0)*padS:]
			lo := ch*ldo + s*cells
			to := out[lo : lo+cells]
			if epi.res != nil {
				res := epi.res[lo : lo+cells]
				for r := 0; r < side; r++ {
					f, d, q := from[r*padW:r*padW+side], to[r*side:(r+1)*side], res[r*side:(r+1)*side]
					for i, v := range f {
						d[i] = max(v+bv+q[i], floor)
					}
				}
				continue
			}
			for r := 0; r < side; r++ {
				f, d := from[r*padW:r*padW+side], to[r*side:(r+1)*side]
				for i, v := range f {
					d[i] = max(v+bv, floor)
				}
			}
		}
	}
}

// tapOffsets fills off[ci*9 + ky*3 + kx] = ci*L + padLead + (ky−1)*12 + (kx−1): where the GEMM row
// for channel ci and tap (ky, kx) starts in padded planes of row length L.
func tapOffsets(c, L int, off []int) {
	for ci := 0; ci < c; ci++ {
		for ky := 0; ky < 3; ky++ {
			for kx := 0; kx < 3; kx++ {
				off[ci*9+ky*3+kx] = ci*L + padLead + (ky-1)*padW + (kx - 1)
			}
		}
	}
}

// offPool holds tap offset buffers.
var offPool = newIntPool()

// conv3Implicit is conv3 as an implicit GEMM (see above).
func conv3Implicit(sc *scratch, w []float32, pw *sgemm.PackedA, cout, cin int, in []float32, cs, ns, n int, out []float32, epi *epilogue) {
	if pw == nil {
		pw = sgemm.PackA(false, cout, cin*9, w, cin*9)
	}
	ldo := n * cells
	sc.reserve(workers(n))
	parallel(n, func(wk, lo, hi int) {
		off := offPool.get(cin * 9)
		defer offPool.put(off)
		for s0 := lo; s0 < hi; s0 += implicitChunk {
			s1 := min(s0+implicitChunk, hi)
			L := padLen(s1 - s0)
			N := (s1 - s0) * padS
			buf := sc.get(wk, cin*L+cout*N)
			p, t := buf[:cin*L], buf[cin*L:]
			padPlanes(in, cs, ns, cin, s0, s1, p, L)
			tapOffsets(cin, L, off)
			sgemm.GemmRows(pw, N, p, off, 0, t, N)
			if epi != nil {
				unpadEpilogue(t, N, cout, s0, s1, out, ldo, epi)
			} else {
				unpad(t, N, cout, s0, s1, out, ldo)
			}
		}
	})
}

// flip returns the weights of the input-gradient convolution: wf[ci][co*9 + 8−k] = w[co][ci*9 + k]
// (transposed channels, taps rotated by 180°), so that din = conv3(dout, wf).
func flip(w []float32, cout, cin int) []float32 {
	wf := make([]float32, len(w))
	for co := 0; co < cout; co++ {
		for ci := 0; ci < cin; ci++ {
			for k := 0; k < 9; k++ {
				wf[ci*cout*9+co*9+8-k] = w[co*cin*9+ci*9+k]
			}
		}
	}
	return wf
}

// conv3BackwardImplicit is conv3Backward as implicit GEMMs: per chunk, the weight gradient
// gw += dout·patchesᵀ reads the padded input at the tap offsets (sgemm.GemmOff), and the input
// gradient is the convolution of the padded dout with the flipped weights.
func conv3BackwardImplicit(sc, dsc, psc *scratch, w []float32, cout, cin int, in []float32, cs, ns, n int, dout []float32, gw, din []float32) {
	k := cin * 9
	ldo := n * cells
	nw := workers(n)
	sc.reserve(nw)
	dsc.reserve(nw)
	psc.reserve(nw)
	var pf *sgemm.PackedA
	if din != nil {
		pf = sgemm.PackA(false, cin, cout*9, flip(w, cout, cin), cout*9)
	}
	parallel(n, func(wk, lo, hi int) {
		part := psc.get(wk, cout*k)
		clear(part)
		offIn := offPool.get(cin * 9)
		offOut := offPool.get(cout * 9)
		defer offPool.put(offIn)
		defer offPool.put(offOut)
		for s0 := lo; s0 < hi; s0 += implicitBackChunk {
			s1 := min(s0+implicitBackChunk, hi)
			L := padLen(s1 - s0)
			N := (s1 - s0) * padS
			pin := sc.get(wk, cin*L)
			buf := dsc.get(wk, cout*L+cin*N)
			pd, t := buf[:cout*L], buf[cout*L:]
			padPlanes(in, cs, ns, cin, s0, s1, pin, L)
			padPlanes(dout, ldo, cells, cout, s0, s1, pd, L)
			tapOffsets(cin, L, offIn)
			// gw[co][ci*9+t] += Σ_j dout[co][j] · in[ci][j + off(t)] over the chunk's padded cells
			// (dout is zero on the padding, so those columns add nothing).
			sgemm.GemmOff(false, true, cout, k, N, pd[padLead:], L, pin, offIn, 1, part, k)
			if din != nil {
				tapOffsets(cout, L, offOut)
				sgemm.GemmRows(pf, N, pd, offOut, 0, t, N)
				unpad(t, N, cin, s0, s1, din, ldo)
			}
		}
	})
	sumPartials(gw[:cout*k], psc, nw)
}

// intPool recycles []int buffers (tap offsets) between calls.
type intPool struct{ p sync.Pool }

func newIntPool() *intPool { return &intPool{} }

func (ip *intPool) get(n int) []int {
	if b, ok := ip.p.Get().(*[]int); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]int, n)
}

func (ip *intPool) put(b []int) { ip.p.Put(&b) }
