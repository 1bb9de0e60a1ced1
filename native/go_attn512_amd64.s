//go:build amd64 && !purego

// AVX-512 F16 attention kernels of the pure-Go backend (head sizes a
// multiple of 16): 16 floats a register, so a 64-element head row is four
// conversions and four FMAs. Contracts as dotsF16SIMD and wsumF16SIMD
// (go_kernels_simd.go); the AVX2 ones in go_attn_amd64.s serve other head
// sizes.

#include "textflag.h"
#include "gattn_amd64.h"

// PF16 prefetches the first 128 bytes of the 4 rows at AX, DX bytes apart
// (R13 = 3*DX), and moves AX 4 rows on.
#define PF16 \
	PREFETCHT0 (AX)          \
	PREFETCHT0 64(AX)        \
	PREFETCHT0 (AX)(DX*1)    \
	PREFETCHT0 64(AX)(DX*1)  \
	PREFETCHT0 (AX)(DX*2)    \
	PREFETCHT0 64(AX)(DX*2)  \
	PREFETCHT0 (AX)(R13*1)   \
	PREFETCHT0 64(AX)(R13*1) \
	LEAQ       (AX)(DX*4), AX

// ROWS4 adds to Z(a)..Z(a+3) the products of the query chunk Z16 with the
// 32-byte key chunks of the 4 rows at base (DX bytes apart, R13 = 3*DX).
#define ROWS4(base, a0, a1, a2, a3) \
	VCVTPH2PS   (base), Z17;         \
	VFMADD231PS Z16, Z17, a0;        \
	VCVTPH2PS   (base)(DX*1), Z18;   \
	VFMADD231PS Z16, Z18, a1;        \
	VCVTPH2PS   (base)(DX*2), Z19;   \
	VFMADD231PS Z16, Z19, a2;        \
	VCVTPH2PS   (base)(R13*1), Z20;  \
	VFMADD231PS Z16, Z20, a3

// PAIRPS leaves in a the 128-bit lanes' pairwise sums of a and b (a's
// row then b's, twice: [a0+a2, b0+b2, a1+a3, b1+b3]).
#define PAIRPS(a, b) \
	VUNPCKLPS b, a, Z16; \
	VUNPCKHPS b, a, Z17; \
	VADDPS    Z17, Z16, a

// PAIRPD leaves in a the lanes' sums of the rows of a (2) and b (2).
#define PAIRPD(a, b) \
	VUNPCKLPD b, a, Z16; \
	VUNPCKHPD b, a, Z17; \
	VADDPS    Z17, Z16, a

// PAIRLANES leaves in a, from a and b holding 4 rows' sums per 128-bit lane
// (a's lanes 0-3, then b's), each row's sums of two lanes.
#define PAIRLANES(a, b) \
	VSHUFF32X4 $0x88, b, a, Z16; \
	VSHUFF32X4 $0xdd, b, a, Z17; \
	VADDPS     Z17, Z16, a

// ZERO16 clears the 16 sums Z0..Z15.
#define ZERO16 \
	VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; VPXORD Z5, Z5, Z5; VPXORD Z6, Z6, Z6; VPXORD Z7, Z7, Z7; \
	VPXORD Z8, Z8, Z8; VPXORD Z9, Z9, Z9; VPXORD Z10, Z10, Z10; VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; VPXORD Z13, Z13, Z13; VPXORD Z14, Z14, Z14; VPXORD Z15, Z15, Z15

// REDUCE16 leaves in Z0 the 16 sums of Z0..Z15, lane i that of Zi: a
// transpose by pairs, pairs of pairs, then lanes (45 instructions).
#define REDUCE16 \
	PAIRPS(Z0, Z1); PAIRPS(Z2, Z3); PAIRPS(Z4, Z5); PAIRPS(Z6, Z7);         \
	PAIRPS(Z8, Z9); PAIRPS(Z10, Z11); PAIRPS(Z12, Z13); PAIRPS(Z14, Z15);   \
	PAIRPD(Z0, Z2); PAIRPD(Z4, Z6); PAIRPD(Z8, Z10); PAIRPD(Z12, Z14);      \
	PAIRLANES(Z0, Z4); PAIRLANES(Z8, Z12); PAIRLANES(Z0, Z8)

