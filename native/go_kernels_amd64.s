//go:build amd64 && !purego

// AVX2 + FMA + F16C kernels of the pure-Go backend. Weights are unpacked
// to float32 in registers and multiplied by float32 activations, so the
// results equal the generic Go code (ggml.Dot) up to summation order. The
// Go declarations and their contracts are in go_kernels_amd64.go.

#include "textflag.h"

DATA nib<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nib<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nib<>+16(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nib<>+24(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL nib<>(SB), RODATA|NOPTR, $32

DATA eight<>+0(SB)/8, $0x0808080808080808
DATA eight<>+8(SB)/8, $0x0808080808080808
GLOBL eight<>(SB), RODATA|NOPTR, $16

DATA minus16<>+0(SB)/8, $0xf0f0f0f0f0f0f0f0
DATA minus16<>+8(SB)/8, $0xf0f0f0f0f0f0f0f0
GLOBL minus16<>(SB), RODATA|NOPTR, $16

// q5shuf spreads qh byte 0 over bytes 0-7 and byte 1 over bytes 8-15;
// q5shufHi does the same with qh bytes 2 and 3.
DATA q5shufLo<>+0(SB)/8, $0x0000000000000000
DATA q5shufLo<>+8(SB)/8, $0x0101010101010101
GLOBL q5shufLo<>(SB), RODATA|NOPTR, $16
DATA q5shufHi<>+0(SB)/8, $0x0202020202020202
DATA q5shufHi<>+8(SB)/8, $0x0303030303030303
GLOBL q5shufHi<>(SB), RODATA|NOPTR, $16
DATA q5bits<>+0(SB)/8, $0x8040201008040201
DATA q5bits<>+8(SB)/8, $0x8040201008040201
GLOBL q5bits<>(SB), RODATA|NOPTR, $16

DATA m30<>+0(SB)/8, $0x3030303030303030
DATA m30<>+8(SB)/8, $0x3030303030303030
DATA m30<>+16(SB)/8, $0x3030303030303030
DATA m30<>+24(SB)/8, $0x3030303030303030
GLOBL m30<>(SB), RODATA|NOPTR, $32

DATA m20<>+0(SB)/8, $0x2020202020202020
DATA m20<>+8(SB)/8, $0x2020202020202020
DATA m20<>+16(SB)/8, $0x2020202020202020
DATA m20<>+24(SB)/8, $0x2020202020202020
GLOBL m20<>(SB), RODATA|NOPTR, $32

// HSUM leaves the sum of the 8 floats of Y0 in the low float of X0.
#define HSUM \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VHADDPS      X0, X0, X0

// func dotF32AVX2(a, b *float32, n int) float32
// n is a multiple of 8.
TEXT ·dotF32AVX2(SB), NOSPLIT, $0-28
	MOVQ   a+0(FP), SI
	MOVQ   b+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

loop32:
	CMPQ        CX, $32
	JLT         loop8
	VMOVUPS     (SI), Y4
	VMOVUPS     32(SI), Y5
	VMOVUPS     64(SI), Y6
	VMOVUPS     96(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $128, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         loop32

loop8:
	CMPQ        CX, $8
	JLT         done
	VMOVUPS     (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $32, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         loop8

done:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUM
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// func dotF32x4AVX2(w, x *float32, xstride, n int, out *float32)
// out[t] = w · x[t*xstride/4 : …+n] for t = 0..3; xstride in bytes, n a
// multiple of 8. Each sum takes the 8-float steps in the order
// dotF32r2x4AVX2 does, so a row gives the same result alone or in a pair
// (and MatMul the same results on any number of threads).
TEXT ·dotF32x4AVX2(SB), NOSPLIT, $0-40
	MOVQ   w+0(FP), SI
	MOVQ   x+8(FP), DI
	MOVQ   xstride+16(FP), DX
	MOVQ   n+24(FP), CX
	LEAQ   (DI)(DX*1), R8
	LEAQ   (R8)(DX*1), R9
	LEAQ   (R9)(DX*1), R10
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

loop8:
	CMPQ        CX, $8
	JLT         done
	VMOVUPS     (SI), Y8
	VFMADD231PS (DI), Y8, Y0
	VFMADD231PS (R8), Y8, Y1
	VFMADD231PS (R9), Y8, Y2
	VFMADD231PS (R10), Y8, Y3
	ADDQ        $32, SI
	ADDQ        $32, DI
	ADDQ        $32, R8
	ADDQ        $32, R9
	ADDQ        $32, R10
	SUBQ        $8, CX
	JMP         loop8

done:
	VHADDPS      Y1, Y0, Y0
	VHADDPS      Y3, Y2, Y2
	VHADDPS      Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	MOVQ         out+32(FP), AX
	VMOVUPS      X0, (AX)
	VZEROUPPER
	RET

// func dotF16AVX2(w *byte, x *float32, n int) float32
// w holds n binary16 values; n is a multiple of 8.
TEXT ·dotF16AVX2(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), SI
	MOVQ   x+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3

loop32:
	CMPQ        CX, $32
	JLT         loop8
	VCVTPH2PS   (SI), Y4
	VCVTPH2PS   16(SI), Y5
	VCVTPH2PS   32(SI), Y6
	VCVTPH2PS   48(SI), Y7
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	VFMADD231PS 64(DI), Y6, Y2
	VFMADD231PS 96(DI), Y7, Y3
	ADDQ        $64, SI
	ADDQ        $128, DI
	SUBQ        $32, CX
	JMP         loop32

loop8:
	CMPQ        CX, $8
	JLT         done
	VCVTPH2PS   (SI), Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $16, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         loop8

done:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	HSUM
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// func cvtF16AVX2(dst *float32, src *byte, n int)
// n is a multiple of 8.
TEXT ·cvtF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop8:
	CMPQ      CX, $8
	JLT       done
	VCVTPH2PS (SI), Y4
	VMOVUPS   Y4, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	SUBQ      $8, CX
	JMP       loop8

done:
	VZEROUPPER
	RET

// WIDEN16x2 sign-extends the 16 bytes of lo and the 16 bytes of hi to
// float32 in Y7, Y8 (lo) and Y9, Y10 (hi). lo and hi are clobbered.
#define WIDEN16x2(lo, hi) \
	VPMOVSXBD lo, Y7;            \
	VPSHUFD   $0xEE, lo, lo;     \
	VPMOVSXBD lo, Y8;            \
	VPMOVSXBD hi, Y9;            \
	VPSHUFD   $0xEE, hi, hi;     \
	VPMOVSXBD hi, Y10;           \
	VCVTDQ2PS Y7, Y7;            \
	VCVTDQ2PS Y8, Y8;            \
	VCVTDQ2PS Y9, Y9;            \
	VCVTDQ2PS Y10, Y10

// DOT32 sets Y7 to the 8 partial sums of Y7..Y10 times the 32 floats at
// xoff(DI).
#define DOT32(xoff) \
	VMULPS      xoff(DI), Y7, Y7;      \
	VFMADD231PS xoff+32(DI), Y8, Y7;   \
	VMULPS      xoff+64(DI), Y9, Y9;   \
	VFMADD231PS xoff+96(DI), Y10, Y9;  \
	VADDPS      Y9, Y7, Y7

// STORE32 stores Y7..Y10 times the scale Y4 to the 32 floats at xoff(DI).
#define STORE32(xoff) \
	VMULPS  Y4, Y7, Y7;       \
	VMULPS  Y4, Y8, Y8;       \
	VMULPS  Y4, Y9, Y9;       \
	VMULPS  Y4, Y10, Y10;     \
	VMOVUPS Y7, xoff(DI);     \
	VMOVUPS Y8, xoff+32(DI);  \
	VMOVUPS Y9, xoff+64(DI);  \
	VMOVUPS Y10, xoff+96(DI)

// Q8_0 blocks: d f16, qs[32] int8. Q8UNPACK leaves d in Y4 and the 32
// values in Y7..Y10.
#define Q8UNPACK(boff) \
	VPBROADCASTW boff(SI), X4;    \
	VCVTPH2PS    X4, Y4;          \
	VPMOVSXBD    boff+2(SI), Y7;  \
	VPMOVSXBD    boff+10(SI), Y8; \
	VPMOVSXBD    boff+18(SI), Y9; \
	VPMOVSXBD    boff+26(SI), Y10; \
	VCVTDQ2PS    Y7, Y7;          \
	VCVTDQ2PS    Y8, Y8;          \
	VCVTDQ2PS    Y9, Y9;          \
	VCVTDQ2PS    Y10, Y10

// Q4_0 blocks: d f16, qs[16]; element j is the low nibble of qs[j] minus
// 8, element j+16 the high nibble minus 8. Needs X15 = 0x0f…, X14 = 8….
#define Q4UNPACK(boff) \
	VPBROADCASTW boff(SI), X4;   \
	VCVTPH2PS    X4, Y4;         \
	VMOVDQU      boff+2(SI), X5; \
	VPSRLW       $4, X5, X6;     \
	VPAND        X15, X5, X5;    \
	VPAND        X15, X6, X6;    \
	VPSUBB       X14, X5, X5;    \
	VPSUBB       X14, X6, X6;    \
	WIDEN16x2(X5, X6)

// Q5_0 blocks: d f16, qh u32, qs[16]; bit 4 of element j is bit j of qh,
// and values are offset by 16. Needs X15 = 0x0f…, X14 = 0xf0…, X13 =
// q5shufLo, X12 = q5shufHi, X11 = q5bits.
#define Q5UNPACK(boff) \
	VPBROADCASTW boff(SI), X4;    \
	VCVTPH2PS    X4, Y4;          \
	VMOVDQU      boff+6(SI), X5;  \
	VPSRLW       $4, X5, X6;      \
	VPAND        X15, X5, X5;     \
	VPAND        X15, X6, X6;     \
	VPBROADCASTD boff+2(SI), X2;  \
	VPSHUFB      X12, X2, X3;     \
	VPSHUFB      X13, X2, X2;     \
	VPAND        X11, X2, X2;     \
	VPAND        X11, X3, X3;     \
	VPCMPEQB     X11, X2, X2;     \
	VPCMPEQB     X11, X3, X3;     \
	VPANDN       X14, X2, X2;     \
	VPANDN       X14, X3, X3;     \
	VPADDB       X2, X5, X5;      \
	VPADDB       X3, X6, X6;      \
	WIDEN16x2(X5, X6)

#define Q4CONST \
	VMOVDQU nib<>(SB), X15; \
	VMOVDQU eight<>(SB), X14

#define Q5CONST \
	VMOVDQU nib<>(SB), X15;      \
	VMOVDQU minus16<>(SB), X14;  \
	VMOVDQU q5shufLo<>(SB), X13; \
	VMOVDQU q5shufHi<>(SB), X12; \
	VMOVDQU q5bits<>(SB), X11

// BLOCKDOT defines func name(w *byte, x *float32, nb int) float32, the dot
// product of nb blocks of size bytes (unpacked by unpack) with 32*nb
// floats, two blocks per iteration.
#define BLOCKDOT(name, size, unpack, consts) \
TEXT name(SB), NOSPLIT, $0-28;       \
	MOVQ   w+0(FP), SI;              \
	MOVQ   x+8(FP), DI;              \
	MOVQ   nb+16(FP), CX;            \
	consts;                          \
	VXORPS Y0, Y0, Y0;               \
	VXORPS Y1, Y1, Y1;               \
loop2:;                              \
	CMPQ   CX, $2;                   \
	JLT    tail;                     \
	unpack(0);                       \
	DOT32(0);                        \
	VFMADD231PS Y7, Y4, Y0;          \
	unpack(size);                    \
	DOT32(128);                      \
	VFMADD231PS Y7, Y4, Y1;          \
	ADDQ   $(2*size), SI;            \
	ADDQ   $256, DI;                 \
	SUBQ   $2, CX;                   \
	JMP    loop2;                    \
tail:;                               \
	CMPQ   CX, $0;                   \
	JEQ    done;                     \
	unpack(0);                       \
	DOT32(0);                        \
	VFMADD231PS Y7, Y4, Y0;          \
done:;                               \
	VADDPS Y1, Y0, Y0;               \
	HSUM;                            \
	VZEROUPPER;                      \
	MOVSS  X0, ret+24(FP);           \
	RET

// BLOCKDEQ defines func name(dst *float32, w *byte, nb int), which
// dequantizes nb blocks.
#define BLOCKDEQ(name, size, unpack, consts) \
TEXT name(SB), NOSPLIT, $0-24; \
	MOVQ dst+0(FP), DI;        \
	MOVQ w+8(FP), SI;          \
	MOVQ nb+16(FP), CX;        \
	consts;                    \
loop:;                         \
	CMPQ CX, $0;               \
	JEQ  done;                 \
	unpack(0);                 \
	STORE32(0);                \
	ADDQ $size, SI;            \
	ADDQ $128, DI;             \
	DECQ CX;                   \
	JMP  loop;                 \
done:;                         \
	VZEROUPPER;                \
	RET

#define NOCONST

// Q4_1 and Q5_1 blocks add a min: value = d*q + m with unsigned q, so
// their unpack macros leave the final values in Y7..Y10.

// MINAPPLY sets Y7..Y10 = Y7..Y10 * Y4 + Y3.
#define MINAPPLY \
	VFMADD213PS Y3, Y4, Y7; \
	VFMADD213PS Y3, Y4, Y8; \
	VFMADD213PS Y3, Y4, Y9; \
	VFMADD213PS Y3, Y4, Y10

// Q4_1 blocks: d f16, m f16, qs[16]. Needs X15 = 0x0f….
#define Q41UNPACK(boff) \
	VMOVDQU      boff+4(SI), X5; \
	VPSRLW       $4, X5, X6;     \
	VPAND        X15, X5, X5;    \
	VPAND        X15, X6, X6;    \
	WIDEN16x2(X5, X6);           \
	VPBROADCASTW boff(SI), X4;   \
	VCVTPH2PS    X4, Y4;         \
	VPBROADCASTW boff+2(SI), X3; \
	VCVTPH2PS    X3, Y3;         \
	MINAPPLY

// Q5_1 blocks: d f16, m f16, qh u32, qs[16]; bit 4 of element j is bit j
// of qh. Needs X15 = 0x0f…, X14 = 0x10…, X13 = q5shufLo, X12 = q5shufHi,
// X11 = q5bits.
#define Q51UNPACK(boff) \
	VMOVDQU      boff+8(SI), X5;  \
	VPSRLW       $4, X5, X6;      \
	VPAND        X15, X5, X5;     \
	VPAND        X15, X6, X6;     \
	VPBROADCASTD boff+4(SI), X2;  \
	VPSHUFB      X12, X2, X3;     \
	VPSHUFB      X13, X2, X2;     \
	VPAND        X11, X2, X2;     \
	VPAND        X11, X3, X3;     \
	VPCMPEQB     X11, X2, X2;     \
	VPCMPEQB     X11, X3, X3;     \
	VPAND        X14, X2, X2;     \
	VPAND        X14, X3, X3;     \
	VPADDB       X2, X5, X5;      \
	VPADDB       X3, X6, X6;      \
	WIDEN16x2(X5, X6);            \
	VPBROADCASTW boff(SI), X4;    \
	VCVTPH2PS    X4, Y4;          \
	VPBROADCASTW boff+2(SI), X3;  \
	VCVTPH2PS    X3, Y3;          \
	MINAPPLY

DATA sixteen<>+0(SB)/8, $0x1010101010101010
DATA sixteen<>+8(SB)/8, $0x1010101010101010
GLOBL sixteen<>(SB), RODATA|NOPTR, $16

#define Q41CONST \
	VMOVDQU nib<>(SB), X15

#define Q51CONST \
	VMOVDQU nib<>(SB), X15;      \
	VMOVDQU sixteen<>(SB), X14;  \
	VMOVDQU q5shufLo<>(SB), X13; \
	VMOVDQU q5shufHi<>(SB), X12; \
	VMOVDQU q5bits<>(SB), X11

// BLOCKDOTM is BLOCKDOT for blocks whose unpack yields final values.
#define BLOCKDOTM(name, size, unpack, consts) \
TEXT name(SB), NOSPLIT, $0-28;       \
	MOVQ   w+0(FP), SI;              \
	MOVQ   x+8(FP), DI;              \
	MOVQ   nb+16(FP), CX;            \
	consts;                          \
	VXORPS Y0, Y0, Y0;               \
	VXORPS Y1, Y1, Y1;               \
loop2:;                              \
	CMPQ   CX, $2;                   \
	JLT    tail;                     \
	unpack(0);                       \
	DOT32(0);                        \
	VADDPS Y7, Y0, Y0;               \
	unpack(size);                    \
	DOT32(128);                      \
	VADDPS Y7, Y1, Y1;               \
	ADDQ   $(2*size), SI;            \
	ADDQ   $256, DI;                 \
	SUBQ   $2, CX;                   \
	JMP    loop2;                    \
tail:;                               \
	CMPQ   CX, $0;                   \
	JEQ    done;                     \
	unpack(0);                       \
	DOT32(0);                        \
	VADDPS Y7, Y0, Y0;               \
done:;                               \
	VADDPS Y1, Y0, Y0;               \
	HSUM;                            \
	VZEROUPPER;                      \
	MOVSS  X0, ret+24(FP);           \
	RET

// STORE32M stores Y7..Y10 to the 32 floats at xoff(DI).
#define STORE32M(xoff) \
	VMOVUPS Y7, xoff(DI);     \
	VMOVUPS Y8, xoff+32(DI);  \
	VMOVUPS Y9, xoff+64(DI);  \
	VMOVUPS Y10, xoff+96(DI)

// BLOCKDEQM is BLOCKDEQ for blocks whose unpack yields final values.
#define BLOCKDEQM(name, size, unpack, consts) \
TEXT name(SB), NOSPLIT, $0-24; \
	MOVQ dst+0(FP), DI;        \
	MOVQ w+8(FP), SI;          \
	MOVQ nb+16(FP), CX;        \
	consts;                    \
loop:;                         \
	CMPQ CX, $0;               \
	JEQ  done;                 \
	unpack(0);                 \
	STORE32M(0);               \
	ADDQ $size, SI;            \
	ADDQ $128, DI;             \
	DECQ CX;                   \
	JMP  loop;                 \
done:;                         \
	VZEROUPPER;                \
	RET

// func dotQ4_1AVX2(w *byte, x *float32, nb int) float32
BLOCKDOTM(·dotQ4_1AVX2, 20, Q41UNPACK, Q41CONST)

// func dotQ5_1AVX2(w *byte, x *float32, nb int) float32
BLOCKDOTM(·dotQ5_1AVX2, 24, Q51UNPACK, Q51CONST)

// func deqQ4_1AVX2(dst *float32, w *byte, nb int)
BLOCKDEQM(·deqQ4_1AVX2, 20, Q41UNPACK, Q41CONST)

// func deqQ5_1AVX2(dst *float32, w *byte, nb int)
BLOCKDEQM(·deqQ5_1AVX2, 24, Q51UNPACK, Q51CONST)

// func dotQ8_0AVX2(w *byte, x *float32, nb int) float32
BLOCKDOT(·dotQ8_0AVX2, 34, Q8UNPACK, NOCONST)

// func dotQ4_0AVX2(w *byte, x *float32, nb int) float32
BLOCKDOT(·dotQ4_0AVX2, 18, Q4UNPACK, Q4CONST)

// func dotQ5_0AVX2(w *byte, x *float32, nb int) float32
BLOCKDOT(·dotQ5_0AVX2, 22, Q5UNPACK, Q5CONST)

// func deqQ8_0AVX2(dst *float32, w *byte, nb int)
BLOCKDEQ(·deqQ8_0AVX2, 34, Q8UNPACK, NOCONST)

// func deqQ4_0AVX2(dst *float32, w *byte, nb int)
BLOCKDEQ(·deqQ4_0AVX2, 18, Q4UNPACK, Q4CONST)

// func deqQ5_0AVX2(dst *float32, w *byte, nb int)
BLOCKDEQ(·deqQ5_0AVX2, 22, Q5UNPACK, Q5CONST)

// Q6WIDEN converts the 32 signed bytes of Yq to float32 in Y8..Y11.
#define Q6WIDEN(Yq, Xq) \
	VEXTRACTI128  $1, Yq, X10;           \
	VPSHUFD       $0xEE, Xq, X9;         \
	VPSHUFD       $0xEE, X10, X11;       \
	VPMOVSXBD     Xq, Y8;                \
	VPMOVSXBD     X9, Y9;                \
	VPMOVSXBD     X10, Y10;              \
	VPMOVSXBD     X11, Y11;              \
	VCVTDQ2PS     Y8, Y8;                \
	VCVTDQ2PS     Y9, Y9;                \
	VCVTDQ2PS     Y10, Y10;              \
	VCVTDQ2PS     Y11, Y11

// Q6DOT32 multiplies 32 signed bytes of Yq (elements of two 16-element
// sub-blocks) by the 32 floats at xoff(DI), scales each sub-block's sum by
// the float at soff(DX) and soff+4(DX) and adds them to Y0 and Y1.
#define Q6DOT32(Yq, Xq, xoff, soff) \
	Q6WIDEN(Yq, Xq);                     \
	VMULPS        xoff(DI), Y8, Y8;      \
	VFMADD231PS   xoff+32(DI), Y9, Y8;   \
	VBROADCASTSS  soff(DX), Y4;          \
	VFMADD231PS   Y4, Y8, Y0;            \
	VMULPS        xoff+64(DI), Y10, Y10; \
	VFMADD231PS   xoff+96(DI), Y11, Y10; \
	VBROADCASTSS  soff+4(DX), Y4;        \
	VFMADD231PS   Y4, Y10, Y1

// Q6DEQ32 stores the 32 signed bytes of Yq times their sub-blocks' scales
// soff(DX) and soff+4(DX) to the floats at xoff(DI).
#define Q6DEQ32(Yq, Xq, xoff, soff) \
	Q6WIDEN(Yq, Xq);                     \
	VBROADCASTSS  soff(DX), Y4;          \
	VMULPS        Y4, Y8, Y8;            \
	VMULPS        Y4, Y9, Y9;            \
	VBROADCASTSS  soff+4(DX), Y4;        \
	VMULPS        Y4, Y10, Y10;          \
	VMULPS        Y4, Y11, Y11;          \
	VMOVUPS       Y8, xoff(DI);          \
	VMOVUPS       Y9, xoff+32(DI);       \
	VMOVUPS       Y10, xoff+64(DI);      \
	VMOVUPS       Y11, xoff+96(DI)

// Q6HALF handles 128 elements of a Q6_K super-block, ql at qloff(SI) and
// qh at qhoff(SI), passing each 32 values (offset by -32) to use. Needs
// Y15 = 0x0f…, Y14 = 0x30…, Y13 = 0x20….
#define Q6HALF(use, qloff, qhoff, xoff, soff) \
	VMOVDQU qloff(SI), Y5;      \
	VMOVDQU qloff+32(SI), Y6;   \
	VMOVDQU qhoff(SI), Y7;      \
	VPAND   Y15, Y5, Y2;        \
	VPSLLW  $4, Y7, Y3;         \
	VPAND   Y14, Y3, Y3;        \
	VPOR    Y3, Y2, Y2;         \
	VPSUBB  Y13, Y2, Y2;        \
	use(Y2, X2, xoff, soff);    \
	VPAND   Y15, Y6, Y2;        \
	VPSLLW  $2, Y7, Y3;         \
	VPAND   Y14, Y3, Y3;        \
	VPOR    Y3, Y2, Y2;         \
	VPSUBB  Y13, Y2, Y2;        \
	use(Y2, X2, xoff+128, soff+8);   \
	VPSRLW  $4, Y5, Y2;         \
	VPAND   Y15, Y2, Y2;        \
	VPAND   Y14, Y7, Y3;        \
	VPOR    Y3, Y2, Y2;         \
	VPSUBB  Y13, Y2, Y2;        \
	use(Y2, X2, xoff+256, soff+16);  \
	VPSRLW  $4, Y6, Y2;         \
	VPAND   Y15, Y2, Y2;        \
	VPSRLW  $2, Y7, Y3;         \
	VPAND   Y14, Y3, Y3;        \
	VPOR    Y3, Y2, Y2;         \
	VPSUBB  Y13, Y2, Y2;        \
	use(Y2, X2, xoff+384, soff+24)

// Q6SCALES stores the 16 scales of the Q6_K super-block at SI, times its
// d, as floats at 0(DX).
#define Q6SCALES \
	VPBROADCASTW 208(SI), X4; \
	VCVTPH2PS    X4, Y4;      \
	VPMOVSXBD    192(SI), Y2; \
	VPMOVSXBD    200(SI), Y3; \
	VCVTDQ2PS    Y2, Y2;      \
	VCVTDQ2PS    Y3, Y3;      \
	VMULPS       Y4, Y2, Y2;  \
	VMULPS       Y4, Y3, Y3;  \
	VMOVUPS      Y2, (DX);    \
	VMOVUPS      Y3, 32(DX)

#define Q6CONST \
	VMOVDQU nib<>(SB), Y15; \
	VMOVDQU m30<>(SB), Y14; \
	VMOVDQU m20<>(SB), Y13

// func dotQ6KAVX2(w *byte, x *float32, nb int) float32
TEXT ·dotQ6KAVX2(SB), NOSPLIT, $64-28
	MOVQ    w+0(FP), SI
	MOVQ    x+8(FP), DI
	MOVQ    nb+16(FP), CX
	LEAQ    0(SP), DX
	Q6CONST
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1

loop:
	CMPQ CX, $0
	JEQ  done
	Q6SCALES
	Q6HALF(Q6DOT32, 0, 128, 0, 0)
	Q6HALF(Q6DOT32, 64, 160, 512, 32)
	ADDQ $210, SI
	ADDQ $1024, DI
	DECQ CX
	JMP  loop

done:
	VADDPS Y1, Y0, Y0
	HSUM
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// func deqQ6KAVX2(dst *float32, w *byte, nb int)
TEXT ·deqQ6KAVX2(SB), NOSPLIT, $64-24
	MOVQ dst+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ nb+16(FP), CX
	LEAQ 0(SP), DX
	Q6CONST

loop:
	CMPQ CX, $0
	JEQ  done
	Q6SCALES
	Q6HALF(Q6DEQ32, 0, 128, 0, 0)
	Q6HALF(Q6DEQ32, 64, 160, 512, 32)
	ADDQ $210, SI
	ADDQ $1024, DI
	DECQ CX
	JMP  loop

done:
	VZEROUPPER
	RET

// Q4KWIDEN converts the 32 unsigned bytes of Yq (one sub-block) to floats
// in Y8..Y11 and applies the sub-block's scale soff(DX) and min
// soff+32(DX): value = scale*q - min.
#define Q4KWIDEN(Yq, Xq, soff) \
	VEXTRACTI128  $1, Yq, X10;            \
	VPSHUFD       $0xEE, Xq, X9;          \
	VPSHUFD       $0xEE, X10, X11;        \
	VPMOVZXBD     Xq, Y8;                 \
	VPMOVZXBD     X9, Y9;                 \
	VPMOVZXBD     X10, Y10;               \
	VPMOVZXBD     X11, Y11;               \
	VCVTDQ2PS     Y8, Y8;                 \
	VCVTDQ2PS     Y9, Y9;                 \
	VCVTDQ2PS     Y10, Y10;               \
	VCVTDQ2PS     Y11, Y11;               \
	VBROADCASTSS  soff(DX), Y4;           \
	VBROADCASTSS  soff+32(DX), Y3;        \
	VFMSUB213PS   Y3, Y4, Y8;             \
	VFMSUB213PS   Y3, Y4, Y9;             \
	VFMSUB213PS   Y3, Y4, Y10;            \
	VFMSUB213PS   Y3, Y4, Y11

// Q4KDOT32 multiplies one sub-block by the 32 floats at xoff(DI), adding
// to Y0 and Y1.
#define Q4KDOT32(Yq, Xq, xoff, soff) \
	Q4KWIDEN(Yq, Xq, soff);               \
	VFMADD231PS   xoff(DI), Y8, Y0;       \
	VFMADD231PS   xoff+32(DI), Y9, Y1;    \
	VFMADD231PS   xoff+64(DI), Y10, Y0;   \
	VFMADD231PS   xoff+96(DI), Y11, Y1

// Q4KDEQ32 stores one dequantized sub-block to the floats at xoff(DI).
#define Q4KDEQ32(Yq, Xq, xoff, soff) \
	Q4KWIDEN(Yq, Xq, soff);               \
	VMOVUPS       Y8, xoff(DI);           \
	VMOVUPS       Y9, xoff+32(DI);        \
	VMOVUPS       Y10, xoff+64(DI);       \
	VMOVUPS       Y11, xoff+96(DI)

// Q4KGROUP handles 64 elements of a Q4_K super-block: 32 bytes at qoff(SI),
// low nibbles first. Needs Y15 = 0x0f….
#define Q4KGROUP(use, qoff, xoff, soff) \
	VMOVDQU qoff(SI), Y5;   \
	VPSRLW  $4, Y5, Y6;     \
	VPAND   Y15, Y5, Y5;    \
	VPAND   Y15, Y6, Y6;    \
	use(Y5, X5, xoff, soff); \
	use(Y6, X6, xoff+128, soff+4)

// Q4KSCALES unpacks the 8 6-bit scales and mins of the Q4_K super-block at
// SI (ggml's get_scale_min_k4 on 32-bit words) and stores d*scale as 8
// floats at 0(DX) and dmin*min as 8 floats at 32(DX).
#define Q4KSCALES \
	MOVL         4(SI), AX;           \
	MOVL         8(SI), BX;           \
	MOVL         12(SI), R12;         \
	MOVL         R12, R13;            \
	SHRL         $4, R13;             \
	ANDL         $0x0f0f0f0f, R13;    \
	MOVL         BX, R11;             \
	SHRL         $6, R11;             \
	ANDL         $0x03030303, R11;    \
	SHLL         $4, R11;             \
	ORL          R11, R13;            \
	ANDL         $0x3f3f3f3f, BX;     \
	ANDL         $0x0f0f0f0f, R12;    \
	MOVL         AX, R11;             \
	SHRL         $6, R11;             \
	ANDL         $0x03030303, R11;    \
	SHLL         $4, R11;             \
	ORL          R11, R12;            \
	ANDL         $0x3f3f3f3f, AX;     \
	SHLQ         $32, R12;            \
	ORQ          R12, AX;             \
	SHLQ         $32, R13;            \
	ORQ          R13, BX;             \
	VPBROADCASTW (SI), X4;            \
	VCVTPH2PS    X4, Y4;              \
	VPBROADCASTW 2(SI), X5;           \
	VCVTPH2PS    X5, Y5;              \
	MOVQ         AX, X2;              \
	MOVQ         BX, X3;              \
	VPMOVZXBD    X2, Y2;              \
	VPMOVZXBD    X3, Y3;              \
	VCVTDQ2PS    Y2, Y2;              \
	VCVTDQ2PS    Y3, Y3;              \
	VMULPS       Y4, Y2, Y2;          \
	VMULPS       Y5, Y3, Y3;          \
	VMOVUPS      Y2, (DX);            \
	VMOVUPS      Y3, 32(DX)

// func dotQ4KAVX2(w *byte, x *float32, nb int) float32
TEXT ·dotQ4KAVX2(SB), NOSPLIT, $64-28
	MOVQ    w+0(FP), SI
	MOVQ    x+8(FP), DI
	MOVQ    nb+16(FP), CX
	LEAQ    0(SP), DX
	VMOVDQU nib<>(SB), Y15
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1

loop:
	CMPQ CX, $0
	JEQ  done
	Q4KSCALES
	Q4KGROUP(Q4KDOT32, 16, 0, 0)
	Q4KGROUP(Q4KDOT32, 48, 256, 8)
	Q4KGROUP(Q4KDOT32, 80, 512, 16)
	Q4KGROUP(Q4KDOT32, 112, 768, 24)
	ADDQ $144, SI
	ADDQ $1024, DI
	DECQ CX
	JMP  loop

done:
	VADDPS Y1, Y0, Y0
	HSUM
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// func deqQ4KAVX2(dst *float32, w *byte, nb int)
TEXT ·deqQ4KAVX2(SB), NOSPLIT, $64-24
	MOVQ    dst+0(FP), DI
	MOVQ    w+8(FP), SI
	MOVQ    nb+16(FP), CX
	LEAQ    0(SP), DX
	VMOVDQU nib<>(SB), Y15

loop:
	CMPQ CX, $0
	JEQ  done
	Q4KSCALES
	Q4KGROUP(Q4KDEQ32, 16, 0, 0)
	Q4KGROUP(Q4KDEQ32, 48, 256, 8)
	Q4KGROUP(Q4KDEQ32, 80, 512, 16)
	Q4KGROUP(Q4KDEQ32, 112, 768, 24)
	ADDQ $144, SI
	ADDQ $1024, DI
	DECQ CX
	JMP  loop

done:
	VZEROUPPER
	RET

// func dotF32r2x4AVX2(w *float32, wstride int, x *float32, xstride, n int, out *float32)
// out[4*r+t] = Σ w[r][i]*x[t][i] over n floats for weight rows r = 0, 1
// (wstride bytes apart) and activation rows t = 0..3 (xstride bytes
// apart); n is a multiple of 8. Each weight and activation vector loaded
// feeds 4 or 2 of the 8 independent accumulators.
TEXT ·dotF32r2x4AVX2(SB), NOSPLIT, $0-48
	MOVQ   w+0(FP), SI
	MOVQ   wstride+8(FP), R11
	ADDQ   SI, R11
	MOVQ   x+16(FP), DI
	MOVQ   xstride+24(FP), DX
	MOVQ   n+32(FP), CX
	LEAQ   (DI)(DX*1), R8
	LEAQ   (R8)(DX*1), R9
	LEAQ   (R9)(DX*1), R10
	SHLQ   $2, CX
	XORQ   AX, AX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

loop:
	CMPQ        AX, CX
	JGE         done
	VMOVUPS     (DI)(AX*1), Y10
	VMOVUPS     (R8)(AX*1), Y11
	VMOVUPS     (R9)(AX*1), Y12
	VMOVUPS     (R10)(AX*1), Y13
	VMOVUPS     (SI)(AX*1), Y8
	VMOVUPS     (R11)(AX*1), Y9
	VFMADD231PS Y10, Y8, Y0
	VFMADD231PS Y11, Y8, Y1
	VFMADD231PS Y12, Y8, Y2
	VFMADD231PS Y13, Y8, Y3
	VFMADD231PS Y10, Y9, Y4
	VFMADD231PS Y11, Y9, Y5
	VFMADD231PS Y12, Y9, Y6
	VFMADD231PS Y13, Y9, Y7
	ADDQ        $32, AX
	JMP         loop

done:
	VHADDPS      Y1, Y0, Y0
	VHADDPS      Y3, Y2, Y2
	VHADDPS      Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      Y5, Y4, Y4
	VHADDPS      Y7, Y6, Y6
	VHADDPS      Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VADDPS       X5, X4, X4
	MOVQ         out+40(FP), AX
	VMOVUPS      X0, (AX)
	VMOVUPS      X4, 16(AX)
	VZEROUPPER
	RET

// func dotBF16AVX2(w *byte, x *float32, n int) float32
// w holds n bfloat16 values; n is a multiple of 8.
TEXT ·dotBF16AVX2(SB), NOSPLIT, $0-28
	MOVQ   w+0(FP), SI
	MOVQ   x+8(FP), DI
	MOVQ   n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

loop16:
	CMPQ        CX, $16
	JLT         loop8
	VPMOVZXWD   (SI), Y4
	VPMOVZXWD   16(SI), Y5
	VPSLLD      $16, Y4, Y4
	VPSLLD      $16, Y5, Y5
	VFMADD231PS (DI), Y4, Y0
	VFMADD231PS 32(DI), Y5, Y1
	ADDQ        $32, SI
	ADDQ        $64, DI
	SUBQ        $16, CX
	JMP         loop16

loop8:
	CMPQ        CX, $8
	JLT         done
	VPMOVZXWD   (SI), Y4
	VPSLLD      $16, Y4, Y4
	VFMADD231PS (DI), Y4, Y0
	ADDQ        $16, SI
	ADDQ        $32, DI
	SUBQ        $8, CX
	JMP         loop8

done:
	VADDPS Y1, Y0, Y0
	HSUM
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// func cvtBF16AVX2(dst *float32, src *byte, n int)
// n is a multiple of 8.
TEXT ·cvtBF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop8:
	CMPQ      CX, $8
	JLT       done
	VPMOVZXWD (SI), Y4
	VPSLLD    $16, Y4, Y4
	VMOVUPS   Y4, (DI)
	ADDQ      $16, SI
	ADDQ      $32, DI
	SUBQ      $8, CX
	JMP       loop8

done:
	VZEROUPPER
	RET

DATA ones<>+0(SB)/8, $0x0101010101010101
DATA ones<>+8(SB)/8, $0x0101010101010101
DATA ones<>+16(SB)/8, $0x0101010101010101
DATA ones<>+24(SB)/8, $0x0101010101010101
GLOBL ones<>(SB), RODATA|NOPTR, $32

// Q5KGROUP handles 64 elements of a Q5_K super-block: 32 bytes of nibbles
// at qoff(SI), low nibbles first, with their fifth bits in bits 0 and 1 of
// the bytes of Y7 (which it shifts right by 2). Needs Y15 = 0x0f…, Y13 =
// 0x01….
#define Q5KGROUP(use, qoff, xoff, soff) \
	VMOVDQU qoff(SI), Y5;    \
	VPSRLW  $4, Y5, Y6;      \
	VPAND   Y15, Y5, Y5;     \
	VPAND   Y15, Y6, Y6;     \
	VPAND   Y13, Y7, Y3;     \
	VPSLLW  $4, Y3, Y3;      \
	VPOR    Y3, Y5, Y5;      \
	VPSRLW  $1, Y7, Y7;      \
	VPAND   Y13, Y7, Y3;     \
	VPSLLW  $4, Y3, Y3;      \
	VPOR    Y3, Y6, Y6;      \
	VPSRLW  $1, Y7, Y7;      \
	use(Y5, X5, xoff, soff); \
	use(Y6, X6, xoff+128, soff+4)

// func dotQ5KAVX2(w *byte, x *float32, nb int) float32
// Q5_K: d, dmin, scales[12] as Q4_K, qh[32] at 16, qs[128] at 48.
TEXT ·dotQ5KAVX2(SB), NOSPLIT, $64-28
	MOVQ    w+0(FP), SI
	MOVQ    x+8(FP), DI
	MOVQ    nb+16(FP), CX
	LEAQ    0(SP), DX
	VMOVDQU nib<>(SB), Y15
	VMOVDQU ones<>(SB), Y13
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1

loop:
	CMPQ    CX, $0
	JEQ     done
	Q4KSCALES
	VMOVDQU 16(SI), Y7
	Q5KGROUP(Q4KDOT32, 48, 0, 0)
	Q5KGROUP(Q4KDOT32, 80, 256, 8)
	Q5KGROUP(Q4KDOT32, 112, 512, 16)
	Q5KGROUP(Q4KDOT32, 144, 768, 24)
	ADDQ    $176, SI
	ADDQ    $1024, DI
	DECQ    CX
	JMP     loop

done:
	VADDPS Y1, Y0, Y0
	HSUM
	VZEROUPPER
	MOVSS  X0, ret+24(FP)
	RET

// func deqQ5KAVX2(dst *float32, w *byte, nb int)
TEXT ·deqQ5KAVX2(SB), NOSPLIT, $64-24
	MOVQ    dst+0(FP), DI
	MOVQ    w+8(FP), SI
	MOVQ    nb+16(FP), CX
	LEAQ    0(SP), DX
	VMOVDQU nib<>(SB), Y15
	VMOVDQU ones<>(SB), Y13

loop:
	CMPQ    CX, $0
	JEQ     done
	Q4KSCALES
	VMOVDQU 16(SI), Y7
	Q5KGROUP(Q4KDEQ32, 48, 0, 0)
	Q5KGROUP(Q4KDEQ32, 80, 256, 8)
	Q5KGROUP(Q4KDEQ32, 112, 512, 16)
	Q5KGROUP(Q4KDEQ32, 144, 768, 24)
	ADDQ    $176, SI
	ADDQ    $1024, DI
	DECQ    CX
	JMP     loop

done:
	VZEROUPPER
	RET
