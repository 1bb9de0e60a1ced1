//go:build arm64 && !purego

// NEON (ARMv8.0 Advanced SIMD) kernels of the pure-Go backend: the arm64
// twins of go_kernels_amd64.s, with the same contracts (declared in
// go_kernels_simd.go and go_kernels_arm64.go). Float kernels equal the generic Go code up to
// summation order; the 8-bit activation kernels sum integer products
// exactly and scale each block once, as the amd64 ones do.
//
// The Go assembler lacks a few of the instructions used here; they are
// encoded with WORD (register numbers fixed in the macros' arguments):
// FCVTL/FCVTL2 from half precision, SADDLP, SADALP and SDOT.
//
// The 8-bit activation dots have two inner paths: ARMv8.0 NEON (SMULL to
// int16, then SADDLP/SADALP to int32), and, where haveDotProd (the CPU has
// the Armv8.2 dot product extension), SDOT straight to int32. Both sum
// the same integer products exactly.

#include "textflag.h"

// FCVTL Vd.4S, Vn.4H: the low 4 binary16 values of Vn as float32.
#define FCVTL(n, d) WORD $(0x0E217800 | ((n)<<5) | (d))

// FCVTL2 Vd.4S, Vn.8H: the high 4 binary16 values of Vn as float32.
#define FCVTL2(n, d) WORD $(0x4E217800 | ((n)<<5) | (d))

// SADDLP Vd.4S, Vn.8H: sums of adjacent int16 pairs, as int32.
#define SADDLP(n, d) WORD $(0x4E602800 | ((n)<<5) | (d))

// SADALP Vd.4S, Vn.8H: adds the sums of adjacent int16 pairs to Vd's int32.
#define SADALP(n, d) WORD $(0x4E606800 | ((n)<<5) | (d))

// SDOT Vd.4S, Vn.16B, Vm.16B (Armv8.2 dot product, only where
// haveDotProd): adds to each int32 of Vd the 4 products of its bytes.
#define SDOT(d, n, m) WORD $(0x4E809400 | ((m)<<16) | ((n)<<5) | (d))

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

// ---- 8-bit activations ----
//
// q8a blocks (40 bytes): d float32, s = d*Σqs float32, qs[32] int8.
// q8K blocks (292 bytes): d float32, qs[256] int8, bsums[16] int16 (the
// sums of each 16 quants).

// ABSMAX32 loads the 32 floats at R1 to V0..V7 (advancing R1) and folds
// their |x| into the running maxima of V16.
#define ABSMAX32 \
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]; \
	VLD1.P 64(R1), [V4.S4, V5.S4, V6.S4, V7.S4]; \
	VFABS  V0.S4, V0.S4;                         \
	VFABS  V1.S4, V1.S4;                         \
	VFABS  V2.S4, V2.S4;                         \
	VFABS  V3.S4, V3.S4;                         \
	VFABS  V4.S4, V4.S4;                         \
	VFABS  V5.S4, V5.S4;                         \
	VFABS  V6.S4, V6.S4;                         \
	VFABS  V7.S4, V7.S4;                         \
	VFMAX  V1.S4, V0.S4, V0.S4;                  \
	VFMAX  V3.S4, V2.S4, V2.S4;                  \
	VFMAX  V5.S4, V4.S4, V4.S4;                  \
	VFMAX  V7.S4, V6.S4, V6.S4;                  \
	VFMAX  V2.S4, V0.S4, V0.S4;                  \
	VFMAX  V6.S4, V4.S4, V4.S4;                  \
	VFMAX  V4.S4, V0.S4, V0.S4;                  \
	VFMAX  V0.S4, V16.S4, V16.S4

// INVSCALE sets F17 = 127/amax and F18 = amax/127 (the q8a scale d) from
// amax, the largest of the floats of V16 (F17 = 0 where amax is 0), and
// broadcasts F17 to V17. Needs F19 = 127.
#define INVSCALE \
	VFMAXV V16.S4, V16;      \
	FDIVS  F16, F19, F17;    \
	FDIVS  F19, F16, F18;    \
	FMOVS  F16, R10;         \
	CBNZW  R10, 3(PC);       \
	VEOR   V17.B16, V17.B16, V17.B16; \
	VEOR   V18.B16, V18.B16, V18.B16; \
	VDUP   V17.S[0], V17.S4

// KSCALE sets F18 = 1/F17 (the q8K scale d), 0 where F17 is 0. Needs F20
// = 1.
#define KSCALE \
	FDIVS F17, F20, F18;             \
	FMOVS F17, R10;                  \
	CBNZW R10, 2(PC);                \
	VEOR  V18.B16, V18.B16, V18.B16