// func dotsF16AVX512(s, q *float32, k *byte, kstride, nrows, hd int)
//
// Blocks of 16 key rows: a query chunk meets the chunk of every row of the
// block, and the 16 row sums are reduced together (a transpose by pairs,
// pairs of pairs, then lanes: 45 instructions for 16 rows).
TEXT ·dotsF16AVX512(SB), NOSPLIT, $0-48
	MOVQ s+0(FP), R8
	MOVQ q+8(FP), DI
	MOVQ k+16(FP), SI
	MOVQ kstride+24(FP), DX
	MOVQ nrows+32(FP), CX
	MOVQ hd+40(FP), BX
	SHLQ $1, BX              // bytes of a key row (2 per element)
	LEAQ (DX)(DX*2), R13

rows16:
	CMPQ   CX, $16
	JLT    rows
	MOVQ   DX, AX
	SHLQ   $5, AX
	ADDQ   SI, AX             // the rows 32 ahead
	PF16
	PF16
	PF16
	PF16
	MOVQ   SI, R9
	LEAQ   (SI)(DX*4), R10
	LEAQ   (SI)(DX*8), R11
	LEAQ   (R10)(DX*8), R12
	MOVQ   DI, R14
	XORQ   AX, AX
	ZERO16

cols16:
	VMOVUPS (R14), Z16
	ROWS4(R9, Z0, Z1, Z2, Z3)
	ROWS4(R10, Z4, Z5, Z6, Z7)
	ROWS4(R11, Z8, Z9, Z10, Z11)
	ROWS4(R12, Z12, Z13, Z14, Z15)
	ADDQ    $64, R14
	ADDQ    $32, R9
	ADDQ    $32, R10
	ADDQ    $32, R11
	ADDQ    $32, R12
	ADDQ    $32, AX
	CMPQ    AX, BX
	JLT     cols16

	REDUCE16
	VMOVUPS Z0, (R8)
	ADDQ    $64, R8
	MOVQ    DX, AX
	SHLQ    $4, AX
	ADDQ    AX, SI
	SUBQ    $16, CX
	JMP     rows16

rows:
	TESTQ  CX, CX
	JZ     done
	VPXORD Z0, Z0, Z0
	XORQ   AX, AX
	MOVQ   DI, R14

cols1:
	VCVTPH2PS   (SI)(AX*1), Z17
	VFMADD231PS (R14), Z17, Z0
	ADDQ        $64, R14
	ADDQ        $32, AX
	CMPQ        AX, BX
	JLT         cols1
	VEXTRACTF32X8 $1, Z0, Y1
	VADDPS        Y1, Y0, Y0
	VEXTRACTF128  $1, Y0, X1
	VADDPS        X1, X0, X0
	VHADDPS       X0, X0, X0
	VHADDPS       X0, X0, X0
	VMOVSS        X0, (R8)
	ADDQ          $4, R8
	ADDQ          DX, SI
	DECQ          CX
	JMP           rows

done:
	VZEROUPPER
	RET

// VROW64 adds to A0..A3 the 64 values at addr (a row's block of four
// 16-float vectors) times the broadcast weight W, by way of T0..T3.
#define VROW64(addr0, addr1, addr2, addr3, W, T0, T1, T2, T3, A0, A1, A2, A3) \
	VCVTPH2PS   addr0, T0;  \
	VCVTPH2PS   addr1, T1;  \
	VCVTPH2PS   addr2, T2;  \
	VCVTPH2PS   addr3, T3;  \
	VFMADD231PS W, T0, A0;  \
	VFMADD231PS W, T1, A1;  \
	VFMADD231PS W, T2, A2;  \
	VFMADD231PS W, T3, A3

