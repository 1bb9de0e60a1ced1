//go:build amd64 && !purego

#include "textflag.h"

// PANELSTEP multiplies the panel column at off(SI) (16 floats: Y12, Y13)
// by element off/64 of each of the 6 activation rows R8..R13 (byte offset
// DX + off/16), adding to the accumulators Y0..Y11.
#define PANELSTEP(off) \
	VMOVUPS      off(SI), Y12;                 \
	VMOVUPS      off+32(SI), Y13;              \
	VBROADCASTSS 0+((off)/16)(R8)(DX*1), Y14;      \
	VFMADD231PS  Y14, Y12, Y0;                 \
	VFMADD231PS  Y14, Y13, Y1;                 \
	VBROADCASTSS 0+((off)/16)(R9)(DX*1), Y15;      \
	VFMADD231PS  Y15, Y12, Y2;                 \
	VFMADD231PS  Y15, Y13, Y3;                 \
	VBROADCASTSS 0+((off)/16)(R10)(DX*1), Y14;     \
	VFMADD231PS  Y14, Y12, Y4;                 \
	VFMADD231PS  Y14, Y13, Y5;                 \
	VBROADCASTSS 0+((off)/16)(R11)(DX*1), Y15;     \
	VFMADD231PS  Y15, Y12, Y6;                 \
	VFMADD231PS  Y15, Y13, Y7;                 \
	VBROADCASTSS 0+((off)/16)(R12)(DX*1), Y14;     \
	VFMADD231PS  Y14, Y12, Y8;                 \
	VFMADD231PS  Y14, Y13, Y9;                 \
	VBROADCASTSS 0+((off)/16)(R13)(DX*1), Y15;     \
	VFMADD231PS  Y15, Y12, Y10;                \
	VFMADD231PS  Y15, Y13, Y11

// func panelMul6SIMD(p *float32, n int, y *[6]*float32, o *float32, os int)
// o_t[r] = Σ_k p[16*k+r] * y[t][k] over k < n, for the 16 rows r of the
// panel p and the 6 activation rows y[t], written at o_t = o + t*os bytes:
// 12 accumulators, each FMA adding one column of 8 rows times one
// broadcast activation, in k order (the C library's panel_mul).
TEXT ·panelMul6SIMD(SB), NOSPLIT, $0-40
	MOVQ   p+0(FP), SI
	MOVQ   n+8(FP), CX
	MOVQ   y+16(FP), AX
	MOVQ   0(AX), R8
	MOVQ   8(AX), R9
	MOVQ   16(AX), R10
	MOVQ   24(AX), R11
	MOVQ   32(AX), R12
	MOVQ   40(AX), R13
	XORQ   DX, DX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

loop2:
	CMPQ CX, $2
	JLT  tail
	PANELSTEP(0)
	PANELSTEP(64)
	ADDQ $128, SI
	ADDQ $8, DX
	SUBQ $2, CX
	JMP  loop2

tail:
	CMPQ CX, $0
	JEQ  done
	PANELSTEP(0)

done:
	MOVQ    o+24(FP), AX
	MOVQ    os+32(FP), BX
	VMOVUPS Y0, (AX); VMOVUPS Y1, 32(AX); ADDQ BX, AX
	VMOVUPS Y2, (AX); VMOVUPS Y3, 32(AX); ADDQ BX, AX
	VMOVUPS Y4, (AX); VMOVUPS Y5, 32(AX); ADDQ BX, AX
	VMOVUPS Y6, (AX); VMOVUPS Y7, 32(AX); ADDQ BX, AX
	VMOVUPS Y8, (AX); VMOVUPS Y9, 32(AX); ADDQ BX, AX
	VMOVUPS Y10, (AX); VMOVUPS Y11, 32(AX)
	VZEROUPPER
	RET

// func transpose8SIMD(dst, src *float32, stride, n int)
// dst[16*k+r] = src[r*stride/4+k] for the 8 rows r of src (stride bytes
// apart) and k < n, n a multiple of 8: one 8×8 block a step, the
// unpack/shuffle/permute transpose of the C library's transpose8_ps.
TEXT ·transpose8SIMD(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), R8
	MOVQ stride+16(FP), BX
	MOVQ n+24(FP), CX
	LEAQ (R8)(BX*1), R9
	LEAQ (R9)(BX*1), R10
	LEAQ (R10)(BX*1), R11
	LEAQ (R11)(BX*1), R12
	LEAQ (R12)(BX*1), R13
	LEAQ (R13)(BX*1), DX
	LEAQ (DX)(BX*1), SI
	XORQ AX, AX

