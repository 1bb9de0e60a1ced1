//go:build amd64 && !purego

#include "textflag.h"

// REDUCE1 folds the 16 floats of z into the 4 of x (z, y, x one register).
#define REDUCE1(z, y, x) VEXTRACTF64X4 $1, z, Y16; VADDPS Y16, y, y; VEXTRACTF32X4 $1, y, X16; VADDPS X16, x, x

// REDUCE4 stores the sums of za..zd (tokens 0..3 of one row) at off(AX).
#define REDUCE4(za, zb, zc, zd, ya, yb, yc, yd, xa, xb, xc, xd, off) \
	REDUCE1(za, ya, xa); REDUCE1(zb, yb, xb); REDUCE1(zc, yc, xc); REDUCE1(zd, yd, xd); \
	VHADDPS xb, xa, xa; VHADDPS xd, xc, xc; VHADDPS xc, xa, xa; VMOVUPS xa, off(AX)

// func dotF32r4x4AVX512(w *float32, wstride int, x *float32, xstride, n int, out *float32)
// out[4*r+t] = Σ w[r][i]*x[t][i] for 4 weight rows wstride bytes apart and
// 4 activation rows xstride bytes apart; n is a multiple of 16. Z0..Z15
// accumulate row r, token t in Z(4r+t).
TEXT ·dotF32r4x4AVX512(SB), NOSPLIT, $0-48
	MOVQ w+0(FP), SI
	MOVQ wstride+8(FP), BX
	LEAQ (SI)(BX*1), R11
	LEAQ (R11)(BX*1), R12
	LEAQ (R12)(BX*1), R13
	MOVQ x+16(FP), DI
	MOVQ xstride+24(FP), DX
	MOVQ n+32(FP), CX
	LEAQ (DI)(DX*1), R8
	LEAQ (R8)(DX*1), R9
	LEAQ (R9)(DX*1), R10
	SHLQ $2, CX
	XORQ AX, AX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	VPXORD Z8, Z8, Z8
	VPXORD Z9, Z9, Z9
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	VPXORD Z12, Z12, Z12
	VPXORD Z13, Z13, Z13
	VPXORD Z14, Z14, Z14
	VPXORD Z15, Z15, Z15

loop:
	CMPQ        AX, CX
	JGE         done
	VMOVUPS     (DI)(AX*1), Z16
	VMOVUPS     (R8)(AX*1), Z17
	VMOVUPS     (R9)(AX*1), Z18
	VMOVUPS     (R10)(AX*1), Z19
	VMOVUPS     (SI)(AX*1), Z20
	VMOVUPS     (R11)(AX*1), Z21
	VMOVUPS     (R12)(AX*1), Z22
	VMOVUPS     (R13)(AX*1), Z23
	VFMADD231PS Z16, Z20, Z0
	VFMADD231PS Z17, Z20, Z1
	VFMADD231PS Z18, Z20, Z2
	VFMADD231PS Z19, Z20, Z3
	VFMADD231PS Z16, Z21, Z4
	VFMADD231PS Z17, Z21, Z5
	VFMADD231PS Z18, Z21, Z6
	VFMADD231PS Z19, Z21, Z7
	VFMADD231PS Z16, Z22, Z8
	VFMADD231PS Z17, Z22, Z9
	VFMADD231PS Z18, Z22, Z10
	VFMADD231PS Z19, Z22, Z11
	VFMADD231PS Z16, Z23, Z12
	VFMADD231PS Z17, Z23, Z13
	VFMADD231PS Z18, Z23, Z14
	VFMADD231PS Z19, Z23, Z15
	ADDQ        $64, AX
	JMP         loop

done:
	MOVQ out+40(FP), AX
	REDUCE4(Z0, Z1, Z2, Z3, Y0, Y1, Y2, Y3, X0, X1, X2, X3, 0)
	REDUCE4(Z4, Z5, Z6, Z7, Y4, Y5, Y6, Y7, X4, X5, X6, X7, 16)
	REDUCE4(Z8, Z9, Z10, Z11, Y8, Y9, Y10, Y11, X8, X9, X10, X11, 32)
	REDUCE4(Z12, Z13, Z14, Z15, Y12, Y13, Y14, Y15, X12, X13, X14, X15, 48)
	VZEROUPPER
	RET
