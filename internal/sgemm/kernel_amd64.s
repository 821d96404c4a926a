#include "textflag.h"

// The 6×16 tile's accumulators: row i in Y(4+2i) (columns 0–7) and Y(5+2i) (8–15). Y0, Y1 hold a
// row of B, Y2 and Y3 broadcast elements of A.

// ZERO clears the accumulators.
#define ZERO \
	VXORPS Y4, Y4, Y4; VXORPS Y5, Y5, Y5; VXORPS Y6, Y6, Y6; VXORPS Y7, Y7, Y7; \
	VXORPS Y8, Y8, Y8; VXORPS Y9, Y9, Y9; VXORPS Y10, Y10, Y10; VXORPS Y11, Y11, Y11; \
	VXORPS Y12, Y12, Y12; VXORPS Y13, Y13, Y13; VXORPS Y14, Y14, Y14; VXORPS Y15, Y15, Y15

// FMA6 adds the outer product of the 6 elements of A at a0(SI) with the row of B in Y0, Y1.
#define FMA6(a0, a1, a2, a3, a4, a5) \
	VBROADCASTSS a0(SI), Y2; VBROADCASTSS a1(SI), Y3; \
	VFMADD231PS Y0, Y2, Y4; VFMADD231PS Y1, Y2, Y5; VFMADD231PS Y0, Y3, Y6; VFMADD231PS Y1, Y3, Y7; \
	VBROADCASTSS a2(SI), Y2; VBROADCASTSS a3(SI), Y3; \
	VFMADD231PS Y0, Y2, Y8; VFMADD231PS Y1, Y2, Y9; VFMADD231PS Y0, Y3, Y10; VFMADD231PS Y1, Y3, Y11; \
	VBROADCASTSS a4(SI), Y2; VBROADCASTSS a5(SI), Y3; \
	VFMADD231PS Y0, Y2, Y12; VFMADD231PS Y1, Y2, Y13; VFMADD231PS Y0, Y3, Y14; VFMADD231PS Y1, Y3, Y15

// STOREROW adds two accumulators into the 16 floats at (DX) and moves DX to the next row (R8 bytes).
#define STOREROW(lo, hi) \
	VADDPS (DX), lo, lo; VADDPS 32(DX), hi, hi; VMOVUPS lo, (DX); VMOVUPS hi, 32(DX); ADDQ R8, DX

// STORE adds the tile into C.
#define STORE \
	STOREROW(Y4, Y5); STOREROW(Y6, Y7); STOREROW(Y8, Y9); STOREROW(Y10, Y11); \
	STOREROW(Y12, Y13); STOREROW(Y14, Y15)

// func kernel6x16(kc int, a, b, c *float32, ldc int)
//
// C[0:6][0:16] += Σ_p A[i][p]·B[p][j] for p in [0, kc), with A packed k-major in panels of 6
// (a[p*6+i]) and B packed k-major in panels of 16 (b[p*16+j]); C is row-major with row stride ldc
// floats. The k loop is unrolled by two.
TEXT ·kernel6x16(SB), NOSPLIT, $0-40
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	SHLQ $2, R8
	ZERO

	MOVQ CX, R9
	SHRQ $1, R9
	JZ   tail

loop2:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	FMA6(0, 4, 8, 12, 16, 20)
	VMOVUPS 64(DI), Y0
	VMOVUPS 96(DI), Y1
	FMA6(24, 28, 32, 36, 40, 44)
	ADDQ    $48, SI
	ADDQ    $128, DI
	DECQ    R9
	JNZ     loop2

tail:
	ANDQ    $1, CX
	JZ      store
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	FMA6(0, 4, 8, 12, 16, 20)

store:
	STORE
	VZEROUPPER
	RET

// func kernelRows6x16(kc int, a, b *float32, off *int, c *float32, ldc int)
//
// As kernel6x16, but B is not packed: row p of the 16-column panel starts at b + off[p] floats
// (off is an array of kc ints), so a convolution reads its shifted input planes in place.
TEXT ·kernelRows6x16(SB), NOSPLIT, $0-48
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ off+24(FP), R10
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	SHLQ $2, R8
	ZERO
	TESTQ CX, CX
	JZ    rstore

rloop:
	MOVQ    (R10), R11
	VMOVUPS (DI)(R11*4), Y0
	VMOVUPS 32(DI)(R11*4), Y1
	FMA6(0, 4, 8, 12, 16, 20)
	ADDQ    $24, SI
	ADDQ    $8, R10
	DECQ    CX
	JNZ     rloop

rstore:
	STORE
	VZEROUPPER
	RET

// The AVX-512 kernels compute 6×32 tiles: two adjacent 16-column panels of B at once, one zmm
// register per 16 columns. Row i of the tile is in Z(4+2i) (columns 0–15) and Z(5+2i) (16–31);
// Z0, Z1 hold a row of B, Z2 and Z3 broadcast elements of A. Only AVX-512F instructions are used
// (VPXORD rather than VXORPS, which needs AVX-512DQ on zmm).

