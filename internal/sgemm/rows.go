package sgemm

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Products whose B is given by row starts: the stored B's row i is b[off[i] : off[i]+cols]. A 3×3
// convolution over zero-padded planes is then a GEMM without im2col: the row for input channel ci
// and kernel tap (dy, dx) is the plane of ci shifted by dy*width + dx (an "implicit GEMM").

// PackedA is an m×k matrix op(A) packed once for many products (a network's weights): the
// micro-kernel's panels of 6 rows for every pass over k.
type PackedA struct {
	m, k, kc int
	a        []float32 // row-major copy, for the fallback path
	panels   []float32 // pass t (depth kc, the last one shorter) at t*kc*mp, panels of mr rows
}

// PackA packs op(A) (m×k; A is k×m when tA) for GemmRows.
func PackA(tA bool, m, k int, a []float32, lda int) *PackedA {
	if m < 0 || k < 0 {
		panic(fmt.Sprintf("sgemm: negative size m=%d k=%d", m, k))
	}
	if tA {
		need("a", a, k, m, lda)
	} else {
		need("a", a, m, k, lda)
	}
	p := &PackedA{m: m, k: k, a: rowMajor(tA, m, k, a, lda)}
	if k == 0 || m == 0 {
		return p
	}
	passes := (k + maxKC - 1) / maxKC
	p.kc = (k + passes - 1) / passes
	mp := (m + mr - 1) / mr * mr
	p.panels = make([]float32, mp*k)
	for pc := 0; pc < k; pc += p.kc {
		kb := min(p.kc, k-pc)
		packA(false, p.a, k, 0, m, pc, kb, p.panels[pc*mp:])
	}
	return p
}

// Rows and K are the packed matrix's shape.
func (p *PackedA) Rows() int { return p.m }
func (p *PackedA) K() int    { return p.k }

// GemmRows computes C = A·B + beta·C for a packed m×k A and a k×n B whose row i is
// b[off[i] : off[i]+n]. On the SIMD path it reads up to 15 elements past the end of each row (whole
// 16-column panels; the extra columns are computed and dropped), so b must extend 15 elements
// beyond max(off)+n; their values do not matter. It panics if off or b is too short.
func GemmRows(a *PackedA, n int, b []float32, off []int, beta float32, c []float32, ldc int) {
	m, k := a.m, a.k
	if len(off) < k {
		panic(fmt.Sprintf("sgemm: GemmRows has %d row offsets for k=%d", len(off), k))
	}
	if k > 0 && n > 0 {
		lo, hi := slices.Min(off[:k]), slices.Max(off[:k])
		if lo < 0 || hi+n+nr-1 > len(b) {
			panic(fmt.Sprintf("sgemm: GemmRows rows at [%d, %d] + %d (+15) outside b of %d elements", lo, hi, n, len(b)))
		}
	}
	checkAC(false, m, n, k, a.a, max(1, k), c, ldc)
	if m == 0 || n == 0 {
		return
	}
	if !simd() {
		t := make([]float32, k*n)
		for i := 0; i < k; i++ {
			copy(t[i*n:(i+1)*n], b[off[i]:off[i]+n])
		}
		blas32.Implementation().Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a.a, max(1, k), t, max(1, n), beta, c, ldc)
		return
	}
	scale(m, n, beta, c, ldc)
	if k == 0 {
		return
	}
	buf := bufPool.Get().(*buffers)
	defer bufPool.Put(buf)
	mp := (m + mr - 1) / mr * mr
	w := wide()
	for pc := 0; pc < k; pc += a.kc {
		kb := min(a.kc, k-pc)
		ap := a.panels[pc*mp:]
		ob := &off[pc]
		for jr := 0; jr < n; {
			// 32-column tiles (AVX-512) only while more than 16 columns remain, so that no kernel
			// reads more than 15 elements past a row.
			tw := nr
			if w && n-jr > nr {
				tw = 2 * nr
			}
			nn := min(tw, n-jr)
			bp := &b[jr]
			for ir := 0; ir < m; ir += mr {
				mm := min(mr, m-ir)
				full := mm == mr && nn == tw
				dst, ld := &c[ir*ldc+jr], ldc
				t := &buf.tile
				if !full {
					clear(t[:mr*tw])
					dst, ld = &t[0], tw
				}
				if tw == nr {
					kernelRows6x16(kb, &ap[ir*kb], bp, ob, dst, ld)
				} else {
					wideRows6x32(kb, &ap[ir*kb], bp, ob, dst, ld)
				}
				if !full {
					t.addTo(mm, nn, tw, c[ir*ldc+jr:], ldc)
				}
			}
			jr += tw
		}
	}
}

// GemmOff is Gemm with the stored B given by row starts: row i of B (k×n, or n×k when tB) is
// b[off[i] : off[i]+cols]. It reads nothing past the rows.
func GemmOff(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, off []int, beta float32, c []float32, ldc int) {
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	if len(off) < br {
		panic(fmt.Sprintf("sgemm: GemmOff has %d row offsets for %d rows", len(off), br))
	}
	if br > 0 && bc > 0 {
		lo, hi := slices.Min(off[:br]), slices.Max(off[:br])
		if lo < 0 || hi+bc > len(b) {
			panic(fmt.Sprintf("sgemm: GemmOff rows at [%d, %d] + %d outside b of %d elements", lo, hi, bc, len(b)))
		}
	}
	checkAC(tA, m, n, k, a, lda, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	if !simd() {
		t := make([]float32, br*bc)
		for i := 0; i < br; i++ {
			copy(t[i*bc:(i+1)*bc], b[off[i]:off[i]+bc])
		}
		Gemm(tA, tB, m, n, k, a, lda, t, max(1, bc), beta, c, ldc)
		return
	}
	scale(m, n, beta, c, ldc)
	if k == 0 {
		return
	}
	gemmPacked(tA, tB, m, n, k, a, lda, b, 0, off, c, ldc)
}

// rowMajor returns op(X) (rows×cols; X is cols×rows when trans) as a contiguous row-major copy.
func rowMajor(trans bool, rows, cols int, x []float32, ld int) []float32 {
	out := make([]float32, rows*cols)
	for i := 0; i < rows; i++ {
		row := out[i*cols : (i+1)*cols]
		if !trans {
			copy(row, x[i*ld:i*ld+cols])
			continue
		}
		for j := range row {
			row[j] = x[j*ld+i]
		}
	}
	return out
}
