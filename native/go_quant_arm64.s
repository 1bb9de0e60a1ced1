//go:build arm64 && !purego

// NEON kernels of the quantized weight blocks against float32 activations:
// each block is unpacked to its float32 values d*q (rounded exactly as
// ggml's dequantize_row_*), which the deq* kernels store and the dot*
// kernels multiply by the activations. Contracts are in
// go_kernels_simd.go and go_kernels_arm64.go.
//
// Registers: R0 dst (deq) or the running activations (dot), R2 the
// blocks; V16..V19 hold 16 values at a time; the dots sum them times the
// activations in V8..V11.

#include "textflag.h"

// FCVTL Vd.4S, Vn.4H (binary16 to float32), which the Go assembler lacks.
#define FCVTL(n, d) WORD $(0x0E217800 | ((n)<<5) | (d))

// WIDEN16 converts the 16 int8 of v to float32 in V16..V19 (V12, V13
// clobbered).
#define WIDEN16(v) \
	VSXTL  v.B8, V12.H8;    \
	VSXTL2 v.B16, V13.H8;   \
	VSXTL  V12.H4, V16.S4;  \
	VSXTL2 V12.H8, V17.S4;  \
	VSXTL  V13.H4, V18.S4;  \
	VSXTL2 V13.H8, V19.S4;  \
	VSCVTF V16.S4, V16.S4;  \
	VSCVTF V17.S4, V17.S4;  \
	VSCVTF V18.S4, V18.S4;  \
	VSCVTF V19.S4, V19.S4

// SCALE16 multiplies V16..V19 by V24.
#define SCALE16 \
	VFMUL V24.S4, V16.S4, V16.S4; \
	VFMUL V24.S4, V17.S4, V17.S4; \
	VFMUL V24.S4, V18.S4, V18.S4; \
	VFMUL V24.S4, V19.S4, V19.S4

// SUBMIN16 subtracts V25 from V16..V19.
#define SUBMIN16 \
	VFSUB V25.S4, V16.S4, V16.S4; \
	VFSUB V25.S4, V17.S4, V17.S4; \
	VFSUB V25.S4, V18.S4, V18.S4; \
	VFSUB V25.S4, V19.S4, V19.S4

// STORE16 stores V16..V19 at R0, advancing it.
#define STORE16 \
	VST1.P [V16.S4, V17.S4, V18.S4, V19.S4], 64(R0)

// FMA16 adds V16..V19 times the 16 floats at R0 (advancing R0) to V8..V11.
#define FMA16 \
	VLD1.P 64(R0), [V0.S4, V1.S4, V2.S4, V3.S4]; \
	VFMLA  V16.S4, V0.S4, V8.S4;  \
	VFMLA  V17.S4, V1.S4, V9.S4;  \
	VFMLA  V18.S4, V2.S4, V10.S4; \
	VFMLA  V19.S4, V3.S4, V11.S4

#define ZEROACC \
	VEOR V8.B16, V8.B16, V8.B16;    \
	VEOR V9.B16, V9.B16, V9.B16;    \
	VEOR V10.B16, V10.B16, V10.B16; \
	VEOR V11.B16, V11.B16, V11.B16

// SUMACC leaves the sum of V8..V11 in F8.
#define SUMACC \
	VFADD  V9.S4, V8.S4, V8.S4;    \
	VFADD  V11.S4, V10.S4, V10.S4; \
	VFADD  V10.S4, V8.S4, V8.S4;   \
	VFADDP V8.S4, V8.S4, V8.S4;    \
	VFADDP V8.S4, V8.S4, V8.S4

// HALFSCALE sets V24 to 4 copies of the binary16 at off(R2).
#define HALFSCALE(off) \
	ADD  $off, R2, R9;    \
	VLD1 (R9), V24.H[0];  \
	FCVTL(24, 24);        \
	VDUP V24.S[0], V24.S4

// Q8_0 blocks: d f16, qs[32] int8.
#define Q8_0BLOCK(use) \
	HALFSCALE(0);                      \
	ADD  $2, R2, R9;                   \
	VLD1 (R9), [V26.B16, V27.B16];     \
	WIDEN16(V26); SCALE16; use;        \
	WIDEN16(V27); SCALE16; use;        \
	ADD  $34, R2