// QUANT32 loads the 32 floats at R1 (advancing R1), multiplies them by
// V17 and rounds them to the nearest integer, ties to even, as int32 in
// V0..V7, and saturates them to 32 int8 in V8, V9.
#define QUANT32 \
	VLD1.P  64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]; \
	VLD1.P  64(R1), [V4.S4, V5.S4, V6.S4, V7.S4]; \
	VFMUL   V17.S4, V0.S4, V0.S4; \
	VFMUL   V17.S4, V1.S4, V1.S4; \
	VFMUL   V17.S4, V2.S4, V2.S4; \
	VFMUL   V17.S4, V3.S4, V3.S4; \
	VFMUL   V17.S4, V4.S4, V4.S4; \
	VFMUL   V17.S4, V5.S4, V5.S4; \
	VFMUL   V17.S4, V6.S4, V6.S4; \
	VFMUL   V17.S4, V7.S4, V7.S4; \
	VFRINTN V0.S4, V0.S4;         \
	VFRINTN V1.S4, V1.S4;         \
	VFRINTN V2.S4, V2.S4;         \
	VFRINTN V3.S4, V3.S4;         \
	VFRINTN V4.S4, V4.S4;         \
	VFRINTN V5.S4, V5.S4;         \
	VFRINTN V6.S4, V6.S4;         \
	VFRINTN V7.S4, V7.S4;         \
	VFCVTZS V0.S4, V0.S4;         \
	VFCVTZS V1.S4, V1.S4;         \
	VFCVTZS V2.S4, V2.S4;         \
	VFCVTZS V3.S4, V3.S4;         \
	VFCVTZS V4.S4, V4.S4;         \
	VFCVTZS V5.S4, V5.S4;         \
	VFCVTZS V6.S4, V6.S4;         \
	VFCVTZS V7.S4, V7.S4;         \
	VSQXTN  V0.S4, V10.H4;        \
	VSQXTN2 V1.S4, V10.H8;        \
	VSQXTN  V2.S4, V11.H4;        \
	VSQXTN2 V3.S4, V11.H8;        \
	VSQXTN  V4.S4, V12.H4;        \
	VSQXTN2 V5.S4, V12.H8;        \
	VSQXTN  V6.S4, V13.H4;        \
	VSQXTN2 V7.S4, V13.H8;        \
	VSQXTN  V10.H8, V8.B8;        \
	VSQXTN2 V11.H8, V8.B16;       \
	VSQXTN  V12.H8, V9.B8;        \
	VSQXTN2 V13.H8, V9.B16

// func quantQ8aSIMD(dst *byte, x *float32, nb int, flip byte)
// Quantizes 32*nb floats to nb q8a blocks: d = max|x|/127, q =
// round(x*127/max|x|), as the C library's quant_q8a; the quants are
// stored XORed with flip.
TEXT ·quantQ8aSIMD(SB), NOSPLIT, $0-25
	MOVD  dst+0(FP), R0
	MOVD  x+8(FP), R1
	MOVD  nb+16(FP), R2
	MOVBU flip+24(FP), R5
	VDUP  R5, V20.B16
	FMOVS $127.0, F19

loop:
	CBZ  R2, done
	VEOR V16.B16, V16.B16, V16.B16
	ABSMAX32
	SUB  $128, R1
	INVSCALE
	QUANT32
	VADD    V1.S4, V0.S4, V0.S4
	VADD    V3.S4, V2.S4, V2.S4
	VADD    V5.S4, V4.S4, V4.S4
	VADD    V7.S4, V6.S4, V6.S4
	VADD    V2.S4, V0.S4, V0.S4
	VADD    V6.S4, V4.S4, V4.S4
	VADD    V4.S4, V0.S4, V0.S4
	VADDV   V0.S4, V0
	VMOV    V0.S[0], R10
	SCVTFWS R10, F1
	FMULS   F18, F1, F1
	FMOVS   F18, (R0)
	FMOVS   F1, 4(R0)
	ADD     $8, R0
	VEOR    V20.B16, V8.B16, V8.B16
	VEOR    V20.B16, V9.B16, V9.B16
	VST1.P  [V8.B16, V9.B16], 32(R0)
	SUB     $1, R2
	B       loop

done:
	RET

// BSUMS16 stores the sum of the 16 int32 of a, b, c, e as an int16 at
// off(R0).
#define BSUMS16(a, b, c, e, off) \
	VADD  b.S4, a.S4, a.S4; \
	VADD  e.S4, c.S4, c.S4; \
	VADD  c.S4, a.S4, a.S4; \
	VADDV a.S4, a;          \
	VMOV  a.S[0], R10;      \
	MOVH  R10, off(R0)

// QUANTK32 quantizes the next 32 floats of a q8K block at R1 to the
// quants at R3 (advancing both) and stores their bsums at off(R0) and
// off+2(R0).
#define QUANTK32(off) \
	QUANT32;                          \
	VST1.P [V8.B16, V9.B16], 32(R3);  \
	BSUMS16(V0, V1, V2, V3, off);     \
	BSUMS16(V4, V5, V6, V7, off+2)

// func quantQ8KSIMD(dst *byte, x *float32, nb int)
// Quantizes 256*nb floats to nb q8K blocks: q = round(x*127/max|x|), d =
// the inverse of that scale, as the C library's quant_q8K (all zero for an
// all-zero block).
TEXT ·quantQ8KSIMD(SB), NOSPLIT, $0-24
	MOVD  dst+0(FP), R0
	MOVD  x+8(FP), R1
	MOVD  nb+16(FP), R2
	FMOVS $127.0, F19
	FMOVS $1.0, F20

loop:
	CBZ  R2, done
	VEOR V16.B16, V16.B16, V16.B16
	ABSMAX32
	ABSMAX32
	ABSMAX32
	ABSMAX32
	ABSMAX32
	ABSMAX32
	ABSMAX32
	ABSMAX32
	SUB  $1024, R1
	INVSCALE
	KSCALE
	FMOVS F18, (R0)
	ADD   $4, R0, R3
	QUANTK32(260)
	QUANTK32(264)
	QUANTK32(268)
	QUANTK32(272)
	QUANTK32(276)
	QUANTK32(280)
	QUANTK32(284)
	QUANTK32(288)
	ADD   $292, R0
	SUB   $1, R2
	B     loop

done:
	RET