// func wsumF16AVX512(o, w *float32, v *byte, vstride, nrows, hd int)
//
// Column blocks of 64 elements (then 16): the block's outputs stay in
// registers while the rows pass, two rows a step into two sets of sums
// (so the FMA latency does not chain from row to row).
TEXT ·wsumF16AVX512(SB), NOSPLIT, $0-48
	MOVQ o+0(FP), R8
	MOVQ w+8(FP), DI
	MOVQ v+16(FP), SI
	MOVQ vstride+24(FP), DX
	MOVQ nrows+32(FP), CX
	MOVQ hd+40(FP), BX
	SHLQ $2, BX              // bytes of o
	XORQ AX, AX              // byte offset of the column block in o
	MOVQ DX, R14
	SHLQ $5, R14             // 32 rows

blk64:
	LEAQ    256(AX), R12
	CMPQ    R12, BX
	JGT     blk16
	VMOVUPS (R8)(AX*1), Z0
	VMOVUPS 64(R8)(AX*1), Z1
	VMOVUPS 128(R8)(AX*1), Z2
	VMOVUPS 192(R8)(AX*1), Z3
	VPXORD  Z4, Z4, Z4
	VPXORD  Z5, Z5, Z5
	VPXORD  Z6, Z6, Z6
	VPXORD  Z7, Z7, Z7
	MOVQ    AX, R13
	SHRQ    $1, R13
	LEAQ    (SI)(R13*1), R10
	MOVQ    DI, R11
	MOVQ    CX, R9

r2:
	CMPQ         R9, $2
	JLT          r1
	PREFETCHT0   (R10)(R14*1)
	PREFETCHT0   64(R10)(R14*1)
	VBROADCASTSS (R11), Z8
	VBROADCASTSS 4(R11), Z9
	VROW64((R10), 32(R10), 64(R10), 96(R10), Z8, Z10, Z11, Z12, Z13, Z0, Z1, Z2, Z3)
	VROW64((R10)(DX*1), 32(R10)(DX*1), 64(R10)(DX*1), 96(R10)(DX*1), Z9, Z14, Z15, Z16, Z17, Z4, Z5, Z6, Z7)
	ADDQ         $8, R11
	LEAQ         (R10)(DX*2), R10
	SUBQ         $2, R9
	JMP          r2

r1:
	TESTQ        R9, R9
	JZ           s64
	VBROADCASTSS (R11), Z8
	VROW64((R10), 32(R10), 64(R10), 96(R10), Z8, Z10, Z11, Z12, Z13, Z0, Z1, Z2, Z3)

s64:
	VADDPS  Z4, Z0, Z0
	VADDPS  Z5, Z1, Z1
	VADDPS  Z6, Z2, Z2
	VADDPS  Z7, Z3, Z3
	VMOVUPS Z0, (R8)(AX*1)
	VMOVUPS Z1, 64(R8)(AX*1)
	VMOVUPS Z2, 128(R8)(AX*1)
	VMOVUPS Z3, 192(R8)(AX*1)
	MOVQ    R12, AX
	JMP     blk64

blk16:
	CMPQ    AX, BX
	JGE     done
	VMOVUPS (R8)(AX*1), Z0
	VPXORD  Z4, Z4, Z4
	MOVQ    AX, R13
	SHRQ    $1, R13
	LEAQ    (SI)(R13*1), R10
	MOVQ    DI, R11
	MOVQ    CX, R9

q2:
	CMPQ         R9, $2
	JLT          q1
	VBROADCASTSS (R11), Z8
	VBROADCASTSS 4(R11), Z9
	VCVTPH2PS    (R10), Z10
	VCVTPH2PS    (R10)(DX*1), Z14
	VFMADD231PS  Z8, Z10, Z0
	VFMADD231PS  Z9, Z14, Z4
	ADDQ         $8, R11
	LEAQ         (R10)(DX*2), R10
	SUBQ         $2, R9
	JMP          q2

q1:
	TESTQ        R9, R9
	JZ           s16
	VBROADCASTSS (R11), Z8
	VCVTPH2PS    (R10), Z10
	VFMADD231PS  Z8, Z10, Z0

s16:
	VADDPS  Z4, Z0, Z0
	VMOVUPS Z0, (R8)(AX*1)
	ADDQ    $64, AX
	JMP     blk16

done:
	VZEROUPPER
	RET

