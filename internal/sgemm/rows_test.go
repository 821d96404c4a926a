package sgemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// rowsCase builds a buffer of scattered (possibly overlapping, unaligned) rows and their offsets.
func rowsCase(rng *rand.Rand, rows, cols int) (b []float32, off []int) {
	span := rows*cols/2 + cols + 64
	b = make([]float32, span+cols+nr)
	for i := range b {
		b[i] = float32(rng.NormFloat64())
	}
	off = make([]int, rows)
	for i := range off {
		off[i] = rng.IntN(span)
	}
	return b, off
}

func materialize(b []float32, off []int, cols int) []float32 {
	t := make([]float32, len(off)*cols)
	for i, o := range off {
		copy(t[i*cols:(i+1)*cols], b[o:o+cols])
	}
	return t
}

func closeTo(t *testing.T, name string, got []float32, ldc int, want, bound []float64, m, n, k int) {
	t.Helper()
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			g, w := float64(got[i*ldc+j]), want[i*n+j]
			tol := 1e-6*bound[i*n+j]*math.Sqrt(float64(k+1)) + 1e-30
			if math.IsNaN(g) || math.Abs(g-w) > tol {
				t.Fatalf("%s: C[%d][%d] = %v, want %v (tolerance %.3g)", name, i, j, g, w, tol)
			}
		}
	}
}

func TestGemmRowsAndOffAgainstFloat64(t *testing.T) {
	for _, mode := range testModes() {
		t.Run(mode, func(t *testing.T) {
			useMode(t, mode)
			rng := rand.New(rand.NewPCG(3, 4))
			edge := []int{1, 3, 6, 7, 16, 17, 31, 33, 48, 49, 144}
			for it := 0; it < 60; it++ {
				m, n, k := edge[rng.IntN(len(edge))], edge[rng.IntN(len(edge))], edge[rng.IntN(len(edge))]
				if it == 0 {
					m, n, k = 64, 288, 2*maxKC+7 // several passes over k
				}
				tA := rng.IntN(2) == 1
				beta := []float32{0, 1, -0.5}[rng.IntN(3)]
				name := fmt.Sprintf("m=%d,n=%d,k=%d,tA=%v,beta=%v", m, n, k, tA, beta)
				ar, ac := m, k
				if tA {
					ar, ac = k, m
				}
				lda := ac + rng.IntN(3)
				_, a := matrix(rng, ar, ac, lda, rng.IntN(8))
				ldc := n + rng.IntN(3)
				_, c0 := matrix(rng, m, n, ldc, rng.IntN(8))

				// GemmRows: B is k×n given by row starts.
				b, off := rowsCase(rng, k, n)
				c := append([]float32(nil), c0...)
				want, bound := ref(false, false, m, n, k, PackA(tA, m, k, a, lda).a, max(1, k), materialize(b, off, n), max(1, n), beta, c, ldc)
				GemmRows(PackA(tA, m, k, a, lda), n, b, off, beta, c, ldc)
				closeTo(t, "GemmRows "+name, c, ldc, want, bound, m, n, k)

				// GemmOff with B transposed: the stored B is n×k given by row starts.
				bt, offt := rowsCase(rng, n, k)
				c = append([]float32(nil), c0...)
				want, bound = ref(tA, true, m, n, k, a, lda, materialize(bt, offt, k), max(1, k), beta, c, ldc)
				GemmOff(tA, true, m, n, k, a, lda, bt, offt, beta, c, ldc)
				closeTo(t, "GemmOff tB "+name, c, ldc, want, bound, m, n, k)

				// GemmOff untransposed.
				c = append([]float32(nil), c0...)
				want, bound = ref(tA, false, m, n, k, a, lda, materialize(b, off, n), max(1, n), beta, c, ldc)
				GemmOff(tA, false, m, n, k, a, lda, b, off, beta, c, ldc)
				closeTo(t, "GemmOff "+name, c, ldc, want, bound, m, n, k)
			}
		})
	}
}

func TestGemmRowsPanicsOutsideB(t *testing.T) {
	a := PackA(false, 2, 2, make([]float32, 4), 2)
	for name, f := range map[string]func(){
		"no slack":    func() { GemmRows(a, 4, make([]float32, 8), []int{0, 4}, 0, make([]float32, 8), 4) },
		"negative":    func() { GemmRows(a, 4, make([]float32, 64), []int{-1, 4}, 0, make([]float32, 8), 4) },
		"few offsets": func() { GemmRows(a, 4, make([]float32, 64), []int{0}, 0, make([]float32, 8), 4) },
		"off past b": func() {
			GemmOff(false, false, 2, 4, 2, make([]float32, 4), 2, make([]float32, 8), []int{0, 5}, 0, make([]float32, 8), 4)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestGemmPackedBAgainstFloat64(t *testing.T) {
	for _, mode := range testModes() {
		t.Run(mode, func(t *testing.T) {
			useMode(t, mode)
			rng := rand.New(rand.NewPCG(5, 6))
			edge := []int{1, 3, 6, 7, 16, 17, 31, 33, 48, 49, 242}
			for it := 0; it < 60; it++ {
				m, n, k := edge[rng.IntN(len(edge))], edge[rng.IntN(len(edge))], edge[rng.IntN(len(edge))]
				if it == 0 {
					m, n, k = 32, 2142, 2*maxKC+3 // the policy head's shape, several passes
				}
				tA, tB := rng.IntN(2) == 1, rng.IntN(2) == 1
				beta := []float32{0, 1, 2}[rng.IntN(3)]
				name := fmt.Sprintf("m=%d,n=%d,k=%d,tA=%v,tB=%v,beta=%v", m, n, k, tA, tB, beta)
				ar, ac := m, k
				if tA {
					ar, ac = k, m
				}
				br, bc := k, n
				if tB {
					br, bc = n, k
				}
				lda, ldb, ldc := ac+rng.IntN(3), bc+rng.IntN(3), n+rng.IntN(3)
				_, a := matrix(rng, ar, ac, lda, rng.IntN(8))
				_, b := matrix(rng, br, bc, ldb, rng.IntN(8))
				_, c := matrix(rng, m, n, ldc, rng.IntN(8))
				want, bound := ref(tA, tB, m, n, k, a, lda, b, ldb, beta, c, ldc)
				pb := PackB(tB, k, n, b, ldb)
				// Columns in two ranges split at a panel boundary, as threads would.
				split := min(n, (n/2)/16*16)
				GemmPackedB(tA, m, a, lda, pb, 0, split, beta, c, ldc)
				GemmPackedB(tA, m, a, lda, pb, split, n, beta, c, ldc)
				closeTo(t, "GemmPackedB "+name, c, ldc, want, bound, m, n, k)
			}
		})
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("unaligned column start: no panic")
			}
		}()
		GemmPackedB(false, 1, make([]float32, 2), 2, PackB(false, 2, 40, make([]float32, 80), 40), 3, 40, 0, make([]float32, 40), 40)
	}()
}
