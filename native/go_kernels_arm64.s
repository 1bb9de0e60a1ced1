//go:build arm64 && !purego

// NEON (ARMv8.0 Advanced SIMD) kernels of the pure-Go backend: the arm64
// twins of go_kernels_amd64.s, with the same contracts (declared in
// go_kernels_arm64.go). Float kernels equal the generic Go code up to
// summation order; the 8-bit activation kernels sum integer products
// exactly and scale each block once, as the amd64 ones do.
//
// The Go assembler lacks a few of the instructions used here; they are
// encoded with WORD (register numbers fixed in the macros' arguments):
// FCVTL/FCVTL2 from half precision, SADDLP and SADALP.

#include "textflag.h"

// FCVTL Vd.4S, Vn.4H: the low 4 binary16 values of Vn as float32.
#define FCVTL(n, d) WORD $(0x0E217800 | ((n)<<5) | (d))

// FCVTL2 Vd.4S, Vn.8H: the high 4 binary16 values of Vn as float32.
#define FCVTL2(n, d) WORD $(0x4E217800 | ((n)<<5) | (d))

// SADDLP Vd.4S, Vn.8H: sums of adjacent int16 pairs, as int32.
#define SADDLP(n, d) WORD $(0x4E602800 | ((n)<<5) | (d))

// SADALP Vd.4S, Vn.8H: adds the sums of adjacent int16 pairs to Vd's int32.
#define SADALP(n, d) WORD $(0x4E606800 | ((n)<<5) | (d))

// HSUM4 leaves the sum of the 4 floats of v, (v0+v1)+(v2+v3), in its low
// float.
#define HSUM4(v) \
	VFADDP v.S4, v.S4, v.S4; \
	VFADDP v.S4, v.S4, v.S4

// func dotF32SIMD(a, b *float32, n int) float32
// n is a multiple of 8.
TEXT ·dotF32SIMD(SB), NOSPLIT, $0-28
	MOVD a+0(FP), R0
	MOVD b+8(FP), R1
	MOVD n+16(FP), R2
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16
	VEOR V24.B16, V24.B16, V24.B16
	VEOR V25.B16, V25.B16, V25.B16
	VEOR V26.B16, V26.B16, V26.B16
	VEOR V27.B16, V27.B16, V27.B16

loop32:
	CMP    $32, R2
	BLT    loop8
	VLD1.P 64(R0), [V4.S4, V5.S4, V6.S4, V7.S4]
	VLD1.P 64(R1), [V16.S4, V17.S4, V18.S4, V19.S4]
	VLD1.P 64(R0), [V8.S4, V9.S4, V10.S4, V11.S4]
	VLD1.P 64(R1), [V20.S4, V21.S4, V22.S4, V23.S4]
	VFMLA  V4.S4, V16.S4, V0.S4
	VFMLA  V5.S4, V17.S4, V1.S4
	VFMLA  V6.S4, V18.S4, V2.S4
	VFMLA  V7.S4, V19.S4, V3.S4
	VFMLA  V8.S4, V20.S4, V24.S4
	VFMLA  V9.S4, V21.S4, V25.S4
	VFMLA  V10.S4, V22.S4, V26.S4
	VFMLA  V11.S4, V23.S4, V27.S4
	SUB    $32, R2
	B      loop32

loop8:
	CBZ    R2, done
	VLD1.P 32(R0), [V4.S4, V5.S4]
	VLD1.P 32(R1), [V16.S4, V17.S4]
	VFMLA  V4.S4, V16.S4, V0.S4
	VFMLA  V5.S4, V17.S4, V1.S4
	SUB    $8, R2
	B      loop8

done:
	VFADD V24.S4, V0.S4, V0.S4
	VFADD V25.S4, V1.S4, V1.S4
	VFADD V26.S4, V2.S4, V2.S4
	VFADD V27.S4, V3.S4, V3.S4
	VFADD V1.S4, V0.S4, V0.S4
	VFADD V3.S4, V2.S4, V2.S4
	VFADD V2.S4, V0.S4, V0.S4
	HSUM4(V0)
	FMOVS F0, ret+24(FP)
	RET