tloop:
	CMPQ       CX, $8
	JLT        tdone
	VMOVUPS    (R8)(AX*1), Y0
	VMOVUPS    (R9)(AX*1), Y1
	VMOVUPS    (R10)(AX*1), Y2
	VMOVUPS    (R11)(AX*1), Y3
	VMOVUPS    (R12)(AX*1), Y4
	VMOVUPS    (R13)(AX*1), Y5
	VMOVUPS    (DX)(AX*1), Y6
	VMOVUPS    (SI)(AX*1), Y7
	VUNPCKLPS  Y1, Y0, Y8
	VUNPCKHPS  Y1, Y0, Y9
	VUNPCKLPS  Y3, Y2, Y10
	VUNPCKHPS  Y3, Y2, Y11
	VUNPCKLPS  Y5, Y4, Y12
	VUNPCKHPS  Y5, Y4, Y13
	VUNPCKLPS  Y7, Y6, Y14
	VUNPCKHPS  Y7, Y6, Y15
	VSHUFPS    $0x44, Y10, Y8, Y0
	VSHUFPS    $0xEE, Y10, Y8, Y1
	VSHUFPS    $0x44, Y11, Y9, Y2
	VSHUFPS    $0xEE, Y11, Y9, Y3
	VSHUFPS    $0x44, Y14, Y12, Y4
	VSHUFPS    $0xEE, Y14, Y12, Y5
	VSHUFPS    $0x44, Y15, Y13, Y6
	VSHUFPS    $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	VMOVUPS    Y8, (DI)
	VMOVUPS    Y9, 64(DI)
	VMOVUPS    Y10, 128(DI)
	VMOVUPS    Y11, 192(DI)
	VMOVUPS    Y12, 256(DI)
	VMOVUPS    Y13, 320(DI)
	VMOVUPS    Y14, 384(DI)
	VMOVUPS    Y15, 448(DI)
	ADDQ       $32, AX
	ADDQ       $512, DI
	SUBQ       $8, CX
	JMP        tloop

tdone:
	VZEROUPPER
	RET

// PANEL512STEP multiplies the columns (SI) and (SI)(DI*1) of two adjacent
// panels (16 floats each: Z24, Z25) by the activation at A, adding to the
// accumulators ZLO and ZHI.
#define PANEL512STEP(A, ZLO, ZHI) \
	VBROADCASTSS A, Z26;          \
	VFMADD231PS  Z26, Z24, ZLO;   \
	VFMADD231PS  Z26, Z25, ZHI

#define PANEL512ZERO \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7; \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15; \
	VPXORD Z16, Z16, Z16; \
	VPXORD Z17, Z17, Z17; \
	VPXORD Z18, Z18, Z18; \
	VPXORD Z19, Z19, Z19; \
	VPXORD Z20, Z20, Z20; \
	VPXORD Z21, Z21, Z21; \
	VPXORD Z22, Z22, Z22; \
	VPXORD Z23, Z23, Z23

// PANEL512STORE writes token t's accumulators Z(2t), Z(2t+1) (32 floats)
// at AX + t*BX.
#define PANEL512STORE \
	VMOVUPS Z0, 0(AX); VMOVUPS Z1, 64(AX); ADDQ BX, AX; \
	VMOVUPS Z2, 0(AX); VMOVUPS Z3, 64(AX); ADDQ BX, AX; \
	VMOVUPS Z4, 0(AX); VMOVUPS Z5, 64(AX); ADDQ BX, AX; \
	VMOVUPS Z6, 0(AX); VMOVUPS Z7, 64(AX); ADDQ BX, AX; \
	VMOVUPS Z8, 0(AX); VMOVUPS Z9, 64(AX); ADDQ BX, AX; \
	VMOVUPS Z10, 0(AX); VMOVUPS Z11, 64(AX); ADDQ BX, AX; \
	VMOVUPS Z12, 0(AX); VMOVUPS Z13, 64(AX); ADDQ BX, AX; \
	VMOVUPS Z14, 0(AX); VMOVUPS Z15, 64(AX); ADDQ BX, AX; \
	VMOVUPS Z16, 0(AX); VMOVUPS Z17, 64(AX); ADDQ BX, AX; \
	VMOVUPS Z18, 0(AX); VMOVUPS Z19, 64(AX); ADDQ BX, AX; \
	VMOVUPS Z20, 0(AX); VMOVUPS Z21, 64(AX); ADDQ BX, AX; \
	VMOVUPS Z22, 0(AX); VMOVUPS Z23, 64(AX)

