package sgemm

import "golang.org/x/sys/cpu"

// hasAVX2FMA reports whether kernel6x16 can run here (AVX2 and FMA, and the OS saves YMM state,
// which x/sys/cpu folds into HasAVX2).
var hasAVX2FMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kernel6x16 is in kernel_amd64.s.
//
//go:noescape
func kernel6x16(kc int, a, b, c *float32, ldc int)

// kernelRows6x16 is in kernel_amd64.s.
//
//go:noescape
func kernelRows6x16(kc int, a, b *float32, off *int, c *float32, ldc int)