// HSUM4x4 sets d to the sums of the 4 floats of a, b, c and e (in that
// order), each summed as HSUM4 does. b and e are clobbered.
#define HSUM4x4(a, b, c, e, d) \
	VFADDP b.S4, a.S4, b.S4; \
	VFADDP e.S4, c.S4, e.S4; \
	VFADDP e.S4, b.S4, d.S4

// func dotF32x4SIMD(w, x *float32, xstride, n int, out *float32)
// out[t] = w · x[t*xstride/4 : …+n] for t = 0..3; xstride in bytes, n a
// multiple of 8. Each sum takes the 8-float steps in the order
// dotF32r2x4SIMD does (two 4-float accumulators, added at the end), so a
// row gives the same result alone or in a pair.
TEXT ·dotF32x4SIMD(SB), NOSPLIT, $0-40
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD xstride+16(FP), R5
	MOVD n+24(FP), R2
	MOVD out+32(FP), R9
	ADD  R5, R1, R3
	ADD  R5, R3, R4
	ADD  R5, R4, R5
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16

loop:
	CBZ    R2, done
	VLD1.P 32(R0), [V0.S4, V1.S4]
	VLD1.P 32(R1), [V2.S4, V3.S4]
	VLD1.P 32(R3), [V4.S4, V5.S4]
	VLD1.P 32(R4), [V6.S4, V7.S4]
	VLD1.P 32(R5), [V8.S4, V9.S4]
	VFMLA  V0.S4, V2.S4, V16.S4
	VFMLA  V1.S4, V3.S4, V17.S4
	VFMLA  V0.S4, V4.S4, V18.S4
	VFMLA  V1.S4, V5.S4, V19.S4
	VFMLA  V0.S4, V6.S4, V20.S4
	VFMLA  V1.S4, V7.S4, V21.S4
	VFMLA  V0.S4, V8.S4, V22.S4
	VFMLA  V1.S4, V9.S4, V23.S4
	SUB    $8, R2
	B      loop

done:
	VFADD   V17.S4, V16.S4, V16.S4
	VFADD   V19.S4, V18.S4, V18.S4
	VFADD   V21.S4, V20.S4, V20.S4
	VFADD   V23.S4, V22.S4, V22.S4
	HSUM4x4(V16, V18, V20, V22, V0)
	VST1    [V0.S4], (R9)
	RET

// func dotF32r2x4SIMD(w *float32, wstride int, x *float32, xstride, n int, out *float32)
// out[4*r+t] = Σ w[r][i]*x[t][i] over n floats for weight rows r = 0, 1
// (wstride bytes apart) and activation rows t = 0..3 (xstride bytes
// apart); n is a multiple of 8. Each sum is accumulated as in
// dotF32x4SIMD.
TEXT ·dotF32r2x4SIMD(SB), NOSPLIT, $0-48
	MOVD w+0(FP), R0
	MOVD wstride+8(FP), R6
	MOVD x+16(FP), R1
	MOVD xstride+24(FP), R5
	MOVD n+32(FP), R2
	MOVD out+40(FP), R9
	ADD  R6, R0, R6
	ADD  R5, R1, R3
	ADD  R5, R3, R4
	ADD  R5, R4, R5
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16
	VEOR V24.B16, V24.B16, V24.B16
	VEOR V25.B16, V25.B16, V25.B16
	VEOR V26.B16, V26.B16, V26.B16
	VEOR V27.B16, V27.B16, V27.B16
	VEOR V28.B16, V28.B16, V28.B16
	VEOR V29.B16, V29.B16, V29.B16
	VEOR V30.B16, V30.B16, V30.B16
	VEOR V31.B16, V31.B16, V31.B16

