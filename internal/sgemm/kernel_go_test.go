package sgemm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGoKernels6x16AgainstFloat64 checks KernelGo's micro-kernels on every architecture (on amd64
// the packed path never calls them, so the Gemm tests cover them only elsewhere): the 6×16 tile of
// a packed panel times B, added into a C with a wider row stride, against a float64 sum.
func TestGoKernels6x16AgainstFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, kc := range []int{0, 1, 2, 7, 64, 257} {
		for _, ldc := range []int{16, 23} {
			a := make([]float32, kc*mr+1) // +1: a kc of 0 still has a first element to point at
			for i := range a {
				a[i] = rng.Float32()*2 - 1
			}
			// B's rows: contiguous for goKernel6x16, scattered by off for goKernelRows6x16
			bs := make([]float32, kc*nr+1)
			rows := make([]float32, 3*kc*nr+nr+1)
			off := make([]int, kc+1)
			for p := 0; p < kc; p++ {
				off[p] = 3*p*nr + rng.IntN(2*nr+1) // rows apart, at uneven offsets
				for j := 0; j < nr; j++ {
					v := rng.Float32()*2 - 1
					bs[p*nr+j], rows[off[p]+j] = v, v
				}
			}
			c0 := make([]float32, (mr-1)*ldc+nr)
			for i := range c0 {
				c0[i] = rng.Float32()
			}
			want := make([]float64, len(c0))
			for i := range want {
				want[i] = float64(c0[i])
			}
			for i := 0; i < mr; i++ {
				for j := 0; j < nr; j++ {
					for p := 0; p < kc; p++ {
						want[i*ldc+j] += float64(a[p*mr+i]) * float64(bs[p*nr+j])
					}
				}
			}
			for name, run := range map[string]func(c []float32){
				"goKernel6x16":     func(c []float32) { goKernel6x16(kc, &a[0], &bs[0], &c[0], ldc) },
				"goKernelRows6x16": func(c []float32) { goKernelRows6x16(kc, &a[0], &rows[0], &off[0], &c[0], ldc) },
			} {
				c := append([]float32(nil), c0...)
				run(c)
				for i := range c {
					if i%ldc >= nr {
						if c[i] != c0[i] {
							t.Fatalf("%s kc=%d ldc=%d: c[%d] outside the tile changed", name, kc, ldc, i)
						}
						continue
					}
					if d := math.Abs(float64(c[i]) - want[i]); d > 1e-4*(1+math.Sqrt(float64(kc))) {
						t.Fatalf("%s kc=%d ldc=%d: c[%d] = %g, want %g", name, kc, ldc, i, c[i], want[i])
					}
				}
			}
		}
	}
}