// The AVX-512 group kernels: GDOTS512 and GWSUM (gattn_amd64.h) are
// their skeletons, for the heads listed by HEADS (a per-head op applied
// to each; G4 four heads, G3 three: GQA groups of 3, as smollm2's, padded
// to four spent a quarter of the products on a zero query).

// GDOTS512 defines name(s, q, k *byte, kstride, nrows, hd, sstride int):
// the scores of the heads of one GQA group at once against nrows key rows
// (a multiple of 4), four rows a step: each key chunk is read (and
// widened) once for the heads, and the 16 (head, row) sums (head h's in
// Z(4h)..Z(4h+3); a missing head's stay zero) are reduced together as in
// dotsF16AVX512 (STORE). Head h's scores go to s + h*sstride bytes. The
// including code defines, for the cache type:
//
//	GD_SETUP        R9 = the bytes between heads in q, R11 = 3*R9, BX =
//	                a key row's bytes (the column loop's end); constants
//	GD_ROWS         read the 4 rows' chunk at R14 (DX bytes apart, R13 =
//	                3*DX) into Z16..Z23
//	GD_DOT          per head: add its products with that chunk (its
//	                queries' chunk at Q) to its sums a0..a3
//	GD_KSTEP        the key bytes of a chunk, GD_QSTEP a head's query bytes
#define GDOTS512(name, HEADS, STORE) \
TEXT name(SB), NOSPLIT, $0-56; \
	GDOTS_ARGS;                \
	GD_SETUP;                  \
	LEAQ (DX)(DX*2), R13;      \
g4rows:;                       \
	CMPQ   CX, $4;             \
	JLT    g4done;             \
	MOVQ   DX, AX;             \
	SHLQ   $4, AX;             \
	ADDQ   SI, AX;             \
	PF16;                      \
	ZERO16;                    \
	MOVQ   SI, R14;            \
	MOVQ   DI, R12;            \
	XORQ   AX, AX;             \
g4cols:;                       \
	GD_ROWS;                      \
	HEADS(GD_DOT);                \
	ADDQ      $GD_KSTEP, R14;     \
	ADDQ      $GD_QSTEP, R12;     \
	ADDQ      $GD_KSTEP, AX;      \
	CMPQ      AX, BX;             \
	JLT       g4cols;             \
	REDUCE16;                     \
	STORE;                        \
	ADDQ          $16, R8;        \
	LEAQ          (SI)(DX*4), SI; \
	SUBQ          $4, CX;         \
	JMP           g4rows;         \
g4done:;                          \
	VZEROUPPER;                   \
	RET

// F16 keys (q: float32 queries, hd floats apart): chunks of 16 elements
// widened into Z16..Z19.
#define GD_SETUP GDF16SETUP
#define GD_ROWS \
	VCVTPH2PS (R14), Z16;        \
	VCVTPH2PS (R14)(DX*1), Z17;  \
	VCVTPH2PS (R14)(DX*2), Z18;  \
	VCVTPH2PS (R14)(R13*1), Z19
#define GD_DOT G512DOT
#define GD_KSTEP 32
#define GD_QSTEP 64

// G512DOT adds to head h's sums a0..a3 of rows 0-3 the products of the
// widened key chunks Z16..Z19 with its query chunk (at Q, into Zq).
#define G512DOT(Q, Zq, a0, a1, a2, a3) \
	VMOVUPS     Q, Zq;      \
	VFMADD231PS Zq, Z16, a0; \
	VFMADD231PS Zq, Z17, a1; \
	VFMADD231PS Zq, Z18, a2; \
	VFMADD231PS Zq, Z19, a3
#define GDOTS512H3(OP) \
	OP((R12), Z20, Z0, Z1, Z2, Z3);       \
	OP((R12)(R9*1), Z21, Z4, Z5, Z6, Z7); \
	OP((R12)(R9*2), Z22, Z8, Z9, Z10, Z11)
#define GDOTS512H4(OP) \
	GDOTS512H3(OP); \
	OP((R12)(R11*1), Z23, Z12, Z13, Z14, Z15)
