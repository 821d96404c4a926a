// Package sgemm is the float32 matrix multiply of the pure-Go network backend (model/gonum): a
// packed, cache-blocked SGEMM in the manner of BLIS/GotoBLAS whose inner micro-kernels are written
// in Go assembly, chosen at run time from the CPU's features (golang.org/x/sys/cpu): 6×32 tiles in
// zmm registers with AVX-512F, 6×16 tiles in ymm registers with AVX2 + FMA (also the AVX-512 path's
// kernel for a last 16-column panel). On other architectures (WebAssembly among them) the same packed
// path runs on Go micro-kernels (KernelGo). On amd64 CPUs without AVX2 and FMA, or when the
// environment variable YINSH_KERNEL=gonum forces it, every call goes to gonum's float32 BLAS
// (generic Go with SSE axpy and dot kernels), which was the backend's only path before this package.
//
// Conventions: matrices are row-major float32 slices; op(A) is m×k (A itself k×m when transposed,
// row stride lda), op(B) is k×n (n×k when transposed, row stride ldb), C is m×n with row stride ldc.
// Gemm is serial: it starts no goroutines; callers split work between threads themselves.
package sgemm

import (
	"fmt"
	"log/slog"
	"os"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Kernel names, as Kernel returns them and YINSH_KERNEL and Use accept.
const (
	KernelAVX512 = "avx512"   // the packed SGEMM with the AVX-512F 6×32 micro-kernels (amd64)
	KernelAVX2   = "avx2+fma" // the packed SGEMM with the AVX2/FMA 6×16 micro-kernels (amd64)
	KernelGonum  = "gonum"    // gonum's blas32 (generic Go + SSE), the fallback
	KernelGo     = "go"       // the packed SGEMM with Go micro-kernels: the default without amd64 (wasm)

	// KernelAVX512Go is for tests only (Use accepts it, Available never lists it): the AVX-512
	// path's 32-column tiling with Go versions of its micro-kernels, on any CPU with AVX2.
	KernelAVX512Go = "avx512-go"
)

// EnvVar names the environment variable that picks the kernel: "gonum" forces the fallback, "avx2"
// the AVX2 kernels even on an AVX-512 CPU, "avx512" the AVX-512 ones; "auto" (the default, also
// when unset or empty) uses the best the CPU has.
const EnvVar = "YINSH_KERNEL"

// The kernel in use, by how much of the packed path it takes: none (gonum), the packed path with
// 6×16 tiles (AVX2), or with 32-column tiles too (AVX-512), whose kernels are wide6x32 and
// wideRows6x32 (the assembly, or the Go versions for KernelAVX512Go).
const (
	modeGonum int32 = iota
	modeAVX2
	modeAVX512
	modeAVX512Go
	modeGo // the packed path, 6×16 tiles, on the Go micro-kernels (not amd64)
)

var (
	mode         atomic.Int32
	wide6x32     = kernel6x32
	wideRows6x32 = kernelRows6x32
)

// simd reports that the packed path is in use; wide, that it takes 32-column tiles.
func simd() bool { return mode.Load() != modeGonum }
func wide() bool { m := mode.Load(); return m == modeAVX512 || m == modeAVX512Go }

func init() {
	name, err := choose(os.Getenv(EnvVar))
	if err != nil {
		slog.Warn("sgemm: ignoring "+EnvVar, "err", err, "using", name)
	}
	if err := Use(name); err != nil {
		panic(err) // choose only returns kernels this CPU has
	}
}

// choose maps a YINSH_KERNEL value to the kernel used on this CPU.
func choose(v string) (string, error) {
	best := Available()[0]
	switch v {
	case "", "auto":
		return best, nil
	case "gonum", "generic", "off":
		return KernelGonum, nil
	case "go":
		if !hasPackedGo {
			return best, fmt.Errorf("%s=go is for architectures without the assembly kernels (not amd64)", EnvVar)
		}
		return KernelGo, nil
	case "avx2":
		if !hasAVX2FMA {
			return KernelGonum, fmt.Errorf("%s=avx2 but this CPU lacks AVX2 or FMA (or is not amd64)", EnvVar)
		}
		return KernelAVX2, nil
	case "avx512":
		if !hasAVX512 {
			return best, fmt.Errorf("%s=avx512 but this CPU lacks AVX-512F (or is not amd64)", EnvVar)
		}
		return KernelAVX512, nil
	}
	return best, fmt.Errorf("%s=%q: want auto, avx512, avx2, go or gonum", EnvVar, v)
}

// Kernel names the kernel Gemm uses now.
func Kernel() string {
	return [...]string{KernelGonum, KernelAVX2, KernelAVX512, KernelAVX512Go, KernelGo}[mode.Load()]
}

// Available lists the kernels this CPU can run, best first.
func Available() []string {
	switch {
	case hasAVX512:
		return []string{KernelAVX512, KernelAVX2, KernelGonum}
	case hasAVX2FMA:
		return []string{KernelAVX2, KernelGonum}
	case hasPackedGo:
		return []string{KernelGo, KernelGonum}
	}
	return []string{KernelGonum}
}

// Use switches the kernel (tests and benchmarks compare the paths in one process). It must not be
// called while another goroutine is inside Gemm.
func Use(name string) error {
	var m int32
	switch {
	case name == KernelGonum:
		m = modeGonum
	case name == KernelAVX2 && hasAVX2FMA:
		m = modeAVX2
	case name == KernelAVX512 && hasAVX512:
		m = modeAVX512
	case name == KernelAVX512Go && hasAVX2FMA:
		m = modeAVX512Go
	case name == KernelGo && hasPackedGo:
		m = modeGo
	case name == KernelAVX2 || name == KernelAVX512 || name == KernelAVX512Go || name == KernelGo:
		return fmt.Errorf("sgemm: kernel %s is not available on this CPU", name)
	default:
		return fmt.Errorf("sgemm: unknown kernel %q (have %v)", name, Available())
	}
	wide6x32, wideRows6x32 = kernel6x32, kernelRows6x32
	if m == modeAVX512Go {
		wide6x32, wideRows6x32 = goKernel6x32, goKernelRows6x32
	}
	mode.Store(m)
	return nil
}

// Gemm computes C = op(A)·op(B) + beta·C (see the package comment for shapes and strides). With
// beta = 0, C is overwritten without being read. It panics, as BLAS does, on negative sizes, strides
// smaller than a row, or slices too short for the sizes given: those are programming errors.
func Gemm(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	check(tA, tB, m, n, k, a, lda, b, ldb, c, ldc)
	if m == 0 || n == 0 {
		return
	}
	if !simd() {
		ta, tb := blas.NoTrans, blas.NoTrans
		if tA {
			ta = blas.Trans
		}
		if tB {
			tb = blas.Trans
		}
		blas32.Implementation().Sgemm(ta, tb, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
		return
	}
	scale(m, n, beta, c, ldc)
	if k == 0 {
		return
	}
	gemmPacked(tA, tB, m, n, k, a, lda, b, ldb, nil, c, ldc)
}

// scale multiplies the m×n matrix C by beta (beta = 0 clears it, also over NaNs).
func scale(m, n int, beta float32, c []float32, ldc int) {
	switch beta {
	case 1:
	case 0:
		for i := 0; i < m; i++ {
			clear(c[i*ldc : i*ldc+n])
		}
	default:
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			for j := range row {
				row[j] *= beta
			}
		}
	}
}

// check panics on arguments that would make Gemm read or write outside its slices.
func check(tA, tB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	checkAC(tA, m, n, k, a, lda, c, ldc)
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	need("b", b, br, bc, ldb)
}

// checkAC is check for everything but B.
func checkAC(tA bool, m, n, k int, a []float32, lda int, c []float32, ldc int) {
	if m < 0 || n < 0 || k < 0 {
		panic(fmt.Sprintf("sgemm: negative size m=%d n=%d k=%d", m, n, k))
	}
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	need("a", a, ar, ac, lda)
	need("c", c, m, n, ldc)
}

// need panics unless s holds a rows×cols matrix with row stride ld.
func need(name string, s []float32, rows, cols, ld int) {
	if ld < max(1, cols) {
		panic(fmt.Sprintf("sgemm: ld%s=%d < %d columns", name, ld, cols))
	}
	if rows > 0 && cols > 0 && len(s) < (rows-1)*ld+cols {
		panic(fmt.Sprintf("sgemm: %s has %d elements, %d×%d with stride %d needs %d", name, len(s), rows, cols, ld, (rows-1)*ld+cols))
	}
}