// ROUND32 stores to R0 (advancing it) the 32 floats at R1 (advancing it)
// rounded to the 8-bit grid of their block: V18 (d) times the nearest
// integer of x times V17.
#define ROUND32 \
	QUANT32;                \
	VSCVTF V0.S4, V0.S4;    \
	VSCVTF V1.S4, V1.S4;    \
	VSCVTF V2.S4, V2.S4;    \
	VSCVTF V3.S4, V3.S4;    \
	VSCVTF V4.S4, V4.S4;    \
	VSCVTF V5.S4, V5.S4;    \
	VSCVTF V6.S4, V6.S4;    \
	VSCVTF V7.S4, V7.S4;    \
	VFMUL  V18.S4, V0.S4, V0.S4; \
	VFMUL  V18.S4, V1.S4, V1.S4; \
	VFMUL  V18.S4, V2.S4, V2.S4; \
	VFMUL  V18.S4, V3.S4, V3.S4; \
	VFMUL  V18.S4, V4.S4, V4.S4; \
	VFMUL  V18.S4, V5.S4, V5.S4; \
	VFMUL  V18.S4, V6.S4, V6.S4; \
	VFMUL  V18.S4, V7.S4, V7.S4; \
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0); \
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R0)

// func roundQ8aSIMD(dst, x *float32, nb int)
// Sets 32*nb floats to the values d*q of their quantQ8aSIMD blocks.
TEXT ·roundQ8aSIMD(SB), NOSPLIT, $0-24
	MOVD  dst+0(FP), R0
	MOVD  x+8(FP), R1
	MOVD  nb+16(FP), R2
	FMOVS $127.0, F19

loop:
	CBZ  R2, done
	VEOR V16.B16, V16.B16, V16.B16
	ABSMAX32
	SUB  $128, R1
	INVSCALE
	VDUP V18.S[0], V18.S4
	ROUND32
	SUB  $1, R2
	B    loop

done:
	RET

// func roundQ8KSIMD(dst, x *float32, nb int)
// Sets 256*nb floats to the values d*q of their quantQ8KSIMD blocks.
TEXT ·roundQ8KSIMD(SB), NOSPLIT, $0-24
	MOVD  dst+0(FP), R0
	MOVD  x+8(FP), R1
	MOVD  nb+16(FP), R2
	FMOVS $127.0, F19
	FMOVS $1.0, F20

loop:
	CBZ  R2, done
	VEOR V16.B16, V16.B16, V16.B16
	ABSMAX32
	ABSMAX32
	ABSMAX32
	ABSMAX32
	ABSMAX32
	ABSMAX32
	ABSMAX32
	ABSMAX32
	SUB  $1024, R1
	INVSCALE
	KSCALE
	VDUP V18.S[0], V18.S4
	ROUND32
	ROUND32
	ROUND32
	ROUND32
	ROUND32
	ROUND32
	ROUND32
	ROUND32
	SUB  $1, R2
	B    loop

done:
	RET

// I8DOT32 sets V8 to 4 int32 partial sums of the products of the 32 int8
// of a, b (weights) with the 32 int8 of c, e (activations): SMULL to int16
// (|product| <= 128*128 fits), then pairwise widening to int32.
#define I8DOT32(a, b, c, e) \
	VSMULL  c.B8, a.B8, V4.H8;   \
	VSMULL2 c.B16, a.B16, V5.H8; \
	VSMULL  e.B8, b.B8, V6.H8;   \
	VSMULL2 e.B16, b.B16, V7.H8; \
	SADDLP(4, 8);                \
	SADALP(5, 8);                \
	SADALP(6, 8);                \
	SADALP(7, 8)

// I8SDOT32 is I8DOT32 with SDOT (registers by number).
#define I8SDOT32(a, b, c, e) \
	VEOR V8.B16, V8.B16, V8.B16; \
	SDOT(8, a, c);               \
	SDOT(8, b, e)

// BLOCKSCALE sets V20 to 4 copies of dw*dy: dw the binary16 at R0, dy the
// float32 at R1.
#define BLOCKSCALE \
	VLD1  (R0), V20.H[0];  \
	FCVTL(20, 20);         \
	FMOVS (R1), F21;       \
	FMULS F21, F20, F20;   \
	VDUP  V20.S[0], V20.S4

// func dotQ8_0Q8SIMD(w, y *byte, nb int) float32
// Returns the dot product of nb Q8_0 blocks (d f16, qs[32] int8) with nb
// q8a blocks: per block dw*dy*Σ(q*qy), the integer sum exact.
TEXT ·dotQ8_0Q8SIMD(SB), NOSPLIT, $0-28
	MOVD w+0(FP), R0
	MOVD y+8(FP), R1
	MOVD nb+16(FP), R2
	MOVBU ·haveDotProd(SB), R19
	VEOR V31.B16, V31.B16, V31.B16

loop:
	CBZ    R2, done
	BLOCKSCALE
	ADD    $2, R0, R3
	ADD    $8, R1, R4
	VLD1   (R3), [V0.B16, V1.B16]
	VLD1   (R4), [V2.B16, V3.B16]
	CBNZ   R19, sdot
	I8DOT32(V0, V1, V2, V3)
	B      scale

sdot:
	I8SDOT32(0, 1, 2, 3)

scale:
	VSCVTF V8.S4, V8.S4
	VFMLA  V20.S4, V8.S4, V31.S4
	ADD    $34, R0
	ADD    $40, R1
	SUB    $1, R2
	B      loop

done:
	HSUM4(V31)
	FMOVS F31, ret+24(FP)
	RET

// func dotQ4_0Q8SIMD(w, y *byte, nb int) float32
// Returns the dot product of nb Q4_0 blocks (d f16, qs[16]: element j is
// the low nibble of qs[j] less 8, element j+16 the high nibble less 8)
// with nb q8a blocks.
TEXT ·dotQ4_0Q8SIMD(SB), NOSPLIT, $0-28
	MOVD  w+0(FP), R0
	MOVD  y+8(FP), R1
	MOVD  nb+16(FP), R2
	MOVBU ·haveDotProd(SB), R19
	VEOR  V31.B16, V31.B16, V31.B16
	VMOVI $15, V29.B16
	VMOVI $8, V28.B16

