package sgemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkGemm runs the network's GEMM shapes on each kernel, one goroutine:
//
//	go test ./internal/sgemm -run '^$' -bench . -benchmem
//
// conv: the small net's 3×3 tower convolution for one and for four samples ([64 × 576] · [576 × 121·s]);
// tiny: the tiny net's (16 channels); dW: its weight gradient (B transposed); dX: its input gradient
// (A transposed).
func BenchmarkGemm(b *testing.B) {
	for _, s := range []struct {
		name    string
		tA, tB  bool
		m, n, k int
	}{
		{"conv64x121x576", false, false, 64, 121, 576},
		{"conv64x484x576", false, false, 64, 484, 576},
		{"tiny16x484x144", false, false, 16, 484, 144},
		{"dW64x576x484", false, true, 64, 576, 484},
		{"dX576x484x64", true, false, 576, 484, 64},
	} {
		for _, kern := range Available() {
			b.Run(fmt.Sprintf("%s/%s", s.name, kern), func(b *testing.B) {
				defer Use(Kernel())
				if err := Use(kern); err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, 1))
				ar, ac := s.m, s.k
				if s.tA {
					ar, ac = s.k, s.m
				}
				br, bc := s.k, s.n
				if s.tB {
					br, bc = s.n, s.k
				}
				_, a := matrix(rng, ar, ac, ac, 0)
				_, bm := matrix(rng, br, bc, bc, 0)
				c := make([]float32, s.m*s.n)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					Gemm(s.tA, s.tB, s.m, s.n, s.k, a, ac, bm, bc, 0, c, s.n)
				}
				b.ReportMetric(2*float64(s.m*s.n*s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "gflops")
			})
		}
	}
}
