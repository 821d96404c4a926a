//go:build !amd64

package sgemm

const (
	hasAVX2FMA = false
	hasAVX512  = false
)

func kernel6x16(kc int, a, b, c *float32, ldc int) {
	panic("sgemm: no SIMD kernel on this architecture")
}

func kernelRows6x16(kc int, a, b *float32, off *int, c *float32, ldc int) {
	panic("sgemm: no SIMD kernel on this architecture")
}

func kernel6x32(kc int, a, b0, b1, c *float32, ldc int) {
	panic("sgemm: no SIMD kernel on this architecture")
}

func kernelRows6x32(kc int, a, b *float32, off *int, c *float32, ldc int) {
	panic("sgemm: no SIMD kernel on this architecture")
}