loop:
	CBZ    R2, done
	BLOCKSCALE
	ADD    $2, R0, R3
	ADD    $8, R1, R4
	VLD1   (R3), [V0.B16]
	VLD1   (R4), [V2.B16, V3.B16]
	VAND   V29.B16, V0.B16, V1.B16
	VUSHR  $4, V0.B16, V0.B16
	VSUB   V28.B16, V1.B16, V1.B16
	VSUB   V28.B16, V0.B16, V0.B16
	CBNZ   R19, sdot
	I8DOT32(V1, V0, V2, V3)
	B      scale

sdot:
	I8SDOT32(1, 0, 2, 3)

scale:
	VSCVTF V8.S4, V8.S4
	VFMLA  V20.S4, V8.S4, V31.S4
	ADD    $18, R0
	ADD    $40, R1
	SUB    $1, R2
	B      loop

done:
	HSUM4(V31)
	FMOVS F31, ret+24(FP)
	RET

// Q4KQ8GROUP sets pa and pb (int16 x8) to the partial sums of 64 elements
// of a Q4_K super-block (32 bytes of nibbles at R3, low nibbles first: two
// sub-blocks) times the q8K quants at R4, advancing both. Each lane sums 4
// products of at most 15*128. Needs V29 = 0x0f….
#define Q4KQ8GROUP(pa, pb) \
	Q4KNIBS;                                          \
	I16GROUP(pa, pb)

// Q4KNIBS loads 32 bytes of nibbles at R3 and 64 q8K quants at R4 (to
// V2..V5), advancing both, and leaves the low nibbles in V6, V7, the high
// ones in V0, V1. Needs V29 = 0x0f….
#define Q4KNIBS \
	VLD1.P  32(R3), [V0.B16, V1.B16];                 \
	VLD1.P  64(R4), [V2.B16, V3.B16, V4.B16, V5.B16]; \
	VAND    V29.B16, V0.B16, V6.B16;                  \
	VAND    V29.B16, V1.B16, V7.B16;                  \
	VUSHR   $4, V0.B16, V0.B16;                       \
	VUSHR   $4, V1.B16, V1.B16

// I16GROUP sets pa (int16 x8) to the products of the quants of V6, V7
// with those of V2, V3, and pb to those of V0, V1 with V4, V5, 4 to a
// lane.
#define I16GROUP(pa, pb) \
	VSMULL  V2.B8, V6.B8, pa.H8;                      \
	VSMLAL2 V2.B16, V6.B16, pa.H8;                    \
	VSMLAL  V3.B8, V7.B8, pa.H8;                      \
	VSMLAL2 V3.B16, V7.B16, pa.H8;                    \
	VSMULL  V4.B8, V0.B8, pb.H8;                      \
	VSMLAL2 V4.B16, V0.B16, pb.H8;                    \
	VSMLAL  V5.B8, V1.B8, pb.H8;                      \
	VSMLAL2 V5.B16, V1.B16, pb.H8

// SDGROUP is I16GROUP with SDOT: pa, pb (numbered pan, pbn) get int32 x4.
#define SDGROUP(pa, pan, pb, pbn) \
	VEOR pa.B16, pa.B16, pa.B16; \
	SDOT(pan, 6, 2);             \
	SDOT(pan, 7, 3);             \
	VEOR pb.B16, pb.B16, pb.B16; \
	SDOT(pbn, 0, 4);             \
	SDOT(pbn, 1, 5)

// SDSUMS sets V8 and V12 to the int32 sums of sub-blocks 0..3 and 4..7
// from SDGROUP's V8..V15.
#define SDSUMS \
	VADDP V9.S4, V8.S4, V8.S4;    \
	VADDP V11.S4, V10.S4, V10.S4; \
	VADDP V13.S4, V12.S4, V12.S4; \
	VADDP V15.S4, V14.S4, V14.S4; \
	VADDP V10.S4, V8.S4, V8.S4;   \
	VADDP V14.S4, V12.S4, V12.S4

// func dotQ4KQ8KSIMD(w, y *byte, nb int) float32
// Returns the dot product of nb Q4_K super-blocks (d f16, dmin f16,
// scales[12], qs[128]) with nb q8K blocks: per block,
// dy*(d*Σ scale_j*Σ(q*qy) - dmin*Σ min_j*bsum_j), both sums exact int32.
TEXT ·dotQ4KQ8KSIMD(SB), NOSPLIT, $0-28
	MOVD  w+0(FP), R0
	MOVD  y+8(FP), R1
	MOVD  nb+16(FP), R2
	MOVBU ·haveDotProd(SB), R19
	VEOR  V31.B16, V31.B16, V31.B16
	VMOVI $15, V29.B16
	MOVW  $0x3f3f3f3f, R11
	MOVW  $0x0f0f0f0f, R12
	MOVW  $0x03030303, R13

