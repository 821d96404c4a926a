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

// BenchmarkGemmRows is the implicit convolution's product: the small net's 3×3 convolution of two
// samples over padded 12×12 planes ([64 × 576] · [576 × 288], B read through tap offsets).
func BenchmarkGemmRows(b *testing.B) {
	const m, cin, ns = 64, 64, 2
	k, n := cin*9, ns*144
	L := 16 + n + 32
	rng := rand.New(rand.NewPCG(1, 1))
	_, a := matrix(rng, m, k, k, 0)
	pa := PackA(false, m, k, a, k)
	_, planes := matrix(rng, 1, cin*L, cin*L, 0)
	off := make([]int, k)
	for ci := 0; ci < cin; ci++ {
		for t := 0; t < 9; t++ {
			off[ci*9+t] = ci*L + 16 + (t/3-1)*12 + (t%3 - 1)
		}
	}
	c := make([]float32, m*n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		GemmRows(pa, n, planes, off, 0, c, n)
	}
	b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "gflops")
}

// BenchmarkGemmPackedB is the tiny net's policy head at batch 32: [32 × 242] · [242 × 2142] with the
// weight packed once.
func BenchmarkGemmPackedB(b *testing.B) {
	const m, k, n = 32, 242, 2142
	rng := rand.New(rand.NewPCG(1, 1))
	_, a := matrix(rng, m, k, k, 0)
	_, w := matrix(rng, n, k, k, 0)
	pb := PackB(true, k, n, w, k)
	c := make([]float32, m*n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		GemmPackedB(false, m, a, k, pb, 0, n, 0, c, n)
	}
	b.ReportMetric(2*float64(m*n*k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "gflops")
}