loop:
	CBZ    R2, done
	VLD1.P 32(R0), [V0.S4, V1.S4]
	VLD1.P 32(R6), [V10.S4, V11.S4]
	VLD1.P 32(R1), [V2.S4, V3.S4]
	VLD1.P 32(R3), [V4.S4, V5.S4]
	VLD1.P 32(R4), [V6.S4, V7.S4]
	VLD1.P 32(R5), [V8.S4, V9.S4]
	VFMLA  V0.S4, V2.S4, V16.S4
	VFMLA  V1.S4, V3.S4, V17.S4
	VFMLA  V0.S4, V4.S4, V18.S4
	VFMLA  V1.S4, V5.S4, V19.S4
	VFMLA  V0.S4, V6.S4, V20.S4
	VFMLA  V1.S4, V7.S4, V21.S4
	VFMLA  V0.S4, V8.S4, V22.S4
	VFMLA  V1.S4, V9.S4, V23.S4
	VFMLA  V10.S4, V2.S4, V24.S4
	VFMLA  V11.S4, V3.S4, V25.S4
	VFMLA  V10.S4, V4.S4, V26.S4
	VFMLA  V11.S4, V5.S4, V27.S4
	VFMLA  V10.S4, V6.S4, V28.S4
	VFMLA  V11.S4, V7.S4, V29.S4
	VFMLA  V10.S4, V8.S4, V30.S4
	VFMLA  V11.S4, V9.S4, V31.S4
	SUB    $8, R2
	B      loop

done:
	VFADD V17.S4, V16.S4, V16.S4
	VFADD V19.S4, V18.S4, V18.S4
	VFADD V21.S4, V20.S4, V20.S4
	VFADD V23.S4, V22.S4, V22.S4
	VFADD V25.S4, V24.S4, V24.S4
	VFADD V27.S4, V26.S4, V26.S4
	VFADD V29.S4, V28.S4, V28.S4
	VFADD V31.S4, V30.S4, V30.S4
	HSUM4x4(V16, V18, V20, V22, V0)
	HSUM4x4(V24, V26, V28, V30, V1)
	VST1  [V0.S4, V1.S4], (R9)
	RET

// func dotF16SIMD(w *byte, x *float32, n int) float32
// w holds n binary16 values; n is a multiple of 8.
TEXT ·dotF16SIMD(SB), NOSPLIT, $0-28
	MOVD w+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R2
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16

loop16:
	CMP    $16, R2
	BLT    loop8
	VLD1.P 32(R0), [V4.H8, V5.H8]
	VLD1.P 64(R1), [V16.S4, V17.S4, V18.S4, V19.S4]
	FCVTL(4, 6)
	FCVTL2(4, 7)
	FCVTL(5, 8)
	FCVTL2(5, 9)
	VFMLA  V6.S4, V16.S4, V0.S4
	VFMLA  V7.S4, V17.S4, V1.S4
	VFMLA  V8.S4, V18.S4, V2.S4
	VFMLA  V9.S4, V19.S4, V3.S4
	SUB    $16, R2
	B      loop16

loop8:
	CBZ    R2, done
	VLD1.P 16(R0), [V4.H8]
	VLD1.P 32(R1), [V16.S4, V17.S4]
	FCVTL(4, 6)
	FCVTL2(4, 7)
	VFMLA  V6.S4, V16.S4, V0.S4
	VFMLA  V7.S4, V17.S4, V1.S4
	SUB    $8, R2
	B      loop8

done:
	VFADD V1.S4, V0.S4, V0.S4
	VFADD V3.S4, V2.S4, V2.S4
	VFADD V2.S4, V0.S4, V0.S4
	HSUM4(V0)
	FMOVS F0, ret+24(FP)
	RET

// func cvtF16SIMD(dst *float32, src *byte, n int)
// n is a multiple of 8.
TEXT ·cvtF16SIMD(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD n+16(FP), R2

loop:
	CBZ    R2, done
	VLD1.P 16(R1), [V4.H8]
	FCVTL(4, 0)
	FCVTL2(4, 1)
	VST1.P [V0.S4, V1.S4], 32(R0)
	SUB    $8, R2
	B      loop

done:
	RET
