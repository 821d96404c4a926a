package sgemm

import "unsafe"

// goKernel6x16 and goKernelRows6x16 are kernel6x16's and kernelRows6x16's contracts (see
// kernel_amd64.s) in Go: the micro-kernels of KernelGo, the packed path on architectures without
// the assembly (wasm among them). a is the packed 6-row panel (kc×6, row p at a[6p:]), B's row p is
// 16 floats at b[16p:] (goKernel6x16) or at b + off[p] floats (goKernelRows6x16); the 6×16 tile
// Σ_p a[6p+i]·B[p][j] is added into c (row stride ldc).
func goKernel6x16(kc int, a, b, c *float32, ldc int) {
	as, bs := unsafe.Slice(a, kc*mr), unsafe.Slice(b, kc*nr)
	var acc [mr * nr]float32
	for p := 0; p < kc; p++ {
		goRank1(&acc, (*[mr]float32)(as[p*mr:p*mr+mr]), (*[nr]float32)(bs[p*nr:p*nr+nr]))
	}
	goAddTile(&acc, c, ldc)
}

func goKernelRows6x16(kc int, a, b *float32, off *int, c *float32, ldc int) {
	as, offs := unsafe.Slice(a, kc*mr), unsafe.Slice(off, kc)
	var acc [mr * nr]float32
	for p := 0; p < kc; p++ {
		row := (*[nr]float32)(unsafe.Add(unsafe.Pointer(b), 4*offs[p]))
		goRank1(&acc, (*[mr]float32)(as[p*mr:p*mr+mr]), row)
	}
	goAddTile(&acc, c, ldc)
}

// goRank1 adds the outer product a·bᵀ to the 6×16 tile acc (row-major). Fixed-size arrays, so the
// compiler drops every bounds check, and each row's multiplier is loaded once.
func goRank1(acc *[mr * nr]float32, a *[mr]float32, b *[nr]float32) {
	for i := 0; i < mr; i++ {
		ai := a[i]
		r := (*[nr]float32)(acc[i*nr : i*nr+nr])
		r[0] += ai * b[0]
		r[1] += ai * b[1]
		r[2] += ai * b[2]
		r[3] += ai * b[3]
		r[4] += ai * b[4]
		r[5] += ai * b[5]
		r[6] += ai * b[6]
		r[7] += ai * b[7]
		r[8] += ai * b[8]
		r[9] += ai * b[9]
		r[10] += ai * b[10]
		r[11] += ai * b[11]
		r[12] += ai * b[12]
		r[13] += ai * b[13]
		r[14] += ai * b[14]
		r[15] += ai * b[15]
	}
}

// goAddTile adds the 6×16 tile acc into c (row stride ldc).
func goAddTile(acc *[mr * nr]float32, c *float32, ldc int) {
	cs := unsafe.Slice(c, (mr-1)*ldc+nr)
	for i := 0; i < mr; i++ {
		row := cs[i*ldc : i*ldc+nr]
		for j, v := range acc[i*nr : i*nr+nr] {
			row[j] += v
		}
	}
}
