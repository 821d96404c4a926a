package sgemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// ref computes C = op(A)·op(B) + beta·C in float64 and returns it with the bound Σ|a·b| + |beta·c|
// of every element (float32 rounding is proportional to it).
func ref(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) (want, bound []float64) {
	want = make([]float64, m*n)
	bound = make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var s, abs float64
			for p := 0; p < k; p++ {
				var av, bv float32
				if tA {
					av = a[p*lda+i]
				} else {
					av = a[i*lda+p]
				}
				if tB {
					bv = b[j*ldb+p]
				} else {
					bv = b[p*ldb+j]
				}
				s += float64(av) * float64(bv)
				abs += math.Abs(float64(av) * float64(bv))
			}
			if beta != 0 {
				s += float64(beta) * float64(c[i*ldc+j])
				abs += math.Abs(float64(beta) * float64(c[i*ldc+j]))
			}
			want[i*n+j], bound[i*n+j] = s, abs
		}
	}
	return want, bound
}

// matrix returns a random rows×cols matrix with row stride ld, starting off elements into the slice
// (so that it is not 32-byte aligned), with guard values around it that must stay untouched.
func matrix(rng *rand.Rand, rows, cols, ld, off int) (full, m []float32) {
	full = make([]float32, off+max(0, rows-1)*ld+cols+8)
	for i := range full {
		full[i] = 1e30 // guard: would blow up any result it leaked into
	}
	m = full[off:]
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			m[r*ld+c] = float32(rng.NormFloat64())
		}
	}
	return full, m
}

type shape struct {
	tA, tB  bool
	m, n, k int
	beta    float32
	pad     int // extra row stride
	off     int // offset from an aligned start
}

func shapes(rng *rand.Rand) []shape {
	edge := []int{1, 2, 5, 6, 7, 15, 16, 17, 31, 32, 33, 47, 48, 49, 97, 121}
	var out []shape
	for _, tA := range []bool{false, true} {
		for _, tB := range []bool{false, true} {
			for _, beta := range []float32{0, 1, 0.5, -2} {
				for i := 0; i < 6; i++ {
					out = append(out, shape{tA, tB, edge[rng.IntN(len(edge))], edge[rng.IntN(len(edge))], edge[rng.IntN(len(edge))], beta, rng.IntN(3), rng.IntN(8)})
				}
			}
			// Shapes the network runs: the small net's conv (64 × 576 · 576 × 121·2), a k past one pass
			// (maxKC), m past one block (mc), n past one block (nc), and k = 0.
			out = append(out,
				shape{tA, tB, 64, 242, 576, 0, 0, 0},
				shape{tA, tB, 16, 121, 144, 1, 0, 3},
				shape{tA, tB, 7, 19, 2*maxKC + 5, 0.5, 1, 1},
				shape{tA, tB, mc + 13, 33, 40, 0, 0, 5},
				shape{tA, tB, 3, nc + 21, 9, 1, 2, 2},
				shape{tA, tB, 5, 9, 0, 0.5, 0, 0},
			)
		}
	}
	return out
}

func TestGemmAgainstFloat64(t *testing.T) {
	for _, mode := range testModes() {
		t.Run(mode, func(t *testing.T) {
			useMode(t, mode)
			rng := rand.New(rand.NewPCG(1, 2))
			for _, s := range shapes(rng) {
				name := fmt.Sprintf("tA=%v,tB=%v,m=%d,n=%d,k=%d,beta=%v,pad=%d,off=%d", s.tA, s.tB, s.m, s.n, s.k, s.beta, s.pad, s.off)
				ar, ac := s.m, s.k
				if s.tA {
					ar, ac = s.k, s.m
				}
				br, bc := s.k, s.n
				if s.tB {
					br, bc = s.n, s.k
				}
				lda, ldb, ldc := max(1, ac)+s.pad, max(1, bc)+s.pad, s.n+s.pad
				_, a := matrix(rng, ar, ac, lda, s.off)
				_, b := matrix(rng, br, bc, ldb, (s.off+3)%8)
				cFull, c := matrix(rng, s.m, s.n, ldc, (s.off+5)%8)
				if s.beta == 0 { // beta = 0 must not read C: fill it with NaN
					for i := 0; i < s.m; i++ {
						for j := 0; j < s.n; j++ {
							c[i*ldc+j] = float32(math.NaN())
						}
					}
				}
				guard := append([]float32(nil), cFull...)
				want, bound := ref(s.tA, s.tB, s.m, s.n, s.k, a, lda, b, ldb, s.beta, c, ldc)
				Gemm(s.tA, s.tB, s.m, s.n, s.k, a, lda, b, ldb, s.beta, c, ldc)
				off := len(cFull) - len(c)
				for idx := range cFull {
					r, col := (idx-off)/ldc, (idx-off)%ldc
					inside := idx >= off && r < s.m && col < s.n
					if !inside {
						if cFull[idx] != guard[idx] && !(math.IsNaN(float64(cFull[idx])) && math.IsNaN(float64(guard[idx]))) {
							t.Fatalf("%s: wrote outside C at element %d", name, idx)
						}
						continue
					}
					got, w := float64(c[r*ldc+col]), want[r*s.n+col]
					tol := 1e-6*bound[r*s.n+col]*math.Sqrt(float64(s.k+1)) + 1e-30
					if math.IsNaN(got) || math.Abs(got-w) > tol {
						t.Fatalf("%s: C[%d][%d] = %v, want %v (tolerance %.3g)", name, r, col, got, w, tol)
					}
				}
			}
		})
	}
}

func TestGemmPanicsOnShortSlices(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"short a", func() {
			Gemm(false, false, 2, 2, 2, make([]float32, 3), 2, make([]float32, 4), 2, 0, make([]float32, 4), 2)
		}},
		{"short c", func() {
			Gemm(false, false, 2, 2, 2, make([]float32, 4), 2, make([]float32, 4), 2, 0, make([]float32, 3), 2)
		}},
		{"small ldb", func() {
			Gemm(false, true, 2, 3, 2, make([]float32, 4), 2, make([]float32, 6), 1, 0, make([]float32, 6), 3)
		}},
		{"negative", func() { Gemm(false, false, -1, 2, 2, nil, 2, nil, 2, 0, nil, 2) }},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			tc.f()
		}()
	}
}

func TestChoose(t *testing.T) {
	defer Use(Kernel())
	for _, tc := range []struct {
		v    string
		want string
		err  bool
	}{
		{"", Available()[0], false},
		{"auto", Available()[0], false},
		{"gonum", KernelGonum, false},
		{"bogus", Available()[0], true},
	} {
		got, err := choose(tc.v)
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("choose(%q) = %q, %v; want %q, error %v", tc.v, got, err, tc.want, tc.err)
		}
	}
	if _, err := choose("avx2"); (err != nil) == hasAVX2FMA {
		t.Errorf("choose(avx2): error %v with hasAVX2FMA=%v", err, hasAVX2FMA)
	}
	if _, err := choose("avx512"); (err != nil) == hasAVX512 {
		t.Errorf("choose(avx512): error %v with hasAVX512=%v", err, hasAVX512)
	}
	if err := Use(KernelAVX512); (err != nil) == hasAVX512 {
		t.Errorf("Use(avx512): error %v with hasAVX512=%v", err, hasAVX512)
	}
	if err := Use("bogus"); err == nil {
		t.Error("Use(bogus) accepted")
	}
}