loop:
	CBZ R2, done

	// the 6-bit scales and mins (ggml's get_scale_min_k4 on 32-bit
	// words): scales 0-3 = u0&k1, 4-7 = (u2&k2)|((u0>>6)&k3)<<4; mins
	// 0-3 = u1&k1, 4-7 = ((u2>>4)&k2)|((u1>>6)&k3)<<4
	MOVWU 4(R0), R5
	MOVWU 8(R0), R6
	MOVWU 12(R0), R7
	LSRW  $4, R7, R8
	ANDW  R12, R8, R8
	LSRW  $6, R6, R9
	ANDW  R13, R9, R9
	ORRW  R9<<4, R8, R8
	ANDW  R11, R6, R14
	ANDW  R12, R7, R15
	LSRW  $6, R5, R9
	ANDW  R13, R9, R9
	ORRW  R9<<4, R15, R15
	ANDW  R11, R5, R5
	ORR   R15<<32, R5, R5
	ORR   R8<<32, R14, R14
	VMOV  R5, V20.D[0]
	VMOV  R14, V21.D[0]
	VUXTL V20.B8, V20.H8
	VUXTL V21.B8, V21.H8

	// Σ min_j*bsum_j: bsums pairs are the sub-blocks' sums (|.| <= 4096)
	ADD     $260, R1, R3
	VLD1    (R3), [V22.H8, V23.H8]
	VADDP   V23.H8, V22.H8, V22.H8
	VSMULL  V21.H4, V22.H4, V24.S4
	VSMLAL2 V21.H8, V22.H8, V24.S4
	VADDV   V24.S4, V24

	ADD  $16, R0, R3
	ADD  $4, R1, R4
	CBNZ R19, sdot
	Q4KQ8GROUP(V8, V9)
	Q4KQ8GROUP(V10, V11)
	Q4KQ8GROUP(V12, V13)
	Q4KQ8GROUP(V14, V15)

	// per sub-block sums: two pairwise steps stay within int16 (4*7680),
	// then widen
	VADDP  V9.H8, V8.H8, V8.H8
	VADDP  V11.H8, V10.H8, V10.H8
	VADDP  V13.H8, V12.H8, V12.H8
	VADDP  V15.H8, V14.H8, V14.H8
	VADDP  V10.H8, V8.H8, V8.H8
	VADDP  V14.H8, V12.H8, V12.H8
	SADDLP(8, 8)
	SADDLP(12, 12)
	B      scale

sdot:
	Q4KNIBS
	SDGROUP(V8, 8, V9, 9)
	Q4KNIBS
	SDGROUP(V10, 10, V11, 11)
	Q4KNIBS
	SDGROUP(V12, 12, V13, 13)
	Q4KNIBS
	SDGROUP(V14, 14, V15, 15)
	SDSUMS

scale:
	VUXTL  V20.H4, V25.S4
	VUXTL2 V20.H8, V26.S4
	VMUL   V25.S4, V8.S4, V8.S4
	VMLA   V26.S4, V12.S4, V8.S4
	VADDV  V8.S4, V8

	// dy*(d*isum - dmin*msum)
	VLD1    (R0), V27.S[0]
	FCVTL(27, 27)
	VMOV    V27.S[1], V10
	FMOVS   (R1), F28
	VMOV    V8.S[0], R8
	SCVTFWS R8, F8
	VMOV    V24.S[0], R9
	SCVTFWS R9, F9
	FMULS   F27, F8, F8
	FMULS   F10, F9, F9
	FSUBS   F9, F8, F8
	FMULS   F28, F8, F8
	FADDS   F8, F31, F31

	ADD $144, R0
	ADD $292, R1
	SUB $1, R2
	B   loop

done:
	FMOVS F31, ret+24(FP)
	RET

// Q6Q8MUL sets out (int16 x8) to the products of the 16 int8 quants of q
// with the 16 q8K quants of y, two to a lane (|.| <= 2*32*128).
#define Q6Q8MUL(q, y, out) \
	VSMULL  y.B8, q.B8, out.H8; \
	VSMLAL2 y.B16, q.B16, out.H8

// Q6QUANT sets V7 to the 16 signed 6-bit quants (lo | hi) - 32, lo the
// nibbles in V7 and hi the two bits in V6, already at bits 4-5. Needs V27
// = 32….
#define Q6QUANT \
	VORR V6.B16, V7.B16, V7.B16; \
	VSUB V27.B16, V7.B16, V7.B16

// Q6Q8HALF adds to V30 (int32 x4) the products of 128 elements of a Q6_K
// super-block (ql at R3, qh at R5, scales at R6) with the q8K quants at
// R4, each 16 times its int8 scale, advancing the 4 pointers. Element l of
// sub-block k of the half is (ql nibble | 2 qh bits << 4) - 32, as ggml's
// dequantize_row_q6_K. Needs V29 = 0x0f…, V28 = 0x30…, V27 = 32….
#define Q6Q8HALF \
	VLD1.P 64(R3), [V0.B16, V1.B16, V2.B16, V3.B16];     \
	VLD1.P 32(R5), [V4.B16, V5.B16];                     \
	VLD1.P 64(R4), [V16.B16, V17.B16, V18.B16, V19.B16]; \
	VSHL   $4, V4.B16, V6.B16;        \
	VAND   V28.B16, V6.B16, V6.B16;   \
	VAND   V29.B16, V0.B16, V7.B16;   \
	Q6QUANT;                          \
	Q6Q8MUL(V7, V16, V8);             \
	VSHL   $4, V5.B16, V6.B16;        \
	VAND   V28.B16, V6.B16, V6.B16;   \
	VAND   V29.B16, V1.B16, V7.B16;   \
	Q6QUANT;                          \
	Q6Q8MUL(V7, V17, V9);             \
	VSHL   $2, V4.B16, V6.B16;        \
	VAND   V28.B16, V6.B16, V6.B16;   \
	VAND   V29.B16, V2.B16, V7.B16;   \
	Q6QUANT;                          \
	Q6Q8MUL(V7, V18, V10);            \
	VSHL   $2, V5.B16, V6.B16;        \
	VAND   V28.B16, V6.B16, V6.B16;   \
	VAND   V29.B16, V3.B16, V7.B16;   \
	Q6QUANT;                          \
	Q6Q8MUL(V7, V19, V11);            \
	VLD1.P 64(R4), [V16.B16, V17.B16, V18.B16, V19.B16]; \
	VAND   V28.B16, V4.B16, V6.B16;   \
	VUSHR  $4, V0.B16, V7.B16;        \
	Q6QUANT;                          \
	Q6Q8MUL(V7, V16, V12);            \
	VAND   V28.B16, V5.B16, V6.B16;   \
	VUSHR  $4, V1.B16, V7.B16;        \
	Q6QUANT;                          \
	Q6Q8MUL(V7, V17, V13);            \
	VUSHR  $2, V4.B16, V6.B16;        \
	VAND   V28.B16, V6.B16, V6.B16;   \
	VUSHR  $4, V2.B16, V7.B16;        \
	Q6QUANT;                          \
	Q6Q8MUL(V7, V18, V14);            \
	VUSHR  $2, V5.B16, V6.B16;        \
	VAND   V28.B16, V6.B16, V6.B16;   \
	VUSHR  $4, V3.B16, V7.B16;        \
	Q6QUANT;                          \
	Q6Q8MUL(V7, V19, V15);            \
	VADDP  V9.H8, V8.H8, V8.H8;       \
	VADDP  V11.H8, V10.H8, V10.H8;    \
	VADDP  V13.H8, V12.H8, V12.H8;    \
	VADDP  V15.H8, V14.H8, V14.H8;    \
	SADDLP(8, 8);                     \
	SADDLP(10, 10);                   \
	SADDLP(12, 12);                   \
	SADDLP(14, 14);                   \
	VADDP  V10.S4, V8.S4, V8.S4;      \
	VADDP  V14.S4, V12.S4, V12.S4;    \
	VLD1.P 8(R6), [V6.B8];            \
	VSXTL  V6.B8, V6.H8;              \
	VSXTL  V6.H4, V7.S4;              \
	VSXTL2 V6.H8, V6.S4;              \
	VMLA   V7.S4, V8.S4, V30.S4;      \
	VMLA   V6.S4, V12.S4, V30.S4