// (REDUCE16 leaves head h's four row sums in Z0's 128-bit lane h)
#define GSTORE512H3 \
	VMOVUPS       X0, (R8);        \
	VEXTRACTF32X4 $1, Z0, X1;      \
	VMOVUPS       X1, (R8)(R10*1); \
	VEXTRACTF32X4 $2, Z0, X1;      \
	VMOVUPS       X1, (R8)(R10*2)
#define GSTORE512H4 \
	GSTORE512H3;                   \
	VEXTRACTF32X4 $3, Z0, X1;      \
	LEAQ          (R10)(R10*2), R14; \
	VMOVUPS       X1, (R8)(R14*1)

// func dotsF16G4AVX512(s, q *float32, k *byte, kstride, nrows, hd, sstride int)
GDOTS512(·dotsF16G4AVX512, GDOTS512H4, GSTORE512H4)

// func dotsF16G3AVX512(s, q *float32, k *byte, kstride, nrows, hd, sstride int)
GDOTS512(·dotsF16G3AVX512, GDOTS512H3, GSTORE512H3)

// The AVX-512 group value sums: GWSUM (gattn_amd64.h) at 16 floats a
// register. Column blocks of 64 elements (head h's 4 sums in
// Z(4h)..Z(4h+3)), then of 16.
#define GW_BIG 256
#define GW_SMALL 64
#define GW_WIDEN_BIG \
	PREFETCHT0 (R11)(DX*8);   \
	PREFETCHT0 64(R11)(DX*8); \
	VCVTPH2PS  (R11), Z16;    \
	VCVTPH2PS  32(R11), Z17;  \
	VCVTPH2PS  64(R11), Z18;  \
	VCVTPH2PS  96(R11), Z19
#define GW_WIDEN_SMALL VCVTPH2PS (R11), Z16
#define GW_CHUNK \
	MOVQ AX, R11; \
	SHRQ $1, R11; \
	ADDQ SI, R11
#define GW_SETUP
#define GW_LOAD_BIG GW512LOAD64
#define GW_SUM_BIG GW512SUM64
#define GW_STORE_BIG GW512STORE64
#define GW_LOAD_SMALL GW512LOAD16
#define GW_SUM_SMALL GW512SUM16
#define GW_STORE_SMALL GW512STORE16

// The per-head ops of the AVX-512 group value sums: head h's outputs at O, its weight at W,
// its sums a0..a3 (a 16-column block: a0), Zw for its broadcast weight.
#define GW512LOAD64(O, W, Zw, a0, a1, a2, a3) \
	VMOVUPS O, a0; VMOVUPS 64 O, a1; VMOVUPS 128 O, a2; VMOVUPS 192 O, a3
#define GW512SUM64(O, W, Zw, a0, a1, a2, a3) \
	VBROADCASTSS W, Zw;      \
	VFMADD231PS  Zw, Z16, a0; \
	VFMADD231PS  Zw, Z17, a1; \
	VFMADD231PS  Zw, Z18, a2; \
	VFMADD231PS  Zw, Z19, a3
#define GW512STORE64(O, W, Zw, a0, a1, a2, a3) \
	VMOVUPS a0, O; VMOVUPS a1, 64 O; VMOVUPS a2, 128 O; VMOVUPS a3, 192 O
#define GW512LOAD16(O, W, Zw, a0, a1, a2, a3) VMOVUPS O, a0
#define GW512SUM16(O, W, Zw, a0, a1, a2, a3) \
	VBROADCASTSS W, Zw;      \
	VFMADD231PS  Zw, Z16, a0
#define GW512STORE16(O, W, Zw, a0, a1, a2, a3) VMOVUPS a0, O
#define GWSUM512H3(OP) \
	OP((R13), (R12), Z20, Z0, Z1, Z2, Z3);             \
	OP((R13)(BX*1), (R12)(R9*1), Z21, Z4, Z5, Z6, Z7); \
	OP((R13)(BX*2), (R12)(R9*2), Z22, Z8, Z9, Z10, Z11)
#define GWSUM512H4(OP) \
	GWSUM512H3(OP); \
	OP((R13)(R14*1), (R12)(R10*1), Z23, Z12, Z13, Z14, Z15)

