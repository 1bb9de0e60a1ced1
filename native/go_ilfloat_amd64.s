//go:build amd64 && !purego

// Interleaved F16 and BF16 weights (interleave.go): a group of 16 rows is
// one stream of 64-byte block columns, lane r of column k holding row r's
// elements 2k and 2k+1. The C twins are il_rows_f16, il_rows_bf16 and
// il_panel_f16 in csrc/quants_x86.inc.

#include "textflag.h"

// ilEven and ilOdd pick, from two registers of 8 rows' element pairs
// (floats 2r and 2r+1 row r's), the rows' first and second elements.
DATA ilEven<>+0(SB)/8, $0x0000000200000000
DATA ilEven<>+8(SB)/8, $0x0000000600000004
DATA ilEven<>+16(SB)/8, $0x0000000a00000008
DATA ilEven<>+24(SB)/8, $0x0000000e0000000c
DATA ilEven<>+32(SB)/8, $0x0000001200000010
DATA ilEven<>+40(SB)/8, $0x0000001600000014
DATA ilEven<>+48(SB)/8, $0x0000001a00000018
DATA ilEven<>+56(SB)/8, $0x0000001e0000001c
GLOBL ilEven<>(SB), RODATA|NOPTR, $64

DATA ilOdd<>+0(SB)/8, $0x0000000300000001
DATA ilOdd<>+8(SB)/8, $0x0000000700000005
DATA ilOdd<>+16(SB)/8, $0x0000000b00000009
DATA ilOdd<>+24(SB)/8, $0x0000000f0000000d
DATA ilOdd<>+32(SB)/8, $0x0000001300000011
DATA ilOdd<>+40(SB)/8, $0x0000001700000015
DATA ilOdd<>+48(SB)/8, $0x0000001b00000019
DATA ilOdd<>+56(SB)/8, $0x0000001f0000001d
GLOBL ilOdd<>(SB), RODATA|NOPTR, $64

// SPLITPAIRS sets E and O to the first and second elements of the 16 rows
// whose pairs are in LO (rows 0-7) and HI (rows 8-15), by the indices in
// Z30 and Z31.
#define SPLITPAIRS(LO, HI, E, O) \
	VMOVAPS   Z30, E;      \
	VPERMI2PS HI, LO, E;   \
	VMOVAPS   Z31, O;      \
	VPERMI2PS HI, LO, O

// func ilRowsF16(w *byte, ng, n2 int, x *float32, out *float32)
//
// Each column's two halves widen to 8 rows' pairs, multiplied by the
// broadcast activation pair (x[2k], x[2k+1] repeated); a group's sums of
// first and second elements meet once, at its end.
TEXT ·ilRowsF16(SB), NOSPLIT, $0-40
	MOVQ      w+0(FP), SI
	MOVQ      ng+8(FP), R9
	MOVQ      out+32(FP), DI
	VMOVDQU32 ilEven<>(SB), Z30
	VMOVDQU32 ilOdd<>(SB), Z31

f16group:
	MOVQ   x+24(FP), DX
	MOVQ   n2+16(FP), CX
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	CMPQ   CX, $2
	JLT    f16tail

f16pair:
	PREFETCHT0   8192(SI)
	PREFETCHT0   8256(SI)
	VCVTPH2PS    (SI), Z0
	VCVTPH2PS    32(SI), Z1
	VCVTPH2PS    64(SI), Z2
	VCVTPH2PS    96(SI), Z3
	VBROADCASTSD (DX), Z4
	VBROADCASTSD 8(DX), Z5
	VFMADD231PS  Z4, Z0, Z16
	VFMADD231PS  Z4, Z1, Z17
	VFMADD231PS  Z5, Z2, Z18
	VFMADD231PS  Z5, Z3, Z19
	ADDQ         $128, SI
	ADDQ         $16, DX
	SUBQ         $2, CX
	CMPQ         CX, $2
	JGE          f16pair

f16tail:
	TESTQ        CX, CX
	JZ           f16sum
	VCVTPH2PS    (SI), Z0
	VCVTPH2PS    32(SI), Z1
	VBROADCASTSD (DX), Z4
	VFMADD231PS  Z4, Z0, Z16
	VFMADD231PS  Z4, Z1, Z17
	ADDQ         $64, SI