// Q6Q8SD is Q6Q8MUL with SDOT: out (numbered on) gets int32 x4 sums of
// the products of the quants of V7 with those of y (numbered yn).
#define Q6Q8SD(out, on, yn) \
	VEOR out.B16, out.B16, out.B16; \
	SDOT(on, 7, yn)

// Q6Q8HALFSD is Q6Q8HALF with SDOT.
#define Q6Q8HALFSD \
	VLD1.P 64(R3), [V0.B16, V1.B16, V2.B16, V3.B16];     \
	VLD1.P 32(R5), [V4.B16, V5.B16];                     \
	VLD1.P 64(R4), [V16.B16, V17.B16, V18.B16, V19.B16]; \
	VSHL   $4, V4.B16, V6.B16;        \
	VAND   V28.B16, V6.B16, V6.B16;   \
	VAND   V29.B16, V0.B16, V7.B16;   \
	Q6QUANT;                          \
	Q6Q8SD(V8, 8, 16);             \
	VSHL   $4, V5.B16, V6.B16;        \
	VAND   V28.B16, V6.B16, V6.B16;   \
	VAND   V29.B16, V1.B16, V7.B16;   \
	Q6QUANT;                          \
	Q6Q8SD(V9, 9, 17);             \
	VSHL   $2, V4.B16, V6.B16;        \
	VAND   V28.B16, V6.B16, V6.B16;   \
	VAND   V29.B16, V2.B16, V7.B16;   \
	Q6QUANT;                          \
	Q6Q8SD(V10, 10, 18);            \
	VSHL   $2, V5.B16, V6.B16;        \
	VAND   V28.B16, V6.B16, V6.B16;   \
	VAND   V29.B16, V3.B16, V7.B16;   \
	Q6QUANT;                          \
	Q6Q8SD(V11, 11, 19);            \
	VLD1.P 64(R4), [V16.B16, V17.B16, V18.B16, V19.B16]; \
	VAND   V28.B16, V4.B16, V6.B16;   \
	VUSHR  $4, V0.B16, V7.B16;        \
	Q6QUANT;                          \
	Q6Q8SD(V12, 12, 16);            \
	VAND   V28.B16, V5.B16, V6.B16;   \
	VUSHR  $4, V1.B16, V7.B16;        \
	Q6QUANT;                          \
	Q6Q8SD(V13, 13, 17);            \
	VUSHR  $2, V4.B16, V6.B16;        \
	VAND   V28.B16, V6.B16, V6.B16;   \
	VUSHR  $4, V2.B16, V7.B16;        \
	Q6QUANT;                          \
	Q6Q8SD(V14, 14, 18);            \
	VUSHR  $2, V5.B16, V6.B16;        \
	VAND   V28.B16, V6.B16, V6.B16;   \
	VUSHR  $4, V3.B16, V7.B16;        \
	Q6QUANT;                          \
	Q6Q8SD(V15, 15, 19);            \
	SDSUMS;                           \
	VLD1.P 8(R6), [V6.B8];            \
	VSXTL  V6.B8, V6.H8;              \
	VSXTL  V6.H4, V7.S4;              \
	VSXTL2 V6.H8, V6.S4;              \
	VMLA   V7.S4, V8.S4, V30.S4;      \
	VMLA   V6.S4, V12.S4, V30.S4

// func dotQ6KQ8KSIMD(w, y *byte, nb int) float32
// Returns the dot product of nb Q6_K super-blocks (ql[128], qh[64],
// scales[16] int8, d f16) with nb q8K blocks: per block d*dy*Σ
// scale_k*Σ(q*qy), the integer sum exact.
TEXT ·dotQ6KQ8KSIMD(SB), NOSPLIT, $0-28
	MOVD  w+0(FP), R0
	MOVD  y+8(FP), R1
	MOVD  nb+16(FP), R2
	MOVBU ·haveDotProd(SB), R19
	VEOR  V31.B16, V31.B16, V31.B16
	VMOVI $15, V29.B16
	VMOVI $48, V28.B16
	VMOVI $32, V27.B16

