//go:build amd64 && !purego

// AVX2 + FMA + F16C kernels of the pure-Go backend. Weights are unpacked
// to float32 in registers and multiplied by float32 activations, so the
// results equal the generic Go code (ggml.Dot) up to summation order. The
// Go declarations and their contracts are in go_kernels_simd.go and
// go_kernels_amd64.go.

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

// Attention scores against a quantized key cache: the dot products of
// one query (q8a blocks at DI's start) with key rows of Q8_0 or Q4_0
// blocks, four rows at a time so that their four sums are reduced
// together (a head's row is two blocks for head size 64, and one
// reduction per row cost as much as its products), then row by row.
// Per block: Y8 = the query's quants, Y9 = its scale dy, Y4 = -s_y (Q4_0).

// Q8ROW adds to Yacc the Q8_0 block at (R) times the query block: |w|
// against y with w's sign, scaled by dw*dy.
#define Q8ROW(R, Yacc) \
	VMOVDQU      2(R), Y10;       \
	SDOT8(Y10, Y8, Y11, Y12);     \
	VCVTDQ2PS    Y12, Y12;        \
	VPBROADCASTW (R), X10;        \
	VCVTPH2PS    X10, Y10;        \
	VMULPS       Y9, Y10, Y10;    \
	VFMADD231PS  Y10, Y12, Yacc

// Q4ROW adds to Yacc the Q4_0 block at (R) times the query block: its
// unsigned nibbles u against y give dy*Σu·y - s_y·(8/8 per lane), so the
// eight lanes hold dw*(dy*Σu·y) - 8*dw*s_y once summed. Needs Y15 =
// 0x0f…, Y14 = nibshift, Y4 = -s_y.
#define Q4ROW(R, Yacc) \
	VBROADCASTI128 2(R), Y10;       \
	VPSRLVQ        Y14, Y10, Y10;   \
	VPAND          Y15, Y10, Y10;   \
	I8SUM(Y8, Y10, Y11);            \
	VCVTDQ2PS      Y11, Y11;        \
	VFMADD213PS    Y4, Y9, Y11;     \
	VPBROADCASTW   (R), X10;        \
	VCVTPH2PS      X10, Y10;        \
	VFMADD231PS    Y10, Y11, Yacc

// QPREP8 loads a query block for Q8ROW, QPREP4 for Q4ROW.
#define QPREP8 \
	VMOVDQU      8(DI), Y8; \
	VBROADCASTSS (DI), Y9
#define QPREP4 \
	QPREP8;                 \
	VBROADCASTSS 4(DI), Y4; \
	VXORPS       Y5, Y5, Y5; \
	VSUBPS       Y4, Y5, Y4

// DOTSQ(ROW, PREP, BSIZE) is the body of dotsQ8_0SIMD and dotsQ4_0SIMD:
// rows in fours at R10, R11, R12, R14, then one at a time at R10.
#define DOTSQ(ROW, PREP, BSIZE) \
	MOVQ s+0(FP), R8 \
	MOVQ k+16(FP), SI \
	MOVQ kstride+24(FP), DX \
	MOVQ nrows+32(FP), CX \
	VMOVDQU ones16<>(SB), Y13 \
rows4: \
	CMPQ CX, $4 \
	JLT  rows1 \
	MOVQ y+8(FP), DI \
	MOVQ nb+40(FP), BX \
	MOVQ SI, R10 \
	LEAQ (SI)(DX*1), R11 \
	LEAQ (SI)(DX*2), R12 \
	LEAQ (R11)(DX*2), R14 \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
blk4: \
	CMPQ BX, $0 \
	JEQ  sum4 \
	PREP \
	ROW(R10, Y0) \
	ROW(R11, Y1) \
	ROW(R12, Y2) \
	ROW(R14, Y3) \
	ADDQ $BSIZE, R10 \
	ADDQ $BSIZE, R11 \
	ADDQ $BSIZE, R12 \
	ADDQ $BSIZE, R14 \
	ADDQ $40, DI \
	DECQ BX \
	JMP  blk4 \
sum4: \
	VHADDPS Y1, Y0, Y0 \
	VHADDPS Y3, Y2, Y2 \
	VHADDPS Y2, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPS X1, X0, X0 \
	VMOVUPS X0, (R8) \
	ADDQ $16, R8 \
	LEAQ (SI)(DX*4), SI \
	SUBQ $4, CX \
	JMP  rows4 \
rows1: \
	CMPQ CX, $0 \
	JEQ  done \
	MOVQ y+8(FP), DI \
	MOVQ nb+40(FP), BX \
	MOVQ SI, R10 \
	VXORPS Y0, Y0, Y0 \
blk1: \
	CMPQ BX, $0 \
	JEQ  sum1 \
	PREP \
	ROW(R10, Y0) \
	ADDQ $BSIZE, R10 \
	ADDQ $40, DI \
	DECQ BX \
	JMP  blk1 \
sum1: \
	HSUM \
	VMOVSS X0, (R8) \
	ADDQ $4, R8 \
	ADDQ DX, SI \
	DECQ CX \
	JMP  rows1 \
done: \
	VZEROUPPER \
	RET

// The decode row kernels (dotRows*) share one row loop: ROWS_ARGS loads
// w, nrows and out (R8, R9, R10); ROWS_FIRST(X, N) starts a row, SI at
// its weights, DI at the activations X and CX = N, or ends the kernel;
// ROWS_NEXT stores X0 as the row's result and goes to the next row.
#define ROWS_ARGS \
	MOVQ w+0(FP), R8;      \
	MOVQ nrows+16(FP), R9; \
	MOVQ out+40(FP), R10
#define ROWS_FIRST(X, N) \
rows:                \
	CMPQ R9, $0; \
	JEQ  end;    \
	MOVQ R8, SI; \
	MOVQ X, DI;  \
	MOVQ N, CX
#define ROWS_NEXT \
	VMOVSS X0, (R10);       \
	ADDQ   $4, R10;         \
	ADDQ   rs+8(FP), R8;    \
	DECQ   R9;              \
	JMP    rows;            \
end:                        \
	VZEROUPPER;             \
	RET

// func dotF32SIMD(a, b *float32, n int) float32
// n is a multiple of 8.
TEXT ·dotF32SIMD(SB), NOSPLIT, $0-28
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

// func dotF32x4SIMD(w, x *float32, xstride, n int, out *float32)
// out[t] = w · x[t*xstride/4 : …+n] for t = 0..3; xstride in bytes, n a
// multiple of 8. Each sum takes the 8-float steps in the order
// dotF32r2x4SIMD does, so a row gives the same result alone or in a pair
// (and MatMul the same results on any number of threads).
TEXT ·dotF32x4SIMD(SB), NOSPLIT, $0-40
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

// F16DOT sets X0 to the dot product of the CX binary16 elements at SI
// with the floats at DI (CX a multiple of 8), four accumulators over 32
// elements a step; it moves SI, DI and CX and uses Y0-Y7.
#define F16DOT \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
f16loop32: \
	CMPQ        CX, $32 \
	JLT         f16loop8 \
	VCVTPH2PS   (SI), Y4 \
	VCVTPH2PS   16(SI), Y5 \
	VCVTPH2PS   32(SI), Y6 \
	VCVTPH2PS   48(SI), Y7 \
	VFMADD231PS (DI), Y4, Y0 \
	VFMADD231PS 32(DI), Y5, Y1 \
	VFMADD231PS 64(DI), Y6, Y2 \
	VFMADD231PS 96(DI), Y7, Y3 \
	ADDQ        $64, SI \
	ADDQ        $128, DI \
	SUBQ        $32, CX \
	JMP         f16loop32 \
f16loop8: \
	CMPQ        CX, $8 \
	JLT         f16done \
	VCVTPH2PS   (SI), Y4 \
	VFMADD231PS (DI), Y4, Y0 \
	ADDQ        $16, SI \
	ADDQ        $32, DI \
	SUBQ        $8, CX \
	JMP         f16loop8 \
f16done: \
	VADDPS Y1, Y0, Y0 \
	VADDPS Y3, Y2, Y2 \
	VADDPS Y2, Y0, Y0 \
	HSUM

// func dotF16SIMD(w *byte, x *float32, n int) float32
// w holds n binary16 values; n is a multiple of 8.
TEXT ·dotF16SIMD(SB), NOSPLIT, $0-28
	MOVQ  w+0(FP), SI
	MOVQ  x+8(FP), DI
	MOVQ  n+16(FP), CX
	F16DOT
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func cvtF16SIMD(dst *float32, src *byte, n int)
// n is a multiple of 8.
TEXT ·cvtF16SIMD(SB), NOSPLIT, $0-24
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

// func f16FromF32SIMD(dst *uint16, src *float32, n int)
// Rounds n float32 values to binary16, to nearest even (F16C, as ggml's
// GGML_FP32_TO_FP16 on x86); n is a multiple of 8.
TEXT ·f16FromF32SIMD(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

f16loop:
	CMPQ      CX, $8
	JLT       f16done
	VMOVUPS   (SI), Y4
	VCVTPS2PH $0, Y4, X5
	VMOVDQU   X5, (DI)
	ADDQ      $32, SI
	ADDQ      $16, DI
	SUBQ      $8, CX
	JMP       f16loop

f16done:
	VZEROUPPER
	RET

// func addSIMD(dst, src *float32, n int)
// dst[i] += src[i] for i < n, n a multiple of 8.
TEXT ·addSIMD(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

add32:
	CMPQ    CX, $32
	JLT     add8
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VADDPS  (SI), Y0, Y0
	VADDPS  32(SI), Y1, Y1
	VADDPS  64(SI), Y2, Y2
	VADDPS  96(SI), Y3, Y3
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $32, CX
	JMP     add32

add8:
	CMPQ    CX, $8
	JLT     adddone
	VMOVUPS (DI), Y0
	VADDPS  (SI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     add8

adddone:
	VZEROUPPER
	RET

// BF16CONST loads BF16ROUND's constants into Y8-Y13.
#define BF16CONST \
	MOVL         $0x7fff, AX;     \
	VMOVD        AX, X8;          \
	VPBROADCASTD X8, Y8;          \
	MOVL         $1, AX;          \
	VMOVD        AX, X9;          \
	VPBROADCASTD X9, Y9;          \
	MOVL         $0xffff0000, AX; \
	VMOVD        AX, X10;         \
	VPBROADCASTD X10, Y10;        \
	MOVL         $0x7fffffff, AX; \
	VMOVD        AX, X11;         \
	VPBROADCASTD X11, Y11;        \
	MOVL         $0x7f800000, AX; \
	VMOVD        AX, X12;         \
	VPBROADCASTD X12, Y12;        \
	MOVL         $0x00400000, AX; \
	VMOVD        AX, X13;         \
	VPBROADCASTD X13, Y13

// BF16ROUND sets Y1 to the 8 floats at (SI) rounded to BF16 (to nearest
// even; a NaN made quiet), as ggml.F32ToBF16 then back: the BF16 value in
// each lane's high half, zeros below. Y0, Y2-Y4 are clobbered.
#define BF16ROUND \
	VMOVDQU   (SI), Y0;       \
	VPSRLD    $16, Y0, Y1;    \
	VPAND     Y9, Y1, Y1;     \
	VPADDD    Y8, Y1, Y1;     \
	VPADDD    Y0, Y1, Y1;     \
	VPAND     Y10, Y1, Y1;    \
	VPAND     Y11, Y0, Y2;    \
	VPCMPGTD  Y12, Y2, Y3;    \
	VPOR      Y13, Y0, Y4;    \
	VPAND     Y10, Y4, Y4;    \
	VPBLENDVB Y3, Y4, Y1, Y1

// func roundBF16SIMD(dst, src *float32, n int)
// dst[i] = src[i] rounded to BF16 (BF16ROUND); n is a multiple of 8.
TEXT ·roundBF16SIMD(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	BF16CONST

bf16loop:
	CMPQ    CX, $8
	JLT     bf16done
	BF16ROUND
	VMOVDQU Y1, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     bf16loop

bf16done:
	VZEROUPPER
	RET

// func toBF16SIMD(dst *uint16, src *float32, n int)
// dst[i] = ggml.F32ToBF16(src[i]) (BF16ROUND's high halves); n is a
// multiple of 8.
TEXT ·toBF16SIMD(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	BF16CONST

tobf16loop:
	CMPQ         CX, $8
	JLT          tobf16done
	BF16ROUND
	VPSRLD       $16, Y1, Y1
	VEXTRACTI128 $1, Y1, X2
	VPACKUSDW    X2, X1, X1
	VMOVDQU      X1, (DI)
	ADDQ         $32, SI
	ADDQ         $16, DI
	SUBQ         $8, CX
	JMP          tobf16loop

tobf16done:
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

// func dotQ4_1SIMD(w *byte, x *float32, nb int) float32
BLOCKDOTM(·dotQ4_1SIMD, 20, Q41UNPACK, Q41CONST)

// func dotQ5_1SIMD(w *byte, x *float32, nb int) float32
BLOCKDOTM(·dotQ5_1SIMD, 24, Q51UNPACK, Q51CONST)

// func deqQ4_1SIMD(dst *float32, w *byte, nb int)
BLOCKDEQM(·deqQ4_1SIMD, 20, Q41UNPACK, Q41CONST)

// func deqQ5_1SIMD(dst *float32, w *byte, nb int)
BLOCKDEQM(·deqQ5_1SIMD, 24, Q51UNPACK, Q51CONST)

// func dotQ8_0SIMD(w *byte, x *float32, nb int) float32
BLOCKDOT(·dotQ8_0SIMD, 34, Q8UNPACK, NOCONST)

// func dotQ4_0SIMD(w *byte, x *float32, nb int) float32
BLOCKDOT(·dotQ4_0SIMD, 18, Q4UNPACK, Q4CONST)

// func dotQ5_0SIMD(w *byte, x *float32, nb int) float32
BLOCKDOT(·dotQ5_0SIMD, 22, Q5UNPACK, Q5CONST)

// func deqQ8_0SIMD(dst *float32, w *byte, nb int)
BLOCKDEQ(·deqQ8_0SIMD, 34, Q8UNPACK, NOCONST)

// func deqQ4_0SIMD(dst *float32, w *byte, nb int)
BLOCKDEQ(·deqQ4_0SIMD, 18, Q4UNPACK, Q4CONST)

// func deqQ5_0SIMD(dst *float32, w *byte, nb int)
BLOCKDEQ(·deqQ5_0SIMD, 22, Q5UNPACK, Q5CONST)

// Q6WIDEN converts the 32 unsigned 6-bit quants of Yq, less 32, to float32
// in Y8..Y11. Needs Y13 = 0x20….
#define Q6WIDEN(Yq, Xq) \
	VPSUBB        Y13, Yq, Yq;           \
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
// qh at qhoff(SI), passing each 32 unsigned quants (0..63, stored +32) to
// use. Needs Y15 = 0x0f…, Y14 = 0x30….
#define Q6HALF(use, qloff, qhoff, xoff, soff) \
	VMOVDQU qloff(SI), Y5;      \
	VMOVDQU qloff+32(SI), Y6;   \
	VMOVDQU qhoff(SI), Y7;      \
	VPAND   Y15, Y5, Y2;        \
	VPSLLW  $4, Y7, Y3;         \
	VPAND   Y14, Y3, Y3;        \
	VPOR    Y3, Y2, Y2;         \
	use(Y2, X2, xoff, soff);    \
	VPAND   Y15, Y6, Y2;        \
	VPSLLW  $2, Y7, Y3;         \
	VPAND   Y14, Y3, Y3;        \
	VPOR    Y3, Y2, Y2;         \
	use(Y2, X2, xoff+128, soff+8);   \
	VPSRLW  $4, Y5, Y2;         \
	VPAND   Y15, Y2, Y2;        \
	VPAND   Y14, Y7, Y3;        \
	VPOR    Y3, Y2, Y2;         \
	use(Y2, X2, xoff+256, soff+16);  \
	VPSRLW  $4, Y6, Y2;         \
	VPAND   Y15, Y2, Y2;        \
	VPSRLW  $2, Y7, Y3;         \
	VPAND   Y14, Y3, Y3;        \
	VPOR    Y3, Y2, Y2;         \
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

// func dotQ6KSIMD(w *byte, x *float32, nb int) float32
TEXT ·dotQ6KSIMD(SB), NOSPLIT, $64-28
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

// func deqQ6KSIMD(dst *float32, w *byte, nb int)
TEXT ·deqQ6KSIMD(SB), NOSPLIT, $64-24
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

// Q4KUNPACK unpacks the 8 6-bit scales and mins of the Q4_K (or Q5_K)
// super-block at SI (ggml's get_scale_min_k4 on 32-bit words): scale j in
// byte j of AX, min j in byte j of BX.
#define Q4KUNPACK \
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
	ORQ          R13, BX

// Q4KSCALES stores d*scale of the Q4_K super-block at SI as 8 floats at
// 0(DX) and dmin*min as 8 floats at 32(DX).
#define Q4KSCALES \
	Q4KUNPACK;                        \
	VPBROADCASTW (SI), X4;            \
	VCVTPH2PS    X4, Y4;              \
	VPBROADCASTW 2(SI), X5;           \
	VCVTPH2PS    X5, Y5;              \
	VMOVQ        AX, X2;              \
	VMOVQ        BX, X3;              \
	VPMOVZXBD    X2, Y2;              \
	VPMOVZXBD    X3, Y3;              \
	VCVTDQ2PS    Y2, Y2;              \
	VCVTDQ2PS    Y3, Y3;              \
	VMULPS       Y4, Y2, Y2;          \
	VMULPS       Y5, Y3, Y3;          \
	VMOVUPS      Y2, (DX);            \
	VMOVUPS      Y3, 32(DX)

// func dotQ4KSIMD(w *byte, x *float32, nb int) float32
TEXT ·dotQ4KSIMD(SB), NOSPLIT, $64-28
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

// func deqQ4KSIMD(dst *float32, w *byte, nb int)
TEXT ·deqQ4KSIMD(SB), NOSPLIT, $64-24
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

// func dotF32r2x4SIMD(w *float32, wstride int, x *float32, xstride, n int, out *float32)
// out[4*r+t] = Σ w[r][i]*x[t][i] over n floats for weight rows r = 0, 1
// (wstride bytes apart) and activation rows t = 0..3 (xstride bytes
// apart); n is a multiple of 8. Each weight and activation vector loaded
// feeds 4 or 2 of the 8 independent accumulators.
TEXT ·dotF32r2x4SIMD(SB), NOSPLIT, $0-48
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

// func dotBF16SIMD(w *byte, x *float32, n int) float32
// w holds n bfloat16 values; n is a multiple of 8.
TEXT ·dotBF16SIMD(SB), NOSPLIT, $0-28
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

// func cvtBF16SIMD(dst *float32, src *byte, n int)
// n is a multiple of 8.
TEXT ·cvtBF16SIMD(SB), NOSPLIT, $0-24
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

// func dotQ5KSIMD(w *byte, x *float32, nb int) float32
// Q5_K: d, dmin, scales[12] as Q4_K, qh[32] at 16, qs[128] at 48.
TEXT ·dotQ5KSIMD(SB), NOSPLIT, $64-28
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

// func deqQ5KSIMD(dst *float32, w *byte, nb int)
TEXT ·deqQ5KSIMD(SB), NOSPLIT, $64-24
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

// ---- 8-bit activations ----
//
// The kernels below multiply weight blocks by activations quantized once
// per MatMul to 8-bit blocks (the C library's block_q8a and block_q8K), as
// ggml does: integer products of the quants, one float scale per block.
// q8a blocks (40 bytes): d float32, s = d*Σqs float32, qs[32] int8.
// q8K blocks (292 bytes): d float32, qs[256] int8, bsums[16] int16 (the
// sums of each 16 quants).
//
// The matrix-vector kernels (dot*Q8*) prefetch the weights 2048 bytes
// ahead, a line per 64 bytes they read, as the C kernels do (PF_DIST in
// csrc/quants_x86.inc): decode streams the weights from memory, and the
// out-of-order window alone keeps too few misses in flight.

DATA absmask<>+0(SB)/8, $0x7fffffff7fffffff
DATA absmask<>+8(SB)/8, $0x7fffffff7fffffff
DATA absmask<>+16(SB)/8, $0x7fffffff7fffffff
DATA absmask<>+24(SB)/8, $0x7fffffff7fffffff
GLOBL absmask<>(SB), RODATA|NOPTR, $32

DATA ones16<>+0(SB)/8, $0x0001000100010001
DATA ones16<>+8(SB)/8, $0x0001000100010001
DATA ones16<>+16(SB)/8, $0x0001000100010001
DATA ones16<>+24(SB)/8, $0x0001000100010001
GLOBL ones16<>(SB), RODATA|NOPTR, $32

// packperm restores element order after VPACKSSDW/VPACKSSWB, which work
// within 128-bit lanes.
DATA packperm<>+0(SB)/8, $0x0000000400000000
DATA packperm<>+8(SB)/8, $0x0000000500000001
DATA packperm<>+16(SB)/8, $0x0000000600000002
DATA packperm<>+24(SB)/8, $0x0000000700000003
GLOBL packperm<>(SB), RODATA|NOPTR, $32

// nibshift shifts the high 128-bit lane of a broadcast Q4_0 block by 4.
DATA nibshift<>+0(SB)/8, $0
DATA nibshift<>+8(SB)/8, $0
DATA nibshift<>+16(SB)/8, $4
DATA nibshift<>+24(SB)/8, $4
GLOBL nibshift<>(SB), RODATA|NOPTR, $32

DATA c127<>+0(SB)/4, $127.0
DATA c1<>+0(SB)/4, $1.0
GLOBL c127<>(SB), RODATA|NOPTR, $4
GLOBL c1<>(SB), RODATA|NOPTR, $4

// ABSMAX32 folds the |x| of the 32 floats at off(SI) into the running
// maxima of Y4. Needs Y15 = absmask.
#define ABSMAX32(off) \
	VANDPS off(SI), Y15, Y5;    \
	VANDPS off+32(SI), Y15, Y6; \
	VMAXPS Y5, Y4, Y4;          \
	VANDPS off+64(SI), Y15, Y5; \
	VMAXPS Y6, Y4, Y4;          \
	VANDPS off+96(SI), Y15, Y6; \
	VMAXPS Y5, Y4, Y4;          \
	VMAXPS Y6, Y4, Y4

// HMAX sets every float of X4 to the largest of the 8 floats of Y4.
#define HMAX \
	VEXTRACTF128 $1, Y4, X5; \
	VMAXPS       X5, X4, X4; \
	VPERMILPS    $0x4e, X4, X5; \
	VMAXPS       X5, X4, X4; \
	VPERMILPS    $0xb1, X4, X5; \
	VMAXPS       X5, X4, X4

// QUANT32 rounds the 32 floats at off(SI) times Y3 to the nearest integer
// (ties to even, the default MXCSR mode), stores them as 32 int8 at
// qoff(DI) and leaves them as int32 in Y8..Y11. Needs Y14 = packperm.
#define QUANT32(off, qoff) \
	VMULPS     off(SI), Y3, Y8;     \
	VMULPS     off+32(SI), Y3, Y9;  \
	VMULPS     off+64(SI), Y3, Y10; \
	VMULPS     off+96(SI), Y3, Y11; \
	VCVTPS2DQ  Y8, Y8;              \
	VCVTPS2DQ  Y9, Y9;              \
	VCVTPS2DQ  Y10, Y10;            \
	VCVTPS2DQ  Y11, Y11;            \
	VPACKSSDW  Y9, Y8, Y5;          \
	VPACKSSDW  Y11, Y10, Y6;        \
	VPACKSSWB  Y6, Y5, Y5;          \
	VPERMD     Y5, Y14, Y5;         \
	VMOVDQU    Y5, qoff(DI)

// INVSCALE sets X3 = 127/X4 and X2 = X4/127 (the scale d), X4 being the
// block's largest |x| (X3 = 0 where that is 0), and broadcasts X3 to Y3.
#define INVSCALE(skip) \
	VMOVSS       c127<>(SB), X2;  \
	VDIVSS       X4, X2, X3;      \
	VDIVSS       X2, X4, X2;      \
	VMOVD        X4, AX;          \
	TESTL        AX, AX;          \
	JNE          skip;            \
	VXORPS       X3, X3, X3;      \
skip:;                            \
	VBROADCASTSS X3, Y3

// func quantQ8aSIMD(dst *byte, x *float32, nb int, flip byte)
// Quantizes 32*nb floats to nb q8a blocks: d = max|x|/127, q =
// round(x*127/max|x|), as the C library's quant_q8a; the quants are
// stored XORed with flip (0x80: offset by 128, for the gemm kernels).
TEXT ·quantQ8aSIMD(SB), NOSPLIT, $0-25
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         nb+16(FP), CX
	VPBROADCASTB flip+24(FP), Y13
	VMOVDQU      absmask<>(SB), Y15
	VMOVDQU      packperm<>(SB), Y14

loop:
	CMPQ CX, $0
	JEQ  done
	VXORPS Y4, Y4, Y4
	ABSMAX32(0)
	HMAX
	INVSCALE(nonzero)
	QUANT32(0, 8)
	VPXOR        Y13, Y5, Y5
	VMOVDQU      Y5, 8(DI)
	VPADDD       Y9, Y8, Y8
	VPADDD       Y11, Y10, Y10
	VPADDD       Y10, Y8, Y8
	VEXTRACTI128 $1, Y8, X9
	VPADDD       X9, X8, X8
	VPHADDD      X8, X8, X8
	VPHADDD      X8, X8, X8
	VCVTDQ2PS    X8, X8
	VMULSS       X2, X8, X8
	VMOVSS       X2, (DI)
	VMOVSS       X8, 4(DI)
	ADDQ $128, SI
	ADDQ $40, DI
	DECQ CX
	JMP  loop

done:
	VZEROUPPER
	RET

// BSUMS stores the sums of the quants in Y8..Y11 (32 of them) as two
// int16 at off(DI).
#define BSUMS(off) \
	VPADDD       Y9, Y8, Y8;   \
	VPADDD       Y11, Y10, Y10; \
	VPHADDD      Y10, Y8, Y8;  \
	VPHADDD      Y8, Y8, Y8;   \
	VEXTRACTI128 $1, Y8, X9;   \
	VPADDD       X9, X8, X8;   \
	VPACKSSDW    X8, X8, X8;   \
	VMOVD        X8, AX;       \
	MOVL         AX, off(DI)

// func quantQ8KSIMD(dst *byte, x *float32, nb int)
// Quantizes 256*nb floats to nb q8K blocks: q = round(x*127/max|x|), d =
// the inverse of that scale, as the C library's quant_q8K (all zero for an
// all-zero block).
TEXT ·quantQ8KSIMD(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    nb+16(FP), CX
	VMOVDQU absmask<>(SB), Y15
	VMOVDQU packperm<>(SB), Y14

loop:
	CMPQ CX, $0
	JEQ  done
	VXORPS Y4, Y4, Y4
	ABSMAX32(0)
	ABSMAX32(128)
	ABSMAX32(256)
	ABSMAX32(384)
	ABSMAX32(512)
	ABSMAX32(640)
	ABSMAX32(768)
	ABSMAX32(896)
	HMAX
	INVSCALE(nonzero)
	// d = 1/iscale, 0 for an all-zero block
	VMOVSS  c1<>(SB), X2
	VDIVSS  X3, X2, X2
	VMOVD   X3, AX
	TESTL   AX, AX
	JNE     dset
	VXORPS  X2, X2, X2

dset:
	VMOVSS X2, (DI)
	QUANT32(0, 4)
	BSUMS(260)
	QUANT32(128, 36)
	BSUMS(264)
	QUANT32(256, 68)
	BSUMS(268)
	QUANT32(384, 100)
	BSUMS(272)
	QUANT32(512, 132)
	BSUMS(276)
	QUANT32(640, 164)
	BSUMS(280)
	QUANT32(768, 196)
	BSUMS(284)
	QUANT32(896, 228)
	BSUMS(288)
	ADDQ $1024, SI
	ADDQ $292, DI
	DECQ CX
	JMP  loop

done:
	VZEROUPPER
	RET

// I8SUM sets Yd to the 8 int32 sums of 4 adjacent products of the 32
// unsigned bytes of Yu and the signed bytes of Ys (int16 pair sums must
// not saturate: |u| <= 128 with |s| <= 127, or u < 128). Needs Y13 =
// ones16.
#define I8SUM(Ys, Yu, Yd) \
	VPMADDUBSW Ys, Yu, Yd; \
	VPMADDWD   Y13, Yd, Yd

// SDOT8 sets Yd to the 8 int32 sums of 4 adjacent products of the signed
// bytes of Yq and Ys, as ggml's AVX2 dots take them: |q| (into Ya)
// against s signed by q (a product at most 128·127, so no pair
// saturates). Needs Y13 = ones16.
#define SDOT8(Yq, Ys, Ya, Yd) \
	VPSIGNB Yq, Yq, Ya; \
	VPSIGNB Yq, Ys, Yd; \
	I8SUM(Yd, Ya, Yd)

// Q8Q8BLOCK adds to Yacc one Q8_0 block at boff(SI) times the q8a block
// at yoff(DI): |w| against y with w's sign, scaled by dw*dy.
#define Q8Q8BLOCK(boff, yoff, Yacc) \
	VMOVDQU      boff+2(SI), Y2;    \
	VMOVDQU      yoff+8(DI), Y3;    \
	SDOT8(Y2, Y3, Y4, Y5);          \
	VCVTDQ2PS    Y5, Y5;            \
	VPBROADCASTW boff(SI), X6;      \
	VCVTPH2PS    X6, Y6;            \
	VBROADCASTSS yoff(DI), Y7;      \
	VMULPS       Y7, Y6, Y6;        \
	VFMADD231PS  Y6, Y5, Yacc

// func dotRowsQ8_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)
// Sets out[r] to the dot product of the nb blocks of weight row r (at
// w + r*rs) with the nb activation blocks at y, for r < nrows.
TEXT ·dotRowsQ8_0Q8SIMD(SB), NOSPLIT, $0-48
	ROWS_ARGS
	VMOVDQU ones16<>(SB), Y13

	ROWS_FIRST(y+24(FP), nb+32(FP))
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1

loop2:
	CMPQ CX, $2
	JLT  tail
	PREFETCHT0 2048(SI)
	PREFETCHT0 2112(SI)
	Q8Q8BLOCK(0, 0, Y0)
	Q8Q8BLOCK(34, 40, Y1)
	ADDQ $68, SI
	ADDQ $80, DI
	SUBQ $2, CX
	JMP  loop2

tail:
	CMPQ CX, $0
	JEQ  done
	Q8Q8BLOCK(0, 0, Y0)

done:
	VADDPS Y1, Y0, Y0
	HSUM
	ROWS_NEXT

// Q4Q8BLOCK adds to Yacc one Q4_0 block at boff(SI) times the q8a block
// at yoff(DI), its unsigned nibbles u scaled by dw*dy, and to X9 the
// block's dw*s_y (the value is d*(u-8), so the result takes -8 times X9).
// Needs Y15 = 0x0f…, Y14 = nibshift.
#define Q4Q8BLOCK(boff, yoff, Yacc) \
	VBROADCASTI128 boff+2(SI), Y2;  \
	VPSRLVQ      Y14, Y2, Y2;       \
	VPAND        Y15, Y2, Y2;       \
	I8SUM(yoff+8(DI), Y2, Y5);      \
	VCVTDQ2PS    Y5, Y5;            \
	VPBROADCASTW boff(SI), X6;      \
	VCVTPH2PS    X6, Y6;            \
	VFMADD231SS  yoff+4(DI), X6, X9; \
	VBROADCASTSS yoff(DI), Y7;      \
	VMULPS       Y7, Y6, Y6;        \
	VFMADD231PS  Y6, Y5, Yacc

// func dotRowsQ4_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)
// Sets out[r] to the dot product of the nb blocks of weight row r (at
// w + r*rs) with the nb activation blocks at y, for r < nrows.
TEXT ·dotRowsQ4_0Q8SIMD(SB), NOSPLIT, $0-48
	ROWS_ARGS
	VMOVDQU ones16<>(SB), Y13
	VMOVDQU nib<>(SB), Y15
	VMOVDQU nibshift<>(SB), Y14

	ROWS_FIRST(y+24(FP), nb+32(FP))
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1
	VXORPS  X9, X9, X9

loop2:
	CMPQ CX, $2
	JLT  tail
	PREFETCHT0 2048(SI)
	Q4Q8BLOCK(0, 0, Y0)
	Q4Q8BLOCK(18, 40, Y1)
	ADDQ $36, SI
	ADDQ $80, DI
	SUBQ $2, CX
	JMP  loop2

tail:
	CMPQ CX, $0
	JEQ  done
	Q4Q8BLOCK(0, 0, Y0)

done:
	VADDPS       Y1, Y0, Y0
	HSUM
	VMOVSS       eightf<>(SB), X1
	VFNMADD231SS X1, X9, X0
	ROWS_NEXT

// func dotsQ8_0SIMD(s *float32, y *byte, k *byte, kstride, nrows, nb int)
TEXT ·dotsQ8_0SIMD(SB), NOSPLIT, $0-48
	DOTSQ(Q8ROW, QPREP8, 34)

// func dotsQ4_0SIMD(s *float32, y *byte, k *byte, kstride, nrows, nb int)
TEXT ·dotsQ4_0SIMD(SB), NOSPLIT, $0-48
	VMOVDQU nib<>(SB), Y15
	VMOVDQU nibshift<>(SB), Y14
	DOTSQ(Q4ROW, QPREP4, 18)

DATA eightf<>+0(SB)/4, $8.0
GLOBL eightf<>(SB), RODATA|NOPTR, $4

// Q5Q8BLOCK is Q4Q8BLOCK for a Q5_0 block (d f16, qh u32, qs[16]): bit j
// of qh adds 16 to quant j, and the value is d*(u-16). Needs Y15 =
// 0x0f…, Y14 = nibshift, Y12 = q5shufLo|q5shufHi, Y11 = q5bits in both
// lanes, Y10 = 0x10….
#define Q5Q8BLOCK(boff, yoff, Yacc) \
	VBROADCASTI128 boff+6(SI), Y2;  \
	VPSRLVQ      Y14, Y2, Y2;       \
	VPAND        Y15, Y2, Y2;       \
	VPBROADCASTD boff+2(SI), Y3;    \
	VPSHUFB      Y12, Y3, Y3;       \
	VPAND        Y11, Y3, Y3;       \
	VPCMPEQB     Y11, Y3, Y3;       \
	VPAND        Y10, Y3, Y3;       \
	VPOR         Y3, Y2, Y2;        \
	I8SUM(yoff+8(DI), Y2, Y5);      \
	VCVTDQ2PS    Y5, Y5;            \
	VPBROADCASTW boff(SI), X6;      \
	VCVTPH2PS    X6, Y6;            \
	VFMADD231SS  yoff+4(DI), X6, X9; \
	VBROADCASTSS yoff(DI), Y7;      \
	VMULPS       Y7, Y6, Y6;        \
	VFMADD231PS  Y6, Y5, Yacc

DATA sixteenf<>+0(SB)/4, $16.0
GLOBL sixteenf<>(SB), RODATA|NOPTR, $4

// func dotRowsQ5_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)
// Sets out[r] to the dot product of the nb blocks of weight row r (at
// w + r*rs) with the nb activation blocks at y, for r < nrows.
TEXT ·dotRowsQ5_0Q8SIMD(SB), NOSPLIT, $0-48
	ROWS_ARGS
	VMOVDQU        ones16<>(SB), Y13
	VMOVDQU        nib<>(SB), Y15
	VMOVDQU        nibshift<>(SB), Y14
	VMOVDQU        q5shufLo<>(SB), X12
	VINSERTI128    $1, q5shufHi<>(SB), Y12, Y12
	VBROADCASTI128 q5bits<>(SB), Y11
	VBROADCASTI128 sixteen<>(SB), Y10

	ROWS_FIRST(y+24(FP), nb+32(FP))
	VXORPS         Y0, Y0, Y0
	VXORPS         Y1, Y1, Y1
	VXORPS         X9, X9, X9

loop2:
	CMPQ CX, $2
	JLT  tail
	PREFETCHT0 2048(SI)
	PREFETCHT0 2112(SI)
	Q5Q8BLOCK(0, 0, Y0)
	Q5Q8BLOCK(22, 40, Y1)
	ADDQ $44, SI
	ADDQ $80, DI
	SUBQ $2, CX
	JMP  loop2

tail:
	CMPQ CX, $0
	JEQ  done
	Q5Q8BLOCK(0, 0, Y0)

done:
	VADDPS       Y1, Y0, Y0
	HSUM
	VMOVSS       sixteenf<>(SB), X1
	VFNMADD231SS X1, X9, X0
	ROWS_NEXT

// Q4KQ8GROUP adds to Y1 the int32 products of 64 elements of a Q4_K
// super-block (32 bytes of nibbles at qoff(SI), low nibbles first) with
// the q8K quants at yoff(DI), each 32 times its sub-block's scale, the
// int16 at soff(DX) and soff+2(DX). Needs Y15 = 0x0f….
#define Q4KQ8GROUP(qoff, yoff, soff) \
	VMOVDQU      qoff(SI), Y5;      \
	VPSRLW       $4, Y5, Y6;        \
	VPAND        Y15, Y5, Y5;       \
	VPAND        Y15, Y6, Y6;       \
	VPMADDUBSW   yoff(DI), Y5, Y5;  \
	VPMADDUBSW   yoff+32(DI), Y6, Y6; \
	VPBROADCASTW soff(DX), Y7;      \
	VPBROADCASTW soff+2(DX), Y8;    \
	VPMADDWD     Y7, Y5, Y5;        \
	VPMADDWD     Y8, Y6, Y6;        \
	VPADDD       Y5, Y1, Y1;        \
	VPADDD       Y6, Y1, Y1

// K4Q8SCALES stores the 8 scales of the Q4_K or Q5_K super-block at SI as
// int16 at 0(DX) and leaves in Y10 the 8 floats min_j*(bsums of sub-block
// j) against the q8K block at DI, and zeroes Y1 for the int32 sums.
#define K4Q8SCALES \
	Q4KUNPACK;                   \
	VMOVQ        AX, X2;         \
	VPMOVZXBW    X2, X2;         \
	VMOVDQU      X2, (DX);       \
	VMOVQ        BX, X3;         \
	VPMOVZXBW    X3, X3;         \
	VPUNPCKHWD   X3, X3, X4;     \
	VPUNPCKLWD   X3, X3, X3;     \
	VINSERTI128  $1, X4, Y3, Y3; \
	VPMADDWD     260(DI), Y3, Y10; \
	VCVTDQ2PS    Y10, Y10;       \
	VPXOR        Y1, Y1, Y1

// K4Q8FINISH adds to Y0 the super-block's d*dy times the int32 sums of Y1
// less its dmin*dy times Y10.
#define K4Q8FINISH \
	VCVTDQ2PS    Y1, Y1;       \
	VBROADCASTSS (DI), Y7;     \
	VPBROADCASTW (SI), X4;     \
	VCVTPH2PS    X4, Y4;       \
	VMULPS       Y7, Y4, Y4;   \
	VFMADD231PS  Y4, Y1, Y0;   \
	VPBROADCASTW 2(SI), X5;    \
	VCVTPH2PS    X5, Y5;       \
	VMULPS       Y7, Y5, Y5;   \
	VFNMADD231PS Y5, Y10, Y0

// func dotRowsQ4KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)
// Sets out[r] to the dot product of the nb blocks of weight row r (at
// w + r*rs) with the nb activation blocks at y, for r < nrows.
TEXT ·dotRowsQ4KQ8KSIMD(SB), NOSPLIT, $16-48
	ROWS_ARGS
	VMOVDQU nib<>(SB), Y15

	ROWS_FIRST(y+24(FP), nb+32(FP))
	LEAQ 0(SP), DX
	VXORPS  Y0, Y0, Y0

loop:
	CMPQ CX, $0
	JEQ  done
	PREFETCHT0 2048(SI)
	PREFETCHT0 2112(SI)
	PREFETCHT0 2176(SI)
	K4Q8SCALES
	Q4KQ8GROUP(16, 4, 0)
	Q4KQ8GROUP(48, 68, 4)
	Q4KQ8GROUP(80, 132, 8)
	Q4KQ8GROUP(112, 196, 12)
	K4Q8FINISH
	ADDQ $144, SI
	ADDQ $292, DI
	DECQ CX
	JMP  loop

done:
	HSUM
	ROWS_NEXT

// Q5Q8DOT32 adds to Y1 the int32 products of the 32 unsigned 5-bit quants
// of Yq with the q8K quants for the floats at xoff (Q5KGROUP's float
// offsets, so byte xoff/4+4 of the q8K block at DI), times the int16
// scale at soff/2(DX).
#define Q5Q8DOT32(Yq, Xq, xoff, soff) \
	VPMADDUBSW   4+((xoff)/4)(DI), Yq, Y9; \
	VPBROADCASTW 0+((soff)/2)(DX), Y8;     \
	VPMADDWD     Y8, Y9, Y9;               \
	VPADDD       Y9, Y1, Y1

// func dotRowsQ5KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)
// Sets out[r] to the dot product of the nb blocks of weight row r (at
// w + r*rs) with the nb activation blocks at y, for r < nrows.
TEXT ·dotRowsQ5KQ8KSIMD(SB), NOSPLIT, $16-48
	ROWS_ARGS
	VMOVDQU nib<>(SB), Y15
	VMOVDQU ones<>(SB), Y13

	ROWS_FIRST(y+24(FP), nb+32(FP))
	LEAQ 0(SP), DX
	VXORPS  Y0, Y0, Y0

loop:
	CMPQ CX, $0
	JEQ  done
	PREFETCHT0 2048(SI)
	PREFETCHT0 2112(SI)
	PREFETCHT0 2176(SI)
	K4Q8SCALES
	VMOVDQU 16(SI), Y7
	Q5KGROUP(Q5Q8DOT32, 48, 0, 0)
	Q5KGROUP(Q5Q8DOT32, 80, 256, 8)
	Q5KGROUP(Q5Q8DOT32, 112, 512, 16)
	Q5KGROUP(Q5Q8DOT32, 144, 768, 24)
	K4Q8FINISH
	ADDQ $176, SI
	ADDQ $292, DI
	DECQ CX
	JMP  loop

done:
	HSUM
	ROWS_NEXT

// Q6Q8DOT32 adds to Y1 the int32 products of the 32 unsigned quants of Yq
// with the q8K quants for the floats at xoff (Q6HALF's float offsets, so
// byte xoff/4+4 of the q8K block at DI), each 16 times its int16 scale at
// soff/2(DX) and soff/2+2(DX).
#define Q6Q8DOT32(Yq, Xq, xoff, soff) \
	VPBROADCASTW 0+((soff)/2)(DX), X8;      \
	VPBROADCASTW 2+((soff)/2)(DX), X9;      \
	VINSERTI128  $1, X9, Y8, Y8;            \
	VPMADDUBSW   4+((xoff)/4)(DI), Yq, Y9;  \
	VPMADDWD     Y8, Y9, Y9;             \
	VPADDD       Y9, Y1, Y1

// func dotRowsQ6KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)
// Sets out[r] to the dot product of the nb blocks of weight row r (at
// w + r*rs) with the nb activation blocks at y, for r < nrows.
TEXT ·dotRowsQ6KQ8KSIMD(SB), NOSPLIT, $32-48
	ROWS_ARGS
	VMOVDQU nib<>(SB), Y15
	VMOVDQU m30<>(SB), Y14

	ROWS_FIRST(y+24(FP), nb+32(FP))
	LEAQ 0(SP), DX
	VXORPS  Y0, Y0, Y0

loop:
	CMPQ CX, $0
	JEQ  done
	PREFETCHT0 2048(SI)
	PREFETCHT0 2112(SI)
	PREFETCHT0 2176(SI)
	PREFETCHT0 2240(SI)
	VPMOVSXBW   192(SI), Y10
	VMOVDQU     Y10, (DX)
	VPMADDWD    260(DI), Y10, Y11
	VPSLLD      $5, Y11, Y11
	VPXOR       Y1, Y1, Y1
	Q6HALF(Q6Q8DOT32, 0, 128, 0, 0)
	Q6HALF(Q6Q8DOT32, 64, 160, 512, 32)
	VPSUBD       Y11, Y1, Y1
	VCVTDQ2PS    Y1, Y1
	VBROADCASTSS (DI), Y7
	VPBROADCASTW 208(SI), X4
	VCVTPH2PS    X4, Y4
	VMULPS       Y7, Y4, Y4
	VFMADD231PS  Y4, Y1, Y0
	ADDQ $210, SI
	ADDQ $292, DI
	DECQ CX
	JMP  loop

done:
	HSUM
	ROWS_NEXT

// ROUND32 stores to off(DI) the 32 floats at off(SI) rounded to the 8-bit
// grid of their block: Y2 (d) times the nearest integer of x times Y3.
#define ROUND32(off) \
	VMULPS    off(SI), Y3, Y8;     \
	VMULPS    off+32(SI), Y3, Y9;  \
	VMULPS    off+64(SI), Y3, Y10; \
	VMULPS    off+96(SI), Y3, Y11; \
	VCVTPS2DQ Y8, Y8;              \
	VCVTPS2DQ Y9, Y9;              \
	VCVTPS2DQ Y10, Y10;            \
	VCVTPS2DQ Y11, Y11;            \
	VCVTDQ2PS Y8, Y8;              \
	VCVTDQ2PS Y9, Y9;              \
	VCVTDQ2PS Y10, Y10;            \
	VCVTDQ2PS Y11, Y11;            \
	VMULPS    Y2, Y8, Y8;          \
	VMULPS    Y2, Y9, Y9;          \
	VMULPS    Y2, Y10, Y10;        \
	VMULPS    Y2, Y11, Y11;        \
	VMOVUPS   Y8, off(DI);         \
	VMOVUPS   Y9, off+32(DI);      \
	VMOVUPS   Y10, off+64(DI);     \
	VMOVUPS   Y11, off+96(DI)

// func roundQ8aSIMD(dst, x *float32, nb int)
// Sets 32*nb floats to the values d*q of their quantizeQ8aSIMD blocks.
TEXT ·roundQ8aSIMD(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    nb+16(FP), CX
	VMOVDQU absmask<>(SB), Y15

loop:
	CMPQ CX, $0
	JEQ  done
	VXORPS Y4, Y4, Y4
	ABSMAX32(0)
	HMAX
	INVSCALE(nonzero)
	VBROADCASTSS X2, Y2
	ROUND32(0)
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ CX
	JMP  loop

done:
	VZEROUPPER
	RET

// func roundQ8KSIMD(dst, x *float32, nb int)
// Sets 256*nb floats to the values d*q of their quantizeQ8KSIMD blocks.
TEXT ·roundQ8KSIMD(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    nb+16(FP), CX
	VMOVDQU absmask<>(SB), Y15

loop:
	CMPQ CX, $0
	JEQ  done
	VXORPS Y4, Y4, Y4
	ABSMAX32(0)
	ABSMAX32(128)
	ABSMAX32(256)
	ABSMAX32(384)
	ABSMAX32(512)
	ABSMAX32(640)
	ABSMAX32(768)
	ABSMAX32(896)
	HMAX
	INVSCALE(nonzero)
	VMOVSS  c1<>(SB), X2
	VDIVSS  X3, X2, X2
	VMOVD   X3, AX
	TESTL   AX, AX
	JNE     dset
	VXORPS  X2, X2, X2

dset:
	VBROADCASTSS X2, Y2
	ROUND32(0)
	ROUND32(128)
	ROUND32(256)
	ROUND32(384)
	ROUND32(512)
	ROUND32(640)
	ROUND32(768)
	ROUND32(896)
	ADDQ $1024, SI
	ADDQ $1024, DI
	DECQ CX
	JMP  loop

done:
	VZEROUPPER
	RET

// func dotRowsF16SIMD(w *byte, rs, nrows int, x *float32, n int, out *float32)
// Sets out[r] to the dot product of the n binary16 elements of weight row
// r (at w + r*rs) with the n floats at x, for r < nrows; n is a multiple
// of 8. Decode's F16 matrix-vector product: dotF16SIMD's body with the
// row loop inside.
TEXT ·dotRowsF16SIMD(SB), NOSPLIT, $0-48
	ROWS_ARGS

	ROWS_FIRST(x+24(FP), n+32(FP))
	F16DOT
	ROWS_NEXT

// func xorSIMD(p *byte, n int) uint64
TEXT ·xorSIMD(SB), NOSPLIT, $0-24
	MOVQ  p+0(FP), SI
	MOVQ  n+8(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3

xorloop:
	CMPQ  CX, $128
	JLT   xordone
	VPXOR (SI), Y0, Y0
	VPXOR 32(SI), Y1, Y1
	VPXOR 64(SI), Y2, Y2
	VPXOR 96(SI), Y3, Y3
	ADDQ  $128, SI
	SUBQ  $128, CX
	JMP   xorloop

xordone:
	VPXOR        Y1, Y0, Y0
	VPXOR        Y3, Y2, Y2
	VPXOR        Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPXOR        X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPXOR        X1, X0, X0
	VMOVQ        X0, AX
	VZEROUPPER
	MOVQ         AX, ret+16(FP)
	RET

// The lookup types: IQ4_NL and MXFP4 blocks of 32 (q8a activations) and
// IQ4_XS super-blocks of eight such runs (q8K), whose nibbles index 16
// signed levels (kvalues_iq4nl and kvalues_mxfp4, the C library's tables,
// in both lanes). A run's nibbles widen as Q4_0's do, a VPSHUFB of the
// levels (Y12) makes them signed bytes, and |v| meets y with v's sign (as
// Q8_0's quants do). Needs Y13 = ones16, Y14 = nibshift, Y15 = 0x0f….

DATA iq4nlLevels<>+0(SB)/8, $0xf6eaddcfbfad9881
DATA iq4nlLevels<>+8(SB)/8, $0x7159453526190d01
DATA iq4nlLevels<>+16(SB)/8, $0xf6eaddcfbfad9881
DATA iq4nlLevels<>+24(SB)/8, $0x7159453526190d01
GLOBL iq4nlLevels<>(SB), RODATA|NOPTR, $32

DATA mxfp4Levels<>+0(SB)/8, $0x0c08060403020100
DATA mxfp4Levels<>+8(SB)/8, $0xf4f8fafcfdfeff00
DATA mxfp4Levels<>+16(SB)/8, $0x0c08060403020100
DATA mxfp4Levels<>+24(SB)/8, $0xf4f8fafcfdfeff00
GLOBL mxfp4Levels<>(SB), RODATA|NOPTR, $32

// LUTRUN sets Y5 to the int32 sums (8) of the 32 levels of the nibbles at
// off(SI) times the 32 signed activations at yoff(DI).
#define LUTRUN(off, yoff) \
	VBROADCASTI128 0+(off)(SI), Y2; \
	VPSRLVQ        Y14, Y2, Y2; \
	VPAND          Y15, Y2, Y2; \
	VPSHUFB        Y2, Y12, Y2; \
	VMOVDQU        0+(yoff)(DI), Y3; \
	SDOT8(Y2, Y3, Y4, Y5)

// LUTQ8BLOCK adds to Yacc the block at boff(SI) (scale X6 set by SCALE,
// nibbles at boff+qoff) times the q8a block at yoff(DI).
#define LUTQ8BLOCK(boff, qoff, yoff, SCALE, Yacc) \
	LUTRUN(boff+qoff, yoff+8);      \
	VCVTDQ2PS    Y5, Y5;            \
	SCALE(boff);                    \
	VMULSS       0+(yoff)(DI), X6, X6; \
	VBROADCASTSS X6, Y6;            \
	VFMADD231PS  Y6, Y5, Yacc

// F16SCALE sets X6 to the F16 scale at boff(SI).
#define F16SCALE(boff) \
	VPBROADCASTW 0+(boff)(SI), X6; \
	VCVTPH2PS    X6, X6

// E8M0SCALE sets X6 to half the E8M0 scale byte e at boff(SI): 2^(e-128),
// (e-1)<<23 as float bits, or 0x00200000<<e for the subnormal e < 2
// (ggml's ggml_e8m0_to_fp32_half).
#define E8M0SCALE(boff) \
	MOVBLZX 0+(boff)(SI), AX; \
	MOVL    AX, BX;         \
	SUBL    $1, BX;         \
	SHLL    $23, BX;        \
	MOVL    AX, CX;         \
	MOVL    $0x00200000, DX; \
	SHLL    CX, DX;         \
	CMPL    AX, $2;         \
	CMOVLLT DX, BX;         \
	VMOVD   BX, X6

// LUTROWS defines name(w *byte, rs, nrows int, y *byte, nb int, out
// *float32) for blocks of BLK bytes, scale SCALE, nibbles at QOFF and the
// levels TAB: out[r] = row r · y over nb blocks.
#define LUTROWS(name, BLK, QOFF, SCALE, TAB) \
TEXT name(SB), NOSPLIT, $0-48; \
	ROWS_ARGS;                    \
	VMOVDQU ones16<>(SB), Y13;    \
	VMOVDQU nib<>(SB), Y15;       \
	VMOVDQU nibshift<>(SB), Y14;  \
	VMOVDQU TAB<>(SB), Y12;       \
	MOVQ    nb+32(FP), R11;       \
rows:;                            \
	CMPQ R9, $0;                  \
	JEQ  end;                     \
	MOVQ R8, SI;                  \
	MOVQ y+24(FP), DI;            \
	MOVQ R11, R12;                \
	VXORPS Y0, Y0, Y0;            \
	VXORPS Y1, Y1, Y1;            \
loop2:;                           \
	CMPQ R12, $2;                 \
	JLT  tail;                    \
	PREFETCHT0 2048(SI);          \
	LUTQ8BLOCK(0, QOFF, 0, SCALE, Y0); \
	LUTQ8BLOCK(BLK, QOFF, 40, SCALE, Y1); \
	ADDQ $(2*BLK), SI;            \
	ADDQ $80, DI;                 \
	SUBQ $2, R12;                 \
	JMP  loop2;                   \
tail:;                            \
	CMPQ R12, $0;                 \
	JEQ  done;                    \
	LUTQ8BLOCK(0, QOFF, 0, SCALE, Y0); \
done:;                            \
	VADDPS Y1, Y0, Y0;            \
	HSUM;                         \
	VMOVSS X0, (R10);             \
	ADDQ   $4, R10;               \
	ADDQ   rs+8(FP), R8;          \
	DECQ   R9;                    \
	JMP    rows;                  \
end:;                             \
	VZEROUPPER;                   \
	RET

// func dotRowsIQ4NLQ8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)
LUTROWS(·dotRowsIQ4NLQ8SIMD, 18, 2, F16SCALE, iq4nlLevels)

// func dotRowsMXFP4Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)
LUTROWS(·dotRowsMXFP4Q8SIMD, 17, 1, E8M0SCALE, mxfp4Levels)

// IQ4XSRUN adds to Y1 run ib (32 elements) of the IQ4_XS super-block at
// SI times its q8K quants at DI, scaled by its 6-bit scale less 32: low 4
// bits from scales_l (byte 4+ib/2, nibble ib%2), high 2 from scales_h
// (bits 2ib, 2ib+1).
#define IQ4XSRUN(ib) \
	LUTRUN(8+16*(ib), 4+32*(ib)); \
	MOVBLZX      0+(4+(ib)/2)(SI), AX; \
	SHRL         $(4*((ib)%2)), AX; \
	ANDL         $15, AX;           \
	MOVWLZX      2(SI), BX;         \
	SHRL         $(2*(ib)), BX;     \
	ANDL         $3, BX;            \
	SHLL         $4, BX;            \
	ORL          BX, AX;            \
	SUBL         $32, AX;           \
	VMOVD        AX, X7;            \
	VPBROADCASTD X7, Y7;            \
	VPMULLD      Y7, Y5, Y5;        \
	VPADDD       Y5, Y1, Y1

// func dotRowsIQ4XSQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)
// Super-blocks of 136 bytes (d, scales_h, scales_l[4], qs[128]) against
// q8K blocks of 292 (d, qs[256], bsums).
TEXT ·dotRowsIQ4XSQ8KSIMD(SB), NOSPLIT, $0-48
	ROWS_ARGS
	VMOVDQU ones16<>(SB), Y13
	VMOVDQU nib<>(SB), Y15
	VMOVDQU nibshift<>(SB), Y14
	VMOVDQU iq4nlLevels<>(SB), Y12
	ROWS_FIRST(y+24(FP), nb+32(FP))
	VXORPS Y0, Y0, Y0

xsloop:
	CMPQ       CX, $0
	JEQ        xsdone
	PREFETCHT0 2048(SI)
	PREFETCHT0 2112(SI)
	PREFETCHT0 2176(SI)
	VPXOR      Y1, Y1, Y1
	IQ4XSRUN(0)
	IQ4XSRUN(1)
	IQ4XSRUN(2)
	IQ4XSRUN(3)
	IQ4XSRUN(4)
	IQ4XSRUN(5)
	IQ4XSRUN(6)
	IQ4XSRUN(7)
	VCVTDQ2PS    Y1, Y1
	VPBROADCASTW (SI), X6
	VCVTPH2PS    X6, X6
	VMULSS       (DI), X6, X6
	VBROADCASTSS X6, Y6
	VFMADD231PS  Y6, Y1, Y0
	ADDQ         $136, SI
	ADDQ         $292, DI
	DECQ         CX
	JMP          xsloop

xsdone:
	HSUM
	ROWS_NEXT

// Q2_K and Q3_K super-blocks against q8K blocks: each 32-element run's
// 2-bit quants (Q3_K: and the high bit from hmask, as 4) widen to bytes,
// VPMADDUBSW with the activations, VPMADDWD with the run's two 16-element
// scales as int16 (decoded once per block into Y15). Needs Y13 = 0x03…,
// Y14 = 0x01….

DATA three8<>+0(SB)/8, $0x0303030303030303
DATA three8<>+8(SB)/8, $0x0303030303030303
DATA three8<>+16(SB)/8, $0x0303030303030303
DATA three8<>+24(SB)/8, $0x0303030303030303
GLOBL three8<>(SB), RODATA|NOPTR, $32

DATA one8<>+0(SB)/8, $0x0101010101010101
DATA one8<>+8(SB)/8, $0x0101010101010101
DATA one8<>+16(SB)/8, $0x0101010101010101
DATA one8<>+24(SB)/8, $0x0101010101010101
GLOBL one8<>(SB), RODATA|NOPTR, $32

DATA thirtytwo8<>+0(SB)/8, $0x2020202020202020
DATA thirtytwo8<>+8(SB)/8, $0x2020202020202020
GLOBL thirtytwo8<>(SB), RODATA|NOPTR, $16

DATA scIdx<>+0(SB)/8, $0x0000000000000000
DATA scIdx<>+8(SB)/8, $0x0000000000000000
DATA scIdx<>+16(SB)/8, $0x0000000000000000
DATA scIdx<>+24(SB)/8, $0x0000000000000000
DATA scIdx<>+32(SB)/8, $0x0000000100000001
DATA scIdx<>+40(SB)/8, $0x0000000100000001
DATA scIdx<>+48(SB)/8, $0x0000000100000001
DATA scIdx<>+56(SB)/8, $0x0000000100000001
DATA scIdx<>+64(SB)/8, $0x0000000200000002
DATA scIdx<>+72(SB)/8, $0x0000000200000002
DATA scIdx<>+80(SB)/8, $0x0000000200000002
DATA scIdx<>+88(SB)/8, $0x0000000200000002
DATA scIdx<>+96(SB)/8, $0x0000000300000003
DATA scIdx<>+104(SB)/8, $0x0000000300000003
DATA scIdx<>+112(SB)/8, $0x0000000300000003
DATA scIdx<>+120(SB)/8, $0x0000000300000003
DATA scIdx<>+128(SB)/8, $0x0000000400000004
DATA scIdx<>+136(SB)/8, $0x0000000400000004
DATA scIdx<>+144(SB)/8, $0x0000000400000004
DATA scIdx<>+152(SB)/8, $0x0000000400000004
DATA scIdx<>+160(SB)/8, $0x0000000500000005
DATA scIdx<>+168(SB)/8, $0x0000000500000005
DATA scIdx<>+176(SB)/8, $0x0000000500000005
DATA scIdx<>+184(SB)/8, $0x0000000500000005
DATA scIdx<>+192(SB)/8, $0x0000000600000006
DATA scIdx<>+200(SB)/8, $0x0000000600000006
DATA scIdx<>+208(SB)/8, $0x0000000600000006
DATA scIdx<>+216(SB)/8, $0x0000000600000006
DATA scIdx<>+224(SB)/8, $0x0000000700000007
DATA scIdx<>+232(SB)/8, $0x0000000700000007
DATA scIdx<>+240(SB)/8, $0x0000000700000007
DATA scIdx<>+248(SB)/8, $0x0000000700000007
GLOBL scIdx<>(SB), RODATA|NOPTR, $256
DATA scPick<>+0(SB)/8, $0x0100010001000100
DATA scPick<>+8(SB)/8, $0x0100010001000100
DATA scPick<>+16(SB)/8, $0x0302030203020302
DATA scPick<>+24(SB)/8, $0x0302030203020302
GLOBL scPick<>(SB), RODATA|NOPTR, $32

// SCPAIR sets Y7 to [scale j]*8 ++ [scale j+1]*8 (j even) from the int16
// scales in Y15: their pair's word broadcast (VPERMD), then each 128-bit
// lane's half of it. (The scales stored to the frame and read back two
// bytes at a time took a third longer in Q2_K.)
#define SCPAIR(j) \
	VMOVDQU scIdx<>+(16*(j))(SB), Y8; \
	VPERMD  Y15, Y8, Y7;                  \
	VPSHUFB scPick<>(SB), Y7, Y7

// K2RUN adds to Y1 run k of half h (quants at Yq, 2 bits at 2k; Q3_K's
// high bits, 4 where set, in HB) times its q8K quants and scales.
#define K2RUN(h, k, Yq, HB) \
	VPSRLW     $(2*(k)), Yq, Y2;             \
	VPAND      Y13, Y2, Y2;                  \
	HB(h, k);                                \
	VPMADDUBSW 0+(4+32*(4*(h)+(k)))(DI), Y2, Y4; \
	SCPAIR(8*(h)+2*(k));                     \
	VPMADDWD   Y7, Y4, Y4;                   \
	VPADDD     Y4, Y1, Y1

#define NOHB(h, k)

// Q3HB ORs into Y2 4 where bit 4h+k of the hmask bytes (Y11) is set.
#define Q3HB(h, k) \
	VPSRLW $(4*(h)+(k)), Y11, Y3; \
	VPAND  Y14, Y3, Y3;           \
	VPSLLW $2, Y3, Y3;            \
	VPOR   Y3, Y2, Y2

// K2HALF adds half h (32 bytes of quants at qoff(SI)) to Y1.
#define K2HALF(h, qoff, HB) \
	VMOVDQU 0+(qoff)(SI), Y10; \
	K2RUN(h, 0, Y10, HB);      \
	K2RUN(h, 1, Y10, HB);      \
	K2RUN(h, 2, Y10, HB);      \
	K2RUN(h, 3, Y10, HB)

// func dotRowsQ2KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)
// Q2_K (scales[16]: 4-bit scale | min << 4, qs[64], d, dmin: 84 bytes):
// d·Σ sc·(q·y) - dmin·Σ m·bsum.
TEXT ·dotRowsQ2KQ8KSIMD(SB), NOSPLIT, $0-48
	ROWS_ARGS
	VMOVDQU three8<>(SB), Y13
	ROWS_FIRST(y+24(FP), nb+32(FP))
	VXORPS Y0, Y0, Y0

q2loop:
	CMPQ       CX, $0
	JEQ        q2done
	PREFETCHT0 2048(SI)
	PREFETCHT0 2112(SI)
	VMOVDQU    (SI), X9
	VPAND      nib<>(SB), X9, X10
	VPMOVZXBW  X10, Y15
	VPSRLW     $4, X9, X9
	VPAND      nib<>(SB), X9, X9
	VPMOVZXBW  X9, Y9
	VPMADDWD   260(DI), Y9, Y12
	VCVTDQ2PS  Y12, Y12
	VPXOR      Y1, Y1, Y1
	K2HALF(0, 16, NOHB)
	K2HALF(1, 48, NOHB)
	VCVTDQ2PS    Y1, Y1
	VPBROADCASTW 80(SI), X6
	VCVTPH2PS    X6, X6
	VMULSS       (DI), X6, X6
	VBROADCASTSS X6, Y6
	VFMADD231PS  Y6, Y1, Y0
	VPBROADCASTW 82(SI), X6
	VCVTPH2PS    X6, X6
	VMULSS       (DI), X6, X6
	VBROADCASTSS X6, Y6
	VFNMADD231PS Y6, Y12, Y0
	ADDQ         $84, SI
	ADDQ         $292, DI
	DECQ         CX
	JMP          q2loop

q2done:
	HSUM
	ROWS_NEXT

// Q3SCALES sets Y9 and Y15 to the 16 scales of the Q3_K block at SI (12
// bytes at 96: low nibbles of bytes 0-7, then their high nibbles, the top
// 2 bits from bytes 8-11), less 32, as int16. The
// four words meet in X9, not in memory: four 32-bit stores read back as
// one vector miss store forwarding (C Q3_K decode 5.6 -> 13 GB/s).
#define Q3SCALES \
	MOVL      96(SI), AX;         \
	MOVL      100(SI), BX;        \
	MOVL      104(SI), DX;        \
	MOVL      AX, R11;            \
	ANDL      $0x0f0f0f0f, R11;   \
	MOVL      DX, R12;            \
	ANDL      $0x03030303, R12;   \
	SHLL      $4, R12;            \
	ORL       R12, R11;           \
	VMOVD     R11, X9;            \
	MOVL      BX, R11;            \
	ANDL      $0x0f0f0f0f, R11;   \
	MOVL      DX, R12;            \
	SHRL      $2, R12;            \
	ANDL      $0x03030303, R12;   \
	SHLL      $4, R12;            \
	ORL       R12, R11;           \
	VPINSRD   $1, R11, X9, X9;    \
	MOVL      AX, R11;            \
	SHRL      $4, R11;            \
	ANDL      $0x0f0f0f0f, R11;   \
	MOVL      DX, R12;            \
	SHRL      $4, R12;            \
	ANDL      $0x03030303, R12;   \
	SHLL      $4, R12;            \
	ORL       R12, R11;           \
	VPINSRD   $2, R11, X9, X9;    \
	MOVL      BX, R11;            \
	SHRL      $4, R11;            \
	ANDL      $0x0f0f0f0f, R11;   \
	MOVL      DX, R12;            \
	SHRL      $6, R12;            \
	ANDL      $0x03030303, R12;   \
	SHLL      $4, R12;            \
	ORL       R12, R11;           \
	VPINSRD   $3, R11, X9, X9;    \
	VPSUBB    thirtytwo8<>(SB), X9, X9; \
	VPMOVSXBW X9, Y9;             \
	VMOVDQA   Y9, Y15

// func dotRowsQ3KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32)
// Q3_K (hmask[32], qs[64], scales[12], d: 110 bytes): quants u - 4 with
// u = 2 bits | 4·(high bit), so Σ sc·(q·y) = Σ sc·(u·y) - 4·Σ sc·bsum.
TEXT ·dotRowsQ3KQ8KSIMD(SB), NOSPLIT, $0-48
	ROWS_ARGS
	VMOVDQU three8<>(SB), Y13
	VMOVDQU one8<>(SB), Y14
	ROWS_FIRST(y+24(FP), nb+32(FP))
	VXORPS Y0, Y0, Y0

q3loop:
	CMPQ       CX, $0
	JEQ        q3done
	PREFETCHT0 2048(SI)
	PREFETCHT0 2112(SI)
	Q3SCALES
	VPMADDWD   260(DI), Y9, Y1
	VPSLLD     $2, Y1, Y1
	VPXOR      Y2, Y2, Y2
	VPSUBD     Y1, Y2, Y1
	VMOVDQU    (SI), Y11
	K2HALF(0, 32, Q3HB)
	K2HALF(1, 64, Q3HB)
	VCVTDQ2PS    Y1, Y1
	VPBROADCASTW 108(SI), X6
	VCVTPH2PS    X6, X6
	VMULSS       (DI), X6, X6
	VBROADCASTSS X6, Y6
	VFMADD231PS  Y6, Y1, Y0
	ADDQ         $110, SI
	ADDQ         $292, DI
	DECQ         CX
	JMP          q3loop

q3done:
	HSUM
	ROWS_NEXT

// Dequantization of the lookup and low-bit types, for batches that run on
// float panels (go_panel.go): each 32-element run becomes 32 signed bytes
// in element order, widened to floats (WIDEN16x2) and scaled. The results
// equal ggml.DequantizeRow's: every value is one float32 product (Q2_K: a
// product less the min), as there.

DATA four8<>+0(SB)/8, $0x0404040404040404
DATA four8<>+8(SB)/8, $0x0404040404040404
DATA four8<>+16(SB)/8, $0x0404040404040404
DATA four8<>+24(SB)/8, $0x0404040404040404
GLOBL four8<>(SB), RODATA|NOPTR, $32

// LUTDEQ16 sets Y7..Y10 to the levels (X12) of the 32 nibbles of the 16
// bytes at off(SI): low nibbles first, then the high ones. Needs X15 =
// 0x0f….
#define LUTDEQ16(off) \
	VMOVDQU 0+(off)(SI), X5; \
	VPSRLW  $4, X5, X6;      \
	VPAND   X15, X5, X5;     \
	VPAND   X15, X6, X6;     \
	VPSHUFB X5, X12, X5;     \
	VPSHUFB X6, X12, X6;     \
	WIDEN16x2(X5, X6)

// IQ4NLUNPACK leaves the IQ4_NL block's scale in Y4 and its 32 levels in
// Y7..Y10.
#define IQ4NLUNPACK(boff) \
	VPBROADCASTW boff(SI), X4; \
	VCVTPH2PS    X4, Y4;       \
	LUTDEQ16(boff+2)

#define IQ4NLCONST \
	VMOVDQU nib<>(SB), X15; \
	VMOVDQU iq4nlLevels<>(SB), X12

// func deqIQ4NLSIMD(dst *float32, w *byte, nb int)
BLOCKDEQ(·deqIQ4NLSIMD, 18, IQ4NLUNPACK, IQ4NLCONST)

// IQ4XSDEQRUN stores run ib of the IQ4_XS super-block at SI (d in X3) to
// 32 floats at 128*ib(DI): d·(6-bit scale - 32) times each level.
#define IQ4XSDEQRUN(ib) \
	MOVBLZX      0+(4+(ib)/2)(SI), AX; \
	SHRL         $(4*((ib)%2)), AX; \
	ANDL         $15, AX;           \
	MOVWLZX      2(SI), BX;         \
	SHRL         $(2*(ib)), BX;     \
	ANDL         $3, BX;            \
	SHLL         $4, BX;            \
	ORL          BX, AX;            \
	SUBL         $32, AX;           \
	VCVTSI2SSL   AX, X4, X4;        \
	VMULSS       X4, X3, X4;        \
	VBROADCASTSS X4, Y4;            \
	LUTDEQ16(8+16*(ib));            \
	STORE32(128*(ib))

// func deqIQ4XSSIMD(dst *float32, w *byte, nb int)
// Super-blocks of 136 bytes: d, scales_h, scales_l[4], qs[128].
TEXT ·deqIQ4XSSIMD(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    w+8(FP), SI
	MOVQ    nb+16(FP), CX
	IQ4NLCONST
xsdeq:
	CMPQ         CX, $0
	JEQ          xsdeqdone
	VPBROADCASTW (SI), X3
	VCVTPH2PS    X3, X3
	IQ4XSDEQRUN(0)
	IQ4XSDEQRUN(1)
	IQ4XSDEQRUN(2)
	IQ4XSDEQRUN(3)
	IQ4XSDEQRUN(4)
	IQ4XSDEQRUN(5)
	IQ4XSDEQRUN(6)
	IQ4XSDEQRUN(7)
	ADDQ         $136, SI
	ADDQ         $1024, DI
	DECQ         CX
	JMP          xsdeq
xsdeqdone:
	VZEROUPPER
	RET

// WIDEN32 sets Y7..Y10 to the 32 signed bytes of Y2 as floats.
#define WIDEN32 \
	VEXTRACTI128 $1, Y2, X6; \
	WIDEN16x2(X2, X6)

// SCALEDEQ32 stores Y7..Y10 to the 32 floats at xoff(DI), the first 16
// times the float at soff(R8) (the frame) and the last 16 times the one after it.
#define SCALEDEQ32(xoff, soff) \
	VBROADCASTSS soff(R8), Y4;   \
	VMULPS       Y4, Y7, Y7;     \
	VMULPS       Y4, Y8, Y8;     \
	VBROADCASTSS soff+4(R8), Y4; \
	VMULPS       Y4, Y9, Y9;     \
	VMULPS       Y4, Y10, Y10;   \
	VMOVUPS      Y7, xoff(DI);   \
	VMOVUPS      Y8, xoff+32(DI); \
	VMOVUPS      Y9, xoff+64(DI); \
	VMOVUPS      Y10, xoff+96(DI)

// Q3DEQRUN stores run k of half h (2-bit quants in Y12 at bits 2k, high
// bits in Y11) to 32 floats: u - 4 with u = 2 bits | 4·(high bit), times
// d·scale.
#define Q3DEQRUN(h, k) \
	VPSRLW $(2*(k)), Y12, Y2; \
	VPAND  Y13, Y2, Y2;       \
	Q3HB(h, k);               \
	VPSUBB Y5, Y2, Y2;        \
	WIDEN32;                  \
	SCALEDEQ32(512*(h)+128*(k), 32*(h)+8*(k))

// SCALES16 stores the 16 int16 scales of Y15 times the float in X3 to
// off(R8)..off+60(R8), the frame.
#define SCALES16(off) \
	VBROADCASTSS X3, Y3;         \
	VPMOVSXWD    X15, Y6;        \
	VCVTDQ2PS    Y6, Y6;         \
	VMULPS       Y3, Y6, Y6;     \
	VMOVUPS      Y6, (off)(R8);  \
	VEXTRACTI128 $1, Y15, X6;    \
	VPMOVSXWD    X6, Y6;         \
	VCVTDQ2PS    Y6, Y6;         \
	VMULPS       Y3, Y6, Y6;     \
	VMOVUPS      Y6, (off+32)(R8)

// func deqQ3KSIMD(dst *float32, w *byte, nb int)
// Q3_K (hmask[32], qs[64], scales[12], d: 110 bytes).
TEXT ·deqQ3KSIMD(SB), NOSPLIT, $64-24
	MOVQ    dst+0(FP), DI
	MOVQ    w+8(FP), SI
	MOVQ    nb+16(FP), CX
	LEAQ    0(SP), R8
	VMOVDQU three8<>(SB), Y13
	VMOVDQU one8<>(SB), Y14
	VMOVDQU four8<>(SB), Y5
q3deq:
	CMPQ         CX, $0
	JEQ          q3deqdone
	Q3SCALES
	VPBROADCASTW 108(SI), X3
	VCVTPH2PS    X3, X3
	SCALES16(0)
	VMOVDQU      (SI), Y11
	VMOVDQU      32(SI), Y12
	Q3DEQRUN(0, 0)
	Q3DEQRUN(0, 1)
	Q3DEQRUN(0, 2)
	Q3DEQRUN(0, 3)
	VMOVDQU      64(SI), Y12
	Q3DEQRUN(1, 0)
	Q3DEQRUN(1, 1)
	Q3DEQRUN(1, 2)
	Q3DEQRUN(1, 3)
	ADDQ         $110, SI
	ADDQ         $1024, DI
	DECQ         CX
	JMP          q3deq
q3deqdone:
	VZEROUPPER
	RET

// Q2DEQRUN stores run k of half h (2-bit quants in Y12 at bits 2k) to 32
// floats: dl·q - ml, dl and ml per 16 elements from the frame (scales at
// 0(R8), mins at 64(R8): the frame).
#define Q2DEQRUN(h, k) \
	VPSRLW       $(2*(k)), Y12, Y2; \
	VPAND        Y13, Y2, Y2;       \
	WIDEN32;                        \
	VBROADCASTSS (32*(h)+8*(k))(R8), Y4;    \
	VBROADCASTSS (64+32*(h)+8*(k))(R8), Y3; \
	VMULPS       Y4, Y7, Y7;        \
	VMULPS       Y4, Y8, Y8;        \
	VSUBPS       Y3, Y7, Y7;        \
	VSUBPS       Y3, Y8, Y8;        \
	VBROADCASTSS (32*(h)+8*(k)+4)(R8), Y4;  \
	VBROADCASTSS (68+32*(h)+8*(k))(R8), Y3; \
	VMULPS       Y4, Y9, Y9;        \
	VMULPS       Y4, Y10, Y10;      \
	VSUBPS       Y3, Y9, Y9;        \
	VSUBPS       Y3, Y10, Y10;      \
	VMOVUPS      Y7, (512*(h)+128*(k))(DI);    \
	VMOVUPS      Y8, (512*(h)+128*(k)+32)(DI); \
	VMOVUPS      Y9, (512*(h)+128*(k)+64)(DI); \
	VMOVUPS      Y10, (512*(h)+128*(k)+96)(DI)

// func deqQ2KSIMD(dst *float32, w *byte, nb int)
// Q2_K (scales[16]: 4-bit scale | min << 4, qs[64], d, dmin: 84 bytes).
TEXT ·deqQ2KSIMD(SB), NOSPLIT, $128-24
	MOVQ    dst+0(FP), DI
	MOVQ    w+8(FP), SI
	MOVQ    nb+16(FP), CX
	LEAQ    0(SP), R8
	VMOVDQU three8<>(SB), Y13
	VMOVDQU nib<>(SB), X14
q2deq:
	CMPQ         CX, $0
	JEQ          q2deqdone
	VMOVDQU      (SI), X9
	VPAND        X14, X9, X10
	VPMOVZXBW    X10, Y15
	VPBROADCASTW 80(SI), X3
	VCVTPH2PS    X3, X3
	SCALES16(0)
	VPSRLW       $4, X9, X9
	VPAND        X14, X9, X9
	VPMOVZXBW    X9, Y15
	VPBROADCASTW 82(SI), X3
	VCVTPH2PS    X3, X3
	SCALES16(64)
	VMOVDQU      16(SI), Y12
	Q2DEQRUN(0, 0)
	Q2DEQRUN(0, 1)
	Q2DEQRUN(0, 2)
	Q2DEQRUN(0, 3)
	VMOVDQU      48(SI), Y12
	Q2DEQRUN(1, 0)
	Q2DEQRUN(1, 1)
	Q2DEQRUN(1, 2)
	Q2DEQRUN(1, 3)
	ADDQ         $84, SI
	ADDQ         $1024, DI
	DECQ         CX
	JMP          q2deq
q2deqdone:
	VZEROUPPER
	RET

// Interleaved Q4_0 decode on AVX2 (interleave.go's layout, the AVX-512
// kernels' ILROWS in two halves of 8 rows): per block column, chunk c's
// low and high nibbles of rows 0-7 (Y8, Y9) and 8-15 (Y10, Y11) meet the
// broadcast activation words qs[4c:4c+4] and qs[16+4c:16+4c+4] in
// VPMADDUBSW; the int16 pair sums of the 4 chunks add up in Y4, Y5
// (at most 4·2·2·15·127 = 30480, no saturation) and widen once.
// Y0, Y1 gather d_w·d_y·Σu·q, Y2, Y3 d_w·s_y for the offset -8.

#define ILQ4SETW(a, b) VMOVDQA a, b
#define ILQ4ADDW(a, b) VPADDW a, b, b

// ILQ4CHUNK2 adds chunk c of the block column at SI to Y4 and Y5 (ACC:
// set for the first chunk, add for the others).
#define ILQ4CHUNK2(c, ACC) \
	VPBROADCASTD (8+4*(c))(R8), Y6;    \
	VPBROADCASTD (24+4*(c))(R8), Y7;   \
	VMOVDQU      (32+64*(c))(SI), Y8;  \
	VMOVDQU      (64+64*(c))(SI), Y10; \
	VPSRLW       $4, Y8, Y9;           \
	VPSRLW       $4, Y10, Y11;         \
	VPAND        Y15, Y8, Y8;          \
	VPAND        Y15, Y9, Y9;          \
	VPAND        Y15, Y10, Y10;        \
	VPAND        Y15, Y11, Y11;        \
	VPMADDUBSW   Y6, Y8, Y8;           \
	VPMADDUBSW   Y7, Y9, Y9;           \
	VPMADDUBSW   Y6, Y10, Y10;         \
	VPMADDUBSW   Y7, Y11, Y11;         \
	VPADDW       Y9, Y8, Y8;           \
	VPADDW       Y11, Y10, Y10;        \
	ACC(Y8, Y4);                       \
	ACC(Y10, Y5)

// ILA2GROUPS defines name(w *byte, ng, nb int, y *byte, out *float32),
// the skeleton of the AVX2 interleaved decode kernels: for each of the ng
// groups, Y0..Y3 zeroed, then for each of the nb block columns (blk bytes
// at SI; q8a activations at R8) PF and BLOCK, which leaves the int32 sums
// Σu·q of rows 0-7 and 8-15 in Y4 and Y5, and their scaling: Y0, Y1 gather
// d_w·d_y·Σu·q, Y2, Y3 d_w·s_y; the offset K (a float at KSYM) joins at the
// group's end. Y15 = 0x0f….
#define ILA2GROUPS(name, blk, KSYM, PF, BLOCK) \
TEXT name(SB), NOSPLIT, $0-40;   \
	MOVQ    w+0(FP), SI;          \
	MOVQ    ng+8(FP), R9;         \
	MOVQ    out+32(FP), DI;       \
	VMOVDQU nib<>(SB), Y15;       \
group:;                           \
	MOVQ   y+24(FP), R8;          \
	MOVQ   nb+16(FP), CX;         \
	VXORPS Y0, Y0, Y0;            \
	VXORPS Y1, Y1, Y1;            \
	VXORPS Y2, Y2, Y2;            \
	VXORPS Y3, Y3, Y3;            \
block:;                           \
	PF;                           \
	BLOCK;                        \
	VCVTDQ2PS    Y4, Y4;          \
	VCVTDQ2PS    Y5, Y5;          \
	VBROADCASTSS (R8), Y6;        \
	VBROADCASTSS 4(R8), Y7;       \
	VMULPS       Y6, Y4, Y4;      \
	VMULPS       Y6, Y5, Y5;      \
	VCVTPH2PS    (SI), Y8;        \
	VCVTPH2PS    16(SI), Y9;      \
	VFMADD231PS  Y4, Y8, Y0;      \
	VFMADD231PS  Y5, Y9, Y1;      \
	VFMADD231PS  Y7, Y8, Y2;      \
	VFMADD231PS  Y7, Y9, Y3;      \
	ADDQ         $blk, SI;        \
	ADDQ         $40, R8;         \
	DECQ         CX;              \
	JNZ          block;           \
	VBROADCASTSS KSYM(SB), Y13;   \
	VFNMADD231PS Y13, Y2, Y0;     \
	VFNMADD231PS Y13, Y3, Y1;     \
	VMOVUPS      Y0, (DI);        \
	VMOVUPS      Y1, 32(DI);      \
	ADDQ         $64, DI;         \
	DECQ         R9;              \
	JNZ          group;           \
	VZEROUPPER;                   \
	RET

#define ILQ4PF \
	PREFETCHT0 8192(SI); PREFETCHT0 8256(SI); PREFETCHT0 8320(SI); PREFETCHT0 8384(SI); PREFETCHT0 8448(SI)
#define ILQ4BLOCK \
	ILQ4CHUNK2(0, ILQ4SETW);          \
	ILQ4CHUNK2(1, ILQ4ADDW);          \
	ILQ4CHUNK2(2, ILQ4ADDW);          \
	ILQ4CHUNK2(3, ILQ4ADDW);          \
	VPMADDWD ones16<>(SB), Y4, Y4;    \
	VPMADDWD ones16<>(SB), Y5, Y5

// func ilRowsQ4_0AVX2(w *byte, ng, nb int, y *byte, out *float32)
ILA2GROUPS(·ilRowsQ4_0AVX2, 288, eightf<>, ILQ4PF, ILQ4BLOCK)

// Interleaved Q8_0 decode on AVX2: the quants are stored flipped (u = q
// XOR 0x80, the VNNI kernels' unsigned operand); here they flip back and
// meet the activations as the row kernels' do, |q| against y signed by q
// (SDOT8), each chunk's pair sums widened at once (two chunks' could pass
// 32767). No offset (K 0). Y12 = 0x80…, Y13 = ones16 for the block.

DATA flip8<>+0(SB)/8, $0x8080808080808080
DATA flip8<>+8(SB)/8, $0x8080808080808080
DATA flip8<>+16(SB)/8, $0x8080808080808080
DATA flip8<>+24(SB)/8, $0x8080808080808080
GLOBL flip8<>(SB), RODATA|NOPTR, $32
DATA zerof<>+0(SB)/4, $0.0
GLOBL zerof<>(SB), RODATA|NOPTR, $4

// ILQ8CHUNK2 adds chunk c of the block column at SI to Y4 and Y5 (ACC:
// set for the first chunk, add for the others).
#define ILQ8CHUNK2(c, ACC) \
	VPBROADCASTD (8+4*(c))(R8), Y6;    \
	VMOVDQU      (32+64*(c))(SI), Y8;  \
	VMOVDQU      (64+64*(c))(SI), Y10; \
	VPXOR        Y12, Y8, Y8;          \
	VPXOR        Y12, Y10, Y10;        \
	SDOT8(Y8, Y6, Y7, Y8);             \
	SDOT8(Y10, Y6, Y9, Y10);           \
	ACC(Y8, Y4);                       \
	ACC(Y10, Y5)

#define ILQ8SETD(a, b) VMOVDQA a, b
#define ILQ8ADDD(a, b) VPADDD a, b, b
#define ILQ8PF \
	PREFETCHT0 8192(SI); PREFETCHT0 8256(SI); PREFETCHT0 8320(SI); PREFETCHT0 8384(SI); \
	PREFETCHT0 8448(SI); PREFETCHT0 8512(SI); PREFETCHT0 8576(SI); PREFETCHT0 8640(SI); PREFETCHT0 8704(SI)
#define ILQ8BLOCK \
	VMOVDQU flip8<>(SB), Y12;         \
	VMOVDQU ones16<>(SB), Y13;        \
	ILQ8CHUNK2(0, ILQ8SETD);          \
	ILQ8CHUNK2(1, ILQ8ADDD);          \
	ILQ8CHUNK2(2, ILQ8ADDD);          \
	ILQ8CHUNK2(3, ILQ8ADDD);          \
	ILQ8CHUNK2(4, ILQ8ADDD);          \
	ILQ8CHUNK2(5, ILQ8ADDD);          \
	ILQ8CHUNK2(6, ILQ8ADDD);          \
	ILQ8CHUNK2(7, ILQ8ADDD)

// func ilRowsQ8_0AVX2(w *byte, ng, nb int, y *byte, out *float32)
ILA2GROUPS(·ilRowsQ8_0AVX2, 544, zerof<>, ILQ8PF, ILQ8BLOCK)

// Interleaved K-quant decode on AVX2 (the C library's il_rows_k45 on its
// AVX2 set): the AVX-512 kernels' column layouts (interleave.go), each
// 16-row vector as two ymm halves, rows 0-7 and 8-15. ILKA2GROUPS is the
// skeleton: for each of the ng groups, Y0 and Y1 gather the rows' float
// sums; for each of the nb super-block columns (blk bytes at SI; the q8K
// block at R8: d, 256 quants at 4, 16 int16 bsums at 260) BODY leaves the
// int32 sums of d-less products in Y2 and Y3 (and may take its min terms
// off Y0 and Y1 itself), which d_w*d_y then scales. BODY has 256 bytes of
// stack at 0(SP) and Y4..Y14 but those CONST sets once; Y15 = 0x0f….
#define ILKA2GROUPS(name, blk, CONST, BODY) \
TEXT name(SB), NOSPLIT, $256-40; \
	MOVQ    w+0(FP), SI;          \
	MOVQ    ng+8(FP), R9;         \
	MOVQ    out+32(FP), DI;       \
	VMOVDQU nib<>(SB), Y15;       \
	CONST;                        \
group:;                           \
	MOVQ   y+24(FP), R8;          \
	MOVQ   nb+16(FP), CX;         \
	VXORPS Y0, Y0, Y0;            \
	VXORPS Y1, Y1, Y1;            \
block:;                           \
	BODY;                         \
	VCVTDQ2PS    Y2, Y2;          \
	VCVTDQ2PS    Y3, Y3;          \
	VBROADCASTSS (R8), Y6;        \
	VCVTPH2PS    (SI), Y8;        \
	VCVTPH2PS    16(SI), Y9;      \
	VMULPS       Y6, Y8, Y8;      \
	VMULPS       Y6, Y9, Y9;      \
	VFMADD231PS  Y2, Y8, Y0;      \
	VFMADD231PS  Y3, Y9, Y1;      \
	ADDQ         $blk, SI;        \
	ADDQ         $292, R8;        \
	DECQ         CX;              \
	JNZ          block;           \
	VMOVUPS      Y0, (DI);        \
	VMOVUPS      Y1, 32(DI);      \
	ADDQ         $64, DI;         \
	DECQ         R9;              \
	JNZ          group;           \
	VZEROUPPER;                   \
	RET

// shufw<> + 32k spreads byte k of each int32 lane to both of its words
// (the scale or min of sub-block k, a word each for VPMADDWD).
DATA shufw<>+0(SB)/8, $0x8004800480008000
DATA shufw<>+8(SB)/8, $0x800c800c80088008
DATA shufw<>+16(SB)/8, $0x8004800480008000
DATA shufw<>+24(SB)/8, $0x800c800c80088008
DATA shufw<>+32(SB)/8, $0x8005800580018001
DATA shufw<>+40(SB)/8, $0x800d800d80098009
DATA shufw<>+48(SB)/8, $0x8005800580018001
DATA shufw<>+56(SB)/8, $0x800d800d80098009
DATA shufw<>+64(SB)/8, $0x8006800680028002
DATA shufw<>+72(SB)/8, $0x800e800e800a800a
DATA shufw<>+80(SB)/8, $0x8006800680028002
DATA shufw<>+88(SB)/8, $0x800e800e800a800a
DATA shufw<>+96(SB)/8, $0x8007800780038003
DATA shufw<>+104(SB)/8, $0x800f800f800b800b
DATA shufw<>+112(SB)/8, $0x8007800780038003
DATA shufw<>+120(SB)/8, $0x800f800f800b800b
GLOBL shufw<>(SB), RODATA|NOPTR, $128
DATA low6<>+0(SB)/8, $0x3f3f3f3f3f3f3f3f
DATA low6<>+8(SB)/8, $0x3f3f3f3f3f3f3f3f
DATA low6<>+16(SB)/8, $0x3f3f3f3f3f3f3f3f
DATA low6<>+24(SB)/8, $0x3f3f3f3f3f3f3f3f
GLOBL low6<>(SB), RODATA|NOPTR, $32
DATA m10<>+0(SB)/8, $0x1010101010101010
DATA m10<>+8(SB)/8, $0x1010101010101010
DATA m10<>+16(SB)/8, $0x1010101010101010
DATA m10<>+24(SB)/8, $0x1010101010101010
GLOBL m10<>(SB), RODATA|NOPTR, $32

// K45UNPACK unpacks half H's scales (as the C il_k4_scales: a byte of
// each int32 lane per sub-block) of sub-blocks 0-3 into S0, 4-7 into S1,
// and its mins into M0 and M1 (Y4..Y7 are clobbered). K45SCALES stores
// the scales at 32H(SP) and 64+32H(SP) for the decode kernels.
#define K45UNPACK(H, S0, S1, M0, M1) \
	VMOVDQU (64+32*(H))(SI), Y4;  \
	VMOVDQU (128+32*(H))(SI), Y5; \
	VMOVDQU (192+32*(H))(SI), Y6; \
	VPAND   low6<>(SB), Y4, S0;   \
	VPSRLD  $6, Y4, Y4;           \
	VPAND   three8<>(SB), Y4, Y4; \
	VPSLLD  $4, Y4, Y4;           \
	VPAND   nib<>(SB), Y6, Y7;    \
	VPOR    Y7, Y4, S1;           \
	VPAND   low6<>(SB), Y5, M0;   \
	VPSRLD  $6, Y5, Y5;           \
	VPAND   three8<>(SB), Y5, Y5; \
	VPSLLD  $4, Y5, Y5;           \
	VPSRLD  $4, Y6, Y6;           \
	VPAND   nib<>(SB), Y6, Y6;    \
	VPOR    Y6, Y5, M1
#define K45SCALES(H, M0, M1) \
	K45UNPACK(H, Y8, Y9, M0, M1); \
	VMOVDQU Y8, (32*(H))(SP);     \
	VMOVDQU Y9, (64+32*(H))(SP)

// K45MIN adds to Y2 and Y3 sub-block j's mins (byte j%4 of M of each
// half) times the sum of its activations (bsums 2j and 2j+1).
#define K45MIN(j, M, N) \
	VPBROADCASTD (260+4*(j))(R8), Y9;         \
	VPSHUFB      shufw<>+(32*((j)%4))(SB), M, Y8; \
	VPMADDWD     Y9, Y8, Y8;                  \
	VPADDD       Y8, Y2, Y2;                  \
	VPSHUFB      shufw<>+(32*((j)%4))(SB), N, Y8; \
	VPMADDWD     Y9, Y8, Y8;                  \
	VPADDD       Y8, Y3, Y3

// K45HEAD stores the column's scales and takes dmin*d_y times its min
// terms off Y0 and Y1; Y2 and Y3 are then zeroed for the sums.
#define K45HEAD \
	K45SCALES(0, Y10, Y11);    \
	K45SCALES(1, Y12, Y13);    \
	VPXOR        Y2, Y2, Y2;   \
	VPXOR        Y3, Y3, Y3;   \
	K45MIN(0, Y10, Y12);       \
	K45MIN(1, Y10, Y12);       \
	K45MIN(2, Y10, Y12);       \
	K45MIN(3, Y10, Y12);       \
	K45MIN(4, Y11, Y13);       \
	K45MIN(5, Y11, Y13);       \
	K45MIN(6, Y11, Y13);       \
	K45MIN(7, Y11, Y13);       \
	VCVTDQ2PS    Y2, Y2;       \
	VCVTDQ2PS    Y3, Y3;       \
	VBROADCASTSS (R8), Y6;     \
	VCVTPH2PS    32(SI), Y8;   \
	VCVTPH2PS    48(SI), Y9;   \
	VMULPS       Y6, Y8, Y8;   \
	VMULPS       Y6, Y9, Y9;   \
	VFNMADD231PS Y2, Y8, Y0;   \
	VFNMADD231PS Y3, Y9, Y1;   \
	VPXOR        Y2, Y2, Y2;   \
	VPXOR        Y3, Y3, Y3

// Neither kernel unrolls its column whole (5-6 KB of code, as Q6_K's,
// which streamed slower for it). Q4_K's quant pairs run as a loop of two,
// pairs 2q and 2q+1: R10 = SI + 1024q (the quants), R11 = R8 + 128q (the
// activations), R12 = SP + 64q (the scales), R13 = SI + 1152q (the
// prefetches). Q5_K's loop is over the chunks' halves g, chunks 4g..4g+3
// of every pair (each pair's fifth bits keep their shifts): R10 = SI +
// 256g (quants and qh), R11 = R8 + 16g, R12 = SP, R13 = SI + 1408g.

// K45HALF multiplies half H of chunk c of the loop's quant pair i (at
// QOFF) by the activations broadcast in Y6 (low nibbles: sub-block 2i)
// and Y7 (high ones: 2i+1), into the int16 sums LO and HI (ACC: K45SET or
// K45ADD); HB adds Q5_K's fifth bits (K4NOHB for Q4_K).
#define K45HALF(i, c, H, LO, HI, ACC, QOFF, HB) \
	VMOVDQU    (QOFF+32*(H)+64*(8*(i)+(c)))(R10), Y8; \
	VPSRLW     $4, Y8, Y9;  \
	VPAND      Y15, Y8, Y8; \
	VPAND      Y15, Y9, Y9; \
	HB(c, H);               \
	VPMADDUBSW Y6, Y8, Y8;  \
	VPMADDUBSW Y7, Y9, Y9;  \
	ACC(Y8, LO);            \
	ACC(Y9, HI)

#define K45SET(a, b) VMOVDQA a, b
#define K45ADD(a, b) VPADDW a, b, b
#define K4NOHB(c, H)

// K45CHUNK multiplies chunk c of the loop's pair i by its activations,
// both halves.
#define K45CHUNK(i, c, ACC, QOFF, HB) \
	VPBROADCASTD (4+64*(i)+4*(c))(R11), Y6;  \
	VPBROADCASTD (36+64*(i)+4*(c))(R11), Y7; \
	K45HALF(i, c, 0, Y4, Y5, ACC, QOFF, HB); \
	K45HALF(i, c, 1, Y12, Y13, ACC, QOFF, HB)

// K45CHUNKS4 is chunks c..c+3 of the pair i, the first ACC'd (K45SET
// starts its sums), the others added.
#define K45CHUNKS4(i, c, ACC, QOFF, HB) \
	K45CHUNK(i, c, ACC, QOFF, HB);         \
	K45CHUNK(i, (c)+1, K45ADD, QOFF, HB); \
	K45CHUNK(i, (c)+2, K45ADD, QOFF, HB); \
	K45CHUNK(i, (c)+3, K45ADD, QOFF, HB)

// K45FLUSH adds pair p's int16 sums (Y4, Y5: rows 0-7; Y12, Y13: 8-15)
// times their sub-blocks' scales (at off(R12)) to Y2 and Y3 (VPMADDWD
// widens them).
#define K45FLUSH(off, p) \
	VMOVDQU  (off)(R12), Y6;                        \
	VPSHUFB  shufw<>+(64*((p)%2))(SB), Y6, Y7;      \
	VPMADDWD Y7, Y4, Y4;                            \
	VPADDD   Y4, Y2, Y2;                            \
	VPSHUFB  shufw<>+(64*((p)%2)+32)(SB), Y6, Y7;   \
	VPMADDWD Y7, Y5, Y5;                            \
	VPADDD   Y5, Y2, Y2;                            \
	VMOVDQU  (off+32)(R12), Y6;                     \
	VPSHUFB  shufw<>+(64*((p)%2))(SB), Y6, Y7;      \
	VPMADDWD Y7, Y12, Y12;                          \
	VPADDD   Y12, Y3, Y3;                           \
	VPSHUFB  shufw<>+(64*((p)%2)+32)(SB), Y6, Y7;   \
	VPMADDWD Y7, Y13, Y13;                          \
	VPADDD   Y13, Y3, Y3

// K4PAIR is Q4_K's pair i of the loop: its eight chunks' int16 sums (at
// most 8·2·15·127 = 30480) flushed once, 9 lines prefetched 8 KiB ahead.
#define K4PAIR(i) \
	PREFETCHT0 (8192+576*(i))(R13); PREFETCHT0 (8256+576*(i))(R13); PREFETCHT0 (8320+576*(i))(R13); \
	PREFETCHT0 (8384+576*(i))(R13); PREFETCHT0 (8448+576*(i))(R13); PREFETCHT0 (8512+576*(i))(R13); \
	PREFETCHT0 (8576+576*(i))(R13); PREFETCHT0 (8640+576*(i))(R13); PREFETCHT0 (8704+576*(i))(R13); \
	K45CHUNKS4(i, 0, K45SET, 256, K4NOHB); \
	K45CHUNKS4(i, 4, K45ADD, 256, K4NOHB); \
	K45FLUSH(0, i)

// K5HB adds to the nibbles Y8 (sub-block 2p) and Y9 (2p+1) their fifth
// bits from the qh chunk c of half H: bit j of each byte moved to bit 4
// by VSLO $NLO (sub-block 2p) and VSHI $NHI (2p+1), word shifts of at most
// 4 left or 3 right, whose bits crossing bytes miss bit 4.
#define K5HB(c, H, VSLO, NLO, VSHI, NHI) \
	VMOVDQU (256+32*(H)+64*(c))(R10), Y10; \
	VSLO    $NLO, Y10, Y11;              \
	VPAND   m10<>(SB), Y11, Y11;         \
	VPOR    Y11, Y8, Y8;                 \
	VSHI    $NHI, Y10, Y11;              \
	VPAND   m10<>(SB), Y11, Y11;         \
	VPOR    Y11, Y9, Y9
#define K5HB0(c, H) K5HB(c, H, VPSLLW, 4, VPSLLW, 3)
#define K5HB1(c, H) K5HB(c, H, VPSLLW, 2, VPSLLW, 1)
#define K5HB2(c, H) K5HB(c, H, VPSLLW, 0, VPSRLW, 1)
#define K5HB3(c, H) K5HB(c, H, VPSRLW, 2, VPSRLW, 3)

// K5PAIR is Q5_K's pair p in the loop's half of the chunks: four chunks'
// int16 sums (at most 4·2·31·127 = 31496), 6 lines prefetched 8 KiB
// ahead (352 bytes a pair: a pass's 1408, the lines between pairs twice).
#define K5PAIR(p, HB) \
	PREFETCHT0 (8192+352*(p))(R13); PREFETCHT0 (8256+352*(p))(R13); PREFETCHT0 (8320+352*(p))(R13); \
	PREFETCHT0 (8384+352*(p))(R13); PREFETCHT0 (8448+352*(p))(R13); PREFETCHT0 (8512+352*(p))(R13); \
	K45CHUNKS4(p, 0, K45SET, 768, HB); \
	K45FLUSH(64*((p)/2), p)

// K45LOOP sets the loop's registers and K45NEXT steps them.
#define K45LOOP \
	MOVQ SI, R10;    \
	MOVQ R8, R11;    \
	LEAQ 0(SP), R12; \
	MOVQ SI, R13;    \
	MOVQ $2, AX
#define K45NEXT(q, y, sc, pf, label) \
	ADDQ $q, R10;   \
	ADDQ $y, R11;   \
	ADDQ $sc, R12;  \
	ADDQ $pf, R13;  \
	DECQ AX;        \
	JNZ  label

#define ILK4A2BODY \
	K45HEAD;            \
	K45LOOP;            \
k4pairs:;               \
	K4PAIR(0);          \
	K4PAIR(1);          \
	K45NEXT(1024, 128, 64, 1152, k4pairs)
#define ILK5A2BODY \
	K45HEAD;            \
	K45LOOP;            \
k5chunks:;              \
	K5PAIR(0, K5HB0);   \
	K5PAIR(1, K5HB1);   \
	K5PAIR(2, K5HB2);   \
	K5PAIR(3, K5HB3);   \
	K45NEXT(256, 16, 0, 1408, k5chunks)

// func ilRowsQ4KAVX2(w *byte, ng, nb int, y *byte, out *float32)
ILKA2GROUPS(·ilRowsQ4KAVX2, 2304, NOCONST, ILK4A2BODY)

// func ilRowsQ5KAVX2(w *byte, ng, nb int, y *byte, out *float32)
ILKA2GROUPS(·ilRowsQ5KAVX2, 2816, NOCONST, ILK5A2BODY)

// Interleaved IQ4_XS (the C il_rows_iq4_xs on AVX2): a column holds the
// rows' F16 d (32 bytes), their scales_h words (32), a chunk of their
// scales_l (64) and 32 chunks of quants, chunk 4j+c's low nibbles
// indexing the levels of elements 4c.. of sub-block j, its high ones
// 16+4c... The levels stay signed: |level| against y signed by the level
// (SDOT8), widened at once (two chunks' pair sums could pass 32767),
// each sub-block's int32 sums times its scale less 32.

DATA iq4xsDW<>+0(SB)/8, $0x0000000f0000000f
DATA iq4xsDW<>+8(SB)/8, $0x0000000f0000000f
DATA iq4xsDW<>+16(SB)/8, $0x0000000f0000000f
DATA iq4xsDW<>+24(SB)/8, $0x0000000f0000000f
DATA iq4xsDW<>+32(SB)/8, $0x0000000300000003
DATA iq4xsDW<>+40(SB)/8, $0x0000000300000003
DATA iq4xsDW<>+48(SB)/8, $0x0000000300000003
DATA iq4xsDW<>+56(SB)/8, $0x0000000300000003
DATA iq4xsDW<>+64(SB)/8, $0x0000002000000020
DATA iq4xsDW<>+72(SB)/8, $0x0000002000000020
DATA iq4xsDW<>+80(SB)/8, $0x0000002000000020
DATA iq4xsDW<>+88(SB)/8, $0x0000002000000020
GLOBL iq4xsDW<>(SB), RODATA|NOPTR, $96

// The sub-blocks run as a loop of four, 2q and 2q+1 (unrolled whole the
// column was 4 KB of code): R10 = SI + 512q (the quants), R11 = R8 + 64q
// (the activations), R13 = SI + 544q (the prefetches); the rows' scales_l
// halves at 0(SP) and 32(SP) and their scales_h (Y10, Y11) are shifted
// right by 8 and 4 bits a pass, so that sub-blocks 2q and 2q+1 find
// theirs where 0 and 1's are.

// IQ4XA2HALF adds to ACC half H of chunk c of the loop's sub-block i
// times the activations broadcast in Y6 (low nibbles) and Y7 (high ones).
#define IQ4XA2HALF(i, c, H, ACC) \
	VMOVDQU (128+32*(H)+64*(4*(i)+(c)))(R10), Y8; \
	VPSRLW  $4, Y8, Y9;       \
	VPAND   Y15, Y8, Y8;      \
	VPAND   Y15, Y9, Y9;      \
	VPSHUFB Y8, Y14, Y8;      \
	VPSHUFB Y9, Y14, Y9;      \
	SDOT8(Y8, Y6, Y12, Y8);   \
	SDOT8(Y9, Y7, Y12, Y9);   \
	VPADDD  Y8, ACC, ACC;     \
	VPADDD  Y9, ACC, ACC

#define IQ4XA2CHUNK(i, c) \
	VPBROADCASTD (4+32*(i)+4*(c))(R11), Y6;  \
	VPBROADCASTD (20+32*(i)+4*(c))(R11), Y7; \
	IQ4XA2HALF(i, c, 0, Y4);                 \
	IQ4XA2HALF(i, c, 1, Y5)

// IQ4XA2SCALE adds to SUM the loop's sub-block i's sums ACC of half H
// times their 6-bit scales less 32 (SH: the half's scales_h as int32s).
#define IQ4XA2SCALE(i, H, SH, ACC, SUM) \
	IQ4XSLSAT((32*(H))(SP), 4*(i), 2*(i), SH, Y8, Y9); \
	VPMULLD Y8, ACC, ACC;                              \
	VPADDD  ACC, SUM, SUM

// IQ4XSLS sets LS to sub-block j's scales less 32 of row half H as
// int32s (SH: the half's scales_h words widened; T a temporary).
// IQ4XSLSAT is it with the half's scales_l at SRC, shifted right by NL,
// and SH by NH.
#define IQ4XSLS(j, H, SH, LS, T) \
	IQ4XSLSAT((64+32*(H))(SI), 8*((j)/2)+4*((j)%2), 2*(j), SH, LS, T)
#define IQ4XSLSAT(SRC, NL, NH, SH, LS, T) \
	VMOVDQU SRC, LS;                 \
	VPSRLD  $(NL), LS, LS;           \
	VPAND   iq4xsDW<>(SB), LS, LS;   \
	VPSRLD  $(NH), SH, T;            \
	VPAND   iq4xsDW<>+32(SB), T, T;  \
	VPSLLD  $4, T, T;                \
	VPOR    T, LS, LS;               \
	VPSUBD  iq4xsDW<>+64(SB), LS, LS

// IQ4XA2SUB adds the loop's sub-block i to Y2 (rows 0-7) and Y3 (8-15).
#define IQ4XA2SUB(i) \
	VPXOR Y4, Y4, Y4;   \
	VPXOR Y5, Y5, Y5;   \
	IQ4XA2CHUNK(i, 0);  \
	IQ4XA2CHUNK(i, 1);  \
	IQ4XA2CHUNK(i, 2);  \
	IQ4XA2CHUNK(i, 3);  \
	IQ4XA2SCALE(i, 0, Y10, Y4, Y2); \
	IQ4XA2SCALE(i, 1, Y11, Y5, Y3)

#define IQ4XA2CONST \
	VMOVDQU ones16<>(SB), Y13; \
	VMOVDQU iq4nlLevels<>(SB), Y14
#define IQ4XA2BODY \
	VPMOVZXWD 32(SI), Y10; \
	VPMOVZXWD 48(SI), Y11; \
	VMOVDQU   64(SI), Y8;  \
	VMOVDQU   96(SI), Y9;  \
	VMOVDQU   Y8, (SP);    \
	VMOVDQU   Y9, 32(SP);  \
	VPXOR     Y2, Y2, Y2;  \
	VPXOR     Y3, Y3, Y3;  \
	MOVQ      SI, R10;     \
	MOVQ      R8, R11;     \
	MOVQ      SI, R13;     \
	MOVQ      $4, AX;      \
xssubs:;                   \
	PREFETCHT0 8192(R13); PREFETCHT0 8256(R13); PREFETCHT0 8320(R13); \
	PREFETCHT0 8384(R13); PREFETCHT0 8448(R13); PREFETCHT0 8512(R13); \
	PREFETCHT0 8576(R13); PREFETCHT0 8640(R13); PREFETCHT0 8704(R13); \
	IQ4XA2SUB(0);          \
	IQ4XA2SUB(1);          \
	VMOVDQU   (SP), Y8;    \
	VMOVDQU   32(SP), Y9;  \
	VPSRLD    $8, Y8, Y8;  \
	VPSRLD    $8, Y9, Y9;  \
	VMOVDQU   Y8, (SP);    \
	VMOVDQU   Y9, 32(SP);  \
	VPSRLD    $4, Y10, Y10; \
	VPSRLD    $4, Y11, Y11; \
	ADDQ      $512, R10;   \
	ADDQ      $64, R11;    \
	ADDQ      $544, R13;   \
	DECQ      AX;          \
	JNZ       xssubs

// func ilRowsIQ4XSAVX2(w *byte, ng, nb int, y *byte, out *float32)
ILKA2GROUPS(·ilRowsIQ4XSAVX2, 2176, IQ4XA2CONST, IQ4XA2BODY)

// Interleaved Q3_K (the C il_rows_q3_K on AVX2; the column as ilRowsQ3K
// reads it): a row half H (rows 0-7, 8-15) at a time, so that per half h
// of the super-block the four planes' sums of chunks 0-3 (groups 8h+2j)
// and then 4-7 (8h+2j+1) are four registers. Unsigned quants (value + 4,
// at most 7) add as int16 over a group's four chunks; VPMADDWD by the
// group's scale less 32 (a sign-extended word) widens them, and the
// offset -4 joins per column as the scales times the bsums.

// shufsw<> + 32k moves byte k of each int32 lane to the high byte of both
// its words (VPSRAW 8 then sign-extends it); shufpw<> + 32m moves bytes
// 2m and 2m+1 to the high bytes of its two words.
DATA shufsw<>+0(SB)/8, $0x0480048000800080
DATA shufsw<>+8(SB)/8, $0x0c800c8008800880
DATA shufsw<>+16(SB)/8, $0x0480048000800080
DATA shufsw<>+24(SB)/8, $0x0c800c8008800880
DATA shufsw<>+32(SB)/8, $0x0580058001800180
DATA shufsw<>+40(SB)/8, $0x0d800d8009800980
DATA shufsw<>+48(SB)/8, $0x0580058001800180
DATA shufsw<>+56(SB)/8, $0x0d800d8009800980
DATA shufsw<>+64(SB)/8, $0x0680068002800280
DATA shufsw<>+72(SB)/8, $0x0e800e800a800a80
DATA shufsw<>+80(SB)/8, $0x0680068002800280
DATA shufsw<>+88(SB)/8, $0x0e800e800a800a80
DATA shufsw<>+96(SB)/8, $0x0780078003800380
DATA shufsw<>+104(SB)/8, $0x0f800f800b800b80
DATA shufsw<>+112(SB)/8, $0x0780078003800380
DATA shufsw<>+120(SB)/8, $0x0f800f800b800b80
GLOBL shufsw<>(SB), RODATA|NOPTR, $128
DATA shufpw<>+0(SB)/8, $0x0580048001800080
DATA shufpw<>+8(SB)/8, $0x0d800c8009800880
DATA shufpw<>+16(SB)/8, $0x0580048001800080
DATA shufpw<>+24(SB)/8, $0x0d800c8009800880
DATA shufpw<>+32(SB)/8, $0x0780068003800280
DATA shufpw<>+40(SB)/8, $0x0f800e800b800a80
DATA shufpw<>+48(SB)/8, $0x0780068003800280
DATA shufpw<>+56(SB)/8, $0x0f800e800b800a80
GLOBL shufpw<>(SB), RODATA|NOPTR, $64

// Q3A2SCALES stores half H's scales less 32 (as the C il_q3_scales: scale
// k is byte k%4 of each lane of vector k/4) at 128H + 32(k/4) on the
// stack.
#define Q3A2SCALE(H, v, A, SHA, TS) \
	Q3SCV(A, SHA, TS, Y7, Y8);           \
	VPSUBB  m20<>(SB), Y7, Y7;           \
	VMOVDQU Y7, (128*(H)+32*(v))(SP)

// Q3SCV sets OUT to a vector of 6-bit Q3_K scales (a byte each): the low
// 4 bits of A >> SHA, the high 2 of Y6 (the scales' last 4 bytes) >> TS
// (T a temporary).
#define Q3SCV(A, SHA, TS, OUT, T) \
	VPSRLW  $(SHA), A, OUT;              \
	VPAND   nib<>(SB), OUT, OUT;         \
	VPSRLW  $(TS), Y6, T;                \
	VPAND   three8<>(SB), T, T;          \
	VPSLLW  $4, T, T;                    \
	VPOR    T, OUT, OUT
#define Q3A2SCALES(H) \
	VMOVDQU (32+32*(H))(SI), Y4;  \
	VMOVDQU (96+32*(H))(SI), Y5;  \
	VMOVDQU (160+32*(H))(SI), Y6; \
	Q3A2SCALE(H, 0, Y4, 0, 0);    \
	Q3A2SCALE(H, 1, Y5, 0, 2);    \
	Q3A2SCALE(H, 2, Y4, 4, 4);    \
	Q3A2SCALE(H, 3, Y5, 4, 6)

// KA2OFF adds to Y9 the scales 2m and 2m+1 (signed bytes 2(m%2) and
// 2(m%2)+1 of each lane of the vector SC) times their bsums.
#define KA2OFF(SC, m) \
	VMOVDQU      SC, Y8;                            \
	VPSHUFB      shufpw<>+(32*((m)%2))(SB), Y8, Y8; \
	VPSRAW       $8, Y8, Y8;                        \
	VPBROADCASTD (260+4*(m))(R8), Y10;              \
	VPMADDWD     Y10, Y8, Y8;                       \
	VPADDD       Y8, Y9, Y9
#define Q3A2OFF(H, m) KA2OFF((128*(H)+32*((m)/2))(SP), m)

// Q3A2PLANE adds to P plane j of the chunk (qs in Y6, hmask in Y7) of
// super-block half h times its activations at chunk c: the 2-bit quants
// and the hmask bit 4h+j moved to bit 2 by VSH $N (word shifts of at most 2
// left or 5 right, whose bits crossing bytes miss bits 0-2).
#define Q3A2PLANE(h, j, c, P, ACC, VSH, N) \
	VPSRLW       $(2*(j)), Y6, Y9;             \
	VPAND        Y15, Y9, Y9;                  \
	VSH          $N, Y7, Y10;                  \
	VPAND        Y14, Y10, Y10;                \
	VPOR         Y10, Y9, Y9;                  \
	VPBROADCASTD (4+128*(h)+32*(j)+4*(c))(R8), Y8; \
	VPMADDUBSW   Y8, Y9, Y9;                   \
	ACC(Y9, P)

// Q3A2CHUNK multiplies half H of chunk c of super-block half h by the
// activations of its four planes, into Y4, Y5, Y12 and Y13.
#define Q3A2CHUNK(h, c, H, ACC, SH0, N0, SH1, N1, SH2, N2, SH3, N3) \
	VMOVDQU (736+32*(H)+64*(8*(h)+(c)))(SI), Y6; \
	VMOVDQU (224+32*(H)+64*(c))(SI), Y7;         \
	Q3A2PLANE(h, 0, c, Y4, ACC, SH0, N0);        \
	Q3A2PLANE(h, 1, c, Y5, ACC, SH1, N1);        \
	Q3A2PLANE(h, 2, c, Y12, ACC, SH2, N2);       \
	Q3A2PLANE(h, 3, c, Y13, ACC, SH3, N3)
#define Q3A2CHUNK0(c, H, ACC) Q3A2CHUNK(0, c, H, ACC, VPSLLW, 2, VPSLLW, 1, VPSRLW, 0, VPSRLW, 1)
#define Q3A2CHUNK1(c, H, ACC) Q3A2CHUNK(1, c, H, ACC, VPSRLW, 2, VPSRLW, 3, VPSRLW, 4, VPSRLW, 5)

// KA2FLUSH adds to SUM the int16 group sums P of group k times its
// scale (signed byte k%4 of each lane of the vector SC) as a word.
#define KA2FLUSH(SC, k, P, SUM) \
	VMOVDQU  SC, Y9;                            \
	VPSHUFB  shufsw<>+(32*((k)%4))(SB), Y9, Y9; \
	VPSRAW   $8, Y9, Y9;                        \
	VPMADDWD Y9, P, P;                          \
	VPADDD   P, SUM, SUM
#define Q3A2FLUSH(k, H, P, SUM) KA2FLUSH((128*(H)+32*((k)/4))(SP), k, P, SUM)

// Q3A2GROUPS adds the groups 8h+2j+g (j < 4) of row half H to SUM: the
// chunks 4g..4g+3.
#define Q3A2GROUPS(CHUNK, h, g, H, SUM) \
	CHUNK(4*(g), H, K45SET);          \
	CHUNK(4*(g)+1, H, K45ADD);        \
	CHUNK(4*(g)+2, H, K45ADD);        \
	CHUNK(4*(g)+3, H, K45ADD);        \
	Q3A2FLUSH(8*(h)+(g), H, Y4, SUM);   \
	Q3A2FLUSH(8*(h)+2+(g), H, Y5, SUM); \
	Q3A2FLUSH(8*(h)+4+(g), H, Y12, SUM); \
	Q3A2FLUSH(8*(h)+6+(g), H, Y13, SUM)

// Q3A2PF prefetches 7 lines from 8 KiB + off past SI.
#define Q3A2PF(off) \
	PREFETCHT0 (8192+(off))(SI); PREFETCHT0 (8256+(off))(SI); PREFETCHT0 (8320+(off))(SI); \
	PREFETCHT0 (8384+(off))(SI); PREFETCHT0 (8448+(off))(SI); PREFETCHT0 (8512+(off))(SI); \
	PREFETCHT0 (8576+(off))(SI)

// Q3A2HALF adds row half H of the column to SUM.
#define Q3A2HALF(H, SUM) \
	VPXOR Y9, Y9, Y9; \
	Q3A2OFF(H, 0); Q3A2OFF(H, 1); Q3A2OFF(H, 2); Q3A2OFF(H, 3); \
	Q3A2OFF(H, 4); Q3A2OFF(H, 5); Q3A2OFF(H, 6); Q3A2OFF(H, 7); \
	VPSLLD $2, Y9, Y9;         \
	VPSUBD Y9, SUM, SUM;       \
	Q3A2PF(896*(H));           \
	Q3A2GROUPS(Q3A2CHUNK0, 0, 0, H, SUM); \
	Q3A2GROUPS(Q3A2CHUNK0, 0, 1, H, SUM); \
	Q3A2PF(896*(H)+448);       \
	Q3A2GROUPS(Q3A2CHUNK1, 1, 0, H, SUM); \
	Q3A2GROUPS(Q3A2CHUNK1, 1, 1, H, SUM)

#define Q3A2CONST \
	VMOVDQU three8<>(SB), Y15; \
	VMOVDQU four8<>(SB), Y14
#define Q3A2BODY \
	Q3A2SCALES(0);      \
	Q3A2SCALES(1);      \
	VPXOR Y2, Y2, Y2;   \
	VPXOR Y3, Y3, Y3;   \
	Q3A2HALF(0, Y2);    \
	Q3A2HALF(1, Y3)

// func ilRowsQ3KAVX2(w *byte, ng, nb int, y *byte, out *float32)
ILKA2GROUPS(·ilRowsQ3KAVX2, 1760, Q3A2CONST, Q3A2BODY)

// Interleaved Q6_K (the C il_rows_q6_K on AVX2; the column as ilRowsQ6K
// reads it): a pair of chunks a row half at a time, both halves in turn;
// per half h of the super-block and chunk c, one qh chunk and two ql
// chunks give the quants of the four
// runs (s < 4) as unsigned 6-bit values (value + 32), whose int16 sums
// add over two chunks (2·2·63·127 = 32004) before VPMADDWD by the group's
// int8 scale (group 8h+2s+c/4) widens them; the offset -32 joins per
// column as the scales times the bsums.

// The super-block's halves h run as a loop (the body unrolled whole was
// 12 KB of code a column, and decoded no faster): R10 = SI + 1024h (ql),
// R11 = SI + 512h (qh), R12 = SI + 128h (the scales of groups 8h..), R13
// = R8 + 128h (the activations), R14 = SI + 1680h (the prefetches).

// Q6A2RUN adds to P run s of chunk c of the half: the ql nibble (NIB of
// QL: Q6NIBLO, Q6NIBHI) and qh bits 2s, 2s+1 (in Y6) moved to bits 4, 5
// into Y10 by SHIFT (Q6QH: word shifts of at most 4 left or 2 right, whose
// bits crossing bytes miss bits 4 and 5; Q6QH0 for run 2, whose bits are
// there).
#define Q6A2RUN(s, c, NIB, QL, P, ACC, SHIFT) \
	NIB(QL);                                 \
	SHIFT;                                   \
	VPAND        Y14, Y10, Y10;              \
	VPOR         Y10, Y9, Y9;                \
	VPBROADCASTD (4+32*(s)+4*(c))(R13), Y8;  \
	VPMADDUBSW   Y8, Y9, Y9;                 \
	ACC(Y9, P)
#define Q6NIBLO(QL) VPAND Y15, QL, Y9
#define Q6NIBHI(QL) VPSRLW $4, QL, Y9; VPAND Y15, Y9, Y9
#define Q6QH(VSH, N) VSH $N, Y6, Y10
#define Q6QH0 VMOVDQA Y6, Y10

// Q6A2CHUNK multiplies row half H of chunk c of the half by the
// activations of its four runs, into Y4, Y5, Y12 and Y13.
#define Q6A2CHUNK(c, H, ACC) \
	VMOVDQU (2336+32*(H)+64*(c))(R11), Y6; \
	VMOVDQU (288+32*(H)+64*(c))(R10), Y7;  \
	VMOVDQU (800+32*(H)+64*(c))(R10), Y11; \
	Q6A2RUN(0, c, Q6NIBLO, Y7, Y4, ACC, Q6QH(VPSLLW, 4));  \
	Q6A2RUN(1, c, Q6NIBLO, Y11, Y5, ACC, Q6QH(VPSLLW, 2)); \
	Q6A2RUN(2, c, Q6NIBHI, Y7, Y12, ACC, Q6QH0);           \
	Q6A2RUN(3, c, Q6NIBHI, Y11, Y13, ACC, Q6QH(VPSRLW, 2))

// Q6A2FLUSH adds the half's group k's sums P times its scale to SUM (row
// half H).
#define Q6A2FLUSH(k, H, P, SUM) KA2FLUSH((32+32*(H)+64*((k)/4))(R12), k, P, SUM)

// Q6A2PAIR adds chunks c and c+1 of the half, row half H, to SUM; step
// (0..7) places its prefetch of 4 lines.
#define Q6A2PAIR(c, H, SUM, step) \
	PREFETCHT0 (8192+210*(step))(R14); PREFETCHT0 (8256+210*(step))(R14); \
	PREFETCHT0 (8320+210*(step))(R14); PREFETCHT0 (8384+210*(step))(R14); \
	Q6A2CHUNK(c, H, K45SET);         \
	Q6A2CHUNK((c)+1, H, K45ADD);     \
	Q6A2FLUSH((c)/4, H, Y4, SUM);    \
	Q6A2FLUSH(2+(c)/4, H, Y5, SUM);  \
	Q6A2FLUSH(4+(c)/4, H, Y12, SUM); \
	Q6A2FLUSH(6+(c)/4, H, Y13, SUM)

#define Q6A2OFF(H, m) KA2OFF((32+32*(H)+64*((m)/2))(SI), m)

// Q6A2OFFS takes row half H's offsets (-32 times its scales times the
// bsums) off SUM.
#define Q6A2OFFS(H, SUM) \
	VPXOR Y9, Y9, Y9; \
	Q6A2OFF(H, 0); Q6A2OFF(H, 1); Q6A2OFF(H, 2); Q6A2OFF(H, 3); \
	Q6A2OFF(H, 4); Q6A2OFF(H, 5); Q6A2OFF(H, 6); Q6A2OFF(H, 7); \
	VPSLLD $5, Y9, Y9;   \
	VPSUBD Y9, SUM, SUM

// Q6A2PAIRS adds chunks c, c+1 of the half to both row halves in turn
// (Y2: rows 0-7, Y3: 8-15), so that the halves of each line are read back
// to back (a pair's sums are flushed before the next).
#define Q6A2PAIRS(c, step) \
	Q6A2PAIR(c, 0, Y2, 2*(step)); \
	Q6A2PAIR(c, 1, Y3, 2*(step)+1)

#define Q6A2CONST \
	VMOVDQU m30<>(SB), Y14
#define Q6A2BODY \
	VPXOR Y2, Y2, Y2;     \
	VPXOR Y3, Y3, Y3;     \
	Q6A2OFFS(0, Y2);      \
	Q6A2OFFS(1, Y3);      \
	MOVQ  SI, R10;        \
	MOVQ  SI, R11;        \
	MOVQ  SI, R12;        \
	MOVQ  R8, R13;        \
	MOVQ  SI, R14;        \
	MOVQ  $2, AX;         \
q6half:;                  \
	Q6A2PAIRS(0, 0);      \
	Q6A2PAIRS(2, 1);      \
	Q6A2PAIRS(4, 2);      \
	Q6A2PAIRS(6, 3);      \
	ADDQ  $1024, R10;     \
	ADDQ  $512, R11;      \
	ADDQ  $128, R12;      \
	ADDQ  $128, R13;      \
	ADDQ  $1680, R14;     \
	DECQ  AX;             \
	JNZ   q6half

// func ilRowsQ6KAVX2(w *byte, ng, nb int, y *byte, out *float32)
ILKA2GROUPS(·ilRowsQ6KAVX2, 3360, Q6A2CONST, Q6A2BODY)

// The AVX2 gemm kernels (gemmPlain, gemmBias and gemmSplit of
// go_gemm_amd64.s without VNNI), over the same gemmPacks and flipped q8a
// activations, 16 rows (mask 0xffff: the caller handles a last group's
// rows) by 4 tokens: vpmaddubsw of a flipped activation word (at most 255)
// and a chunk of signed quants, whose int16 pair sums add up over NSUM
// chunks before vpmaddwd widens them (NSUM·2·255·|q| < 32768: 8 chunks for
// |q| <= 16, Q4_0; 4 for Q5_0's and Q4_K's; 2 for Q5_K's and Q6_K's),
// then convert and take the column's scale d (d2 for a split column's
// second half); the corrections c+c2 join the first group's sums. 8 rows
// a register, each half of the 16 in turn, 4 tokens sharing each chunk
// load. Y0..Y3: the tokens' float sums; Y8..Y11: their int16 sums.

// G8TOK adds token t's products with chunk c (in Y4), its activations at
// R, into Yacc (ACC: G8SET for a group's first chunk, else G8ADD).
#define G8TOK(R, c, Yacc, ACC) \
	VPBROADCASTD (8+4*(c))(R), Y5; \
	VPMADDUBSW   Y4, Y5, Y5;       \
	ACC(Y5, Yacc)

#define G8SET(a, b) VMOVDQA a, b
#define G8ADD(a, b) VPADDW a, b, b

// G8CHUNK multiplies chunk c of half H (byte offset 32H) by the 4 tokens.
#define G8CHUNK(c, H, ACC) \
	VMOVDQU (64*(c)+32*(H))(SI), Y4; \
	G8TOK(R8, c, Y8, ACC);          \
	G8TOK(R10, c, Y9, ACC);         \
	G8TOK(R11, c, Y10, ACC);        \
	G8TOK(R12, c, Y11, ACC)

// G8FIN adds to Yf token R's group sum Yi (int16 pairs) times d_w*d_y
// (Y7 the weight scales), with CORR(Yi) the corrections (Y6).
#define G8FIN(R, Yi, Yf, CORR) \
	VPMADDWD     Y12, Yi, Yi;  \
	CORR(Yi);                  \
	VCVTDQ2PS    Yi, Yi;       \
	VBROADCASTSS (R), Y13;     \
	VMULPS       Y7, Y13, Y13; \
	VFMADD231PS  Y13, Yi, Yf

#define G8CORR(Yi) VPADDD Y6, Yi, Yi
#define G8NOCORR(Yi)

#define G8FIN4(CORR) \
	G8FIN(R8, Y8, Y0, CORR);   \
	G8FIN(R10, Y9, Y1, CORR);  \
	G8FIN(R11, Y10, Y2, CORR); \
	G8FIN(R12, Y11, Y3, CORR)

// G8SCALES loads the column's corrections c+c2 (Y6) and scales d (Y7).
#define G8SCALES(H) \
	VMOVDQU (704+32*(H))(SI), Y6;     \
	VPADDD  (768+32*(H))(SI), Y6, Y6; \
	VMOVUPS (512+32*(H))(SI), Y7

// G8BIAS4 adds b*s_y to the 4 tokens' sums.
#define G8BIAS4(H) \
	VMOVUPS      (640+32*(H))(SI), Y7; \
	VBROADCASTSS 4(R8), Y13;   \
	VFMADD231PS  Y13, Y7, Y0;  \
	VBROADCASTSS 4(R10), Y13;  \
	VFMADD231PS  Y13, Y7, Y1;  \
	VBROADCASTSS 4(R11), Y13;  \
	VFMADD231PS  Y13, Y7, Y2;  \
	VBROADCASTSS 4(R12), Y13;  \
	VFMADD231PS  Y13, Y7, Y3

// The columns: COLP8 (NSUM 8), COLP4 (4), COLB4 (4, bias), COLS2 and
// COLS4 (2 and 4, split scales and corrections).
#define COLP8(H) \
	G8CHUNK(0, H, G8SET); G8CHUNK(1, H, G8ADD); G8CHUNK(2, H, G8ADD); G8CHUNK(3, H, G8ADD); \
	G8CHUNK(4, H, G8ADD); G8CHUNK(5, H, G8ADD); G8CHUNK(6, H, G8ADD); G8CHUNK(7, H, G8ADD); \
	G8SCALES(H); G8FIN4(G8CORR)
#define COLP4(H) \
	G8CHUNK(0, H, G8SET); G8CHUNK(1, H, G8ADD); G8CHUNK(2, H, G8ADD); G8CHUNK(3, H, G8ADD); \
	G8SCALES(H); G8FIN4(G8CORR); \
	G8CHUNK(4, H, G8SET); G8CHUNK(5, H, G8ADD); G8CHUNK(6, H, G8ADD); G8CHUNK(7, H, G8ADD); \
	G8FIN4(G8NOCORR)
#define COLB4(H) COLP4(H); G8BIAS4(H)
#define COLS2(H) \
	VMOVDQU (704+32*(H))(SI), Y6; VMOVUPS (512+32*(H))(SI), Y7; \
	G8CHUNK(0, H, G8SET); G8CHUNK(1, H, G8ADD); G8FIN4(G8CORR); \
	G8CHUNK(2, H, G8SET); G8CHUNK(3, H, G8ADD); G8FIN4(G8NOCORR); \
	VMOVDQU (768+32*(H))(SI), Y6; VMOVUPS (576+32*(H))(SI), Y7; \
	G8CHUNK(4, H, G8SET); G8CHUNK(5, H, G8ADD); G8FIN4(G8CORR); \
	G8CHUNK(6, H, G8SET); G8CHUNK(7, H, G8ADD); G8FIN4(G8NOCORR)
#define COLS4(H) \
	VMOVDQU (704+32*(H))(SI), Y6; VMOVUPS (512+32*(H))(SI), Y7; \
	G8CHUNK(0, H, G8SET); G8CHUNK(1, H, G8ADD); G8CHUNK(2, H, G8ADD); G8CHUNK(3, H, G8ADD); G8FIN4(G8CORR); \
	VMOVDQU (768+32*(H))(SI), Y6; VMOVUPS (576+32*(H))(SI), Y7; \
	G8CHUNK(4, H, G8SET); G8CHUNK(5, H, G8ADD); G8CHUNK(6, H, G8ADD); G8CHUNK(7, H, G8ADD); G8FIN4(G8CORR)

// G8HALF defines the loop over the nb packs (R13) at R9 for rows
// 8H..8H+7 and the tokens at R14, BX bytes apart, COL a column, storing
// their 4 sums at 32H bytes into their rows of out (DI, DX bytes apart).
#define G8HALF(H, loop, COL) \
	MOVQ   R9, SI;           \
	MOVQ   R13, CX;          \
	MOVQ   R14, R8;          \
	LEAQ   (R8)(BX*1), R10;  \
	LEAQ   (R10)(BX*1), R11; \
	LEAQ   (R11)(BX*1), R12; \
	VXORPS Y0, Y0, Y0;       \
	VXORPS Y1, Y1, Y1;       \
	VXORPS Y2, Y2, Y2;       \
	VXORPS Y3, Y3, Y3;       \
loop:;                       \
	COL(H);                  \
	ADDQ $40, R8;            \
	ADDQ $40, R10;           \
	ADDQ $40, R11;           \
	ADDQ $40, R12;           \
	ADDQ $832, SI;           \
	DECQ CX;                 \
	JNZ  loop;               \
	MOVQ    DI, AX;          \
	VMOVUPS Y0, (32*(H))(AX); \
	ADDQ    DX, AX;          \
	VMOVUPS Y1, (32*(H))(AX); \
	ADDQ    DX, AX;          \
	VMOVUPS Y2, (32*(H))(AX); \
	ADDQ    DX, AX;          \
	VMOVUPS Y3, (32*(H))(AX)

// G8KERNEL defines name(p *byte, nb int, y *byte, ys int, out *float32,
// os, mask int) over columns COL.
#define G8KERNEL(name, COL) \
TEXT name(SB), NOSPLIT, $0-56; \
	MOVQ    p+0(FP), R9;       \
	MOVQ    nb+8(FP), R13;     \
	MOVQ    y+16(FP), R14;     \
	MOVQ    ys+24(FP), BX;     \
	MOVQ    out+32(FP), DI;    \
	MOVQ    os+40(FP), DX;     \
	VMOVDQU ones16<>(SB), Y12; \
	G8HALF(0, half0, COL);     \
	G8HALF(1, half1, COL);     \
	VZEROUPPER;                \
	RET

// func gemmPlainAVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)
G8KERNEL(·gemmPlainAVX2, COLP8)

// func gemmPlain4AVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)
G8KERNEL(·gemmPlain4AVX2, COLP4)

// func gemmBias4AVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)
G8KERNEL(·gemmBias4AVX2, COLB4)


// func gemmSplit2AVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)
G8KERNEL(·gemmSplit2AVX2, COLS2)

// func gemmSplit4AVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)
G8KERNEL(·gemmSplit4AVX2, COLS4)

// The signed column (COLSG): quants q of up to 128 in magnitude (Q8_0's,
// IQ4_NL's and IQ4_XS's levels) would saturate a pair of products with a
// flipped activation, so the activations come as quantized (signed) and
// each token's word takes q's signs (VPSIGNB) against |q| (VPABSB, once per
// chunk for the 4 tokens), as ggml's AVX2 Q8_0 dot does: a pair is at most
// 2·128·127, and each chunk's pair sums widen alone. No corrections.
#define G8STOK(R, c, Yacc, ACC) \
	VPBROADCASTD (8+4*(c))(R), Y5; \
	VPSIGNB      Y4, Y5, Y5;       \
	VPMADDUBSW   Y5, Y14, Y5;      \
	VPMADDWD     Y12, Y5, Y5;      \
	ACC(Y5, Yacc)

#define G8SADD(a, b) VPADDD a, b, b

#define G8SCHUNK(c, H, ACC) \
	VMOVDQU (64*(c)+32*(H))(SI), Y4; \
	VPABSB  Y4, Y14;                 \
	G8STOK(R8, c, Y8, ACC);          \
	G8STOK(R10, c, Y9, ACC);         \
	G8STOK(R11, c, Y10, ACC);        \
	G8STOK(R12, c, Y11, ACC)

// G8SFIN adds to Yf token R's int32 sum Yi times d_w*d_y (Y7 the weight
// scales).
#define G8SFIN(R, Yi, Yf) \
	VCVTDQ2PS    Yi, Yi;       \
	VBROADCASTSS (R), Y13;     \
	VMULPS       Y7, Y13, Y13; \
	VFMADD231PS  Y13, Yi, Yf

#define COLSG(H) \
	G8SCHUNK(0, H, G8SET); G8SCHUNK(1, H, G8SADD); G8SCHUNK(2, H, G8SADD); G8SCHUNK(3, H, G8SADD); \
	G8SCHUNK(4, H, G8SADD); G8SCHUNK(5, H, G8SADD); G8SCHUNK(6, H, G8SADD); G8SCHUNK(7, H, G8SADD); \
	VMOVUPS (512+32*(H))(SI), Y7; \
	G8SFIN(R8, Y8, Y0); G8SFIN(R10, Y9, Y1); G8SFIN(R11, Y10, Y2); G8SFIN(R12, Y11, Y3)

// func gemmSignedAVX2(p *byte, nb int, y *byte, ys int, out *float32, os, mask int)
G8KERNEL(·gemmSignedAVX2, COLSG)

// Interleaved Q5_0 decode on AVX2 (ilRowsQ4_0AVX2 with the fifth bits):
// after the scales, a chunk of the rows' qh (lane r: row r's 32 fifth
// bits), then Q4_0's nibble chunks. Element 4c+k's bit is bit 4c+k of qh,
// element 16+4c+k's bit 16+4c+k: VPSHUFB copies the qh byte holding them
// to the 4 bytes of each lane, each byte tests its own bit (VPCMPEQB) and
// adds 16. Quants up to 31 keep a chunk's two products under 2·2·31·127,
// so two chunks add as int16 before they widen. Offset -16.

// q5il: per chunk c, the VPSHUFB indices of the qh byte of elements 4c..
// (lo) and 16+4c.. (hi) in each lane, and the bit each byte tests.
DATA q5ilIdx<>+0(SB)/8, $0x0404040400000000   // c = 0, 1: byte 0 (lo)
DATA q5ilIdx<>+8(SB)/8, $0x0c0c0c0c08080808
DATA q5ilIdx<>+16(SB)/8, $0x0404040400000000
DATA q5ilIdx<>+24(SB)/8, $0x0c0c0c0c08080808
DATA q5ilIdx<>+32(SB)/8, $0x0505050501010101  // c = 2, 3: byte 1
DATA q5ilIdx<>+40(SB)/8, $0x0d0d0d0d09090909
DATA q5ilIdx<>+48(SB)/8, $0x0505050501010101
DATA q5ilIdx<>+56(SB)/8, $0x0d0d0d0d09090909
DATA q5ilIdx<>+64(SB)/8, $0x0606060602020202  // hi, c = 0, 1: byte 2
DATA q5ilIdx<>+72(SB)/8, $0x0e0e0e0e0a0a0a0a
DATA q5ilIdx<>+80(SB)/8, $0x0606060602020202
DATA q5ilIdx<>+88(SB)/8, $0x0e0e0e0e0a0a0a0a
DATA q5ilIdx<>+96(SB)/8, $0x0707070703030303  // hi, c = 2, 3: byte 3
DATA q5ilIdx<>+104(SB)/8, $0x0f0f0f0f0b0b0b0b
DATA q5ilIdx<>+112(SB)/8, $0x0707070703030303
DATA q5ilIdx<>+120(SB)/8, $0x0f0f0f0f0b0b0b0b
GLOBL q5ilIdx<>(SB), RODATA|NOPTR, $128
DATA q5ilBits<>+0(SB)/8, $0x0804020108040201  // even c: bits 0-3 of the byte
DATA q5ilBits<>+8(SB)/8, $0x0804020108040201
DATA q5ilBits<>+16(SB)/8, $0x0804020108040201
DATA q5ilBits<>+24(SB)/8, $0x0804020108040201
DATA q5ilBits<>+32(SB)/8, $0x8040201080402010 // odd c: bits 4-7
DATA q5ilBits<>+40(SB)/8, $0x8040201080402010
DATA q5ilBits<>+48(SB)/8, $0x8040201080402010
DATA q5ilBits<>+56(SB)/8, $0x8040201080402010
GLOBL q5ilBits<>(SB), RODATA|NOPTR, $64

// Q5HI ORs into Yq 16 where the fifth bit of its bytes is set: the qh
// lanes in Y14, idx the shuffle's offset in q5ilIdx, bits c%2's (Q5HIT:
// the qh lanes in QH, temporaries T and M).
#define Q5HI(Yq, idx, bits) Q5HIT(Yq, idx, bits, Y14, Y13, Y12)
#define Q5HIT(Yq, idx, bits, QH, T, M) \
	VPSHUFB  q5ilIdx<>+(idx)(SB), QH, T;  \
	VMOVDQU  q5ilBits<>+(bits)(SB), M;    \
	VPAND    M, T, T;                     \
	VPCMPEQB M, T, T;                     \
	VPAND    sixteen8<>(SB), T, T;        \
	VPOR     T, Yq, Yq

DATA sixteen8<>+0(SB)/8, $0x1010101010101010
DATA sixteen8<>+8(SB)/8, $0x1010101010101010
DATA sixteen8<>+16(SB)/8, $0x1010101010101010
DATA sixteen8<>+24(SB)/8, $0x1010101010101010
GLOBL sixteen8<>(SB), RODATA|NOPTR, $32

// ILQ5HALF adds chunk c of rows 8H.. to the int16 sums Yacc (ACC: set or
// add): the nibbles at 96+64c+32H, their fifth bits from Y14.
#define ILQ5HALF(c, H, Yacc, ACC) \
	VPBROADCASTD (8+4*(c))(R8), Y6;      \
	VPBROADCASTD (24+4*(c))(R8), Y7;     \
	VMOVDQU      (96+64*(c)+32*(H))(SI), Y8; \
	VPSRLW       $4, Y8, Y9;             \
	VPAND        Y15, Y8, Y8;            \
	VPAND        Y15, Y9, Y9;            \
	Q5HI(Y8, 32*((c)/2), 32*((c)%2));    \
	Q5HI(Y9, 64+32*((c)/2), 32*((c)%2)); \
	VPMADDUBSW   Y6, Y8, Y8;             \
	VPMADDUBSW   Y7, Y9, Y9;             \
	VPADDW       Y9, Y8, Y8;             \
	ACC(Y8, Yacc)

// ILQ5WIDEN adds the int16 pair sums Y10 to the int32 sums Yi.
#define ILQ5WIDEN(Yi) \
	VPMADDWD ones16<>(SB), Y10, Y10; \
	VPADDD   Y10, Yi, Yi

#define ILQ5PF \
	PREFETCHT0 8192(SI); PREFETCHT0 8256(SI); PREFETCHT0 8320(SI); PREFETCHT0 8384(SI); PREFETCHT0 8448(SI); PREFETCHT0 8512(SI)
// ILQ5BLOCK: rows 0-7 (their qh in Y14) to Y4, rows 8-15 to Y5.
#define ILQ5BLOCK \
	VMOVDQU 32(SI), Y14;             \
	VPXOR   Y4, Y4, Y4;              \
	ILQ5HALF(0, 0, Y10, ILQ4SETW);   \
	ILQ5HALF(1, 0, Y10, ILQ4ADDW);   \
	ILQ5WIDEN(Y4);                   \
	ILQ5HALF(2, 0, Y10, ILQ4SETW);   \
	ILQ5HALF(3, 0, Y10, ILQ4ADDW);   \
	ILQ5WIDEN(Y4);                   \
	VMOVDQU 64(SI), Y14;             \
	VPXOR   Y5, Y5, Y5;              \
	ILQ5HALF(0, 1, Y10, ILQ4SETW);   \
	ILQ5HALF(1, 1, Y10, ILQ4ADDW);   \
	ILQ5WIDEN(Y5);                   \
	ILQ5HALF(2, 1, Y10, ILQ4SETW);   \
	ILQ5HALF(3, 1, Y10, ILQ4ADDW);   \
	ILQ5WIDEN(Y5)

// func ilRowsQ5_0AVX2(w *byte, ng, nb int, y *byte, out *float32)
ILA2GROUPS(·ilRowsQ5_0AVX2, 352, sixteenf<>, ILQ5PF, ILQ5BLOCK)


// The AVX2 packers (gemmSignedAVX2's, gemmBias4AVX2's, gemmSplit2AVX2's and
// gemmSplit4AVX2's packs of 16 whole rows, rs bytes apart; their scales and biases are
// Go's: packAsm): each block (K-quant and IQ4_XS:
// sub-block) column's 32 quants of 8 rows in Y0..Y7, as bytes in element
// order, transposed as 4-byte words so that a register holds elements
// 4c..4c+3 of the 8 rows, and stored at 64c + 32H of its pack. SI: row 0,
// R8: row 4, R9: row 8, R10: row 12; DX: rs, R13: 3rs; AX: the block's
// offset in a row.

// PKT transposes Y0..Y7 (8 rows of 8 words) into Y8..Y15: word c of the 8
// rows in Y(8+c).
#define PKT \
	VUNPCKLPS  Y1, Y0, Y8;         \
	VUNPCKHPS  Y1, Y0, Y9;         \
	VUNPCKLPS  Y3, Y2, Y10;        \
	VUNPCKHPS  Y3, Y2, Y11;        \
	VUNPCKLPS  Y5, Y4, Y12;        \
	VUNPCKHPS  Y5, Y4, Y13;        \
	VUNPCKLPS  Y7, Y6, Y14;        \
	VUNPCKHPS  Y7, Y6, Y15;        \
	VSHUFPS    $0x44, Y10, Y8, Y0; \
	VSHUFPS    $0xee, Y10, Y8, Y1; \
	VSHUFPS    $0x44, Y11, Y9, Y2; \
	VSHUFPS    $0xee, Y11, Y9, Y3; \
	VSHUFPS    $0x44, Y14, Y12, Y4; \
	VSHUFPS    $0xee, Y14, Y12, Y5; \
	VSHUFPS    $0x44, Y15, Y13, Y6; \
	VSHUFPS    $0xee, Y15, Y13, Y7; \
	VPERM2F128 $0x20, Y4, Y0, Y8;  \
	VPERM2F128 $0x20, Y5, Y1, Y9;  \
	VPERM2F128 $0x20, Y6, Y2, Y10; \
	VPERM2F128 $0x20, Y7, Y3, Y11; \
	VPERM2F128 $0x31, Y4, Y0, Y12; \
	VPERM2F128 $0x31, Y5, Y1, Y13; \
	VPERM2F128 $0x31, Y6, Y2, Y14; \
	VPERM2F128 $0x31, Y7, Y3, Y15

// PKSTORE stores the 8 chunks Y8..Y15 of rows 8H.. at 64c+32H(DI).
#define PKSTORE(H) \
	VMOVDQU Y8, (32*(H))(DI);      \
	VMOVDQU Y9, (64+32*(H))(DI);   \
	VMOVDQU Y10, (128+32*(H))(DI); \
	VMOVDQU Y11, (192+32*(H))(DI); \
	VMOVDQU Y12, (256+32*(H))(DI); \
	VMOVDQU Y13, (320+32*(H))(DI); \
	VMOVDQU Y14, (384+32*(H))(DI); \
	VMOVDQU Y15, (448+32*(H))(DI)

// PKSIGNED finishes the 8 rows of a signed pack: the quants as they are.
#define PKSIGNED(H) PKT; PKSTORE(H)

// PKOFFSET finishes the 8 rows of an unsigned type's pack: the quants
// plus the offset bytes in R14, and the corrections c and c2, -128 times
// the sums of each row's stored chunks 0..3 and 4..7 (PKFIN, for chunks
// in Y8..Y15 already).
#define PKOFFSET(H) PKT; PKFIN(H)
#define PKFIN(H) \
	VMOVD        R14, X0;              \
	VPBROADCASTD X0, Y0;               \
	VPADDB       Y0, Y8, Y8;           \
	VPADDB       Y0, Y9, Y9;           \
	VPADDB       Y0, Y10, Y10;         \
	VPADDB       Y0, Y11, Y11;         \
	VPADDB       Y0, Y12, Y12;         \
	VPADDB       Y0, Y13, Y13;         \
	VPADDB       Y0, Y14, Y14;         \
	VPADDB       Y0, Y15, Y15;         \
	PKSTORE(H);                        \
	VMOVDQU      one8<>(SB), Y0;       \
	VPMADDUBSW   Y8, Y0, Y1;           \
	VPMADDUBSW   Y9, Y0, Y2;           \
	VPADDW       Y2, Y1, Y1;           \
	VPMADDUBSW   Y10, Y0, Y2;          \
	VPADDW       Y2, Y1, Y1;           \
	VPMADDUBSW   Y11, Y0, Y2;          \
	VPADDW       Y2, Y1, Y1;           \
	VPMADDUBSW   Y12, Y0, Y3;          \
	VPMADDUBSW   Y13, Y0, Y2;          \
	VPADDW       Y2, Y3, Y3;           \
	VPMADDUBSW   Y14, Y0, Y2;          \
	VPADDW       Y2, Y3, Y3;           \
	VPMADDUBSW   Y15, Y0, Y2;          \
	VPADDW       Y2, Y3, Y3;           \
	VPMADDWD     ones16<>(SB), Y1, Y1; \
	VPMADDWD     ones16<>(SB), Y3, Y3; \
	VPSLLD       $7, Y1, Y1;           \
	VPSLLD       $7, Y3, Y3;           \
	VPXOR        Y2, Y2, Y2;           \
	VPSUBD       Y1, Y2, Y1;           \
	VPSUBD       Y3, Y2, Y3;           \
	VMOVDQU      Y1, (704+32*(H))(DI); \
	VMOVDQU      Y3, (768+32*(H))(DI)

// PKROWS loads the 8 rows from R11 (rows 0-3) and R12 (rows 4-7) with
// LOADROW(base, Y): the row's block at the address base, which takes a
// displacement before it.
#define PKROWS(LOADROW) \
	LOADROW((R11), Y0);        \
	LOADROW((R11)(DX*1), Y1);  \
	LOADROW((R11)(DX*2), Y2);  \
	LOADROW((R11)(R13*1), Y3); \
	LOADROW((R12), Y4);        \
	LOADROW((R12)(DX*1), Y5);  \
	LOADROW((R12)(DX*2), Y6);  \
	LOADROW((R12)(R13*1), Y7)

// PKCOLUMN packs the block column at AX of the 16 rows into the pack at
// DI, PREP setting up LOADROW's constants before each 8 rows (PKT clobbers
// Y8..Y15), FIN(H) finishing them.
#define PKCOLUMN(PREP, LOADROW, FIN) \
	LEAQ (SI)(AX*1), R11;  \
	LEAQ (R8)(AX*1), R12;  \
	PREP;                  \
	PKROWS(LOADROW);       \
	FIN(0);                \
	LEAQ (R9)(AX*1), R11;  \
	LEAQ (R10)(AX*1), R12; \
	PREP;                  \
	PKROWS(LOADROW);       \
	FIN(1)

#define PKNOPREP

#define PKSETUP \
	MOVQ dst+0(FP), DI;   \
	MOVQ w+8(FP), SI;     \
	MOVQ rs+16(FP), DX;   \
	MOVQ nb+24(FP), CX;   \
	LEAQ (DX)(DX*2), R13; \
	LEAQ (SI)(DX*4), R8;  \
	LEAQ (SI)(DX*8), R9;  \
	LEAQ (R9)(DX*4), R10; \
	XORQ AX, AX

// PKQ8ROW loads a Q8_0 row's 32 quants.
#define PKQ8ROW(base, Y) VMOVDQU 2 base, Y

// PKIQ4 loads the 16 bytes of nibbles at disp of an IQ4 row as its 32
// levels: low nibbles (elements 0..15) in the low lane, high ones in the
// high lane (Y15: 0x0f bytes, Y14: the levels).
#define PKIQ4(disp, base, Y) \
	VMOVDQU     disp base, X8; \
	VPSRLW      $4, X8, X9;    \
	VPAND       X15, X8, X8;   \
	VPAND       X15, X9, X9;   \
	VPSHUFB     X8, X14, X8;   \
	VPSHUFB     X9, X14, X9;   \
	VINSERTI128 $1, X9, Y8, Y
#define PKNLROW(base, Y) PKIQ4(2, base, Y)
#define PKXSROW(base, Y) PKIQ4(0, base, Y)

#define PKIQ4CONST \
	VMOVDQU nib<>(SB), Y15; \
	VMOVDQU iq4nlLevels<>(SB), Y14

// PKBLOCKS defines name(dst, w *byte, rs, nb int) over nb blocks of blk
// bytes, a pack each: constants PREP, row loader ROW.
#define PKBLOCKS(name, blk, PREP, ROW) \
TEXT name(SB), NOSPLIT, $0-32;           \
	PKSETUP;                             \
bpack:;                                  \
	PKCOLUMN(PREP, ROW, PKSIGNED);       \
	ADDQ $blk, AX;                       \
	ADDQ $832, DI;                       \
	DECQ CX;                             \
	JNZ  bpack;                          \
	VZEROUPPER;                          \
	RET

// func packQ8_0QuantsAVX2(dst, w *byte, rs, nb int)
PKBLOCKS(·packQ8_0QuantsAVX2, 34, PKNOPREP, PKQ8ROW)

// func packIQ4NLQuantsAVX2(dst, w *byte, rs, nb int)
PKBLOCKS(·packIQ4NLQuantsAVX2, 18, PKIQ4CONST, PKNLROW)

// func packIQ4XSQuantsAVX2(dst, w *byte, rs, nb int)
// nb counts super-blocks (136 bytes; sub-block j's nibbles at 8+16j).
TEXT ·packIQ4XSQuantsAVX2(SB), NOSPLIT, $0-32
	PKSETUP
	ADDQ $8, AX              // sub-block 0's nibbles
xspack:
	MOVQ $8, BX
xssub:
	PKCOLUMN(PKIQ4CONST, PKXSROW, PKSIGNED)
	ADDQ $16, AX
	ADDQ $832, DI
	DECQ BX
	JNZ  xssub
	ADDQ $8, AX              // past the next super-block's d and scales
	DECQ CX
	JNZ  xspack
	VZEROUPPER
	RET

// The K-quants' sub-block j (Y14: 0x0f bytes; Y15: the high bits' mask).
// PKQ4K loads the nibbles of Q4_K sub-block j = 2p+i: qs[32p..] (qs at
// 16) shifted by 4i.
#define PKQ4K(qsd, sh, base, Y) \
	VMOVDQU qsd base, Y; \
	VPSRLW  $(sh), Y, Y; \
	VPAND   Y14, Y, Y
// PKQ5K adds Q5_K's fifth bits: bit j of qh[e] (qh at 16; qs at 48).
#define PKQ5K(qsd, sh, j, base, Y) \
	PKQ4K(qsd, sh, base, Y);  \
	VMOVDQU 16 base, Y8;      \
	VPSRLW  $(j), Y8, Y8;     \
	VPAND   Y15, Y8, Y8;      \
	VPSLLW  $4, Y8, Y8;       \
	VPOR    Y8, Y, Y
// PKQ6K loads Q6_K column j = 4h+q: ql[64h+32(q&1)..] shifted by 4(q>>1),
// and bits 2q, 2q+1 of qh[32h..] (qh at 128) above them.
#define PKQ6K(qld, sh, qhd, qsh, base, Y) \
	PKQ4K(qld, sh, base, Y);  \
	VMOVDQU qhd base, Y8;     \
	VPSRLW  $(qsh), Y8, Y8;   \
	VPAND   Y15, Y8, Y8;      \
	VPSLLW  $4, Y8, Y8;       \
	VPOR    Y8, Y, Y

// PKQ3K loads Q3_K column j = 4h+p: the 2-bit quants of qs[32h..] (qs at
// 32) shifted by 2p (Y14: 0x03 bytes), and bit 4h+p of hmask[e] (at 0) as
// their bit 2 (Y15: 0x01 bytes): u = q+4.
#define PKQ3K(qsd, sh, hsh, base, Y) \
	PKQ4K(qsd, sh, base, Y);  \
	VMOVDQU 0 base, Y8;       \
	VPSRLW  $(hsh), Y8, Y8;   \
	VPAND   Y15, Y8, Y8;      \
	VPSLLW  $2, Y8, Y8;       \
	VPOR    Y8, Y, Y

#define PKQ3K0(base, Y) PKQ3K(32, 0, 0, base, Y)
#define PKQ3K1(base, Y) PKQ3K(32, 2, 1, base, Y)
#define PKQ3K2(base, Y) PKQ3K(32, 4, 2, base, Y)
#define PKQ3K3(base, Y) PKQ3K(32, 6, 3, base, Y)
#define PKQ3K4(base, Y) PKQ3K(64, 0, 4, base, Y)
#define PKQ3K5(base, Y) PKQ3K(64, 2, 5, base, Y)
#define PKQ3K6(base, Y) PKQ3K(64, 4, 6, base, Y)
#define PKQ3K7(base, Y) PKQ3K(64, 6, 7, base, Y)
#define PKQ4K0(base, Y) PKQ4K(16, 0, base, Y)
#define PKQ4K1(base, Y) PKQ4K(16, 4, base, Y)
#define PKQ4K2(base, Y) PKQ4K(48, 0, base, Y)
#define PKQ4K3(base, Y) PKQ4K(48, 4, base, Y)
#define PKQ4K4(base, Y) PKQ4K(80, 0, base, Y)
#define PKQ4K5(base, Y) PKQ4K(80, 4, base, Y)
#define PKQ4K6(base, Y) PKQ4K(112, 0, base, Y)
#define PKQ4K7(base, Y) PKQ4K(112, 4, base, Y)
#define PKQ5K0(base, Y) PKQ5K(48, 0, 0, base, Y)
#define PKQ5K1(base, Y) PKQ5K(48, 4, 1, base, Y)
#define PKQ5K2(base, Y) PKQ5K(80, 0, 2, base, Y)
#define PKQ5K3(base, Y) PKQ5K(80, 4, 3, base, Y)
#define PKQ5K4(base, Y) PKQ5K(112, 0, 4, base, Y)
#define PKQ5K5(base, Y) PKQ5K(112, 4, 5, base, Y)
#define PKQ5K6(base, Y) PKQ5K(144, 0, 6, base, Y)
#define PKQ5K7(base, Y) PKQ5K(144, 4, 7, base, Y)
#define PKQ6K0(base, Y) PKQ6K(0, 0, 128, 0, base, Y)
#define PKQ6K1(base, Y) PKQ6K(32, 0, 128, 2, base, Y)
#define PKQ6K2(base, Y) PKQ6K(0, 4, 128, 4, base, Y)
#define PKQ6K3(base, Y) PKQ6K(32, 4, 128, 6, base, Y)
#define PKQ6K4(base, Y) PKQ6K(64, 0, 160, 0, base, Y)
#define PKQ6K5(base, Y) PKQ6K(96, 0, 160, 2, base, Y)
#define PKQ6K6(base, Y) PKQ6K(64, 4, 160, 4, base, Y)
#define PKQ6K7(base, Y) PKQ6K(96, 4, 160, 6, base, Y)

#define PKKCONST1 \
	VMOVDQU nib<>(SB), Y14;  \
	VMOVDQU one8<>(SB), Y15
#define PKKCONSTQ3 \
	VMOVDQU three8<>(SB), Y14; \
	VMOVDQU one8<>(SB), Y15
#define PKKCONST3 \
	VMOVDQU nib<>(SB), Y14;  \
	VMOVDQU one8<>(SB), Y15; \
	VPADDB  Y15, Y15, Y8;    \
	VPOR    Y8, Y15, Y15

// PKSUPER packs a K-quant super-block column of the 16 rows (at AX) as 8
// packs from DI, with its sub-block loaders ROW0..ROW7.
#define PKSUPER(PREP, R0, R1, R2, R3, R4, R5, R6, R7) \
	PKCOLUMN(PREP, R0, PKOFFSET); ADDQ $832, DI; \
	PKCOLUMN(PREP, R1, PKOFFSET); ADDQ $832, DI; \
	PKCOLUMN(PREP, R2, PKOFFSET); ADDQ $832, DI; \
	PKCOLUMN(PREP, R3, PKOFFSET); ADDQ $832, DI; \
	PKCOLUMN(PREP, R4, PKOFFSET); ADDQ $832, DI; \
	PKCOLUMN(PREP, R5, PKOFFSET); ADDQ $832, DI; \
	PKCOLUMN(PREP, R6, PKOFFSET); ADDQ $832, DI; \
	PKCOLUMN(PREP, R7, PKOFFSET); ADDQ $832, DI

// PKKQUANTS defines name(dst, w *byte, rs, nb int) over nb K-quant
// super-blocks of blk bytes: offset bytes off, constants PREP, sub-block
// loaders R0..R7.
#define PKKQUANTS(name, blk, off, PREP, R0, R1, R2, R3, R4, R5, R6, R7) \
TEXT name(SB), NOSPLIT, $0-32;                          \
	PKSETUP;                                            \
	MOVL $off, R14;                                     \
kpack:;                                                 \
	PKSUPER(PREP, R0, R1, R2, R3, R4, R5, R6, R7);      \
	ADDQ $blk, AX;                                      \
	DECQ CX;                                            \
	JNZ  kpack;                                         \
	VZEROUPPER;                                         \
	RET

// func packQ4KQuantsAVX2(dst, w *byte, rs, nb int)
// nb counts super-blocks (144 bytes); offset 0.
PKKQUANTS(·packQ4KQuantsAVX2, 144, 0, PKKCONST1, PKQ4K0, PKQ4K1, PKQ4K2, PKQ4K3, PKQ4K4, PKQ4K5, PKQ4K6, PKQ4K7)

// func packQ5KQuantsAVX2(dst, w *byte, rs, nb int)
// nb counts super-blocks (176 bytes); offset -16.
PKKQUANTS(·packQ5KQuantsAVX2, 176, 0xf0f0f0f0, PKKCONST1, PKQ5K0, PKQ5K1, PKQ5K2, PKQ5K3, PKQ5K4, PKQ5K5, PKQ5K6, PKQ5K7)

// func packQ3KQuantsAVX2(dst, w *byte, rs, nb int)
// nb counts super-blocks (110 bytes); offset -4.
PKKQUANTS(·packQ3KQuantsAVX2, 110, 0xfcfcfcfc, PKKCONSTQ3, PKQ3K0, PKQ3K1, PKQ3K2, PKQ3K3, PKQ3K4, PKQ3K5, PKQ3K6, PKQ3K7)

// func packQ6KQuantsAVX2(dst, w *byte, rs, nb int)
// nb counts super-blocks (210 bytes); offset -32.
PKKQUANTS(·packQ6KQuantsAVX2, 210, 0xe0e0e0e0, PKKCONST3, PKQ6K0, PKQ6K1, PKQ6K2, PKQ6K3, PKQ6K4, PKQ6K5, PKQ6K6, PKQ6K7)

// The AVX2 packers of interleaved groups (interleave.go's layouts): a
// column's chunks already hold 4 quants of each row in its lane, the
// packs' order, so each pack's 8 chunks of rows 8H.. are their quants
// unpacked in place (LOAD(j, H) into Y8..Y15; Y0..Y7 are free) and
// finished as the row-major packers' (PKFIN: the offset in R14 and the
// corrections; PKSTORE for the signed types), and its scales and biases
// are the rows' columns of the scale fields, unpacked 8 rows at a time.

// ILPKNIB sets Y to the nibbles at off(SI) shifted right by sh.
#define ILPKNIB(off, sh, Y) \
	VMOVDQU (off)(SI), Y;       \
	VPSRLW  $(sh), Y, Y;        \
	VPAND   nib<>(SB), Y, Y

// ILPKBITS adds to Y the bits of the chunk at off(SI) shifted right by sh
// and masked by M, moved up by up.
#define ILPKBITS(off, sh, M, up, Y) \
	VMOVDQU (off)(SI), Y0;      \
	VPSRLW  $(sh), Y0, Y0;      \
	VPAND   M, Y0, Y0;          \
	VPSLLW  $(up), Y0, Y0;      \
	VPOR    Y0, Y, Y

// ILPK8 applies G(j, H, g, Y) to the pack's 8 chunks.
#define ILPK8(G, j, H) \
	G(j, H, 0, Y8);  \
	G(j, H, 1, Y9);  \
	G(j, H, 2, Y10); \
	G(j, H, 3, Y11); \
	G(j, H, 4, Y12); \
	G(j, H, 5, Y13); \
	G(j, H, 6, Y14); \
	G(j, H, 7, Y15)

// Q4_K sub-block j = 2p+i: the nibbles of chunk 8p+g shifted by 4i (quants
// at 256). Q5_K: quants at 768, bit j of qh chunk g (at 256) as bit 4.
#define ILPKQ4KG(j, H, g, Y) ILPKNIB(256+32*(H)+64*(8*((j)/2)+(g)), 4*((j)%2), Y)
#define ILPKQ5KG(j, H, g, Y) \
	ILPKNIB(768+32*(H)+64*(8*((j)/2)+(g)), 4*((j)%2), Y); \
	ILPKBITS(256+32*(H)+64*(g), j, one8<>(SB), 4, Y)

// Q6_K run j = 4h+q: ql chunk 16h+8(q&1)+g (at 288) shifted by 4(q/2),
// bits 2q, 2q+1 of qh chunk 8h+g (at 2336) as bits 4, 5.
#define ILPKQ6KG(j, H, g, Y) \
	ILPKNIB(288+32*(H)+64*(16*((j)/4)+8*(((j)%4)&1)+(g)), 4*(((j)%4)/2), Y); \
	ILPKBITS(2336+32*(H)+64*(8*((j)/4)+(g)), 2*((j)%4), three8<>(SB), 4, Y)

// Q3_K plane j = 4h+p: the 2-bit quants of qs chunk 8h+g (at 736)
// shifted by 2p, bit 4h+p of hmask chunk g (at 224) as bit 2: u = q+4.
#define ILPKQ3KG(j, H, g, Y) \
	VMOVDQU (736+32*(H)+64*(8*((j)/4)+(g)))(SI), Y; \
	VPSRLW  $(2*((j)%4)), Y, Y;                      \
	VPAND   three8<>(SB), Y, Y;                      \
	ILPKBITS(224+32*(H)+64*(g), j, one8<>(SB), 2, Y)

// IQ4_XS sub-block j: the levels (Y7) of chunk 4j+g's low nibbles for g <
// 4, of chunk 4j+g-4's high ones above (quants at 128).
#define ILPKXSG(j, H, g, Y) \
	ILPKNIB(128+32*(H)+64*(4*(j)+((g)%4)), 4*((g)/4), Y); \
	VPSHUFB Y, Y7, Y

// Q8_0: chunk g flipped back to signed (quants at 32; one pack a column).
#define ILPKQ80G(j, H, g, Y) \
	VMOVDQU (32+32*(H)+64*(g))(SI), Y; \
	VPXOR   flip8<>(SB), Y, Y

// Q4_0: chunk g's low nibbles for g < 4, chunk g-4's high ones above
// (quants at 32; one pack a column).
#define ILPKQ40G(j, H, g, Y) ILPKNIB(32+32*(H)+64*((g)%4), 4*((g)/4), Y)

// Q5_0: Q4_0's nibbles (at 96) with their fifth bits from the qh chunk
// (at 32) as ilRowsQ5_0AVX2 merges them.
#define ILPKQ50G(j, H, g, Y) \
	VMOVDQU (32+32*(H))(SI), Y1;                    \
	ILPKNIB(96+32*(H)+64*((g)%4), 4*((g)/4), Y);    \
	Q5HIT(Y, 64*((g)/4)+32*(((g)%4)/2), 32*((g)%2), Y1, Y2, Y3)

#define ILPKPACK(j, G, FIN) \
	ILPK8(G, j, 0); \
	FIN(0);         \
	ILPK8(G, j, 1); \
	FIN(1);         \
	ADDQ $832, DI

// The packs' scales and biases, a column's at a time before its packs
// (DI at its first pack), as blockScales computes them: ILSCSTORE
// converts the int32s Yi (clobbered), multiplies them by the rows' d in
// Y8 and stores them at off+32H of pack j (512: d; 576: d2); ILBYTE sets
// Y to byte b of each lane of SRC, zero- (VPSRLD) or sign-extended
// (VPSRAD). Y15 is zero.
#define ILSCSTORE(j, H, off, Yi) \
	VCVTDQ2PS Yi, Yi;                            \
	VMULPS    Y8, Yi, Yi;                        \
	VMOVUPS   Yi, (832*(j)+(off)+32*(H))(DI)
#define ILBYTE(b, SRC, Y, VSHR) \
	VPSLLD $(24-8*(b)), SRC, Y; \
	VSHR   $24, Y, Y
#define ILZERO(j, H, off) VMOVUPS Y15, (832*(j)+(off)+32*(H))(DI)

// ILSCD: Q4_0's, Q5_0's and Q8_0's d (d2 and b zero).
#define ILSCD(H) \
	VCVTPH2PS (16*(H))(SI), Y8; \
	VMOVUPS   Y8, (512+32*(H))(DI); \
	ILZERO(0, H, 576); \
	ILZERO(0, H, 640)

// ILSCK45 (Q4_K, J = ILSCK4J; Q5_K, ILSCK5J): sub-block j's d·sc_j, and
// its bias -dmin·m_j (Q5_K: 16·d·sc_j - dmin·m_j, its quants packed less
// 16); Y9 = dmin, Y14 = 16.
#define ILSCK4J(j, H, SC, MN, b) \
	ILBYTE(b, SC, Y0, VPSRLD);   \
	VCVTDQ2PS Y0, Y0;            \
	VMULPS    Y8, Y0, Y0;        \
	VMOVUPS   Y0, (832*(j)+512+32*(H))(DI); \
	ILZERO(j, H, 576);           \
	ILBYTE(b, MN, Y1, VPSRLD);   \
	VCVTDQ2PS Y1, Y1;            \
	VMULPS    Y9, Y1, Y1;        \
	VSUBPS    Y1, Y15, Y2;       \
	VMOVUPS   Y2, (832*(j)+640+32*(H))(DI)
#define ILSCK5J(j, H, SC, MN, b) \
	ILBYTE(b, SC, Y0, VPSRLD);   \
	VCVTDQ2PS Y0, Y0;            \
	VMULPS    Y8, Y0, Y0;        \
	VMOVUPS   Y0, (832*(j)+512+32*(H))(DI); \
	ILZERO(j, H, 576);           \
	ILBYTE(b, MN, Y1, VPSRLD);   \
	VCVTDQ2PS Y1, Y1;            \
	VMULPS    Y9, Y1, Y1;        \
	VMULPS    Y14, Y0, Y2;       \
	VSUBPS    Y1, Y2, Y2;        \
	VMOVUPS   Y2, (832*(j)+640+32*(H))(DI)
#define ILSCK45(H, J) \
	K45UNPACK(H, Y10, Y11, Y12, Y13); \
	VCVTPH2PS (16*(H))(SI), Y8;       \
	VCVTPH2PS (32+16*(H))(SI), Y9;    \
	VBROADCASTSS sixteenf<>(SB), Y14; \
	J(0, H, Y10, Y12, 0); \
	J(1, H, Y10, Y12, 1); \
	J(2, H, Y10, Y12, 2); \
	J(3, H, Y10, Y12, 3); \
	J(4, H, Y11, Y13, 0); \
	J(5, H, Y11, Y13, 1); \
	J(6, H, Y11, Y13, 2); \
	J(7, H, Y11, Y13, 3)
#define ILSCK4(H) ILSCK45(H, ILSCK4J)
#define ILSCK5(H) ILSCK45(H, ILSCK5J)

// ILSCQ6: run j's d·scale 2j and d2 = d·scale 2j+1 (int8 scales: chunk
// j/2, bytes 2(j%2) and 2(j%2)+1), b zero.
#define ILSCQ6J(j, H) \
	VMOVDQU (32+64*((j)/2)+32*(H))(SI), Y4; \
	ILBYTE(2*((j)%2), Y4, Y0, VPSRAD);      \
	ILSCSTORE(j, H, 512, Y0);               \
	ILBYTE(2*((j)%2)+1, Y4, Y1, VPSRAD);    \
	ILSCSTORE(j, H, 576, Y1);               \
	ILZERO(j, H, 640)
#define ILSCQ6(H) \
	VCVTPH2PS (16*(H))(SI), Y8; \
	ILSCQ6J(0, H); ILSCQ6J(1, H); ILSCQ6J(2, H); ILSCQ6J(3, H); \
	ILSCQ6J(4, H); ILSCQ6J(5, H); ILSCQ6J(6, H); ILSCQ6J(7, H)

// ILSCQ3: plane j's d·(scale 2j - 32) and d2 = d·(scale 2j+1 - 32)
// (scale k: byte k%4 of vector k/4 of Q3SCV's, in Y10..Y13), b zero.
#define ILSCQ3J(j, H, V) \
	ILBYTE(2*((j)%2), V, Y0, VPSRLD);   \
	VPSUBD iq4xsDW<>+64(SB), Y0, Y0;    \
	ILSCSTORE(j, H, 512, Y0);           \
	ILBYTE(2*((j)%2)+1, V, Y1, VPSRLD); \
	VPSUBD iq4xsDW<>+64(SB), Y1, Y1;    \
	ILSCSTORE(j, H, 576, Y1);           \
	ILZERO(j, H, 640)
#define ILSCQ3(H) \
	VMOVDQU (32+32*(H))(SI), Y4;  \
	VMOVDQU (96+32*(H))(SI), Y5;  \
	VMOVDQU (160+32*(H))(SI), Y6; \
	Q3SCV(Y4, 0, 0, Y10, Y7);     \
	Q3SCV(Y5, 0, 2, Y11, Y7);     \
	Q3SCV(Y4, 4, 4, Y12, Y7);     \
	Q3SCV(Y5, 4, 6, Y13, Y7);     \
	VCVTPH2PS (16*(H))(SI), Y8;   \
	ILSCQ3J(0, H, Y10); ILSCQ3J(1, H, Y10); ILSCQ3J(2, H, Y11); ILSCQ3J(3, H, Y11); \
	ILSCQ3J(4, H, Y12); ILSCQ3J(5, H, Y12); ILSCQ3J(6, H, Y13); ILSCQ3J(7, H, Y13)

// ILSCXS: IQ4_XS sub-block j's d·(ls - 32) (the signed kernel reads d
// alone).
#define ILSCXSJ(j, H) \
	IQ4XSLS(j, H, Y10, Y0, Y1); \
	ILSCSTORE(j, H, 512, Y0)
#define ILSCXS(H) \
	VPMOVZXWD (32+16*(H))(SI), Y10; \
	VCVTPH2PS (16*(H))(SI), Y8;     \
	ILSCXSJ(0, H); ILSCXSJ(1, H); ILSCXSJ(2, H); ILSCXSJ(3, H); \
	ILSCXSJ(4, H); ILSCXSJ(5, H); ILSCXSJ(6, H); ILSCXSJ(7, H)

// ILPKCOLS defines name(dst, w *byte, nb int) over nb interleaved columns
// of blk bytes: each column's scales (SC, both row halves), its pack 0
// and then REST (ILPK0: none; ILPK7: the packs 1-7 of a super-block
// column), chunk loader G, offset bytes off, finisher FIN, constants
// CONST.
#define ILPK0(G, FIN)
#define ILPK7(G, FIN) \
	ILPKPACK(1, G, FIN); \
	ILPKPACK(2, G, FIN); \
	ILPKPACK(3, G, FIN); \
	ILPKPACK(4, G, FIN); \
	ILPKPACK(5, G, FIN); \
	ILPKPACK(6, G, FIN); \
	ILPKPACK(7, G, FIN)
#define ILPKCOLS(name, blk, SC, REST, G, off, FIN, CONST) \
TEXT name(SB), NOSPLIT, $0-24; \
	MOVQ dst+0(FP), DI;     \
	MOVQ w+8(FP), SI;       \
	MOVQ nb+16(FP), CX;     \
	MOVL $off, R14;         \
ilpack:;                    \
	VXORPS Y15, Y15, Y15;   \
	SC(0);                  \
	SC(1);                  \
	CONST;                  \
	ILPKPACK(0, G, FIN);    \
	REST(G, FIN);           \
	ADDQ $blk, SI;          \
	DECQ CX;                \
	JNZ  ilpack;            \
	VZEROUPPER;             \
	RET

#define ILPKXSCONST VMOVDQU iq4nlLevels<>(SB), Y7

// func packILQ8_0AVX2(dst, w *byte, nb int)
ILPKCOLS(·packILQ8_0AVX2, 544, ILSCD, ILPK0, ILPKQ80G, 0, PKSTORE, NOCONST)

// func packILQ4_0AVX2(dst, w *byte, nb int)
ILPKCOLS(·packILQ4_0AVX2, 288, ILSCD, ILPK0, ILPKQ40G, 0xf8f8f8f8, PKFIN, NOCONST)

// func packILQ5_0AVX2(dst, w *byte, nb int)
ILPKCOLS(·packILQ5_0AVX2, 352, ILSCD, ILPK0, ILPKQ50G, 0xf0f0f0f0, PKFIN, NOCONST)

// func packILQ3KAVX2(dst, w *byte, nb int)
ILPKCOLS(·packILQ3KAVX2, 1760, ILSCQ3, ILPK7, ILPKQ3KG, 0xfcfcfcfc, PKFIN, NOCONST)

// func packILQ4KAVX2(dst, w *byte, nb int)
ILPKCOLS(·packILQ4KAVX2, 2304, ILSCK4, ILPK7, ILPKQ4KG, 0, PKFIN, NOCONST)

// func packILQ5KAVX2(dst, w *byte, nb int)
ILPKCOLS(·packILQ5KAVX2, 2816, ILSCK5, ILPK7, ILPKQ5KG, 0xf0f0f0f0, PKFIN, NOCONST)

// func packILQ6KAVX2(dst, w *byte, nb int)
ILPKCOLS(·packILQ6KAVX2, 3360, ILSCQ6, ILPK7, ILPKQ6KG, 0xe0e0e0e0, PKFIN, NOCONST)

// func packILIQ4XSAVX2(dst, w *byte, nb int)
ILPKCOLS(·packILIQ4XSAVX2, 2176, ILSCXS, ILPK7, ILPKXSG, 0, PKSTORE, ILPKXSCONST)

// func sumSquaresSIMD(x *float32, n int) float64
// Returns the sum of x[i]*x[i] for i < n (n a multiple of 8): each square
// rounded to float32, as the scalar loop squares, and summed in float64
// (8 partial sums, then folded).
TEXT ·sumSquaresSIMD(SB), NOSPLIT, $0-24
	MOVQ   x+0(FP), SI
	MOVQ   n+8(FP), CX
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5

sq8:
	CMPQ         CX, $8
	JLT          sqdone
	VMOVUPS      (SI), Y0
	VMULPS       Y0, Y0, Y1
	VCVTPS2PD    X1, Y2
	VEXTRACTF128 $1, Y1, X3
	VCVTPS2PD    X3, Y3
	VADDPD       Y2, Y4, Y4
	VADDPD       Y3, Y5, Y5
	ADDQ         $32, SI
	SUBQ         $8, CX
	JMP          sq8

sqdone:
	VADDPD       Y5, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VADDPD       X5, X4, X4
	VPERMILPD    $1, X4, X5
	VADDSD       X5, X4, X4
	VZEROUPPER
	MOVSD        X4, ret+16(FP)
	RET

// func scaleMulSIMD(dst, x, w *float32, n int, scale float32)
// dst[i] = x[i]*scale*w[i] (in that order) for i < n, n a multiple of 8.
TEXT ·scaleMulSIMD(SB), NOSPLIT, $0-36
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         w+16(FP), DX
	MOVQ         n+24(FP), CX
	VBROADCASTSS scale+32(FP), Y7

sm8:
	CMPQ    CX, $8
	JLT     smdone
	VMULPS  (SI), Y7, Y0
	VMULPS  (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     sm8

smdone:
	VZEROUPPER
	RET

// ropeDup indexes VPERMPS to repeat each of 4 floats twice.
DATA ropeDup<>+0(SB)/8, $0x0000000000000000
DATA ropeDup<>+8(SB)/8, $0x0000000100000001
DATA ropeDup<>+16(SB)/8, $0x0000000200000002
DATA ropeDup<>+24(SB)/8, $0x0000000300000003
GLOBL ropeDup<>(SB), RODATA|NOPTR, $32

// func ropePairsSIMD(v, c, s *float32, n int)
// Rotates the n/2 pairs (v[2i], v[2i+1]) of v (n a multiple of 8) by
// cosines c[i] and sines s[i]: v*c - swap(v)*s in even lanes, + in odd
// ones (VADDSUBPS), the scalar loop's products and sums (no FMA), so the
// results are its own.
TEXT ·ropePairsSIMD(SB), NOSPLIT, $0-32
	MOVQ    v+0(FP), DI
	MOVQ    c+8(FP), SI
	MOVQ    s+16(FP), DX
	MOVQ    n+24(FP), CX
	VMOVUPS ropeDup<>(SB), Y8

rp8:
	CMPQ      CX, $8
	JLT       rpdone
	VMOVUPS   (DI), Y0
	VPERMILPS $0xB1, Y0, Y1
	VMOVUPS   (SI), X2
	VPERMPS   Y2, Y8, Y2
	VMOVUPS   (DX), X3
	VPERMPS   Y3, Y8, Y3
	VMULPS    Y2, Y0, Y0
	VMULPS    Y3, Y1, Y1
	VADDSUBPS Y1, Y0, Y0
	VMOVUPS   Y0, (DI)
	ADDQ      $32, DI
	ADDQ      $16, SI
	ADDQ      $16, DX
	SUBQ      $8, CX
	JMP       rp8

rpdone:
	VZEROUPPER
	RET

// func ropeHalvesSIMD(v, c, s *float32, half int)
// Rotates the pairs (v[i], v[i+half]) (NeoX's; half a multiple of 8) by
// cosines c and sines s: lo*c - hi*s and lo*s + hi*c, as the scalar loop.
TEXT ·ropeHalvesSIMD(SB), NOSPLIT, $0-32
	MOVQ v+0(FP), DI
	MOVQ c+8(FP), SI
	MOVQ s+16(FP), DX
	MOVQ half+24(FP), CX
	LEAQ (DI)(CX*4), BX

rh8:
	CMPQ    CX, $8
	JLT     rhdone
	VMOVUPS (DI), Y0
	VMOVUPS (BX), Y1
	VMOVUPS (SI), Y2
	VMOVUPS (DX), Y3
	VMULPS  Y2, Y0, Y4
	VMULPS  Y3, Y1, Y5
	VSUBPS  Y5, Y4, Y4
	VMULPS  Y3, Y0, Y6
	VMULPS  Y2, Y1, Y7
	VADDPS  Y7, Y6, Y6
	VMOVUPS Y4, (DI)
	VMOVUPS Y6, (BX)
	ADDQ    $32, DI
	ADDQ    $32, BX
	ADDQ    $32, SI
	ADDQ    $32, DX
	SUBQ    $8, CX
	JMP     rh8

rhdone:
	VZEROUPPER
	RET
