package sgemm

import "golang.org/x/sys/cpu"

// hasAVX2FMA reports whether kernel6x16 can run here (AVX2 and FMA, and the OS saves YMM state,
// which x/sys/cpu folds into HasAVX2).
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// hasAVX512 reports whether kernel6x32 can run here as well (AVX-512F, and the OS saves the ZMM
// and opmask state, which x/sys/cpu folds into HasAVX512F).
var hasAVX512 = hasAVX2FMA && cpu.X86.HasAVX512F

// hasPackedGo is false: on amd64 the packed path runs on the assembly kernels (KernelGo is for the
// other architectures, wasm among them).
const hasPackedGo = false

// kernel6x16 is in kernel_amd64.s.
//
//go:noescape
func kernel6x16(kc int, a, b, c *float32, ldc int)

// kernelRows6x16 is in kernel_amd64.s.
//
//go:noescape
func kernelRows6x16(kc int, a, b *float32, off *int, c *float32, ldc int)

// kernel6x32 is in kernel_amd64.s (AVX-512F).
//
//go:noescape
func kernel6x32(kc int, a, b0, b1, c *float32, ldc int)

// kernelRows6x32 is in kernel_amd64.s (AVX-512F).
//
//go:noescape
func kernelRows6x32(kc int, a, b *float32, off *int, c *float32, ldc int)

// wideKernelAddrs is in kernel_amd64.s.
func wideKernelAddrs() (k, rows uintptr)