f16sum:
	VADDPS    Z18, Z16, Z16
	VADDPS    Z19, Z17, Z17
	SPLITPAIRS(Z16, Z17, Z0, Z1)
	VADDPS    Z1, Z0, Z0
	VMOVUPS   Z0, (DI)
	ADDQ      $64, DI
	DECQ      R9
	JNZ       f16group
	VZEROUPPER
	RET

// func ilRowsBF16(w *byte, ng, n2 int, x *float32, out *float32)
//
// x holds the activations rounded to BF16. A column's words give the 16
// rows' first elements shifted up and their second ones masked, each
// multiplied by its broadcast activation: no sums across lanes at all.
TEXT ·ilRowsBF16(SB), NOSPLIT, $0-40
	MOVQ         w+0(FP), SI
	MOVQ         ng+8(FP), R9
	MOVQ         out+32(FP), DI
	MOVL         $0xffff0000, AX
	VPBROADCASTD AX, Z31

bf16group:
	MOVQ   x+24(FP), DX
	MOVQ   n2+16(FP), CX
	VPXORD Z16, Z16, Z16
	VPXORD Z17, Z17, Z17
	VPXORD Z18, Z18, Z18
	VPXORD Z19, Z19, Z19
	CMPQ   CX, $2
	JLT    bf16tail

bf16pair:
	PREFETCHT0   8192(SI)
	PREFETCHT0   8256(SI)
	VMOVDQU32    (SI), Z0
	VMOVDQU32    64(SI), Z2
	VPSLLD       $16, Z0, Z1
	VPANDD       Z31, Z0, Z0
	VPSLLD       $16, Z2, Z3
	VPANDD       Z31, Z2, Z2
	VBROADCASTSS (DX), Z4
	VBROADCASTSS 4(DX), Z5
	VBROADCASTSS 8(DX), Z6
	VBROADCASTSS 12(DX), Z7
	VFMADD231PS  Z4, Z1, Z16
	VFMADD231PS  Z5, Z0, Z17
	VFMADD231PS  Z6, Z3, Z18
	VFMADD231PS  Z7, Z2, Z19
	ADDQ         $128, SI
	ADDQ         $16, DX
	SUBQ         $2, CX
	CMPQ         CX, $2
	JGE          bf16pair

bf16tail:
	TESTQ        CX, CX
	JZ           bf16sum
	VMOVDQU32    (SI), Z0
	VPSLLD       $16, Z0, Z1
	VPANDD       Z31, Z0, Z0
	VBROADCASTSS (DX), Z4
	VBROADCASTSS 4(DX), Z5
	VFMADD231PS  Z4, Z1, Z16
	VFMADD231PS  Z5, Z0, Z17
	ADDQ         $64, SI

bf16sum:
	VADDPS  Z18, Z16, Z16
	VADDPS  Z19, Z17, Z17
	VADDPS  Z17, Z16, Z16
	VMOVUPS Z16, (DI)
	ADDQ    $64, DI
	DECQ    R9
	JNZ     bf16group
	VZEROUPPER
	RET

// func ilPanelF16(dst *float32, w *byte, n2 int)
//
// dst[16k+r] = element k of row r for the group's 2*n2 columns: each block
// column widened, its first and second elements picked apart.
TEXT ·ilPanelF16(SB), NOSPLIT, $0-24
	MOVQ      dst+0(FP), DI
	MOVQ      w+8(FP), SI
	MOVQ      n2+16(FP), CX
	VMOVDQU32 ilEven<>(SB), Z30
	VMOVDQU32 ilOdd<>(SB), Z31

panelcol:
	VCVTPH2PS (SI), Z0
	VCVTPH2PS 32(SI), Z1
	SPLITPAIRS(Z0, Z1, Z2, Z3)
	VMOVUPS   Z2, (DI)
	VMOVUPS   Z3, 64(DI)
	ADDQ      $64, SI
	ADDQ      $128, DI
	DECQ      CX
	JNZ       panelcol
	VZEROUPPER
	RET