// ZERO512 clears the accumulators.
#define ZERO512 \
	VPXORD Z4, Z4, Z4; VPXORD Z5, Z5, Z5; VPXORD Z6, Z6, Z6; VPXORD Z7, Z7, Z7; \
	VPXORD Z8, Z8, Z8; VPXORD Z9, Z9, Z9; VPXORD Z10, Z10, Z10; VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; VPXORD Z13, Z13, Z13; VPXORD Z14, Z14, Z14; VPXORD Z15, Z15, Z15

// FMA6Z adds the outer product of the 6 elements of A at a0(SI) with the row of B in Z0, Z1.
#define FMA6Z(a0, a1, a2, a3, a4, a5) \
	VBROADCASTSS a0(SI), Z2; VBROADCASTSS a1(SI), Z3; \
	VFMADD231PS Z0, Z2, Z4; VFMADD231PS Z1, Z2, Z5; VFMADD231PS Z0, Z3, Z6; VFMADD231PS Z1, Z3, Z7; \
	VBROADCASTSS a2(SI), Z2; VBROADCASTSS a3(SI), Z3; \
	VFMADD231PS Z0, Z2, Z8; VFMADD231PS Z1, Z2, Z9; VFMADD231PS Z0, Z3, Z10; VFMADD231PS Z1, Z3, Z11; \
	VBROADCASTSS a4(SI), Z2; VBROADCASTSS a5(SI), Z3; \
	VFMADD231PS Z0, Z2, Z12; VFMADD231PS Z1, Z2, Z13; VFMADD231PS Z0, Z3, Z14; VFMADD231PS Z1, Z3, Z15

// STOREROWZ adds two accumulators into the 32 floats at (DX) and moves DX to the next row (R8 bytes).
#define STOREROWZ(lo, hi) \
	VADDPS (DX), lo, lo; VADDPS 64(DX), hi, hi; VMOVUPS lo, (DX); VMOVUPS hi, 64(DX); ADDQ R8, DX

// STOREZ adds the tile into C.
#define STOREZ \
	STOREROWZ(Z4, Z5); STOREROWZ(Z6, Z7); STOREROWZ(Z8, Z9); STOREROWZ(Z10, Z11); \
	STOREROWZ(Z12, Z13); STOREROWZ(Z14, Z15)

// func kernel6x32(kc int, a, b0, b1, c *float32, ldc int)
//
// C[0:6][0:32] += Σ_p A[i][p]·B[p][j] for p in [0, kc), with A packed k-major in panels of 6
// (a[p*6+i]) and B's columns 0–15 and 16–31 in two panels packed k-major in panels of 16
// (b0[p*16+j] and b1[p*16+j−16]); C is row-major with row stride ldc floats. The k loop is
// unrolled by two.
TEXT ·kernel6x32(SB), NOSPLIT, $0-48
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b0+16(FP), DI
	MOVQ b1+24(FP), BX
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	SHLQ $2, R8
	ZERO512

	MOVQ CX, R9
	SHRQ $1, R9
	JZ   ztail

zloop2:
	VMOVUPS (DI), Z0
	VMOVUPS (BX), Z1
	FMA6Z(0, 4, 8, 12, 16, 20)
	VMOVUPS 64(DI), Z0
	VMOVUPS 64(BX), Z1
	FMA6Z(24, 28, 32, 36, 40, 44)
	ADDQ    $48, SI
	ADDQ    $128, DI
	ADDQ    $128, BX
	DECQ    R9
	JNZ     zloop2

ztail:
	ANDQ    $1, CX
	JZ      zstore
	VMOVUPS (DI), Z0
	VMOVUPS (BX), Z1
	FMA6Z(0, 4, 8, 12, 16, 20)

zstore:
	STOREZ
	VZEROUPPER
	RET

// func kernelRows6x32(kc int, a, b *float32, off *int, c *float32, ldc int)
//
// As kernel6x32, but B is not packed: row p of the 32 columns starts at b + off[p] floats (off is
// an array of kc ints), as kernelRows6x16 reads it.
TEXT ·kernelRows6x32(SB), NOSPLIT, $0-48
	MOVQ kc+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ off+24(FP), R10
	MOVQ c+32(FP), DX
	MOVQ ldc+40(FP), R8
	SHLQ $2, R8
	ZERO512
	TESTQ CX, CX
	JZ    zrstore

zrloop:
	MOVQ    (R10), R11
	VMOVUPS (DI)(R11*4), Z0
	VMOVUPS 64(DI)(R11*4), Z1
	FMA6Z(0, 4, 8, 12, 16, 20)
	ADDQ    $24, SI
	ADDQ    $8, R10
	DECQ    CX
	JNZ     zrloop

zrstore:
	STOREZ
	VZEROUPPER
	RET

// func wideKernelAddrs() (k, rows uintptr)
//
// The entry addresses of kernel6x32 and kernelRows6x32 (their ABI0 code), for the test that runs
// that code on an emulated AVX-512 CPU.
TEXT ·wideKernelAddrs(SB), NOSPLIT, $0-16
	LEAQ ·kernel6x32(SB), AX
	MOVQ AX, k+0(FP)
	LEAQ ·kernelRows6x32(SB), AX
	MOVQ AX, rows+8(FP)
	RET