// func wsumF16G4AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int)
GWSUM(·wsumF16G4AVX512, GWSUM512H4)

// func wsumF16G3AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int)
GWSUM(·wsumF16G3AVX512, GWSUM512H3)

// The AVX-512 group value sums of quantized caches: GWSUM over rows of
// Q8_0 or Q4_0 blocks, each block of 32 widened to two registers of its
// values (d·q, or d·(q-8)) before the heads' FMAs, so that a head adds
// w·(d·q) as dequantizing a row and adding it (axpy) does. Column blocks
// of 64 elements (two cache blocks), then of 32 (one); Z24, Z25 hold the
// blocks' scales.
#undef GW_BIG
#undef GW_SMALL
#undef GW_CHUNK
#undef GW_WIDEN_BIG
#undef GW_WIDEN_SMALL
#undef GW_LOAD_SMALL
#undef GW_SUM_SMALL
#undef GW_STORE_SMALL
#define GW_BIG 256
#define GW_SMALL 128
#define GW_LOAD_SMALL GW512LOAD32
#define GW_SUM_SMALL GW512SUM32
#define GW_STORE_SMALL GW512STORE32
#define GW512LOAD32(O, W, Zw, a0, a1, a2, a3) VMOVUPS O, a0; VMOVUPS 64 O, a1
#define GW512SUM32(O, W, Zw, a0, a1, a2, a3) \
	VBROADCASTSS W, Zw;      \
	VFMADD231PS  Zw, Z16, a0; \
	VFMADD231PS  Zw, Z17, a1
#define GW512STORE32(O, W, Zw, a0, a1, a2, a3) VMOVUPS a0, O; VMOVUPS a1, 64 O

// GBCASTD(IMM, R, X, Z) sets every dword of Z to IMM (through R and X).
#define GBCASTD(IMM, R, X, Z) \
	MOVL         $IMM, R; \
	VMOVD        R, X;    \
	VPBROADCASTD X, Z

// GWSCALE(off, Yd, Zd) sets Zd to the F16 scale at off(R11), broadcast.
#define GWSCALE(off, Yd, Zd) \
	VPBROADCASTW off(R11), Yd; \
	VCVTPH2PS    Yd, Zd
// GWVALUES(Zd, Z0, Z1) turns the int32 quants Z0, Z1 into values, times
// the scale Zd.
#define GWVALUES(Zd, Z0, Z1) \
	VCVTDQ2PS Z0, Z0;     \
	VCVTDQ2PS Z1, Z1;     \
	VMULPS    Zd, Z0, Z0; \
	VMULPS    Zd, Z1, Z1

// GWBLOCK(HALF) sets R11 to block AX/128 of the row at SI, its blocks
// 2*HALF bytes each.
#define GWBLOCK(HALF) \
	MOVQ   AX, R11;         \
	SHRQ   $6, R11;         \
	IMUL3Q $HALF, R11, R11; \
	ADDQ   SI, R11

// Q8_0: blocks of 34 bytes; its 32 signed quants are widened a half at a
// time.
#define GW_CHUNK GWBLOCK(17)
// GWQ8(off, Yd, Zd, Z0, Z1) sets Z0, Z1 to the values of the block at
// off(R11) (Zd its scale).
#define GWQ8(off, Yd, Zd, Z0, Z1) \
	GWSCALE(off, Yd, Zd);      \
	VPMOVSXBD off+2(R11), Z0;  \
	VPMOVSXBD off+18(R11), Z1; \
	GWVALUES(Zd, Z0, Z1)
#define GW_WIDEN_SMALL GWQ8(0, Y24, Z24, Z16, Z17)
#define GW_WIDEN_BIG \
	PREFETCHT0 (R11)(DX*8);    \
	PREFETCHT0 64(R11)(DX*8);  \
	GWQ8(34, Y25, Z25, Z18, Z19); \
	GW_WIDEN_SMALL

// func wsumQ8_0G4AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int)
GWSUM(·wsumQ8_0G4AVX512, GWSUM512H4)

// func wsumQ8_0G3AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int)
GWSUM(·wsumQ8_0G3AVX512, GWSUM512H3)

// Q4_0: blocks of 18 bytes; a block's 16 bytes hold
// quants 0-15 in their low nibbles and 16-31 in their high ones, each
// less 8 (Z26 = 0x0f, Z27 = 8 in every dword).
#undef GW_SETUP
#undef GW_CHUNK
#undef GW_WIDEN_BIG
#undef GW_WIDEN_SMALL
#define GW_SETUP \
	GBCASTD(0x0f, R13, X26, Z26); \
	GBCASTD(8, R13, X27, Z27)
#define GW_CHUNK GWBLOCK(9)
// GWQ4(off, Yd, Zd, Z0, Z1) sets Z0, Z1 to the values of the block at
// off(R11) (Zd its scale).
#define GWQ4(off, Yd, Zd, Z0, Z1) \
	GWSCALE(off, Yd, Zd);         \
	VPMOVZXBD off+2(R11), Z0; \
	VPSRLD    $4, Z0, Z1;     \
	VPANDD    Z26, Z0, Z0;    \
	VPSUBD    Z27, Z0, Z0;    \
	VPSUBD    Z27, Z1, Z1;    \
	GWVALUES(Zd, Z0, Z1)
#define GW_WIDEN_SMALL GWQ4(0, Y24, Z24, Z16, Z17)
#define GW_WIDEN_BIG \
	PREFETCHT0 (R11)(DX*8); \
	GWQ4(18, Y25, Z25, Z18, Z19); \
	GW_WIDEN_SMALL

// func wsumQ4_0G4AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int)
GWSUM(·wsumQ4_0G4AVX512, GWSUM512H4)

// func wsumQ4_0G3AVX512(o, w *float32, v *byte, vstride, nrows, hd, wstride int)
GWSUM(·wsumQ4_0G3AVX512, GWSUM512H3)

// The AVX-512 VNNI group scores of quantized caches: GDOTS512 over rows
// of Q8_0 or Q4_0 keys, two blocks (64 elements) a chunk, against queries
// the Go code packs for them (packGroupQuery): per head and pair of
// blocks, 64 query bytes in the order the chunk's key bytes are read, 16
// int32 corrections, then 16 float scales dq, one per dword lane. A row's
// key bytes become unsigned u (Q8_0: q+128; Q4_0: the nibbles), so that
// VPDPBUSD's lanes hold Σu·q; with the query's correction (-16·Σq a lane
// for Q8_0, -Σq for Q4_0) that is Σ(key quant)·q exactly, and each lane
// adds its int sum times dq times the key block's dk (Z20..Z23) to the
// (head, row) sums. Head sizes are a multiple of 64; Z28 is the key
// bytes' mask or offset, Z24..Z27 and Z29 temporaries.
#undef GD_SETUP
#undef GD_ROWS
#undef GD_DOT
#undef GD_KSTEP
#undef GD_QSTEP
#define GD_QSTEP 192
#define GD_DOT GQDOT
// GQDOT adds to head h's sums a0..a3 of rows 0-3 its query chunk's (at Q)
// products with the rows' unsigned bytes Z16..Z19, scaled by its dq and
// the rows' dk (Z20..Z23).
#define GQDOT(Q, Zq, a0, a1, a2, a3) \
	VMOVDQU32   64 Q, Z24;      \
	VMOVDQU32   64 Q, Z25;      \
	VMOVDQU32   64 Q, Z26;      \
	VMOVDQU32   64 Q, Z27;      \
	VPDPBUSD    Q, Z16, Z24;    \
	VPDPBUSD    Q, Z17, Z25;    \
	VPDPBUSD    Q, Z18, Z26;    \
	VPDPBUSD    Q, Z19, Z27;    \
	VCVTDQ2PS   Z24, Z24;       \
	VCVTDQ2PS   Z25, Z25;       \
	VCVTDQ2PS   Z26, Z26;       \
	VCVTDQ2PS   Z27, Z27;       \
	VMULPS      128 Q, Z24, Z24; \
	VMULPS      128 Q, Z25, Z25; \
	VMULPS      128 Q, Z26, Z26; \
	VMULPS      128 Q, Z27, Z27; \
	VFMADD231PS Z20, Z24, a0;   \
	VFMADD231PS Z21, Z25, a1;   \
	VFMADD231PS Z22, Z26, a2;   \
	VFMADD231PS Z23, Z27, a3
// GDQSETUP(BSIZE, MASK): q's heads 3*hd bytes apart (192 a chunk), BX =
// hd/32 blocks of BSIZE bytes, Z28 = MASK in every dword.
#define GDQSETUP(BSIZE, MASK) \
	LEAQ         (BX)(BX*2), R9;    \
	LEAQ         (R9)(R9*2), R11;   \
	SHRQ         $5, BX;            \
	IMUL3Q       $BSIZE, BX, BX;    \
	GBCASTD(MASK, AX, X28, Z28)

// Q8_0: a chunk is two blocks of 34 bytes; its u bytes are block 0's 32
// quants then block 1's, each +128, and Zd is [dk0 ×8, dk1 ×8].
#define GQ8ROW(B, Y, Z, Xd, Yd, Zd) \
	VMOVDQU32     2 B, Y;         \
	VINSERTI64X4  $1, 36 B, Z, Z;  \
	VPXORD        Z28, Z, Z;      \
	VPBROADCASTW  B, Xd;          \
	VPBROADCASTW  34 B, X29;      \
	VINSERTI32X4  $1, X29, Yd, Yd; \
	VCVTPH2PS     Yd, Zd
#define GD_SETUP GDQSETUP(34, 0x80808080)
#define GD_ROWS \
	GQ8ROW((R14), Y16, Z16, X20, Y20, Z20);       \
	GQ8ROW((R14)(DX*1), Y17, Z17, X21, Y21, Z21); \
	GQ8ROW((R14)(DX*2), Y18, Z18, X22, Y22, Z22); \
	GQ8ROW((R14)(R13*1), Y19, Z19, X23, Y23, Z23)
#define GD_KSTEP 68

// func dotsQ8_0G4VNNI(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int)
GDOTS512(·dotsQ8_0G4VNNI, GDOTS512H4, GSTORE512H4)

// func dotsQ8_0G3VNNI(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int)
GDOTS512(·dotsQ8_0G3VNNI, GDOTS512H3, GSTORE512H3)

// Q4_0: a chunk is two blocks of 18 bytes; its u bytes are block 0's 16
// low nibbles (quants 0-15), block 1's, block 0's high nibbles (quants
// 16-31), block 1's, and Zd is [dk0 ×4, dk1 ×4, dk0 ×4, dk1 ×4].
#undef GD_SETUP
#undef GD_ROWS
#undef GD_KSTEP
#define GQ4ROW(B, X, Y, Z, Xd, Yd, Zd) \
	VMOVDQU32     2 B, X;          \
	VINSERTI32X4  $1, 20 B, Y, Y;   \
	VPSRLW        $4, Y, Y29;      \
	VINSERTI64X4  $1, Y29, Z, Z;   \
	VPANDD        Z28, Z, Z;       \
	VPBROADCASTW  B, Xd;           \
	VPBROADCASTW  18 B, X29;       \
	VPUNPCKLQDQ   X29, Xd, Xd;     \
	VINSERTI32X4  $1, Xd, Yd, Yd;  \
	VCVTPH2PS     Yd, Zd
#define GD_SETUP GDQSETUP(18, 0x0f0f0f0f)
#define GD_ROWS \
	GQ4ROW((R14), X16, Y16, Z16, X20, Y20, Z20);       \
	GQ4ROW((R14)(DX*1), X17, Y17, Z17, X21, Y21, Z21); \
	GQ4ROW((R14)(DX*2), X18, Y18, Z18, X22, Y22, Z22); \
	GQ4ROW((R14)(R13*1), X19, Y19, Z19, X23, Y23, Z23)
#define GD_KSTEP 36

// func dotsQ4_0G4VNNI(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int)
GDOTS512(·dotsQ4_0G4VNNI, GDOTS512H4, GSTORE512H4)

// func dotsQ4_0G3VNNI(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int)
GDOTS512(·dotsQ4_0G3VNNI, GDOTS512H3, GSTORE512H3)