// Q4_0 blocks: d f16, qs[16]; element j is the low nibble of qs[j] less 8,
// element j+16 the high nibble less 8. Needs V14 = 0x0f…, V15 = 8….
#define Q4_0BLOCK(use) \
	HALFSCALE(0);                      \
	ADD   $2, R2, R9;                  \
	VLD1  (R9), [V27.B16];             \
	VAND  V14.B16, V27.B16, V26.B16;   \
	VUSHR $4, V27.B16, V27.B16;        \
	VSUB  V15.B16, V26.B16, V26.B16;   \
	VSUB  V15.B16, V27.B16, V27.B16;   \
	WIDEN16(V26); SCALE16; use;        \
	WIDEN16(V27); SCALE16; use;        \
	ADD   $18, R2

// func dotQ8_0SIMD(w *byte, x *float32, nb int) float32
TEXT ·dotQ8_0SIMD(SB), NOSPLIT, $0-28
	MOVD w+0(FP), R2
	MOVD x+8(FP), R0
	MOVD nb+16(FP), R3
	ZEROACC

loop:
	CBZ R3, done
	Q8_0BLOCK(FMA16)
	SUB $1, R3
	B   loop

done:
	SUMACC
	FMOVS F8, ret+24(FP)
	RET

// func deqQ8_0SIMD(dst *float32, w *byte, nb int)
TEXT ·deqQ8_0SIMD(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD w+8(FP), R2
	MOVD nb+16(FP), R3

loop:
	CBZ R3, done
	Q8_0BLOCK(STORE16)
	SUB $1, R3
	B   loop

done:
	RET

// func dotQ4_0SIMD(w *byte, x *float32, nb int) float32
TEXT ·dotQ4_0SIMD(SB), NOSPLIT, $0-28
	MOVD  w+0(FP), R2
	MOVD  x+8(FP), R0
	MOVD  nb+16(FP), R3
	VMOVI $15, V14.B16
	VMOVI $8, V15.B16
	ZEROACC

loop:
	CBZ R3, done
	Q4_0BLOCK(FMA16)
	SUB $1, R3
	B   loop

done:
	SUMACC
	FMOVS F8, ret+24(FP)
	RET

// func deqQ4_0SIMD(dst *float32, w *byte, nb int)
TEXT ·deqQ4_0SIMD(SB), NOSPLIT, $0-24
	MOVD  dst+0(FP), R0
	MOVD  w+8(FP), R2
	MOVD  nb+16(FP), R3
	VMOVI $15, V14.B16
	VMOVI $8, V15.B16

loop:
	CBZ R3, done
	Q4_0BLOCK(STORE16)
	SUB $1, R3
	B   loop

done:
	RET

// Q4KSCALES sets V20, V21 to d*scale_j for sub-blocks j = 0..3, 4..7 of
// the Q4_K (or Q5_K) super-block at R2 and V22, V23 to dmin*min_j (ggml's
// get_scale_min_k4 on 32-bit words, as dotQ4KQ8KSIMD). Needs R11 =
// 0x3f3f3f3f, R12 = 0x0f0f0f0f, R13 = 0x03030303.
#define Q4KSCALES \
	MOVWU  4(R2), R5;             \
	MOVWU  8(R2), R6;             \
	MOVWU  12(R2), R7;            \
	LSRW   $4, R7, R8;            \
	ANDW   R12, R8, R8;           \
	LSRW   $6, R6, R9;            \
	ANDW   R13, R9, R9;           \
	ORRW   R9<<4, R8, R8;         \
	ANDW   R11, R6, R14;          \
	ANDW   R12, R7, R15;          \
	LSRW   $6, R5, R9;            \
	ANDW   R13, R9, R9;           \
	ORRW   R9<<4, R15, R15;       \
	ANDW   R11, R5, R5;           \
	ORR    R15<<32, R5, R5;       \
	ORR    R8<<32, R14, R14;      \
	VMOV   R5, V20.D[0];          \
	VMOV   R14, V22.D[0];         \
	VUXTL  V20.B8, V20.H8;        \
	VUXTL  V22.B8, V22.H8;        \
	VUXTL2 V20.H8, V21.S4;        \
	VUXTL  V20.H4, V20.S4;        \
	VUXTL2 V22.H8, V23.S4;        \
	VUXTL  V22.H4, V22.S4;        \
	VUCVTF V20.S4, V20.S4;        \
	VUCVTF V21.S4, V21.S4;        \
	VUCVTF V22.S4, V22.S4;        \
	VUCVTF V23.S4, V23.S4;        \
	VLD1   (R2), V24.S[0];        \
	FCVTL(24, 24);                \
	VDUP   V24.S[1], V25.S4;      \
	VDUP   V24.S[0], V24.S4;      \
	VFMUL  V24.S4, V20.S4, V20.S4; \
	VFMUL  V24.S4, V21.S4, V21.S4; \
	VFMUL  V25.S4, V22.S4, V22.S4; \
	VFMUL  V25.S4, V23.S4, V23.S4

// Q4KSUB16 passes 16 values d1*q - m1 of the unsigned quants of v to use,
// d1 being lane l of sv and m1 lane l of mv.
#define Q4KSUB16(v, sv, mv, l, use) \
	VDUP sv.S[l], V24.S4; \
	VDUP mv.S[l], V25.S4; \
	WIDEN16(v); SCALE16; SUBMIN16; use

// Q4KGROUP passes 64 values of a Q4_K super-block to use, 32 bytes of
// nibbles at R3 (advancing it), low nibbles first: sub-blocks la, lb of
// the lanes of sv, mv. Needs V14 = 0x0f….
#define Q4KGROUP(sv, mv, la, lb, use) \
	VLD1.P 32(R3), [V26.B16, V27.B16];  \
	VAND   V14.B16, V26.B16, V28.B16;   \
	Q4KSUB16(V28, sv, mv, la, use);     \
	VAND   V14.B16, V27.B16, V28.B16;   \
	Q4KSUB16(V28, sv, mv, la, use);     \
	VUSHR  $4, V26.B16, V28.B16;        \
	Q4KSUB16(V28, sv, mv, lb, use);     \
	VUSHR  $4, V27.B16, V28.B16;        \
	Q4KSUB16(V28, sv, mv, lb, use)

// Q4KBLOCK passes the 256 values of the Q4_K super-block at R2 (d f16,
// dmin f16, scales[12], qs[128]) to use, advancing R2.
#define Q4KBLOCK(use) \
	Q4KSCALES;                          \
	ADD $16, R2, R3;                    \
	Q4KGROUP(V20, V22, 0, 1, use);      \
	Q4KGROUP(V20, V22, 2, 3, use);      \
	Q4KGROUP(V21, V23, 0, 1, use);      \
	Q4KGROUP(V21, V23, 2, 3, use);      \
	ADD $144, R2

#define KMASKS \
	MOVW  $0x3f3f3f3f, R11; \
	MOVW  $0x0f0f0f0f, R12; \
	MOVW  $0x03030303, R13; \
	VMOVI $15, V14.B16

// func dotQ4KSIMD(w *byte, x *float32, nb int) float32
TEXT ·dotQ4KSIMD(SB), NOSPLIT, $0-28
	MOVD w+0(FP), R2
	MOVD x+8(FP), R0
	MOVD nb+16(FP), R4
	KMASKS
	ZEROACC

loop:
	CBZ R4, done
	Q4KBLOCK(FMA16)
	SUB $1, R4
	B   loop

done:
	SUMACC
	FMOVS F8, ret+24(FP)
	RET

// func deqQ4KSIMD(dst *float32, w *byte, nb int)
TEXT ·deqQ4KSIMD(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD w+8(FP), R2
	MOVD nb+16(FP), R4
	KMASKS

loop:
	CBZ R4, done
	Q4KBLOCK(STORE16)
	SUB $1, R4
	B   loop

done:
	RET

// Q6SUB16 passes 16 values of a Q6_K sub-block to use: the quants are
// (the nibbles in V28 | the two bits in V30, at bits 4-5) - 32, and the
// scale is lane l of sv. Needs V15 = 0x30…, V29 = 32….
#define Q6SUB16(sv, l, use) \
	VAND V15.B16, V30.B16, V30.B16; \
	VORR V30.B16, V28.B16, V28.B16; \
	VSUB V29.B16, V28.B16, V28.B16; \
	VDUP sv.S[l], V24.S4;           \
	WIDEN16(V28); SCALE16; use

// Q6HALF passes 128 values of a Q6_K super-block to use: ql at R3, qh at
// R5 (advancing both), scales d*sc in sa (sub-blocks 0..3 of the half)
// and sb (4..7), as ggml's dequantize_row_q6_K. Needs V14 = 0x0f….
#define Q6HALF(sa, sb, use) \
	VLD1.P 64(R3), [V4.B16, V5.B16, V6.B16, V7.B16]; \
	VLD1.P 32(R5), [V26.B16, V27.B16];               \
	VAND   V14.B16, V4.B16, V28.B16;   \
	VSHL   $4, V26.B16, V30.B16;       \
	Q6SUB16(sa, 0, use);               \
	VAND   V14.B16, V5.B16, V28.B16;   \
	VSHL   $4, V27.B16, V30.B16;       \
	Q6SUB16(sa, 1, use);               \
	VAND   V14.B16, V6.B16, V28.B16;   \
	VSHL   $2, V26.B16, V30.B16;       \
	Q6SUB16(sa, 2, use);               \
	VAND   V14.B16, V7.B16, V28.B16;   \
	VSHL   $2, V27.B16, V30.B16;       \
	Q6SUB16(sa, 3, use);               \
	VUSHR  $4, V4.B16, V28.B16;        \
	VORR   V26.B16, V26.B16, V30.B16;  \
	Q6SUB16(sb, 0, use);               \
	VUSHR  $4, V5.B16, V28.B16;        \
	VORR   V27.B16, V27.B16, V30.B16;  \
	Q6SUB16(sb, 1, use);               \
	VUSHR  $4, V6.B16, V28.B16;        \
	VUSHR  $2, V26.B16, V30.B16;       \
	Q6SUB16(sb, 2, use);               \
	VUSHR  $4, V7.B16, V28.B16;        \
	VUSHR  $2, V27.B16, V30.B16;       \
	Q6SUB16(sb, 3, use)

// Q6KBLOCK passes the 256 values of the Q6_K super-block at R2 (ql[128],
// qh[64], scales[16] int8, d f16) to use, advancing R2: the scales d*sc
// go to V20..V23.
#define Q6KBLOCK(use) \
	HALFSCALE(208);                    \
	ADD    $192, R2, R9;               \
	VLD1   (R9), [V26.B16];            \
	VSXTL  V26.B8, V12.H8;             \
	VSXTL2 V26.B16, V13.H8;            \
	VSXTL  V12.H4, V20.S4;             \
	VSXTL2 V12.H8, V21.S4;             \
	VSXTL  V13.H4, V22.S4;             \
	VSXTL2 V13.H8, V23.S4;             \
	VSCVTF V20.S4, V20.S4;             \
	VSCVTF V21.S4, V21.S4;             \
	VSCVTF V22.S4, V22.S4;             \
	VSCVTF V23.S4, V23.S4;             \
	VFMUL  V24.S4, V20.S4, V20.S4;     \
	VFMUL  V24.S4, V21.S4, V21.S4;     \
	VFMUL  V24.S4, V22.S4, V22.S4;     \
	VFMUL  V24.S4, V23.S4, V23.S4;     \
	MOVD   R2, R3;                     \
	ADD    $128, R2, R5;               \
	Q6HALF(V20, V21, use);             \
	Q6HALF(V22, V23, use);             \
	ADD    $210, R2

#define Q6MASKS \
	VMOVI $15, V14.B16; \
	VMOVI $48, V15.B16; \
	VMOVI $32, V29.B16

// func dotQ6KSIMD(w *byte, x *float32, nb int) float32
TEXT ·dotQ6KSIMD(SB), NOSPLIT, $0-28
	MOVD w+0(FP), R2
	MOVD x+8(FP), R0
	MOVD nb+16(FP), R4
	Q6MASKS
	ZEROACC

loop:
	CBZ R4, done
	Q6KBLOCK(FMA16)
	SUB $1, R4
	B   loop

done:
	SUMACC
	FMOVS F8, ret+24(FP)
	RET

// func deqQ6KSIMD(dst *float32, w *byte, nb int)
TEXT ·deqQ6KSIMD(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD w+8(FP), R2
	MOVD nb+16(FP), R4
	Q6MASKS

loop:
	CBZ R4, done
	Q6KBLOCK(STORE16)
	SUB $1, R4
	B   loop

done:
	RET

// ADDMIN16 adds V25 to V16..V19.
#define ADDMIN16 \
	VFADD V25.S4, V16.S4, V16.S4; \
	VFADD V25.S4, V17.S4, V17.S4; \
	VFADD V25.S4, V18.S4, V18.S4; \
	VFADD V25.S4, V19.S4, V19.S4

// Q5BITS sets V30 to 0x10 in the bytes of elements 0..15 (idx = V20) or
// 16..31 (idx = V21) whose bit is set in qh, the 32 bits of V28 (V22 =
// 1, 2, 4, …, 128 twice, V23 = 0x10…).
#define Q5BITS(idx) \
	VTBL   idx.B16, [V28.B16], V30.B16; \
	VCMTST V22.B16, V30.B16, V30.B16;   \
	VAND   V23.B16, V30.B16, V30.B16

// Q5CONST loads Q5BITS's constants.
#define Q5CONST \
	MOVD  $0x0101010101010101, R9; \
	VMOV  R9, V20.D[1];            \
	VMOV  ZR, V20.D[0];            \
	MOVD  $0x0303030303030303, R9; \
	VMOV  R9, V21.D[1];            \
	MOVD  $0x0202020202020202, R9; \
	VMOV  R9, V21.D[0];            \
	MOVD  $0x8040201008040201, R9; \
	VMOV  R9, V22.D[0];            \
	VMOV  R9, V22.D[1];            \
	VMOVI $16, V23.B16;            \
	VMOVI $15, V14.B16

// Q5QUANTS sets V26, V27 to the 5-bit quants of elements 0..15, 16..31
// from the 16 bytes of nibbles at R9 and qh at qoff(R2).
#define Q5QUANTS(qoff) \
	MOVWU qoff(R2), R10;                \
	VDUP  R10, V28.S4;                  \
	VLD1  (R9), [V27.B16];              \
	Q5BITS(V20);                        \
	VAND  V14.B16, V27.B16, V26.B16;    \
	VORR  V30.B16, V26.B16, V26.B16;    \
	Q5BITS(V21);                        \
	VUSHR $4, V27.B16, V27.B16;         \
	VORR  V30.B16, V27.B16, V27.B16

// Q5_0 blocks: d f16, qh u32, qs[16]; bit 4 of element j is bit j of qh,
// and values are offset by 16. Needs Q5CONST and V15 = 16….
#define Q5_0BLOCK(use) \
	HALFSCALE(0);                      \
	ADD  $6, R2, R9;                   \
	Q5QUANTS(2);                       \
	VSUB V15.B16, V26.B16, V26.B16;    \
	VSUB V15.B16, V27.B16, V27.B16;    \
	WIDEN16(V26); SCALE16; use;        \
	WIDEN16(V27); SCALE16; use;        \
	ADD  $22, R2

// MINSCALE sets V24, V25 to 4 copies of the binary16 d and m at R2.
#define MINSCALE \
	VLD1 (R2), V24.S[0];   \
	FCVTL(24, 24);         \
	VDUP V24.S[1], V25.S4; \
	VDUP V24.S[0], V24.S4

// Q4_1 blocks: d f16, m f16, qs[16]: value = q*d + m, q unsigned. Needs
// V14 = 0x0f….
#define Q4_1BLOCK(use) \
	MINSCALE;                                   \
	ADD   $4, R2, R9;                           \
	VLD1  (R9), [V27.B16];                      \
	VAND  V14.B16, V27.B16, V26.B16;            \
	VUSHR $4, V27.B16, V27.B16;                 \
	WIDEN16(V26); SCALE16; ADDMIN16; use;       \
	WIDEN16(V27); SCALE16; ADDMIN16; use;       \
	ADD   $20, R2

// Q5_1 blocks: d f16, m f16, qh u32, qs[16]. Needs Q5CONST.
#define Q5_1BLOCK(use) \
	MINSCALE;                                   \
	ADD   $8, R2, R9;                           \
	Q5QUANTS(4);                                \
	WIDEN16(V26); SCALE16; ADDMIN16; use;       \
	WIDEN16(V27); SCALE16; ADDMIN16; use;       \
	ADD   $24, R2

// func dotQ5_0SIMD(w *byte, x *float32, nb int) float32
TEXT ·dotQ5_0SIMD(SB), NOSPLIT, $0-28
	MOVD  w+0(FP), R2
	MOVD  x+8(FP), R0
	MOVD  nb+16(FP), R3
	Q5CONST
	VMOVI $16, V15.B16
	ZEROACC

loop:
	CBZ R3, done
	Q5_0BLOCK(FMA16)
	SUB $1, R3
	B   loop

done:
	SUMACC
	FMOVS F8, ret+24(FP)
	RET

// func deqQ5_0SIMD(dst *float32, w *byte, nb int)
TEXT ·deqQ5_0SIMD(SB), NOSPLIT, $0-24
	MOVD  dst+0(FP), R0
	MOVD  w+8(FP), R2
	MOVD  nb+16(FP), R3
	Q5CONST
	VMOVI $16, V15.B16

loop:
	CBZ R3, done
	Q5_0BLOCK(STORE16)
	SUB $1, R3
	B   loop

done:
	RET

// func dotQ4_1SIMD(w *byte, x *float32, nb int) float32
TEXT ·dotQ4_1SIMD(SB), NOSPLIT, $0-28
	MOVD  w+0(FP), R2
	MOVD  x+8(FP), R0
	MOVD  nb+16(FP), R3
	VMOVI $15, V14.B16
	ZEROACC

loop:
	CBZ R3, done
	Q4_1BLOCK(FMA16)
	SUB $1, R3
	B   loop

done:
	SUMACC
	FMOVS F8, ret+24(FP)
	RET

// func deqQ4_1SIMD(dst *float32, w *byte, nb int)
TEXT ·deqQ4_1SIMD(SB), NOSPLIT, $0-24
	MOVD  dst+0(FP), R0
	MOVD  w+8(FP), R2
	MOVD  nb+16(FP), R3
	VMOVI $15, V14.B16

loop:
	CBZ R3, done
	Q4_1BLOCK(STORE16)
	SUB $1, R3
	B   loop

done:
	RET

// func dotQ5_1SIMD(w *byte, x *float32, nb int) float32
TEXT ·dotQ5_1SIMD(SB), NOSPLIT, $0-28
	MOVD w+0(FP), R2
	MOVD x+8(FP), R0
	MOVD nb+16(FP), R3
	Q5CONST
	ZEROACC

loop:
	CBZ R3, done
	Q5_1BLOCK(FMA16)
	SUB $1, R3
	B   loop

done:
	SUMACC
	FMOVS F8, ret+24(FP)
	RET

// func deqQ5_1SIMD(dst *float32, w *byte, nb int)
TEXT ·deqQ5_1SIMD(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD w+8(FP), R2
	MOVD nb+16(FP), R3
	Q5CONST

loop:
	CBZ R3, done
	Q5_1BLOCK(STORE16)
	SUB $1, R3
	B   loop

done:
	RET

// Q5KGROUP passes 64 values of a Q5_K super-block to use: 32 bytes of
// nibbles at R3 (advancing it), low nibbles first (sub-blocks la, lb of
// the lanes of sv, mv), with their fifth bits in bits 0 and 1 of the
// bytes of V4, V5 (which it shifts right by 2). Needs V14 = 0x0f…, V15 =
// 0x10….
#define Q5KGROUP(sv, mv, la, lb, use) \
	VLD1.P 32(R3), [V26.B16, V27.B16];  \
	VSHL   $4, V4.B16, V30.B16;         \
	VAND   V15.B16, V30.B16, V30.B16;   \
	VAND   V14.B16, V26.B16, V28.B16;   \
	VORR   V30.B16, V28.B16, V28.B16;   \
	Q4KSUB16(V28, sv, mv, la, use);     \
	VSHL   $4, V5.B16, V30.B16;         \
	VAND   V15.B16, V30.B16, V30.B16;   \
	VAND   V14.B16, V27.B16, V28.B16;   \
	VORR   V30.B16, V28.B16, V28.B16;   \
	Q4KSUB16(V28, sv, mv, la, use);     \
	VSHL   $3, V4.B16, V30.B16;         \
	VAND   V15.B16, V30.B16, V30.B16;   \
	VUSHR  $4, V26.B16, V28.B16;        \
	VORR   V30.B16, V28.B16, V28.B16;   \
	Q4KSUB16(V28, sv, mv, lb, use);     \
	VSHL   $3, V5.B16, V30.B16;         \
	VAND   V15.B16, V30.B16, V30.B16;   \
	VUSHR  $4, V27.B16, V28.B16;        \
	VORR   V30.B16, V28.B16, V28.B16;   \
	Q4KSUB16(V28, sv, mv, lb, use);     \
	VUSHR  $2, V4.B16, V4.B16;          \
	VUSHR  $2, V5.B16, V5.B16

// Q5KBLOCK passes the 256 values of the Q5_K super-block at R2 (d f16,
// dmin f16, scales[12] as Q4_K, qh[32], qs[128]) to use, advancing R2.
#define Q5KBLOCK(use) \
	Q4KSCALES;                          \
	ADD  $16, R2, R3;                   \
	VLD1.P 32(R3), [V4.B16, V5.B16];    \
	Q5KGROUP(V20, V22, 0, 1, use);      \
	Q5KGROUP(V20, V22, 2, 3, use);      \
	Q5KGROUP(V21, V23, 0, 1, use);      \
	Q5KGROUP(V21, V23, 2, 3, use);      \
	ADD  $176, R2

// func dotQ5KSIMD(w *byte, x *float32, nb int) float32
TEXT ·dotQ5KSIMD(SB), NOSPLIT, $0-28
	MOVD  w+0(FP), R2
	MOVD  x+8(FP), R0
	MOVD  nb+16(FP), R4
	KMASKS
	VMOVI $16, V15.B16
	ZEROACC

loop:
	CBZ R4, done
	Q5KBLOCK(FMA16)
	SUB $1, R4
	B   loop

done:
	SUMACC
	FMOVS F8, ret+24(FP)
	RET

// func deqQ5KSIMD(dst *float32, w *byte, nb int)
TEXT ·deqQ5KSIMD(SB), NOSPLIT, $0-24
	MOVD  dst+0(FP), R0
	MOVD  w+8(FP), R2
	MOVD  nb+16(FP), R4
	KMASKS
	VMOVI $16, V15.B16

loop:
	CBZ R4, done
	Q5KBLOCK(STORE16)
	SUB $1, R4
	B   loop

done:
	RET

// BF16WIDEN sets V16..V19 to the 16 bfloat16 values at R2 (advancing it)
// as float32: each shifted to the top of a 32-bit lane.
#define BF16WIDEN \
	VLD1.P 32(R2), [V26.H8, V27.H8]; \
	VUXTL  V26.H4, V16.S4;           \
	VUXTL2 V26.H8, V17.S4;           \
	VUXTL  V27.H4, V18.S4;           \
	VUXTL2 V27.H8, V19.S4;           \
	VSHL   $16, V16.S4, V16.S4;      \
	VSHL   $16, V17.S4, V17.S4;      \
	VSHL   $16, V18.S4, V18.S4;      \
	VSHL   $16, V19.S4, V19.S4

// func dotBF16SIMD(w *byte, x *float32, n int) float32
// w holds n bfloat16 values; n is a multiple of 8.
TEXT ·dotBF16SIMD(SB), NOSPLIT, $0-28
	MOVD w+0(FP), R2
	MOVD x+8(FP), R0
	MOVD n+16(FP), R3
	ZEROACC

loop16:
	CMP $16, R3
	BLT loop8
	BF16WIDEN
	FMA16
	SUB $16, R3
	B   loop16

loop8:
	CBZ    R3, done
	VLD1.P 16(R2), [V26.H8]
	VUXTL  V26.H4, V16.S4
	VUXTL2 V26.H8, V17.S4
	VSHL   $16, V16.S4, V16.S4
	VSHL   $16, V17.S4, V17.S4
	VLD1.P 32(R0), [V0.S4, V1.S4]
	VFMLA  V16.S4, V0.S4, V8.S4
	VFMLA  V17.S4, V1.S4, V9.S4

done:
	SUMACC
	FMOVS F8, ret+24(FP)
	RET

// func cvtBF16SIMD(dst *float32, src *byte, n int)
// n is a multiple of 8.
TEXT ·cvtBF16SIMD(SB), NOSPLIT, $0-24
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R2
	MOVD n+16(FP), R3

loop:
	CBZ    R3, done
	VLD1.P 16(R2), [V26.H8]
	VUXTL  V26.H4, V16.S4
	VUXTL2 V26.H8, V17.S4
	VSHL   $16, V16.S4, V16.S4
	VSHL   $16, V17.S4, V17.S4
	VST1.P [V16.S4, V17.S4], 32(R0)
	SUB    $8, R3
	B      loop

done:
	RET
