//go:build !amd64

package sgemm

// Without amd64's assembly the packed path runs on Go micro-kernels (KernelGo): in WebAssembly,
// which has no SIMD in Go, they are faster than gonum's generic Go (BENCHMARKS.md, "Web export").

const (
	hasAVX2FMA  = false
	hasAVX512   = false
	hasPackedGo = true
)

func kernel6x16(kc int, a, b, c *float32, ldc int) { goKernel6x16(kc, a, b, c, ldc) }

func kernelRows6x16(kc int, a, b *float32, off *int, c *float32, ldc int) {
	goKernelRows6x16(kc, a, b, off, c, ldc)
}

func kernel6x32(kc int, a, b0, b1, c *float32, ldc int) { goKernel6x32(kc, a, b0, b1, c, ldc) }

func kernelRows6x32(kc int, a, b *float32, off *int, c *float32, ldc int) {
	goKernelRows6x32(kc, a, b, off, c, ldc)
}
