package sgemm

import "unsafe"

// goKernel6x32 and goKernelRows6x32 are the AVX-512 kernels' contracts in Go (see kernel6x32 and
// kernelRows6x32 in kernel_amd64.s). Use(KernelAVX512Go) runs the 32-column driver through them, so
// that tests on CPUs without AVX-512 cover it; TestAVX512KernelsEmulated checks the assembly
// against the same contract on an emulated AVX-512 CPU.
func goKernel6x32(kc int, a, b0, b1, c *float32, ldc int) {
	as := unsafe.Slice(a, kc*mr)
	p0, p1 := unsafe.Slice(b0, kc*nr), unsafe.Slice(b1, kc*nr)
	goTile32(kc, as, func(p int) ([]float32, []float32) { return p0[p*nr : p*nr+nr], p1[p*nr : p*nr+nr] }, c, ldc)
}

func goKernelRows6x32(kc int, a, b *float32, off *int, c *float32, ldc int) {
	as, offs := unsafe.Slice(a, kc*mr), unsafe.Slice(off, kc)
	goTile32(kc, as, func(p int) ([]float32, []float32) {
		row := unsafe.Slice((*float32)(unsafe.Add(unsafe.Pointer(b), 4*offs[p])), 2*nr)
		return row[:nr], row[nr:]
	}, c, ldc)
}

// goTile32 adds the 6×32 tile Σ_p a[p*6+i]·B[p][j] into c (row stride ldc), B's row p split into
// its two 16-column halves by rowB.
func goTile32(kc int, a []float32, rowB func(p int) ([]float32, []float32), c *float32, ldc int) {
	var acc [mr][2 * nr]float32
	for p := 0; p < kc; p++ {
		lo, hi := rowB(p)
		for i := 0; i < mr; i++ {
			ai := a[p*mr+i]
			for j := 0; j < nr; j++ {
				acc[i][j] += ai * lo[j]
				acc[i][nr+j] += ai * hi[j]
			}
		}
	}
	cs := unsafe.Slice(c, (mr-1)*ldc+2*nr)
	for i := range acc {
		for j, v := range acc[i] {
			cs[i*ldc+j] += v
		}
	}
}