// F16COLA2 adds column c (from SI) of a group, its four quarters widened
// to 4 rows' pairs, times the broadcast activation pair c (from DX) to
// A0..A3.
#define F16COLA2(c, A0, A1, A2, A3) \
	VCVTPH2PS    (64*(c))(SI), Y0;    \
	VCVTPH2PS    (64*(c)+16)(SI), Y1; \
	VCVTPH2PS    (64*(c)+32)(SI), Y2; \
	VCVTPH2PS    (64*(c)+48)(SI), Y3; \
	VBROADCASTSD (8*(c))(DX), Y6;     \
	VFMADD231PS  Y6, Y0, A0;          \
	VFMADD231PS  Y6, Y1, A1;          \
	VFMADD231PS  Y6, Y2, A2;          \
	VFMADD231PS  Y6, Y3, A3

// func ilRowsF16AVX2(w *byte, ng, n2 int, x *float32, out *float32)
//
// ilRowsF16 on AVX2: a column's four quarters widen to 4 rows' pairs each,
// multiplied by the broadcast activation pair, two columns a step into 8
// sums (Y8..Y15) whose pairs meet at the group's end (VHADDPS, then
// VPERMPD to row order).
TEXT ·ilRowsF16AVX2(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ ng+8(FP), R9
	MOVQ out+32(FP), DI

a2group:
	MOVQ   x+24(FP), DX
	MOVQ   n2+16(FP), CX
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
	VXORPS Y14, Y14, Y14
	VXORPS Y15, Y15, Y15
	CMPQ   CX, $2
	JLT    a2tail

a2pair:
	PREFETCHT0 8192(SI)
	PREFETCHT0 8256(SI)
	F16COLA2(0, Y8, Y9, Y10, Y11)
	F16COLA2(1, Y12, Y13, Y14, Y15)
	ADDQ       $128, SI
	ADDQ         $16, DX
	SUBQ         $2, CX
	CMPQ         CX, $2
	JGE          a2pair

a2tail:
	TESTQ        CX, CX
	JZ           a2sum
	F16COLA2(0, Y8, Y9, Y10, Y11)
	ADDQ         $64, SI

a2sum:
	VADDPS  Y12, Y8, Y8
	VADDPS  Y13, Y9, Y9
	VADDPS  Y14, Y10, Y10
	VADDPS  Y15, Y11, Y11
	VHADDPS Y9, Y8, Y0       // rows 0, 1, 4, 5 | 2, 3, 6, 7
	VHADDPS Y11, Y10, Y1
	VPERMPD $0xd8, Y0, Y0
	VPERMPD $0xd8, Y1, Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ    $64, DI
	DECQ    R9
	JNZ     a2group
	VZEROUPPER
	RET

// func ilPanelF16AVX2(dst *float32, w *byte, n2 int)
//
// ilPanelF16 on AVX2: a column's quarters widen to 4 rows' pairs, whose
// first and second elements VSHUFPS gathers 8 rows at a time (VPERMPD to
// row order).
TEXT ·ilPanelF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ n2+16(FP), CX

a2panel:
	VCVTPH2PS (SI), Y0
	VCVTPH2PS 16(SI), Y1
	VCVTPH2PS 32(SI), Y2
	VCVTPH2PS 48(SI), Y3
	VSHUFPS   $0x88, Y1, Y0, Y4  // rows 0, 1, 4, 5 | 2, 3, 6, 7: first elements
	VSHUFPS   $0xdd, Y1, Y0, Y5  // second ones
	VSHUFPS   $0x88, Y3, Y2, Y6
	VSHUFPS   $0xdd, Y3, Y2, Y7
	VPERMPD   $0xd8, Y4, Y4
	VPERMPD   $0xd8, Y5, Y5
	VPERMPD   $0xd8, Y6, Y6
	VPERMPD   $0xd8, Y7, Y7
	VMOVUPS   Y4, (DI)
	VMOVUPS   Y6, 32(DI)
	VMOVUPS   Y5, 64(DI)
	VMOVUPS   Y7, 96(DI)
	ADDQ      $64, SI
	ADDQ      $128, DI
	DECQ      CX
	JNZ       a2panel
	VZEROUPPER
	RET