// func panelMul12AVX512(p *float32, n, ps int, y *float32, ys int, o *float32, os int)
// o_t[r] = Σ_k p'[16*k+r%16] * y_t[k] over k < n, for the 32 rows r of
// the panels p and p+ps bytes (p' the one r falls in) and the 12
// activation rows y_t at y + t*ys bytes, written at o_t = o + t*os bytes:
// 24 accumulators, each FMA adding one column of 16 rows times one
// broadcast activation, in k order (the C library's AVX-512 panel_mul).
// The rows are addressed from two bases, y and y+8*ys, and the multiples
// ys, 3ys, 5ys and 7ys.
TEXT ·panelMul12AVX512(SB), NOSPLIT, $0-56
	MOVQ   p+0(FP), SI
	MOVQ   n+8(FP), CX
	MOVQ   ps+16(FP), DI       // the second panel
	MOVQ   y+24(FP), R8
	MOVQ   ys+32(FP), R9
	LEAQ   (R9)(R9*2), R10     // 3ys
	LEAQ   (R9)(R9*4), R11     // 5ys
	LEAQ   (R10)(R9*4), R12    // 7ys
	LEAQ   (R8)(R9*8), R13     // token 8
	PANEL512ZERO
	TESTQ  CX, CX
	JEQ    p512done

p512loop:
	VMOVUPS (SI), Z24
	VMOVUPS (SI)(DI*1), Z25
	PANEL512STEP((R8), Z0, Z1)
	PANEL512STEP((R8)(R9*1), Z2, Z3)
	PANEL512STEP((R8)(R9*2), Z4, Z5)
	PANEL512STEP((R8)(R10*1), Z6, Z7)
	PANEL512STEP((R8)(R9*4), Z8, Z9)
	PANEL512STEP((R8)(R11*1), Z10, Z11)
	PANEL512STEP((R8)(R10*2), Z12, Z13)
	PANEL512STEP((R8)(R12*1), Z14, Z15)
	PANEL512STEP((R13), Z16, Z17)
	PANEL512STEP((R13)(R9*1), Z18, Z19)
	PANEL512STEP((R13)(R9*2), Z20, Z21)
	PANEL512STEP((R13)(R10*1), Z22, Z23)
	ADDQ    $64, SI
	ADDQ    $4, R8
	ADDQ    $4, R13
	DECQ    CX
	JNZ     p512loop

p512done:
	MOVQ    o+40(FP), AX
	MOVQ    os+48(FP), BX
	PANEL512STORE
	VZEROUPPER
	RET

// VDPBF16PS Z26, Z24 (or Z25), Zd is spelled in bytes (the Go assembler
// lacks AVX512_BF16): EVEX.512.F3.0F38.W0 52 /r, checked with GNU as.
#define DPBF16_Z0 BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xc2
#define DPBF16_Z1 BYTE $0x62; BYTE $0x92; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xca
#define DPBF16_Z2 BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xd2
#define DPBF16_Z3 BYTE $0x62; BYTE $0x92; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xda
#define DPBF16_Z4 BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xe2
#define DPBF16_Z5 BYTE $0x62; BYTE $0x92; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xea
#define DPBF16_Z6 BYTE $0x62; BYTE $0x92; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xf2
#define DPBF16_Z7 BYTE $0x62; BYTE $0x92; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xfa
#define DPBF16_Z8 BYTE $0x62; BYTE $0x12; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xc2
#define DPBF16_Z9 BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xca
#define DPBF16_Z10 BYTE $0x62; BYTE $0x12; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xd2
#define DPBF16_Z11 BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xda
#define DPBF16_Z12 BYTE $0x62; BYTE $0x12; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xe2
#define DPBF16_Z13 BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xea
#define DPBF16_Z14 BYTE $0x62; BYTE $0x12; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xf2
#define DPBF16_Z15 BYTE $0x62; BYTE $0x12; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xfa
#define DPBF16_Z16 BYTE $0x62; BYTE $0x82; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xc2
#define DPBF16_Z17 BYTE $0x62; BYTE $0x82; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xca
#define DPBF16_Z18 BYTE $0x62; BYTE $0x82; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xd2
#define DPBF16_Z19 BYTE $0x62; BYTE $0x82; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xda
#define DPBF16_Z20 BYTE $0x62; BYTE $0x82; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xe2
#define DPBF16_Z21 BYTE $0x62; BYTE $0x82; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xea
#define DPBF16_Z22 BYTE $0x62; BYTE $0x82; BYTE $0x3e; BYTE $0x40; BYTE $0x52; BYTE $0xf2
#define DPBF16_Z23 BYTE $0x62; BYTE $0x82; BYTE $0x36; BYTE $0x40; BYTE $0x52; BYTE $0xfa