loop:
	CBZ  R2, done
	VEOR V30.B16, V30.B16, V30.B16
	MOVD R0, R3
	ADD  $128, R0, R5
	ADD  $192, R0, R6
	ADD  $4, R1, R4
	CBNZ R19, sdot
	Q6Q8HALF
	Q6Q8HALF
	B    scale

sdot:
	Q6Q8HALFSD
	Q6Q8HALFSD

scale:
	ADD     $208, R0, R7
	VLD1    (R7), V26.H[0]
	FCVTL(26, 26)
	FMOVS   (R1), F25
	FMULS   F25, F26, F26
	VADDV   V30.S4, V30
	VMOV    V30.S[0], R8
	SCVTFWS R8, F8
	FMULS   F26, F8, F8
	FADDS   F8, F31, F31
	ADD     $210, R0
	ADD     $292, R1
	SUB     $1, R2
	B       loop

done:
	FMOVS F31, ret+24(FP)
	RET

// func dotQ5_0Q8SIMD(w, y *byte, nb int) float32
// Returns the dot product of nb Q5_0 blocks (d f16, qh u32, qs[16]: bit 4
// of element j is bit j of qh, values offset by 16) with nb q8a blocks.
TEXT ·dotQ5_0Q8SIMD(SB), NOSPLIT, $0-28
	MOVD  w+0(FP), R0
	MOVD  y+8(FP), R1
	MOVD  nb+16(FP), R2
	MOVBU ·haveDotProd(SB), R19
	VEOR  V31.B16, V31.B16, V31.B16
	VMOVI $15, V29.B16
	VMOVI $16, V28.B16
	MOVD  $0x0101010101010101, R9
	VMOV  R9, V22.D[1]
	VMOV  ZR, V22.D[0]
	MOVD  $0x0303030303030303, R9
	VMOV  R9, V23.D[1]
	MOVD  $0x0202020202020202, R9
	VMOV  R9, V23.D[0]
	MOVD  $0x8040201008040201, R9
	VMOV  R9, V24.D[0]
	VMOV  R9, V24.D[1]

loop:
	CBZ    R2, done
	BLOCKSCALE
	MOVWU  2(R0), R10
	VDUP   R10, V25.S4
	ADD    $6, R0, R3
	ADD    $8, R1, R4
	VLD1   (R3), [V0.B16]
	VLD1   (R4), [V2.B16, V3.B16]
	VTBL   V22.B16, [V25.B16], V9.B16
	VTBL   V23.B16, [V25.B16], V10.B16
	VCMTST V24.B16, V9.B16, V9.B16
	VCMTST V24.B16, V10.B16, V10.B16
	VAND   V28.B16, V9.B16, V9.B16
	VAND   V28.B16, V10.B16, V10.B16
	VAND   V29.B16, V0.B16, V1.B16
	VUSHR  $4, V0.B16, V0.B16
	VORR   V9.B16, V1.B16, V1.B16
	VORR   V10.B16, V0.B16, V0.B16
	VSUB   V28.B16, V1.B16, V1.B16
	VSUB   V28.B16, V0.B16, V0.B16
	CBNZ   R19, sdot
	I8DOT32(V1, V0, V2, V3)
	B      scale

sdot:
	I8SDOT32(1, 0, 2, 3)

scale:
	VSCVTF V8.S4, V8.S4
	VFMLA  V20.S4, V8.S4, V31.S4
	ADD    $22, R0
	ADD    $40, R1
	SUB    $1, R2
	B      loop

done:
	HSUM4(V31)
	FMOVS F31, ret+24(FP)
	RET

// Q5KQ8GROUP is Q4KQ8GROUP for Q5_K: the fifth bits of the 64 elements
// are bits 0 and 1 of the bytes of V18, V19 (which it shifts right by 2),
// and a lane sums 4 products of at most 31*128. Needs V29 = 0x0f…, V28 =
// 0x10….
#define Q5KQ8GROUP(pa, pb) \
	Q5KNIBS;                                          \
	I16GROUP(pa, pb)

// Q5KNIBS is Q4KNIBS for Q5_K: the fifth bits of the 64 elements are bits
// 0 and 1 of the bytes of V18, V19 (which it shifts right by 2). Needs
// V29 = 0x0f…, V28 = 0x10….
#define Q5KNIBS \
	VLD1.P  32(R3), [V0.B16, V1.B16];                 \
	VLD1.P  64(R4), [V2.B16, V3.B16, V4.B16, V5.B16]; \
	VAND    V29.B16, V0.B16, V6.B16;                  \
	VAND    V29.B16, V1.B16, V7.B16;                  \
	VUSHR   $4, V0.B16, V0.B16;                       \
	VUSHR   $4, V1.B16, V1.B16;                       \
	VSHL    $4, V18.B16, V16.B16;                     \
	VSHL    $4, V19.B16, V17.B16;                     \
	VAND    V28.B16, V16.B16, V16.B16;                \
	VAND    V28.B16, V17.B16, V17.B16;                \
	VORR    V16.B16, V6.B16, V6.B16;                  \
	VORR    V17.B16, V7.B16, V7.B16;                  \
	VSHL    $3, V18.B16, V16.B16;                     \
	VSHL    $3, V19.B16, V17.B16;                     \
	VAND    V28.B16, V16.B16, V16.B16;                \
	VAND    V28.B16, V17.B16, V17.B16;                \
	VORR    V16.B16, V0.B16, V0.B16;                  \
	VORR    V17.B16, V1.B16, V1.B16;                  \
	VUSHR   $2, V18.B16, V18.B16;                     \
	VUSHR   $2, V19.B16, V19.B16

// func dotQ5KQ8KSIMD(w, y *byte, nb int) float32
// Returns the dot product of nb Q5_K super-blocks (d f16, dmin f16,
// scales[12] as Q4_K, qh[32], qs[128]) with nb q8K blocks, as
// dotQ4KQ8KSIMD with 5-bit quants.
TEXT ·dotQ5KQ8KSIMD(SB), NOSPLIT, $0-28
	MOVD  w+0(FP), R0
	MOVD  y+8(FP), R1
	MOVD  nb+16(FP), R2
	MOVBU ·haveDotProd(SB), R19
	VEOR  V31.B16, V31.B16, V31.B16
	VMOVI $15, V29.B16
	VMOVI $16, V28.B16
	MOVW  $0x3f3f3f3f, R11
	MOVW  $0x0f0f0f0f, R12
	MOVW  $0x03030303, R13

loop:
	CBZ R2, done

	// scales and mins as in dotQ4KQ8KSIMD
	MOVWU 4(R0), R5
	MOVWU 8(R0), R6
	MOVWU 12(R0), R7
	LSRW  $4, R7, R8
	ANDW  R12, R8, R8
	LSRW  $6, R6, R9
	ANDW  R13, R9, R9
	ORRW  R9<<4, R8, R8
	ANDW  R11, R6, R14
	ANDW  R12, R7, R15
	LSRW  $6, R5, R9
	ANDW  R13, R9, R9
	ORRW  R9<<4, R15, R15
	ANDW  R11, R5, R5
	ORR   R15<<32, R5, R5
	ORR   R8<<32, R14, R14
	VMOV  R5, V20.D[0]
	VMOV  R14, V21.D[0]
	VUXTL V20.B8, V20.H8
	VUXTL V21.B8, V21.H8

	ADD     $260, R1, R3
	VLD1    (R3), [V22.H8, V23.H8]
	VADDP   V23.H8, V22.H8, V22.H8
	VSMULL  V21.H4, V22.H4, V24.S4
	VSMLAL2 V21.H8, V22.H8, V24.S4
	VADDV   V24.S4, V24

	ADD  $16, R0, R3
	VLD1.P 32(R3), [V18.B16, V19.B16]
	ADD  $4, R1, R4
	CBNZ R19, sdot
	Q5KQ8GROUP(V8, V9)
	Q5KQ8GROUP(V10, V11)
	Q5KQ8GROUP(V12, V13)
	Q5KQ8GROUP(V14, V15)

	// per sub-block sums: one pairwise step stays within int16
	// (2*15872), then widen
	VADDP  V9.H8, V8.H8, V8.H8
	VADDP  V11.H8, V10.H8, V10.H8
	VADDP  V13.H8, V12.H8, V12.H8
	VADDP  V15.H8, V14.H8, V14.H8
	SADDLP(8, 8)
	SADDLP(10, 10)
	SADDLP(12, 12)
	SADDLP(14, 14)
	VADDP  V10.S4, V8.S4, V8.S4
	VADDP  V14.S4, V12.S4, V12.S4
	B      scale

sdot:
	Q5KNIBS
	SDGROUP(V8, 8, V9, 9)
	Q5KNIBS
	SDGROUP(V10, 10, V11, 11)
	Q5KNIBS
	SDGROUP(V12, 12, V13, 13)
	Q5KNIBS
	SDGROUP(V14, 14, V15, 15)
	SDSUMS

scale:
	VUXTL  V20.H4, V25.S4
	VUXTL2 V20.H8, V26.S4
	VMUL   V25.S4, V8.S4, V8.S4
	VMLA   V26.S4, V12.S4, V8.S4
	VADDV  V8.S4, V8

	VLD1    (R0), V27.S[0]
	FCVTL(27, 27)
	VMOV    V27.S[1], V10
	FMOVS   (R1), F30
	VMOV    V8.S[0], R8
	SCVTFWS R8, F8
	VMOV    V24.S[0], R9
	SCVTFWS R9, F9
	FMULS   F27, F8, F8
	FMULS   F10, F9, F9
	FSUBS   F9, F8, F8
	FMULS   F30, F8, F8
	FADDS   F8, F31, F31

	ADD $176, R0
	ADD $292, R1
	SUB $1, R2
	B   loop

done:
	FMOVS F31, ret+24(FP)
	RET

// func xorSIMD(p *byte, n int) uint64
TEXT ·xorSIMD(SB), NOSPLIT, $0-24
	MOVD p+0(FP), R0
	MOVD n+8(FP), R1
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V2.B16, V2.B16, V2.B16
	VEOR V3.B16, V3.B16, V3.B16

xorloop:
	CMP    $128, R1
	BLT    xordone
	VLD1.P 64(R0), [V4.B16, V5.B16, V6.B16, V7.B16]
	VEOR   V4.B16, V0.B16, V0.B16
	VEOR   V5.B16, V1.B16, V1.B16
	VEOR   V6.B16, V2.B16, V2.B16
	VEOR   V7.B16, V3.B16, V3.B16
	VLD1.P 64(R0), [V4.B16, V5.B16, V6.B16, V7.B16]
	VEOR   V4.B16, V0.B16, V0.B16
	VEOR   V5.B16, V1.B16, V1.B16
	VEOR   V6.B16, V2.B16, V2.B16
	VEOR   V7.B16, V3.B16, V3.B16
	SUB    $128, R1
	B      xorloop

xordone:
	VEOR V1.B16, V0.B16, V0.B16
	VEOR V3.B16, V2.B16, V2.B16
	VEOR V2.B16, V0.B16, V0.B16
	VMOV V0.D[0], R2
	VMOV V0.D[1], R3
	EOR  R3, R2
	MOVD R2, ret+16(FP)
	RET
