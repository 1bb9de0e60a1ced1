//go:build arm64 && !purego

// NEON kernels of attention (scores against key rows, weighted sums of
// value rows) and of its softmax, and SwiGLU's: the arm64 twins of
// go_attn_amd64.s and go_softmax_amd64.s. Contracts are in
// go_kernels_simd.go.

#include "textflag.h"

// FCVTL Vd.4S, Vn.4H and FCVTL2 Vd.4S, Vn.8H (binary16 to float32), which
// the Go assembler lacks.
#define FCVTL(n, d) WORD $(0x0E217800 | ((n)<<5) | (d))
#define FCVTL2(n, d) WORD $(0x4E217800 | ((n)<<5) | (d))

// func dotsF32SIMD(s, q, k *float32, kstride, nrows, hd int)
// s[j] = q · k[j] for nrows rows kstride bytes apart; hd a multiple of 8.
TEXT ·dotsF32SIMD(SB), NOSPLIT, $0-48
	MOVD s+0(FP), R0
	MOVD q+8(FP), R1
	MOVD k+16(FP), R2
	MOVD kstride+24(FP), R3
	MOVD nrows+32(FP), R4
	MOVD hd+40(FP), R5

rows:
	CBZ  R4, done
	MOVD R1, R6
	MOVD R2, R7
	MOVD R5, R8
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16

cols16:
	CMP    $16, R8
	BLT    cols8
	VLD1.P 64(R6), [V2.S4, V3.S4, V4.S4, V5.S4]
	VLD1.P 64(R7), [V6.S4, V7.S4, V8.S4, V9.S4]
	VFMLA  V2.S4, V6.S4, V0.S4
	VFMLA  V3.S4, V7.S4, V1.S4
	VFMLA  V4.S4, V8.S4, V16.S4
	VFMLA  V5.S4, V9.S4, V17.S4
	SUB    $16, R8
	B      cols16

cols8:
	CBZ    R8, rowdone
	VLD1.P 32(R6), [V2.S4, V3.S4]
	VLD1.P 32(R7), [V6.S4, V7.S4]
	VFMLA  V2.S4, V6.S4, V0.S4
	VFMLA  V3.S4, V7.S4, V1.S4

rowdone:
	VFADD  V16.S4, V0.S4, V0.S4
	VFADD  V17.S4, V1.S4, V1.S4
	VFADD  V1.S4, V0.S4, V0.S4
	VFADDP V0.S4, V0.S4, V0.S4
	VFADDP V0.S4, V0.S4, V0.S4
	FMOVS  F0, (R0)
	ADD    $4, R0
	ADD    R3, R2
	SUB    $1, R4
	B      rows

done:
	RET

// func dotsF16SIMD(s, q *float32, k *byte, kstride, nrows, hd int)
// dotsF32SIMD for binary16 keys.
TEXT ·dotsF16SIMD(SB), NOSPLIT, $0-48
	MOVD s+0(FP), R0
	MOVD q+8(FP), R1
	MOVD k+16(FP), R2
	MOVD kstride+24(FP), R3
	MOVD nrows+32(FP), R4
	MOVD hd+40(FP), R5

rows:
	CBZ  R4, done
	MOVD R1, R6
	MOVD R2, R7
	MOVD R5, R8
	VEOR V0.B16, V0.B16, V0.B16
	VEOR V1.B16, V1.B16, V1.B16
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16

cols16:
	CMP    $16, R8
	BLT    cols8
	VLD1.P 64(R6), [V2.S4, V3.S4, V4.S4, V5.S4]
	VLD1.P 32(R7), [V20.H8, V21.H8]
	FCVTL(20, 6)
	FCVTL2(20, 7)
	FCVTL(21, 18)
	FCVTL2(21, 19)
	VFMLA  V2.S4, V6.S4, V0.S4
	VFMLA  V3.S4, V7.S4, V1.S4
	VFMLA  V4.S4, V18.S4, V16.S4
	VFMLA  V5.S4, V19.S4, V17.S4
	SUB    $16, R8
	B      cols16

cols8:
	CBZ    R8, rowdone
	VLD1.P 32(R6), [V2.S4, V3.S4]
	VLD1.P 16(R7), [V20.H8]
	FCVTL(20, 6)
	FCVTL2(20, 7)
	VFMLA  V2.S4, V6.S4, V0.S4
	VFMLA  V3.S4, V7.S4, V1.S4

rowdone:
	VFADD  V16.S4, V0.S4, V0.S4
	VFADD  V17.S4, V1.S4, V1.S4
	VFADD  V1.S4, V0.S4, V0.S4
	VFADDP V0.S4, V0.S4, V0.S4
	VFADDP V0.S4, V0.S4, V0.S4
	FMOVS  F0, (R0)
	ADD    $4, R0
	ADD    R3, R2
	SUB    $1, R4
	B      rows

done:
	RET

// LOAD8 starts the 8 accumulators V0..V7 from the 32 outputs at R0 (the
// weighted sums add to o).
#define LOAD8 \
	VLD1 (R0), [V0.S4, V1.S4, V2.S4, V3.S4]; \
	ADD  $64, R0, R9;                        \
	VLD1 (R9), [V4.S4, V5.S4, V6.S4, V7.S4]

// FMLA8 adds V16..V23 times V24 to V0..V7.
#define FMLA8 \
	VFMLA V24.S4, V16.S4, V0.S4; \
	VFMLA V24.S4, V17.S4, V1.S4; \
	VFMLA V24.S4, V18.S4, V2.S4; \
	VFMLA V24.S4, V19.S4, V3.S4; \
	VFMLA V24.S4, V20.S4, V4.S4; \
	VFMLA V24.S4, V21.S4, V5.S4; \
	VFMLA V24.S4, V22.S4, V6.S4; \
	VFMLA V24.S4, V23.S4, V7.S4

// The weighted sums below take 32 outputs (8 vectors) at a time, then 8
// (2 vectors): R0 o, R1 w, R2 v (the chunk's column in row 0), R3
// vstride, R4 nrows, R5 the columns left; per chunk R6 walks w and R7
// the rows.

// func wsumF32SIMD(o, w, v *float32, vstride, nrows, hd int)
// o[i] += Σ w[j]*v[j][i] over nrows value rows vstride bytes apart, for
// i < hd; hd a multiple of 8.
TEXT ·wsumF32SIMD(SB), NOSPLIT, $0-48
	MOVD o+0(FP), R0
	MOVD w+8(FP), R1
	MOVD v+16(FP), R2
	MOVD vstride+24(FP), R3
	MOVD nrows+32(FP), R4
	MOVD hd+40(FP), R5

chunk32:
	CMP  $32, R5
	BLT  chunk8
	LOAD8
	MOVD R1, R6
	MOVD R2, R7
	MOVD R4, R8

rows32:
	CBZ    R8, store32
	VLD1R.P 4(R6), [V24.S4]
	VLD1   (R7), [V16.S4, V17.S4, V18.S4, V19.S4]
	ADD    $64, R7, R9
	VLD1   (R9), [V20.S4, V21.S4, V22.S4, V23.S4]
	FMLA8
	ADD    R3, R7
	SUB    $1, R8
	B      rows32

store32:
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R0)
	ADD    $128, R2
	SUB    $32, R5
	B      chunk32

chunk8:
	CBZ  R5, done
	VLD1 (R0), [V0.S4, V1.S4]
	MOVD R1, R6
	MOVD R2, R7
	MOVD R4, R8

rows8:
	CBZ     R8, store8
	VLD1R.P 4(R6), [V24.S4]
	VLD1    (R7), [V16.S4, V17.S4]
	VFMLA   V24.S4, V16.S4, V0.S4
	VFMLA   V24.S4, V17.S4, V1.S4
	ADD     R3, R7
	SUB     $1, R8
	B       rows8

store8:
	VST1.P [V0.S4, V1.S4], 32(R0)
	ADD    $32, R2
	SUB    $8, R5
	B      chunk8

done:
	RET

// func wsumF16SIMD(o, w *float32, v *byte, vstride, nrows, hd int)
// wsumF32SIMD for binary16 values.
TEXT ·wsumF16SIMD(SB), NOSPLIT, $0-48
	MOVD o+0(FP), R0
	MOVD w+8(FP), R1
	MOVD v+16(FP), R2
	MOVD vstride+24(FP), R3
	MOVD nrows+32(FP), R4
	MOVD hd+40(FP), R5

chunk32:
	CMP  $32, R5
	BLT  chunk8
	LOAD8
	MOVD R1, R6
	MOVD R2, R7
	MOVD R4, R8

rows32:
	CBZ     R8, store32
	VLD1R.P 4(R6), [V24.S4]
	VLD1    (R7), [V25.H8, V26.H8, V27.H8, V28.H8]
	FCVTL(25, 16)
	FCVTL2(25, 17)
	FCVTL(26, 18)
	FCVTL2(26, 19)
	FCVTL(27, 20)
	FCVTL2(27, 21)
	FCVTL(28, 22)
	FCVTL2(28, 23)
	FMLA8
	ADD     R3, R7
	SUB     $1, R8
	B       rows32

store32:
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R0)
	ADD    $64, R2
	SUB    $32, R5
	B      chunk32

chunk8:
	CBZ  R5, done
	VLD1 (R0), [V0.S4, V1.S4]
	MOVD R1, R6
	MOVD R2, R7
	MOVD R4, R8

rows8:
	CBZ     R8, store8
	VLD1R.P 4(R6), [V24.S4]
	VLD1    (R7), [V25.H8]
	FCVTL(25, 16)
	FCVTL2(25, 17)
	VFMLA   V24.S4, V16.S4, V0.S4
	VFMLA   V24.S4, V17.S4, V1.S4
	ADD     R3, R7
	SUB     $1, R8
	B       rows8

store8:
	VST1.P [V0.S4, V1.S4], 32(R0)
	ADD    $16, R2
	SUB    $8, R5
	B      chunk8

done:
	RET

// WIDEN32 converts the 32 int8 of V25, V26 to float32 in V16..V23.
#define WIDEN32 \
	VSXTL  V25.B8, V27.H8;  \
	VSXTL2 V25.B16, V28.H8; \
	VSXTL  V27.H4, V16.S4;  \
	VSXTL2 V27.H8, V17.S4;  \
	VSXTL  V28.H4, V18.S4;  \
	VSXTL2 V28.H8, V19.S4;  \
	VSXTL  V26.B8, V27.H8;  \
	VSXTL2 V26.B16, V28.H8; \
	VSXTL  V27.H4, V20.S4;  \
	VSXTL2 V27.H8, V21.S4;  \
	VSXTL  V28.H4, V22.S4;  \
	VSXTL2 V28.H8, V23.S4;  \
	VSCVTF V16.S4, V16.S4;  \
	VSCVTF V17.S4, V17.S4;  \
	VSCVTF V18.S4, V18.S4;  \
	VSCVTF V19.S4, V19.S4;  \
	VSCVTF V20.S4, V20.S4;  \
	VSCVTF V21.S4, V21.S4;  \
	VSCVTF V22.S4, V22.S4;  \
	VSCVTF V23.S4, V23.S4

// WSCALE sets V24 to 4 copies of w[j]*d, w[j] the float at R6 (advancing
// R6) and d the binary16 at R7.
#define WSCALE \
	VLD1  (R7), V24.H[0]; \
	FCVTL(24, 24);        \
	FMOVS (R6), F29;      \
	ADD   $4, R6;         \
	FMULS F29, F24, F24;  \
	VDUP  V24.S[0], V24.S4

// func wsumQ8_0SIMD(o, w *float32, v *byte, vstride, nrows, nb int)
// o[i] += Σ w[j]*v[j][i] over nrows value rows of nb Q8_0 blocks, vstride
// bytes apart, for i < 32*nb: each block is widened to float32 in
// registers, never stored.
TEXT ·wsumQ8_0SIMD(SB), NOSPLIT, $0-48
	MOVD o+0(FP), R0
	MOVD w+8(FP), R1
	MOVD v+16(FP), R2
	MOVD vstride+24(FP), R3
	MOVD nrows+32(FP), R4
	MOVD nb+40(FP), R5

blk:
	CBZ  R5, done
	LOAD8
	MOVD R1, R6
	MOVD R2, R7
	MOVD R4, R8

row:
	CBZ  R8, store
	WSCALE
	ADD  $2, R7, R9
	VLD1 (R9), [V25.B16, V26.B16]
	WIDEN32
	FMLA8
	ADD  R3, R7
	SUB  $1, R8
	B    row

store:
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R0)
	ADD    $34, R2
	SUB    $1, R5
	B      blk

done:
	RET

// func wsumQ4_0SIMD(o, w *float32, v *byte, vstride, nrows, nb int)
// wsumQ8_0SIMD for Q4_0 value rows.
TEXT ·wsumQ4_0SIMD(SB), NOSPLIT, $0-48
	MOVD  o+0(FP), R0
	MOVD  w+8(FP), R1
	MOVD  v+16(FP), R2
	MOVD  vstride+24(FP), R3
	MOVD  nrows+32(FP), R4
	MOVD  nb+40(FP), R5
	VMOVI $15, V30.B16
	VMOVI $8, V31.B16

blk:
	CBZ  R5, done
	LOAD8
	MOVD R1, R6
	MOVD R2, R7
	MOVD R4, R8

row:
	CBZ   R8, store
	WSCALE
	ADD   $2, R7, R9
	VLD1  (R9), [V26.B16]
	VAND  V30.B16, V26.B16, V25.B16
	VUSHR $4, V26.B16, V26.B16
	VSUB  V31.B16, V25.B16, V25.B16
	VSUB  V31.B16, V26.B16, V26.B16
	WIDEN32
	FMLA8
	ADD   R3, R7
	SUB   $1, R8
	B     row

store:
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	VST1.P [V4.S4, V5.S4, V6.S4, V7.S4], 64(R0)
	ADD    $18, R2
	SUB    $1, R5
	B      blk

done:
	RET

// func scaleMaxSIMD(s *float32, n int, scale float32) float32
// n is a positive multiple of 8.
TEXT ·scaleMaxSIMD(SB), NOSPLIT, $0-28
	MOVD  s+0(FP), R0
	MOVD  n+8(FP), R1
	FMOVS scale+16(FP), F16
	VDUP  V16.S[0], V16.S4
	VLD1  (R0), [V0.S4, V1.S4] // the first 8 scores start the maximum
	VFMUL V16.S4, V0.S4, V0.S4
	VFMUL V16.S4, V1.S4, V1.S4

loop:
	CBZ    R1, done
	VLD1   (R0), [V2.S4, V3.S4]
	VFMUL  V16.S4, V2.S4, V2.S4
	VFMUL  V16.S4, V3.S4, V3.S4
	VST1.P [V2.S4, V3.S4], 32(R0)
	VFMAX  V2.S4, V0.S4, V0.S4
	VFMAX  V3.S4, V1.S4, V1.S4
	SUB    $8, R1
	B      loop

done:
	VFMAX  V1.S4, V0.S4, V0.S4
	VFMAXV V0.S4, V0
	FMOVS  F0, ret+24(FP)
	RET

// EXPCONST loads the constants of Cephes' expf: V16 = log2(e), V17, V18 =
// ln 2 split in two for an exact range reduction, V19..V24 = the
// polynomial of e^r on [-ln2/2, ln2/2], V25 = 1, V26 = 127 (int32), V27 =
// -87, V28 = 88.
#define EXPCONST \
	MOVW $0x3fb8aa3b, R9; VDUP R9, V16.S4; \
	MOVW $0x3f318000, R9; VDUP R9, V17.S4; \
	MOVW $0xb95e8083, R9; VDUP R9, V18.S4; \
	MOVW $0x39506967, R9; VDUP R9, V19.S4; \
	MOVW $0x3ab743ce, R9; VDUP R9, V20.S4; \
	MOVW $0x3c088908, R9; VDUP R9, V21.S4; \
	MOVW $0x3d2aa9c1, R9; VDUP R9, V22.S4; \
	MOVW $0x3e2aaaaa, R9; VDUP R9, V23.S4; \
	MOVW $0x3f000000, R9; VDUP R9, V24.S4; \
	MOVW $0x3f800000, R9; VDUP R9, V25.S4; \
	MOVW $127, R9; VDUP R9, V26.S4;        \
	MOVW $0xc2ae0000, R9; VDUP R9, V27.S4; \
	MOVW $0x42b00000, R9; VDUP R9, V28.S4

// EXP sets V2 = e^V0 for V0 >= -87 (V0, V1, V3 and V4 are clobbered),
// as Cephes' expf: V0 = n ln2 + r, e^r by its polynomial, times 2^n.
#define EXP \
	VFMUL   V16.S4, V0.S4, V1.S4;     \
	VFRINTN V1.S4, V1.S4;             \
	VFMLS   V17.S4, V1.S4, V0.S4;     \
	VFMLS   V18.S4, V1.S4, V0.S4;     \
	VORR    V20.B16, V20.B16, V2.B16; \
	VFMLA   V19.S4, V0.S4, V2.S4;     \
	VORR    V21.B16, V21.B16, V3.B16; \
	VFMLA   V2.S4, V0.S4, V3.S4;      \
	VORR    V22.B16, V22.B16, V2.B16; \
	VFMLA   V3.S4, V0.S4, V2.S4;      \
	VORR    V23.B16, V23.B16, V3.B16; \
	VFMLA   V2.S4, V0.S4, V3.S4;      \
	VORR    V24.B16, V24.B16, V2.B16; \
	VFMLA   V3.S4, V0.S4, V2.S4;      \
	VFMUL   V0.S4, V0.S4, V3.S4;      \
	VFMLA   V3.S4, V2.S4, V0.S4;      \
	VFADD   V25.S4, V0.S4, V2.S4;     \
	VFCVTZS V1.S4, V1.S4;             \
	VADD    V26.S4, V1.S4, V1.S4;     \
	VSHL    $23, V1.S4, V1.S4;        \
	VFMUL   V1.S4, V2.S4, V2.S4

// func expSubSIMD(s *float32, n int, m float32) float32
// s[j] = e^(s[j]-m), returning their sum; n is a multiple of 8.
TEXT ·expSubSIMD(SB), NOSPLIT, $0-28
	MOVD  s+0(FP), R0
	MOVD  n+8(FP), R1
	FMOVS m+16(FP), F15
	VDUP  V15.S[0], V15.S4
	EXPCONST
	VEOR  V8.B16, V8.B16, V8.B16

loop:
	CBZ    R1, done
	VLD1   (R0), [V0.S4]
	VFSUB  V15.S4, V0.S4, V0.S4
	VFMAX  V27.S4, V0.S4, V0.S4
	EXP
	VST1.P [V2.S4], 16(R0)
	VFADD  V2.S4, V8.S4, V8.S4
	SUB    $4, R1
	B      loop

done:
	VFADDP V8.S4, V8.S4, V8.S4
	VFADDP V8.S4, V8.S4, V8.S4
	FMOVS  F8, ret+24(FP)
	RET

// func swigluSIMD(gate, up *float32, n int)
// gate[i] = gate[i] / (1 + e^-gate[i]) * up[i]; n is a multiple of 8. The
// exponent is clamped to [-87, 88], which moves results by less than 1e-36.
TEXT ·swigluSIMD(SB), NOSPLIT, $0-24
	MOVD gate+0(FP), R0
	MOVD up+8(FP), R1
	MOVD n+16(FP), R2
	EXPCONST

loop:
	CBZ    R2, done
	VLD1   (R0), [V6.S4]
	VFNEG  V6.S4, V0.S4
	VFMAX  V27.S4, V0.S4, V0.S4
	VFMIN  V28.S4, V0.S4, V0.S4
	EXP
	VFADD  V25.S4, V2.S4, V2.S4
	VFDIV  V2.S4, V6.S4, V6.S4
	VLD1.P 16(R1), [V7.S4]
	VFMUL  V7.S4, V6.S4, V6.S4
	VST1.P [V6.S4], 16(R0)
	SUB    $4, R2
	B      loop

done:
	RET