// PANELBF16STEP is PANEL512STEP for BF16 pair panels: A is one
// activation pair, broadcast as a word; DLO and DHI add Z24 and Z25
// times it to the accumulators.
#define PANELBF16STEP(A, DLO, DHI) \
	VPBROADCASTD A, Z26; \
	DLO;                 \
	DHI

// func panelMul12BF16(p *float32, n2 int, y *uint16, ys int, o *[384]float32)
// panelMul12AVX512 for BF16 weights and activations (AVX512_BF16): the
// panels hold n2 element pairs of 16 rows (pair k of row r is the 32-bit
// word p[16*k+r%16]), y_t holds 2*n2 BF16 activations, and each VDPBF16PS
// adds a pair's two products: the C library's panel_mul_bf16.
TEXT ·panelMul12BF16(SB), NOSPLIT, $0-40
	MOVQ   p+0(FP), SI
	MOVQ   n2+8(FP), CX
	MOVQ   y+16(FP), R8
	MOVQ   ys+24(FP), R9
	MOVQ   CX, DI
	SHLQ   $6, DI              // 16 floats a column: the second panel is 64n bytes on
	LEAQ   (R9)(R9*2), R10     // 3ys
	LEAQ   (R9)(R9*4), R11     // 5ys
	LEAQ   (R10)(R9*4), R12    // 7ys
	LEAQ   (R8)(R9*8), R13     // token 8
	PANEL512ZERO
	TESTQ  CX, CX
	JEQ    pbf16done

pbf16loop:
	VMOVUPS (SI), Z24
	VMOVUPS (SI)(DI*1), Z25
	PANELBF16STEP((R8), DPBF16_Z0, DPBF16_Z1)
	PANELBF16STEP((R8)(R9*1), DPBF16_Z2, DPBF16_Z3)
	PANELBF16STEP((R8)(R9*2), DPBF16_Z4, DPBF16_Z5)
	PANELBF16STEP((R8)(R10*1), DPBF16_Z6, DPBF16_Z7)
	PANELBF16STEP((R8)(R9*4), DPBF16_Z8, DPBF16_Z9)
	PANELBF16STEP((R8)(R11*1), DPBF16_Z10, DPBF16_Z11)
	PANELBF16STEP((R8)(R10*2), DPBF16_Z12, DPBF16_Z13)
	PANELBF16STEP((R8)(R12*1), DPBF16_Z14, DPBF16_Z15)
	PANELBF16STEP((R13), DPBF16_Z16, DPBF16_Z17)
	PANELBF16STEP((R13)(R9*1), DPBF16_Z18, DPBF16_Z19)
	PANELBF16STEP((R13)(R9*2), DPBF16_Z20, DPBF16_Z21)
	PANELBF16STEP((R13)(R10*1), DPBF16_Z22, DPBF16_Z23)
	ADDQ    $64, SI
	ADDQ    $4, R8
	ADDQ    $4, R13
	DECQ    CX
	JNZ     pbf16loop

pbf16done:
	MOVQ    o+32(FP), AX
	MOVQ    $128, BX          // o's tokens are 32 floats apart
	PANEL512STORE
	VZEROUPPER
	RET

// func cpuid(leaf uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	XORL CX, CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET
