//go:build amd64 && !purego

// AVX-512 VNNI batch products of quantized weights with q8a activations
// whose quants were flipped to unsigned (q^0x80), the design of the C
// library's gemm kernels (csrc/quants_x86.inc, "AVX-512 VNNI batch
// kernels"). The pack* functions repack 16 weight rows one 32-element
// block column at a time into a gemmPack (see go_gemm.go for its layout):
// int32 lane r of quant vector g holds quants 4g..4g+3 of row r, so that
// one VPDPBUSD against a broadcast activation word advances all 16 rows.
// The gemm* kernels multiply packed columns by 4 tokens.

#include "textflag.h"

// Byte offsets in a gemmPack (go_gemm.go).
#define PD    512
#define PD2   576
#define PB    640
#define PC    704
#define PC2   768
#define PSIZE 832

DATA gemmIota<>+0(SB)/8, $0x0000000100000000
DATA gemmIota<>+8(SB)/8, $0x0000000300000002
DATA gemmIota<>+16(SB)/8, $0x0000000500000004
DATA gemmIota<>+24(SB)/8, $0x0000000700000006
DATA gemmIota<>+32(SB)/8, $0x0000000900000008
DATA gemmIota<>+40(SB)/8, $0x0000000b0000000a
DATA gemmIota<>+48(SB)/8, $0x0000000d0000000c
DATA gemmIota<>+56(SB)/8, $0x0000000f0000000e
GLOBL gemmIota<>(SB), RODATA|NOPTR, $64

DATA gemmConst<>+0(SB)/4, $0x80808080  // unsigned offset of the activations
DATA gemmConst<>+4(SB)/4, $0x0f0f0f0f  // nibble mask
DATA gemmConst<>+8(SB)/4, $0x08080808  // Q4_0 offset
DATA gemmConst<>+12(SB)/4, $0x10101010 // Q5_0 offset
DATA gemmConst<>+16(SB)/4, $0x0000000f // four bits of a word
DATA gemmConst<>+20(SB)/4, $0x00204081 // spreads four bits to four bytes
DATA gemmConst<>+24(SB)/4, $0x01010101 // bit 0 of each byte
DATA gemmConst<>+28(SB)/4, $0x03030303 // two bits of each byte
DATA gemmConst<>+32(SB)/4, $0x20202020 // Q6_K offset
DATA gemmConst<>+36(SB)/4, $0x0000003f // six bits of a word
DATA gemmConst<>+40(SB)/4, $0x00000030 // bits 4, 5 of a word
GLOBL gemmConst<>(SB), RODATA|NOPTR, $44

// ilQ5Index copies byte 0 of each dword to its 4 bytes (VPSHUFB; +k for
// byte k); ilQ5Bits selects bit b of a nibble in byte b (low, high).
DATA ilQ5Index<>+0(SB)/8, $0x0404040400000000
DATA ilQ5Index<>+8(SB)/8, $0x0c0c0c0c08080808
DATA ilQ5Index<>+16(SB)/8, $0x0404040400000000
DATA ilQ5Index<>+24(SB)/8, $0x0c0c0c0c08080808
DATA ilQ5Index<>+32(SB)/8, $0x0404040400000000
DATA ilQ5Index<>+40(SB)/8, $0x0c0c0c0c08080808
DATA ilQ5Index<>+48(SB)/8, $0x0404040400000000
DATA ilQ5Index<>+56(SB)/8, $0x0c0c0c0c08080808
GLOBL ilQ5Index<>(SB), RODATA|NOPTR, $64

DATA ilQ5Bits<>+0(SB)/4, $0x08040201
DATA ilQ5Bits<>+4(SB)/4, $0x80402010
GLOBL ilQ5Bits<>(SB), RODATA|NOPTR, $8

// ILQ5SETUP loads the constants of ILHI5: the byte copies Z22..Z25, the
// bit selectors Z28 (low nibble) and Z30 (high nibble).
#define ILQ5SETUP \
	VMOVDQU32    ilQ5Index<>(SB), Z22;    \
	VPBROADCASTD gemmConst<>+24(SB), Z13; \
	VPADDB       Z13, Z22, Z23;           \
	VPADDB       Z13, Z23, Z24;           \
	VPADDB       Z13, Z24, Z25;           \
	VPBROADCASTD ilQ5Bits<>+0(SB), Z28;   \
	VPBROADCASTD ilQ5Bits<>+4(SB), Z30

// ILHI5 adds SIXTEEN (16 in every byte) to the quants of Z0..Z7 (elements
// 4c..4c+3 in Zc) whose fifth bit is set in the qh chunk at QH: byte c/2
// of each lane copied to its 4 bytes, each testing its own bit.
#define ILHI5(QH, SIXTEEN) \
	VMOVDQU32 QH, Z11;                 \
	ILHI5PAIR(Z22, Z0, Z1, SIXTEEN);  \
	ILHI5PAIR(Z23, Z2, Z3, SIXTEEN);  \
	ILHI5PAIR(Z24, Z4, Z5, SIXTEEN);  \
	ILHI5PAIR(Z25, Z6, Z7, SIXTEEN)

// ILHI5PAIR adds the fifth bits of qh byte k (copied by the index IDX) to
// the quants of ZLO (its low nibble's bits) and ZHI (its high nibble's).
#define ILHI5PAIR(IDX, ZLO, ZHI, SIXTEEN) \
	VPSHUFB  IDX, Z11, Z13;           \
	VPTESTMB Z28, Z13, K1;            \
	VPADDB   SIXTEEN, ZLO, K1, ZLO;   \
	VPTESTMB Z30, Z13, K1;            \
	VPADDB   SIXTEEN, ZHI, K1, ZHI

// Interleaved Q4_K (interleave.go; the C il_rows_q4_K and il_gemm_q4_K):
// per group and super-block column, the rows' F16 d and dmin (32 bytes
// each), three chunks of packed 6-bit scales, then 32 chunks of quants
// (chunk 8p+c: qs[32p+4c..+3] of each row; low nibbles sub-block 2p, high
// ones 2p+1). ILK4SCALES unpacks the scales at BX as unpack_k4 does, for
// 16 rows: Z10 scales 0..3 and Z12 scales 4..7 (a byte each per lane), Z11
// and Z13 the mins; it needs Z27 = 0x0f…, Z28 = 0x3f…, Z26 = 0x03….
#define ILK4SCALES(R) \
	VMOVDQU32 64(R), Z20;  \
	VMOVDQU32 128(R), Z21; \
	VMOVDQU32 192(R), Z22; \
	VPANDD    Z28, Z20, Z10; \
	VPANDD    Z28, Z21, Z11; \
	VPSRLD    $6, Z20, Z23;  \
	VPANDD    Z26, Z23, Z23; \
	VPSLLD    $4, Z23, Z23;  \
	VPANDD    Z27, Z22, Z12; \
	VPORD     Z23, Z12, Z12; \
	VPSRLD    $6, Z21, Z23;  \
	VPANDD    Z26, Z23, Z23; \
	VPSLLD    $4, Z23, Z23;  \
	VPSRLD    $4, Z22, Z13;  \
	VPANDD    Z27, Z13, Z13; \
	VPORD     Z23, Z13, Z13

// ILK4BYTE sets Z to byte b of each lane of V as an int32 (Z30 = 0xff).
#define ILK4BYTE(V, b, Z) \
	VPSRLD $(8*(b)), V, Z; \
	VPANDD Z30, Z, Z

// ILK4CONST loads the constants of ILK4SCALES and ILK4BYTE.
#define ILK4CONST \
	VPBROADCASTD gemmConst<>+4(SB), Z27;  \
	VPBROADCASTD gemmConst<>+28(SB), Z26; \
	MOVL         $0x3f3f3f3f, AX;         \
	VPBROADCASTD AX, Z28;                 \
	MOVL         $0xff, AX;               \
	VPBROADCASTD AX, Z30

// ILK5CONST is ILK4CONST with Z24 = 0x10… (ILK5CHUNK, ILK5NIB).
#define ILK5CONST \
	ILK4CONST;                    \
	MOVL         $0x10101010, AX; \
	VPBROADCASTD AX, Z24

// ILK4CHUNK adds the quants of chunk 8p+c of the interleaved Q4_K column
// at SI times the q8K block at R8 to Z0 (low nibbles: sub-block 2p) and Z1
// (high ones: 2p+1).
#define ILK4CHUNK(p, c) \
	VMOVDQU32     0+(256+64*(8*(p)+(c)))(SI), Z2; \
	VPANDD        Z27, Z2, Z3;                    \
	VPSRLW        $4, Z2, Z2;                     \
	VPANDD        Z27, Z2, Z2;                    \
	VPDPBUSD.BCST 0+(4+64*(p)+4*(c))(R8), Z3, Z0;  \
	VPDPBUSD.BCST 0+(36+64*(p)+4*(c))(R8), Z2, Z1

// ILK5CHUNK is ILK4CHUNK for an interleaved Q5_K column: its quants lie
// 512 bytes further on, past eight chunks of qh, whose bits 2p and 2p+1
// (shifted to bit 4: Z24 = 0x10…) are the fifth bits of the low and high
// nibbles.
#define ILK5CHUNK(p, c) \
	VMOVDQU32     0+(768+64*(8*(p)+(c)))(SI), Z2; \
	VMOVDQU32     0+(256+64*(c))(SI), Z6;         \
	VPANDD        Z27, Z2, Z3;                    \
	VPSRLW        $4, Z2, Z2;                     \
	VPANDD        Z27, Z2, Z2;                    \
	VPSRLW        $(2*(p)), Z6, Z6;               \
	VPSLLW        $4, Z6, Z7;                     \
	VPTERNLOGD    $0xf8, Z24, Z7, Z3;             \
	VPSLLW        $3, Z6, Z8;                     \
	VPTERNLOGD    $0xf8, Z24, Z8, Z2;             \
	VPDPBUSD.BCST 0+(4+64*(p)+4*(c))(R8), Z3, Z0;  \
	VPDPBUSD.BCST 0+(36+64*(p)+4*(c))(R8), Z2, Z1

// ILK4MIN adds to Z19 the mins (byte b of MN) times the sum of the two
// bsums at off(R8).
#define ILK4MIN(off, MN, b) \
	MOVWQSX      0+(off)(R8), AX;   \
	MOVWQSX      0+(off+2)(R8), BX; \
	ADDQ         BX, AX;            \
	VPBROADCASTD AX, Z5;            \
	ILK4BYTE(MN, b, Z4);            \
	VPMULLD      Z5, Z4, Z4;        \
	VPADDD       Z4, Z19, Z19

// PF9 prefetches the 9 lines (576 bytes) from off bytes past SI. The
// K-quant kernels prefetch every line of their columns 8 KiB ahead (a
// quarter of a Q4_K column a pair; Q6_K: ILQ6PF): out of cache on one Zen
// 5 core, Q4_K 22-33 -> 45-51 GB/s and Q6_K 20-21 -> 32, against a few
// lines 2.5-5.7 KiB ahead.
#define PF9(off) \
	PREFETCHT0 0+(off)(SI);     \
	PREFETCHT0 0+(off+64)(SI);  \
	PREFETCHT0 0+(off+128)(SI); \
	PREFETCHT0 0+(off+192)(SI); \
	PREFETCHT0 0+(off+256)(SI); \
	PREFETCHT0 0+(off+320)(SI); \
	PREFETCHT0 0+(off+384)(SI); \
	PREFETCHT0 0+(off+448)(SI); \
	PREFETCHT0 0+(off+512)(SI)

// PF11 prefetches the 11 lines (704 bytes, a quarter of a Q5_K column)
// from off bytes past SI.
#define PF11(off) \
	PF9(off);                    \
	PREFETCHT0 0+(off+576)(SI);  \
	PREFETCHT0 0+(off+640)(SI)

// ILKPAIR adds to Z18 sub-blocks 2p and 2p+1 of the column at SI, each
// times its scale (bytes b and b+1 of SC), and to Z19 their mins (MN):
// the Q4_K chunks (CHUNK = ILK4CHUNK, PFN = PF9, a quarter of a column
// prefetched 8 KiB ahead) or Q5_K's (ILK5CHUNK, PF11).
#define ILKPAIR(CHUNK, PFN, pfoff, p, SC, MN, b) \
	VPXORD     Z0, Z0, Z0;                 \
	VPXORD     Z1, Z1, Z1;                 \
	PFN(pfoff);                            \
	CHUNK(p, 0);                           \
	CHUNK(p, 1);                           \
	CHUNK(p, 2);                           \
	CHUNK(p, 3);                           \
	CHUNK(p, 4);                           \
	CHUNK(p, 5);                           \
	CHUNK(p, 6);                           \
	CHUNK(p, 7);                           \
	ILK4BYTE(SC, b, Z4);                   \
	VPMULLD    Z4, Z0, Z0;                 \
	VPADDD     Z0, Z18, Z18;               \
	ILK4BYTE(SC, b+1, Z4);                 \
	VPMULLD    Z4, Z1, Z1;                 \
	VPADDD     Z1, Z18, Z18;               \
	ILK4MIN(260+8*(p), MN, b);             \
	ILK4MIN(264+8*(p), MN, b+1)

#define ILK4PAIR(p, SC, MN, b) ILKPAIR(ILK4CHUNK, PF9, 8192+576*(p), p, SC, MN, b)
#define ILK5PAIR(p, SC, MN, b) ILKPAIR(ILK5CHUNK, PF11, 8192+704*(p), p, SC, MN, b)

// ILKPACKJ packs sub-block j (quants shifted by SH: 0 low nibbles, 4
// high) of the Q4_K (NIB = ILK4NIB) or Q5_K (ILK5NIB) column at BX into
// the gemmPack at DI: scale d*sc_j (byte b of SC), bias -dmin*m_j (byte b
// of MN).
#define ILKPACKJ(NIB, j, SH, SC, MN, b) \
	NIB(j, 0, SH, Z0);                     \
	NIB(j, 1, SH, Z1);                     \
	NIB(j, 2, SH, Z2);                     \
	NIB(j, 3, SH, Z3);                     \
	NIB(j, 4, SH, Z4);                     \
	NIB(j, 5, SH, Z5);                     \
	NIB(j, 6, SH, Z6);                     \
	NIB(j, 7, SH, Z7);                     \
	STOREQ;                                \
	CSUMS;                                 \
	ILK4BYTE(SC, b, Z20);                  \
	VCVTDQ2PS Z20, Z20;                    \
	VMULPS    Z20, Z14, Z20;               \
	VMOVUPS   Z20, PD(DI);                 \
	VMOVUPS   Z20, PD2(DI);                \
	ILK4BYTE(MN, b, Z21);                  \
	VCVTDQ2PS Z21, Z21;                    \
	VMULPS    Z21, Z15, Z21;               \
	VSUBPS    Z21, Z29, Z21;               \
	VMOVUPS   Z21, PB(DI);                 \
	ADDQ      $PSIZE, DI

#define ILK4PACKJ(j, SH, SC, MN, b) ILKPACKJ(ILK4NIB, j, SH, SC, MN, b)
#define ILK5PACKJ(j, SH, SC, MN, b) ILKPACKJ(ILK5NIB, j, SH, SC, MN, b)

// ILK4NIB sets Z to the nibbles (shifted by SH) of chunk 8(j/2)+c.
#define ILK4NIB(j, c, SH, Z) \
	VMOVDQU32 0+(256+64*(8*((j)/2)+(c)))(BX), Z; \
	VPSRLW    $(SH), Z, Z;                       \
	VPANDD    Z27, Z, Z

// ILK5NIB is ILK4NIB for an interleaved Q5_K column: the quants past the
// qh chunks, with bit j of qh chunk c as their fifth bit (Z8 a temporary,
// Z24 = 0x10…).
#define ILK5NIB(j, c, SH, Z) \
	VMOVDQU32  0+(768+64*(8*((j)/2)+(c)))(BX), Z; \
	VPSRLW     $(SH), Z, Z;                       \
	VPANDD     Z27, Z, Z;                         \
	VMOVDQU32  0+(256+64*(c))(BX), Z8;            \
	VPSRLW     $(j), Z8, Z8;                      \
	VPSLLW     $4, Z8, Z8;                        \
	VPTERNLOGD $0xf8, Z24, Z8, Z

// ILQ6LOAD loads, for half h and chunk c of the interleaved Q6_K column at
// R, the two ql chunks into A and B and the qh chunk into H.
#define ILQ6LOAD(h, c, R, A, B, H) \
	VMOVDQU32 0+(288+64*(16*(h)+(c)))(R), A;   \
	VMOVDQU32 0+(288+64*(16*(h)+8+(c)))(R), B; \
	VMOVDQU32 0+(2336+64*(8*(h)+(c)))(R), H

// ILQ6U0..3 set D to the unsigned 6-bit quants of run s (0..3) from A, B
// and H (as ggml unpacks Q6_K), with T a temporary and M the masks 0x0f,
// 0x03, 0x0c, 0x30, 0xc0 in M0F, M03, M0C, M30, MC0.
#define ILQ6U0(A, B, H, D, T, M0F, M03, M0C, M30, MC0) \
	VPANDD M03, H, D; VPSLLW $4, D, D; VPTERNLOGD $0xf8, M0F, A, D
#define ILQ6U1(A, B, H, D, T, M0F, M03, M0C, M30, MC0) \
	VPANDD M0C, H, D; VPSLLW $2, D, D; VPTERNLOGD $0xf8, M0F, B, D
#define ILQ6U2(A, B, H, D, T, M0F, M03, M0C, M30, MC0) \
	VPSRLW $4, A, T; VPANDD M30, H, D; VPTERNLOGD $0xf8, M0F, T, D
#define ILQ6U3(A, B, H, D, T, M0F, M03, M0C, M30, MC0) \
	VPSRLW $4, B, T; VPANDD MC0, H, D; VPSRLW $2, D, D; VPTERNLOGD $0xf8, M0F, T, D

// ILQ6STEP adds chunk c of half h's four runs, times the q8K block at R8,
// to their 16-element group sums G0..G3 (Z0..Z7: run s, group c/4). Each
// step prefetches four lines 16 KiB ahead, a sixteenth of a column (210
// bytes) further than the step before: the column's 54 lines 27 at a time
// before each half, as the C kernel's loop does, streamed 1.3-1.6x slower
// on one Zen 5 core at that distance (1.1-1.2x at 8 KiB), spread out
// 1.04-1.17x the C kernel's time (BenchmarkMatMulStream's matrices, Go
// and C alternating; 1.06-1.20x at 2 threads).
#define ILQ6PF(h, c) \
	PREFETCHT0 0+(16384+210*(8*(h)+(c)))(SI);     \
	PREFETCHT0 0+(16384+64+210*(8*(h)+(c)))(SI);  \
	PREFETCHT0 0+(16384+128+210*(8*(h)+(c)))(SI); \
	PREFETCHT0 0+(16384+192+210*(8*(h)+(c)))(SI)
#define ILQ6STEP(h, c, G0, G1, G2, G3) \
	ILQ6PF(h, c);                                            \
	ILQ6LOAD(h, c, SI, Z8, Z9, Z10);                         \
	ILQ6U0(Z8, Z9, Z10, Z11, Z12, Z27, Z28, Z29, Z30, Z31);  \
	VPDPBUSD.BCST 0+(4+128*(h)+4*(c))(R8), Z11, G0;          \
	ILQ6U1(Z8, Z9, Z10, Z11, Z12, Z27, Z28, Z29, Z30, Z31);  \
	VPDPBUSD.BCST 0+(36+128*(h)+4*(c))(R8), Z11, G1;         \
	ILQ6U2(Z8, Z9, Z10, Z11, Z12, Z27, Z28, Z29, Z30, Z31);  \
	VPDPBUSD.BCST 0+(68+128*(h)+4*(c))(R8), Z11, G2;         \
	ILQ6U3(Z8, Z9, Z10, Z11, Z12, Z27, Z28, Z29, Z30, Z31);  \
	VPDPBUSD.BCST 0+(100+128*(h)+4*(c))(R8), Z11, G3

// ILQ6SCALE sets Z to the int8 scale k of the 16 rows of the column at R.
#define ILQ6SCALE(k, R, Z) \
	VMOVDQU32 0+(32+64*((k)/4))(R), Z; \
	VPSLLD    $(24-8*((k)%4)), Z, Z;  \
	VPSRAD    $24, Z, Z

// ILQ6FOLD adds to Z18 group sum G of group k less 32 times its bsum,
// times its scale.
#define ILQ6FOLD(k, G) \
	MOVWQSX      0+(260+2*(k))(R8), AX; \
	IMUL3Q       $-32, AX, AX;          \
	VPBROADCASTD AX, Z11;               \
	VPADDD       Z11, G, G;             \
	ILQ6SCALE(k, SI, Z12);              \
	VPMULLD      Z12, G, G;             \
	VPADDD       G, Z18, Z18

// ILQ6HALF adds half h of the column at SI to Z18.
#define ILQ6HALF(h) \
	VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; VPXORD Z5, Z5, Z5; VPXORD Z6, Z6, Z6; VPXORD Z7, Z7, Z7; \
	ILQ6STEP(h, 0, Z0, Z2, Z4, Z6); \
	ILQ6STEP(h, 1, Z0, Z2, Z4, Z6); \
	ILQ6STEP(h, 2, Z0, Z2, Z4, Z6); \
	ILQ6STEP(h, 3, Z0, Z2, Z4, Z6); \
	ILQ6STEP(h, 4, Z1, Z3, Z5, Z7); \
	ILQ6STEP(h, 5, Z1, Z3, Z5, Z7); \
	ILQ6STEP(h, 6, Z1, Z3, Z5, Z7); \
	ILQ6STEP(h, 7, Z1, Z3, Z5, Z7); \
	ILQ6FOLD(8*(h)+0, Z0); \
	ILQ6FOLD(8*(h)+1, Z1); \
	ILQ6FOLD(8*(h)+2, Z2); \
	ILQ6FOLD(8*(h)+3, Z3); \
	ILQ6FOLD(8*(h)+4, Z4); \
	ILQ6FOLD(8*(h)+5, Z5); \
	ILQ6FOLD(8*(h)+6, Z6); \
	ILQ6FOLD(8*(h)+7, Z7)

// ILQ6PACKC sets Zc to the signed quants (less 32) of chunk c of run s of
// half h of the Q6_K column at BX.
#define ILQ6PACKC(U, h, c, Z) \
	ILQ6LOAD(h, c, BX, Z10, Z11, Z12);                      \
	U(Z10, Z11, Z12, Z, Z13, Z20, Z21, Z22, Z23, Z24);       \
	VPSUBB Z26, Z, Z

// ILQ6PACKJ packs run j (half j/4, run U = ILQ6U(j%4)) of the column at BX
// into the gemmPack at DI: d*scale for each of its halves.
#define ILQ6PACKJ(j, U) \
	ILQ6PACKC(U, (j)/4, 0, Z0); \
	ILQ6PACKC(U, (j)/4, 1, Z1); \
	ILQ6PACKC(U, (j)/4, 2, Z2); \
	ILQ6PACKC(U, (j)/4, 3, Z3); \
	ILQ6PACKC(U, (j)/4, 4, Z4); \
	ILQ6PACKC(U, (j)/4, 5, Z5); \
	ILQ6PACKC(U, (j)/4, 6, Z6); \
	ILQ6PACKC(U, (j)/4, 7, Z7); \
	STOREQ;                     \
	CSUMS;                      \
	ILQ6SCALE(2*(j), BX, Z15);  \
	VCVTDQ2PS Z15, Z15;         \
	VMULPS    Z15, Z14, Z15;    \
	VMOVUPS   Z15, PD(DI);      \
	ILQ6SCALE(2*(j)+1, BX, Z15); \
	VCVTDQ2PS Z15, Z15;         \
	VMULPS    Z15, Z14, Z15;    \
	VMOVUPS   Z15, PD2(DI);     \
	VMOVUPS   Z29, PB(DI);      \
	ADDQ      $PSIZE, DI

// ILQ6MASKS loads the masks 0x0f, 0x03, 0x0c, 0x30, 0xc0 of every byte.
#define ILQ6MASKS(M0F, M03, M0C, M30, MC0) \
	VPBROADCASTD gemmConst<>+4(SB), M0F;  \
	VPBROADCASTD gemmConst<>+28(SB), M03; \
	MOVL         $0x0c0c0c0c, AX;         \
	VPBROADCASTD AX, M0C;                 \
	MOVL         $0x30303030, AX;         \
	VPBROADCASTD AX, M30;                 \
	MOVL         $0xc0c0c0c0, AX;         \
	VPBROADCASTD AX, MC0

// ILDOT adds to Z16 d_w*d_y*Σu·q and to Z17 d_w*s_y for the block column
// at SI whose unsigned quant chunks are Z0..Z7 and the q8a block at R8.
#define ILDOT \
	VPXORD           Z20, Z20, Z20; \
	VPXORD           Z21, Z21, Z21; \
	VPDPBUSD.BCST    8(R8), Z0, Z20;  \
	VPDPBUSD.BCST    24(R8), Z4, Z21; \
	VPDPBUSD.BCST    12(R8), Z1, Z20; \
	VPDPBUSD.BCST    28(R8), Z5, Z21; \
	VPDPBUSD.BCST    16(R8), Z2, Z20; \
	VPDPBUSD.BCST    32(R8), Z6, Z21; \
	VPDPBUSD.BCST    20(R8), Z3, Z20; \
	VPDPBUSD.BCST    36(R8), Z7, Z21; \
	VPADDD           Z21, Z20, Z20;   \
	VCVTDQ2PS        Z20, Z20;        \
	VCVTPH2PS        (SI), Z10;       \
	VMULPS.BCST      0(R8), Z20, Z20; \
	VFMADD231PS      Z20, Z10, Z16;   \
	VFMADD231PS.BCST 4(R8), Z10, Z17

// ILGROUPS defines name(w *byte, ng, nb int, y *byte, out *float32), the
// skeleton of the interleaved decode kernels: for each of the ng groups,
// Z16 and Z17 zeroed, BLOCK for each of the nb block columns (blk bytes
// of weights at SI, yblk of activation block at R8), then FINISH leaves
// the group's 16 row sums in Z16, stored at DI. CONST loads constants.
#define ILGROUPS(name, CONST, BLOCK, blk, yblk, FINISH) \
TEXT name(SB), NOSPLIT, $0-40;  \
	MOVQ   w+0(FP), SI;          \
	MOVQ   ng+8(FP), R9;         \
	MOVQ   out+32(FP), DI;       \
	CONST;                       \
group:;                          \
	MOVQ   y+24(FP), R8;         \
	MOVQ   nb+16(FP), CX;        \
	VPXORD Z16, Z16, Z16;        \
	VPXORD Z17, Z17, Z17;        \
block:;                          \
	BLOCK;                       \
	ADDQ   $blk, SI;             \
	ADDQ   $yblk, R8;            \
	DECQ   CX;                   \
	JNZ    block;                \
	FINISH;                      \
	VMOVUPS Z16, (DI);           \
	ADDQ   $64, DI;              \
	DECQ   R9;                   \
	JNZ    group;                \
	VZEROUPPER;                  \
	RET

// ILROWS defines name(w *byte, ng, nb int, y *byte, out *float32): out[16g
// + r] is row r of group g (g < ng) of the interleaved weights at w (nb
// block columns of blk bytes) times the q8a blocks at y. SETUP loads the
// type's constants (Z26: its offset K as a float), QUANTS prefetches ahead
// and sets Z0..Z7 to the unsigned quants of the column at SI; the offset
// joins through the activation sums in Z17 (ILOFFSET).
#define ILROWBLOCK(QUANTS) QUANTS; ILDOT
#define ILOFFSET VFMADD231PS Z17, Z26, Z16
#define ILROWS(name, blk, SETUP, QUANTS) ILGROUPS(name, SETUP, ILROWBLOCK(QUANTS), blk, 40, ILOFFSET)

// PF prefetches the line 7 KiB plus off bytes past SI: a legacy group
// streams from memory 35-50% faster on one Zen 5 core (Q8_0 and Q4_0 at
// 32768×2048: 31-37 → 46-52 GB/s) than with the line 1 KiB ahead, whose
// load the core reaches before memory delivers it. The K-quant kernels
// are compute-bound at one thread and gain nothing from it.
#define PF(off) PREFETCHT0 (off+7168)(SI)

// Q4_0: 4 nibble chunks after the scales; offset -8.
#define ILQ4SETUP \
	VPBROADCASTD gemmConst<>+4(SB), Z27; \
	MOVL         $0xc1000000, AX;        \
	VPBROADCASTD AX, Z26
#define ILQ4QUANTS \
	PF(1024); PF(1088); PF(1152); PF(1216); PF(1280); \
	VMOVDQU32 32(SI), Z0;  \
	VMOVDQU32 96(SI), Z1;  \
	VMOVDQU32 160(SI), Z2; \
	VMOVDQU32 224(SI), Z3; \
	NIBS4

// Q8_0: 8 chunks of flipped bytes; offset -128.
#define ILQ8SETUP \
	MOVL         $0xc3000000, AX; \
	VPBROADCASTD AX, Z26
#define ILQ8QUANTS \
	PF(1024); PF(1088); PF(1152); PF(1216); PF(1280); PF(1344); PF(1408); PF(1472); PF(1536); \
	VMOVDQU32 32(SI), Z0;  \
	VMOVDQU32 96(SI), Z1;  \
	VMOVDQU32 160(SI), Z2; \
	VMOVDQU32 224(SI), Z3; \
	VMOVDQU32 288(SI), Z4; \
	VMOVDQU32 352(SI), Z5; \
	VMOVDQU32 416(SI), Z6; \
	VMOVDQU32 480(SI), Z7

// Q5_0: the qh chunk, then Q4_0's nibbles; offset -16.
#define ILQ5ROWSSETUP \
	VPBROADCASTD gemmConst<>+4(SB), Z27;  \
	VPBROADCASTD gemmConst<>+12(SB), Z31; \
	MOVL         $0xc1800000, AX;         \
	VPBROADCASTD AX, Z26;                 \
	ILQ5SETUP
#define ILQ5QUANTS \
	PF(1024); PF(1088); PF(1152); PF(1216); PF(1280); PF(1344); \
	VMOVDQU32 96(SI), Z0;  \
	VMOVDQU32 160(SI), Z1; \
	VMOVDQU32 224(SI), Z2; \
	VMOVDQU32 288(SI), Z3; \
	NIBS4;                 \
	ILHI5(32(SI), Z31)

// PACKSETUP loads the gather index vector Z30 (row r at r*rs) and the
// row mask K2 (nr rows), and Z31 = 0x80…, Z29 = 0.
#define PACKSETUP \
	MOVQ         dst+0(FP), DI;       \
	MOVQ         w+8(FP), BX;         \
	MOVQ         rs+16(FP), AX;       \
	MOVQ         nr+24(FP), CX;       \
	MOVQ         nb+32(FP), R9;       \
	VMOVDQU32    gemmIota<>(SB), Z30; \
	VPBROADCASTD AX, Z28;             \
	VPMULLD      Z28, Z30, Z30;       \
	MOVL         $1, AX;              \
	SHLL         CX, AX;              \
	DECL         AX;                  \
	KMOVW        AX, K2;              \
	VPBROADCASTD gemmConst<>+0(SB), Z31; \
	VPXORD       Z29, Z29, Z29

// GATHER loads into Z the 16 rows' words at off(BX), zero for rows past nr.
#define GATHER(off, Z) \
	VPXORD     Z, Z, Z;             \
	KMOVW      K2, K1;              \
	VPGATHERDD off(BX)(Z30*1), K1, Z

// CSUMS stores at PC and PC2 of the pack at DI minus 128 times the sums of
// the quants of vectors 0..3 and 4..7 stored at DI.
#define CSUMS \
	VPXORD   Z8, Z8, Z8;         \
	VPXORD   Z9, Z9, Z9;         \
	VPDPBUSD 0(DI), Z31, Z8;     \
	VPDPBUSD 64(DI), Z31, Z8;    \
	VPDPBUSD 128(DI), Z31, Z8;   \
	VPDPBUSD 192(DI), Z31, Z8;   \
	VPDPBUSD 256(DI), Z31, Z9;   \
	VPDPBUSD 320(DI), Z31, Z9;   \
	VPDPBUSD 384(DI), Z31, Z9;   \
	VPDPBUSD 448(DI), Z31, Z9;   \
	VPSUBD   Z8, Z29, Z8;        \
	VPSUBD   Z9, Z29, Z9;        \
	VMOVDQU32 Z8, PC(DI);        \
	VMOVDQU32 Z9, PC2(DI)

// STOREQ stores quant vectors Z0..Z7 into the pack at DI.
#define STOREQ \
	VMOVDQU32 Z0, 0(DI);   \
	VMOVDQU32 Z1, 64(DI);  \
	VMOVDQU32 Z2, 128(DI); \
	VMOVDQU32 Z3, 192(DI); \
	VMOVDQU32 Z4, 256(DI); \
	VMOVDQU32 Z5, 320(DI); \
	VMOVDQU32 Z6, 384(DI); \
	VMOVDQU32 Z7, 448(DI)

// SCALE16 stores the 16 rows' f16 scales at off(BX) as floats at PD(DI).
#define SCALE16(off) \
	GATHER(off, Z10);         \
	VPMOVDW   Z10, Y10;       \
	VCVTPH2PS Y10, Z10;       \
	VMOVUPS   Z10, PD(DI)

// NIBS splits the gathered bytes in Z (to vector Z) into low nibbles in Z
// and high nibbles in Zhi.
#define NIBS(Z, Zhi) \
	VPSRLD $4, Z, Zhi;     \
	VPANDD Z27, Z, Z;      \
	VPANDD Z27, Zhi, Zhi

// OFFSETQ subtracts Z26 (a type's offset in every byte) from the quant
// vectors Z0..Z7, making them signed.
#define OFFSETQ \
	VPSUBB Z26, Z0, Z0; \
	VPSUBB Z26, Z1, Z1; \
	VPSUBB Z26, Z2, Z2; \
	VPSUBB Z26, Z3, Z3; \
	VPSUBB Z26, Z4, Z4; \
	VPSUBB Z26, Z5, Z5; \
	VPSUBB Z26, Z6, Z6; \
	VPSUBB Z26, Z7, Z7

// NIBS4 splits the 4 byte vectors Z0..Z3 into low nibbles (Z0..Z3) and
// high ones (Z4..Z7).
#define NIBS4 \
	NIBS(Z0, Z4); \
	NIBS(Z1, Z5); \
	NIBS(Z2, Z6); \
	NIBS(Z3, Z7)

// HIBIT ors into Z the fifth bits of quants 4g..4g+3, bits 4g..4g+3 of
// the words in Z11: x = (qh>>4g)&15 spread to one bit per byte by a
// multiply (the shifted copies do not overlap), then moved to bit 4.
#define HIBIT(g, Z) \
	VPSRLD  $(4*g), Z11, Z12; \
	VPANDD  Z23, Z12, Z12;    \
	VPMULLD Z24, Z12, Z12;    \
	VPANDD  Z25, Z12, Z12;    \
	VPSLLD  $4, Z12, Z12;     \
	VPORD   Z12, Z, Z;        \
	VPSUBB  Z26, Z, Z

// Q4KPAIR packs sub-blocks 2p (low nibbles) and 2p+1 (high nibbles) of
// the Q4_K super-block at BX into the packs at DI+2p*PSIZE and after.
#define Q4KPAIR(p) KPAIR(16, p, NOHI5)

// Q5KPAIR is Q4KPAIR for Q5_K (quants at 48, fifth bits from qh at 16).
#define Q5KPAIR(p) KPAIR(48, p, Q5KHI)

#define NOHI5(p)

// Q5KHIJ ors bit 4 into the quants of vector j of sub-blocks 2p (Zlo) and
// 2p+1 (Zhi): bits 2p and 2p+1 of the qh bytes 4j..4j+3 (Z26 = 0x01…).
#define Q5KHIJ(p, j, Zlo, Zhi) \
	GATHER(16+4*(j), Z22);     \
	VPSRLD $(2*(p)), Z22, Z23; \
	VPANDD Z26, Z23, Z23;      \
	VPSLLD $4, Z23, Z23;       \
	VPORD  Z23, Zlo, Zlo;      \
	VPSRLD $(2*(p)+1), Z22, Z23; \
	VPANDD Z26, Z23, Z23;      \
	VPSLLD $4, Z23, Z23;       \
	VPORD  Z23, Zhi, Zhi

#define Q5KHI(p) \
	Q5KHIJ(p, 0, Z0, Z12); \
	Q5KHIJ(p, 1, Z1, Z13); \
	Q5KHIJ(p, 2, Z2, Z14); \
	Q5KHIJ(p, 3, Z3, Z15); \
	Q5KHIJ(p, 4, Z4, Z16); \
	Q5KHIJ(p, 5, Z5, Z17); \
	Q5KHIJ(p, 6, Z6, Z18); \
	Q5KHIJ(p, 7, Z7, Z19)

// KPAIR packs the sub-block pair p of the K-quant super-block at BX whose
// nibbles are at qoff, HI adding any fifth bits.
#define KPAIR(qoff, p, HI) \
	GATHER(qoff+32*p, Z0);    \
	GATHER(qoff+4+32*p, Z1);  \
	GATHER(qoff+8+32*p, Z2);  \
	GATHER(qoff+12+32*p, Z3); \
	GATHER(qoff+16+32*p, Z4); \
	GATHER(qoff+20+32*p, Z5); \
	GATHER(qoff+24+32*p, Z6); \
	GATHER(qoff+28+32*p, Z7); \
	NIBS(Z0, Z12);            \
	NIBS(Z1, Z13);            \
	NIBS(Z2, Z14);            \
	NIBS(Z3, Z15);            \
	NIBS(Z4, Z16);            \
	NIBS(Z5, Z17);            \
	NIBS(Z6, Z18);            \
	NIBS(Z7, Z19);            \
	HI(p);                    \
	STOREQ;                   \
	CSUMS;                    \
	ADDQ $PSIZE, DI;          \
	VMOVDQU32 Z12, 0(DI);     \
	VMOVDQU32 Z13, 64(DI);    \
	VMOVDQU32 Z14, 128(DI);   \
	VMOVDQU32 Z15, 192(DI);   \
	VMOVDQU32 Z16, 256(DI);   \
	VMOVDQU32 Z17, 320(DI);   \
	VMOVDQU32 Z18, 384(DI);   \
	VMOVDQU32 Z19, 448(DI);   \
	CSUMS;                    \
	ADDQ $PSIZE, DI

// Q6KVEC makes vector g of sub-blocks 4h..4h+3 of the Q6_K super-block at
// BX (stored at DI + k*PSIZE + 64g): low nibbles from ql bytes 64h+4g
// (k = 0, 2 low and high) and 64h+32+4g (k = 1, 3), two high bits from
// qh bytes 32h+4g (bits 2k, 2k+1), minus 32.
#define Q6KVEC(h, g) \
	GATHER(64*h+4*g, Z0);       \
	GATHER(64*h+32+4*g, Z1);    \
	GATHER(128+32*h+4*g, Z2);   \
	NIBS(Z0, Z3);               \
	NIBS(Z1, Z4);               \
	VPANDD  Z25, Z2, Z5;        \
	VPSLLD  $4, Z5, Z5;         \
	VPORD   Z5, Z0, Z0;         \
	VPSUBB  Z26, Z0, Z0;        \
	VMOVDQU32 Z0, (64*g)(DI);   \
	VPSRLD  $2, Z2, Z5;         \
	VPANDD  Z25, Z5, Z5;        \
	VPSLLD  $4, Z5, Z5;         \
	VPORD   Z5, Z1, Z1;         \
	VPSUBB  Z26, Z1, Z1;        \
	VMOVDQU32 Z1, (PSIZE+64*g)(DI); \
	VPSRLD  $4, Z2, Z5;         \
	VPANDD  Z25, Z5, Z5;        \
	VPSLLD  $4, Z5, Z5;         \
	VPORD   Z5, Z3, Z3;         \
	VPSUBB  Z26, Z3, Z3;        \
	VMOVDQU32 Z3, (2*PSIZE+64*g)(DI); \
	VPSRLD  $6, Z2, Z5;         \
	VPANDD  Z25, Z5, Z5;        \
	VPSLLD  $4, Z5, Z5;         \
	VPORD   Z5, Z4, Z4;         \
	VPSUBB  Z26, Z4, Z4;        \
	VMOVDQU32 Z4, (3*PSIZE+64*g)(DI)

#define Q6KHALF(h) \
	Q6KVEC(h, 0);      \
	Q6KVEC(h, 1);      \
	Q6KVEC(h, 2);      \
	Q6KVEC(h, 3);      \
	Q6KVEC(h, 4);      \
	Q6KVEC(h, 5);      \
	Q6KVEC(h, 6);      \
	Q6KVEC(h, 7);      \
	CSUMS;             \
	ADDQ $PSIZE, DI;   \
	CSUMS;             \
	ADDQ $PSIZE, DI;   \
	CSUMS;             \
	ADDQ $PSIZE, DI;   \
	CSUMS;             \
	ADDQ $PSIZE, DI

// K4LO sets Z to the float (u>>sh)&63 times Zd: a low 6-bit scale or min
// of Q4_K sub-blocks 0..3.
#define K4LO(u, sh, Zd, Z) \
	VPSRLD          $sh, u, Z;               \
	VPANDD.BCST     gemmConst<>+36(SB), Z, Z; \
	VCVTDQ2PS       Z, Z;                    \
	VMULPS          Zd, Z, Z

// K4HI sets Z to the float (lo>>shlo)&15 | (hi>>shhi)&0x30 times Zd: a
// scale or min of Q4_K sub-blocks 4..7. Uses Z11.
#define K4HI(lo, shlo, hi, shhi, Zd, Z) \
	VPSRLD          $shlo, lo, Z;            \
	VPANDD.BCST     gemmConst<>+16(SB), Z, Z; \
	VPSRLD          $shhi, hi, Z11;          \
	VPANDD.BCST     gemmConst<>+40(SB), Z11, Z11; \
	VPORD           Z11, Z, Z;               \
	VCVTDQ2PS       Z, Z;                    \
	VMULPS          Zd, Z, Z

// Q4KSCALES stores the scales d*sc_j and biases -dmin*m_j of the 8
// sub-blocks of the Q4_K super-blocks at BX into the packs from DI (ggml's
// get_scale_min_k4 on the 12 scale bytes, u0..u2 in Z22..Z24).
#define Q4KSCALES \
	GATHER(0, Z22);                \
	VPMOVDW   Z22, Y20;            \
	VCVTPH2PS Y20, Z20;            \
	VPSRLD    $16, Z22, Z22;       \
	VPMOVDW   Z22, Y21;            \
	VCVTPH2PS Y21, Z21;            \
	VSUBPS    Z21, Z29, Z21;       \
	GATHER(4, Z22);                \
	GATHER(8, Z23);                \
	GATHER(12, Z24);               \
	K4LO(Z22, 0, Z20, Z10);        \
	VMOVUPS Z10, (0*PSIZE+PD)(DI); \
	K4LO(Z23, 0, Z21, Z10);        \
	VMOVUPS Z10, (0*PSIZE+PB)(DI); \
	K4LO(Z22, 8, Z20, Z10);        \
	VMOVUPS Z10, (1*PSIZE+PD)(DI); \
	K4LO(Z23, 8, Z21, Z10);        \
	VMOVUPS Z10, (1*PSIZE+PB)(DI); \
	K4LO(Z22, 16, Z20, Z10);       \
	VMOVUPS Z10, (2*PSIZE+PD)(DI); \
	K4LO(Z23, 16, Z21, Z10);       \
	VMOVUPS Z10, (2*PSIZE+PB)(DI); \
	K4LO(Z22, 24, Z20, Z10);       \
	VMOVUPS Z10, (3*PSIZE+PD)(DI); \
	K4LO(Z23, 24, Z21, Z10);       \
	VMOVUPS Z10, (3*PSIZE+PB)(DI); \
	K4HI(Z24, 0, Z22, 2, Z20, Z10);   \
	VMOVUPS Z10, (4*PSIZE+PD)(DI);    \
	K4HI(Z24, 4, Z23, 2, Z21, Z10);   \
	VMOVUPS Z10, (4*PSIZE+PB)(DI);    \
	K4HI(Z24, 8, Z22, 10, Z20, Z10);  \
	VMOVUPS Z10, (5*PSIZE+PD)(DI);    \
	K4HI(Z24, 12, Z23, 10, Z21, Z10); \
	VMOVUPS Z10, (5*PSIZE+PB)(DI);    \
	K4HI(Z24, 16, Z22, 18, Z20, Z10); \
	VMOVUPS Z10, (6*PSIZE+PD)(DI);    \
	K4HI(Z24, 20, Z23, 18, Z21, Z10); \
	VMOVUPS Z10, (6*PSIZE+PB)(DI);    \
	K4HI(Z24, 24, Z22, 26, Z20, Z10); \
	VMOVUPS Z10, (7*PSIZE+PD)(DI);    \
	K4HI(Z24, 28, Z23, 26, Z21, Z10); \
	VMOVUPS Z10, (7*PSIZE+PB)(DI)

// K6SC stores at off(DI) the float of the signed byte b of u times Z20.
#define K6SC(u, b, off) \
	VPSLLD    $(24-8*b), u, Z10; \
	VPSRAD    $24, Z10, Z10;     \
	VCVTDQ2PS Z10, Z10;          \
	VMULPS    Z20, Z10, Z10;     \
	VMOVUPS   Z10, off(DI)

// K6PAIR stores the scales of sub-blocks 2q, 2q+1 (bytes 0..3 of u).
#define K6PAIR(u, q) \
	K6SC(u, 0, ((2*q)*PSIZE+PD));    \
	K6SC(u, 1, ((2*q)*PSIZE+PD2));   \
	K6SC(u, 2, ((2*q+1)*PSIZE+PD));  \
	K6SC(u, 3, ((2*q+1)*PSIZE+PD2))

// Q6KSCALES stores the scales d*sc of both halves of the 8 sub-blocks of
// the Q6_K super-blocks at BX into the packs from DI (d is the upper word
// of bytes 206..209, so as not to read past the block).
#define Q6KSCALES \
	GATHER(206, Z20);         \
	VPSRLD    $16, Z20, Z20;  \
	VPMOVDW   Z20, Y20;       \
	VCVTPH2PS Y20, Z20;       \
	GATHER(192, Z21);         \
	GATHER(196, Z22);         \
	GATHER(200, Z23);         \
	GATHER(204, Z24);         \
	K6PAIR(Z21, 0);           \
	K6PAIR(Z22, 1);           \
	K6PAIR(Z23, 2);           \
	K6PAIR(Z24, 3)

// GEMMSETUP loads the kernel arguments: SI the packs, CX their count, R8,
// R10..R12 the 4 tokens' q8a blocks, DI the output of row 0 of token 0,
// DX the output stride, K1 the row mask; the accumulators Z16..Z19 zero.
#define GEMMSETUP \
	MOVQ   p+0(FP), SI;     \
	MOVQ   nb+8(FP), CX;    \
	MOVQ   y+16(FP), R8;    \
	MOVQ   ys+24(FP), AX;   \
	LEAQ   (R8)(AX*1), R10; \
	LEAQ   (R10)(AX*1), R11; \
	LEAQ   (R11)(AX*1), R12; \
	MOVQ   out+32(FP), DI;  \
	MOVQ   os+40(FP), DX;   \
	MOVQ   mask+48(FP), AX; \
	KMOVW  AX, K1;          \
	VPXORD Z16, Z16, Z16;   \
	VPXORD Z17, Z17, Z17;   \
	VPXORD Z18, Z18, Z18;   \
	VPXORD Z19, Z19, Z19

// LOADW loads the pack at SI: quants Z0..Z7, scales Z10.
#define LOADW \
	VMOVDQU32 0(SI), Z0;   \
	VMOVDQU32 64(SI), Z1;  \
	VMOVDQU32 128(SI), Z2; \
	VMOVDQU32 192(SI), Z3; \
	VMOVDQU32 256(SI), Z4; \
	VMOVDQU32 320(SI), Z5; \
	VMOVDQU32 384(SI), Z6; \
	VMOVDQU32 448(SI), Z7; \
	VMOVUPS   PD(SI), Z10

// ISUMS sets Z20 and Z21 to the integer sums of the two halves of the
// column with the q8a block at R (the corrections included).
#define ISUMS(R) \
	VMOVDQU32    PC(SI), Z20;  \
	VMOVDQU32    PC2(SI), Z21; \
	VPBROADCASTD 8(R), Z22;    \
	VPDPBUSD     Z0, Z22, Z20; \
	VPBROADCASTD 24(R), Z23;   \
	VPDPBUSD     Z4, Z23, Z21; \
	VPBROADCASTD 12(R), Z22;   \
	VPDPBUSD     Z1, Z22, Z20; \
	VPBROADCASTD 28(R), Z23;   \
	VPDPBUSD     Z5, Z23, Z21; \
	VPBROADCASTD 16(R), Z22;   \
	VPDPBUSD     Z2, Z22, Z20; \
	VPBROADCASTD 32(R), Z23;   \
	VPDPBUSD     Z6, Z23, Z21; \
	VPBROADCASTD 20(R), Z22;   \
	VPDPBUSD     Z3, Z22, Z20; \
	VPBROADCASTD 36(R), Z23;   \
	VPDPBUSD     Z7, Z23, Z21

// TOKPLAIN adds d_w*d_y*(sum) of the token at R to acc.
#define TOKPLAIN(R, acc) \
	ISUMS(R);                  \
	VPADDD       Z21, Z20, Z20; \
	VCVTDQ2PS    Z20, Z20;     \
	VMULPS.BCST  0(R), Z10, Z24; \
	VFMADD231PS  Z24, Z20, acc; \
	ADDQ         $40, R

// TOKBIAS is TOKPLAIN plus b*s_y (s_y = d_y*Σq_y).
#define TOKBIAS(R, acc) \
	ISUMS(R);                   \
	VPADDD       Z21, Z20, Z20; \
	VCVTDQ2PS    Z20, Z20;      \
	VMULPS.BCST  0(R), Z10, Z24; \
	VFMADD231PS  Z24, Z20, acc; \
	VFMADD231PS.BCST 4(R), Z12, acc; \
	ADDQ         $40, R

// TOKSPLIT scales the two halves by d_w and d2_w.
#define TOKSPLIT(R, acc) \
	ISUMS(R);                    \
	VCVTDQ2PS    Z20, Z20;       \
	VCVTDQ2PS    Z21, Z21;       \
	VMULPS.BCST  0(R), Z10, Z24; \
	VMULPS.BCST  0(R), Z11, Z25; \
	VFMADD231PS  Z24, Z20, acc;  \
	VFMADD231PS  Z25, Z21, acc;  \
	ADDQ         $40, R

#define GEMMSTORE \
	VMOVUPS Z16, K1, (DI); \
	ADDQ    DX, DI;        \
	VMOVUPS Z17, K1, (DI); \
	ADDQ    DX, DI;        \
	VMOVUPS Z18, K1, (DI); \
	ADDQ    DX, DI;        \
	VMOVUPS Z19, K1, (DI); \
	VZEROUPPER;            \
	RET

// func packQ8_0(dst, w *byte, rs, nr, nb int)
TEXT ·packQ8_0(SB), NOSPLIT, $0-40
	PACKSETUP
q8loop:
	GATHER(2, Z0)
	GATHER(6, Z1)
	GATHER(10, Z2)
	GATHER(14, Z3)
	GATHER(18, Z4)
	GATHER(22, Z5)
	GATHER(26, Z6)
	GATHER(30, Z7)
	STOREQ
	CSUMS
	SCALE16(0)
	ADDQ $34, BX
	ADDQ $PSIZE, DI
	DECQ R9
	JNZ  q8loop
	VZEROUPPER
	RET

// func packQ4_0(dst, w *byte, rs, nr, nb int)
TEXT ·packQ4_0(SB), NOSPLIT, $0-40
	PACKSETUP
	VPBROADCASTD gemmConst<>+4(SB), Z27
	VPBROADCASTD gemmConst<>+8(SB), Z26
q4loop:
	GATHER(2, Z0)
	GATHER(6, Z1)
	GATHER(10, Z2)
	GATHER(14, Z3)
	NIBS4
	OFFSETQ
	STOREQ
	CSUMS
	SCALE16(0)
	ADDQ $18, BX
	ADDQ $PSIZE, DI
	DECQ R9
	JNZ  q4loop
	VZEROUPPER
	RET

// LUT8 replaces the nibbles of Z0..Z7 by the levels of the table in Z.
#define LUT8(Z) \
	VPSHUFB Z0, Z, Z0; \
	VPSHUFB Z1, Z, Z1; \
	VPSHUFB Z2, Z, Z2; \
	VPSHUFB Z3, Z, Z3; \
	VPSHUFB Z4, Z, Z4; \
	VPSHUFB Z5, Z, Z5; \
	VPSHUFB Z6, Z, Z6; \
	VPSHUFB Z7, Z, Z7

// IQ4XSSUB packs sub-block j of the IQ4_XS super-block at BX (Z20 =
// scales_h, Z21 = d, Z22 = scales_l words per row): its looked-up levels,
// and as its scale d*(ls-32), ls = 4 bits of scales_l | 2 bits of
// scales_h << 4 (Z26 = 15, Z23 = 3, Z24 = 32). LOAD(off, Z) sets Z to the
// 16 rows' 4 bytes at block offset off (the nibbles at 8+16j): GATHER for
// row-major rows, ILXSLOAD for an interleaved column.
#define IQ4XSSUB(LOAD, j) \
	LOAD(8+16*(j), Z0);  \
	LOAD(12+16*(j), Z1); \
	LOAD(16+16*(j), Z2); \
	LOAD(20+16*(j), Z3); \
	NIBS4;                 \
	LUT8(Z25);             \
	STOREQ;                \
	CSUMS;                 \
	VPSRLD    $(8*((j)/2)+4*((j)%2)), Z22, Z10; \
	VPANDD    Z26, Z10, Z10; \
	VPSRLD    $(2*(j)), Z20, Z11; \
	VPANDD    Z23, Z11, Z11; \
	VPSLLD    $4, Z11, Z11;  \
	VPORD     Z11, Z10, Z10; \
	VPSUBD    Z24, Z10, Z10; \
	VCVTDQ2PS Z10, Z10;      \
	VMULPS    Z21, Z10, Z10; \
	VMOVUPS   Z10, PD(DI);   \
	ADDQ      $PSIZE, DI

// ILXSLOAD is IQ4XSSUB's LOAD for an interleaved IQ4_XS column at BX:
// block offset off of the quants (8 + 4k) is chunk k, at 128 + 64k.
#define ILXSLOAD(off, Z) VMOVDQU32 0+(128+16*((off)-8))(BX), Z

// IQ4XSCONST loads IQ4XSSUB's constants and the signed levels Z25.
#define IQ4XSCONST \
	VPBROADCASTD gemmConst<>+4(SB), Z27;  \
	VMOVDQU32    iq4nlSigned<>(SB), Z25;  \
	VPBROADCASTD gemmConst<>+16(SB), Z26; \
	MOVL         $3, AX;                  \
	VPBROADCASTD AX, Z23;                 \
	MOVL         $32, AX;                 \
	VPBROADCASTD AX, Z24

// func packIQ4XS(dst, w *byte, rs, nr, nb int)
// nb counts super-blocks (136 bytes: d, scales_h, scales_l[4], qs[128]);
// each becomes 8 packs of signed levels.
TEXT ·packIQ4XS(SB), NOSPLIT, $0-40
	PACKSETUP
	IQ4XSCONST
iq4xsloop:
	GATHER(0, Z20)
	VPMOVDW   Z20, Y21
	VCVTPH2PS Y21, Z21
	VPSRLD    $16, Z20, Z20
	GATHER(4, Z22)
	IQ4XSSUB(GATHER, 0)
	IQ4XSSUB(GATHER, 1)
	IQ4XSSUB(GATHER, 2)
	IQ4XSSUB(GATHER, 3)
	IQ4XSSUB(GATHER, 4)
	IQ4XSSUB(GATHER, 5)
	IQ4XSSUB(GATHER, 6)
	IQ4XSSUB(GATHER, 7)
	ADDQ $136, BX
	DECQ R9
	JNZ  iq4xsloop
	VZEROUPPER
	RET

// func packILIQ4XS(dst, w *byte, nb int)
// packIQ4XS for nb interleaved IQ4_XS super-block columns (interleave.go;
// the C il_gemm_iq4_xs): the rows' d, scales_h and scales_l words are
// vectors of the column as they stand.
TEXT ·packILIQ4XS(SB), NOSPLIT, $0-24
	MOVQ         dst+0(FP), DI
	MOVQ         w+8(FP), BX
	MOVQ         nb+16(FP), R9
	VPBROADCASTD gemmConst<>+0(SB), Z31
	VPXORD       Z29, Z29, Z29
	IQ4XSCONST
ilxsloop:
	VCVTPH2PS (BX), Z21
	VPMOVZXWD 32(BX), Z20
	VMOVDQU32 64(BX), Z22
	IQ4XSSUB(ILXSLOAD, 0)
	IQ4XSSUB(ILXSLOAD, 1)
	IQ4XSSUB(ILXSLOAD, 2)
	IQ4XSSUB(ILXSLOAD, 3)
	IQ4XSSUB(ILXSLOAD, 4)
	IQ4XSSUB(ILXSLOAD, 5)
	IQ4XSSUB(ILXSLOAD, 6)
	IQ4XSSUB(ILXSLOAD, 7)
	ADDQ $2176, BX
	DECQ R9
	JNZ  ilxsloop
	VZEROUPPER
	RET

// IQ4XSROW adds to Z18 sub-block j of the interleaved IQ4_XS column at SI
// times the q8K block at R8: the levels offset to unsigned (Z25) meet the
// activations, less 128 times their sum (bsums 2j and 2j+1), times the
// rows' scale ls-32 (Z20 = scales_h, Z22 = scales_l; Z26 = 15, Z23 = 3,
// Z24 = 32). Even sub-blocks prefetch the next 576 bytes 8 KiB ahead.
#define IQ4XSROW(j) \
	MOVWQSX       0+(260+4*(j))(R8), AX;     \
	MOVWQSX       0+(262+4*(j))(R8), BX;     \
	ADDQ          BX, AX;                    \
	SHLQ          $7, AX;                    \
	NEGQ          AX;                        \
	VPBROADCASTD  AX, Z0;                    \
	IQ4XSCHUNK(j, 0);                        \
	IQ4XSCHUNK(j, 1);                        \
	IQ4XSCHUNK(j, 2);                        \
	IQ4XSCHUNK(j, 3);                        \
	VPSRLD        $(8*((j)/2)+4*((j)%2)), Z22, Z10; \
	VPANDD        Z26, Z10, Z10;             \
	VPSRLD        $(2*(j)), Z20, Z11;        \
	VPANDD        Z23, Z11, Z11;             \
	VPSLLD        $4, Z11, Z11;              \
	VPORD         Z11, Z10, Z10;             \
	VPSUBD        Z24, Z10, Z10;             \
	VPMULLD       Z10, Z0, Z0;               \
	VPADDD        Z0, Z18, Z18

// IQ4XSCHUNK adds to Z0 chunk 4j+c's low nibbles' levels times the
// activations of elements 4c.. of sub-block j, and its high ones' times
// those of elements 16+4c...
#define IQ4XSCHUNK(j, c) \
	VMOVDQU32     0+(128+64*(4*(j)+(c)))(SI), Z2; \
	VPANDD        Z27, Z2, Z3;                    \
	VPSRLW        $4, Z2, Z2;                     \
	VPANDD        Z27, Z2, Z2;                    \
	VPSHUFB       Z3, Z25, Z3;                    \
	VPSHUFB       Z2, Z25, Z2;                    \
	VPDPBUSD.BCST 0+(4+32*(j)+4*(c))(R8), Z3, Z0;  \
	VPDPBUSD.BCST 0+(20+32*(j)+4*(c))(R8), Z2, Z0

// ILKDROWS defines name(w *byte, ng, nb int, y *byte, out *float32) for
// an interleaved K-quant or IQ4_XS: out[16g + r] is row r of group g (g <
// ng) of the weights at w (nb super-block columns of blk bytes) times the
// q8K blocks at y. CONST loads the type's constants; BODY adds the column
// at SI times the block at R8 to Z18 as int32 sums of d-less products,
// which d_w*d_y then scales into Z16, and the types with mins (Q4_K, Q5_K)
// their scaled min terms to Z17, which the row sums lose at the end.
#define ILKDBLOCK(BODY) \
	VPXORD Z18, Z18, Z18;        \
	BODY;                        \
	VCVTDQ2PS   Z18, Z18;        \
	VCVTPH2PS   (SI), Z14;       \
	VMULPS.BCST (R8), Z14, Z14;  \
	VFMADD231PS Z18, Z14, Z16
#define ILKDMINS VSUBPS Z17, Z16, Z16
#define ILKDROWS(name, CONST, BODY, blk) ILGROUPS(name, CONST, ILKDBLOCK(BODY), blk, 292, ILKDMINS)

// func ilRowsIQ4XS(w *byte, ng, nb int, y *byte, out *float32)
// Sets out[16g + r] to row r of group g (g < ng) of the interleaved IQ4_XS
// weights at w (nb super-block columns) times the q8K blocks at y (the C
// il_rows_iq4_xs).
#define IQ4XSROWSCONST \
	IQ4XSCONST; \
	VMOVDQU32 iq4nlUnsigned<>(SB), Z25
#define IQ4XSBODY \
	VPMOVZXWD 32(SI), Z20;  \
	VMOVDQU32 64(SI), Z22;  \
	PF9(8192);              \
	IQ4XSROW(0);            \
	IQ4XSROW(1);            \
	PF9(8192+544);          \
	IQ4XSROW(2);            \
	IQ4XSROW(3);            \
	PF9(8192+1088);         \
	IQ4XSROW(4);            \
	IQ4XSROW(5);            \
	PF9(8192+1632);         \
	IQ4XSROW(6);            \
	IQ4XSROW(7)
ILKDROWS(·ilRowsIQ4XS, IQ4XSROWSCONST, IQ4XSBODY, 2176)

// func packQ5_0(dst, w *byte, rs, nr, nb int)
TEXT ·packQ5_0(SB), NOSPLIT, $0-40
	PACKSETUP
	VPBROADCASTD gemmConst<>+4(SB), Z27
	VPBROADCASTD gemmConst<>+12(SB), Z26
	VPBROADCASTD gemmConst<>+16(SB), Z23
	VPBROADCASTD gemmConst<>+20(SB), Z24
	VPBROADCASTD gemmConst<>+24(SB), Z25
q5loop:
	GATHER(2, Z11)
	GATHER(6, Z0)
	GATHER(10, Z1)
	GATHER(14, Z2)
	GATHER(18, Z3)
	NIBS4
	HIBIT(0, Z0)
	HIBIT(1, Z1)
	HIBIT(2, Z2)
	HIBIT(3, Z3)
	HIBIT(4, Z4)
	HIBIT(5, Z5)
	HIBIT(6, Z6)
	HIBIT(7, Z7)
	STOREQ
	CSUMS
	SCALE16(0)
	ADDQ $22, BX
	ADDQ $PSIZE, DI
	DECQ R9
	JNZ  q5loop
	VZEROUPPER
	RET

// func packQ4K(dst, w *byte, rs, nr, nb int)
// nb counts super-blocks.
TEXT ·packQ4K(SB), NOSPLIT, $0-40
	PACKSETUP
	VPBROADCASTD gemmConst<>+4(SB), Z27
q4kloop:
	Q4KSCALES
	Q4KPAIR(0)
	Q4KPAIR(1)
	Q4KPAIR(2)
	Q4KPAIR(3)
	ADDQ $144, BX
	DECQ R9
	JNZ  q4kloop
	VZEROUPPER
	RET

// func packQ5K(dst, w *byte, rs, nr, nb int)
// packQ4K for Q5_K super-blocks (176 bytes: Q4_K's scales, qh[32], qs).
TEXT ·packQ5K(SB), NOSPLIT, $0-40
	PACKSETUP
	VPBROADCASTD gemmConst<>+4(SB), Z27
	VPBROADCASTD gemmConst<>+24(SB), Z26
q5kloop:
	Q4KSCALES
	Q5KPAIR(0)
	Q5KPAIR(1)
	Q5KPAIR(2)
	Q5KPAIR(3)
	ADDQ $176, BX
	DECQ R9
	JNZ  q5kloop
	VZEROUPPER
	RET

// func packQ6K(dst, w *byte, rs, nr, nb int)
// nb counts super-blocks.
TEXT ·packQ6K(SB), NOSPLIT, $0-40
	PACKSETUP
	VPBROADCASTD gemmConst<>+4(SB), Z27
	VPBROADCASTD gemmConst<>+28(SB), Z25
	VPBROADCASTD gemmConst<>+32(SB), Z26
q6kloop:
	Q6KSCALES
	Q6KHALF(0)
	Q6KHALF(1)
	ADDQ $210, BX
	DECQ R9
	JNZ  q6kloop
	VZEROUPPER
	RET

// Q3_K (interleave.go; the C il_rows_q3_K, il_gemm_q3_K and gemm_q3_K):
// half h, plane j and chunk c give the 2-bit quants (qs[32h+4c..] >> 2j)
// and high bits (hmask[4c..], bit 4h+j) of elements 128h + 32j + 4c..; a
// 16-element group k = 8h + 2j + c/4 has scale k. An interleaved column
// holds the rows' F16 d (32 bytes), three chunks of scales, eight of
// hmask (at 224) and 16 of qs (at 736), 1760 bytes.

// Q3U sets D to plane j's unsigned quants (value + 4) from the qs vector
// Q and hmask vector M of half h (T a temporary; M03 = 0x03…, M04 =
// 0x04…). Word shifts: the bits that cross into a byte are masked off.
#define Q3U(j, h, Q, M, D, T, M03, M04) \
	VPSRLW     $(2*(j)), Q, D;       \
	VPANDD     M03, D, D;            \
	VPSRLW     $(4*(h)+(j)), M, T;   \
	VPSLLW     $2, T, T;             \
	VPTERNLOGD $0xf8, M04, T, D

// Q3SCALES unpacks the 16 rows' scales from their words A0, A1 (bytes 0-7
// of the scales) and T (bytes 8-11) into S0..S3 (scale k: byte k%4 of
// S(k/4)), as ggml's kmask1/kmask2 moves; X is a temporary.
#define Q3SCALES(A0, A1, T, S0, S1, S2, S3, X, M0F, M03) \
	VPANDD M0F, A0, S0;  VPANDD M03, T, X;  VPSLLD $4, X, X; VPORD X, S0, S0; \
	VPANDD M0F, A1, S1;  VPSRLD $2, T, X;   VPANDD M03, X, X; VPSLLD $4, X, X; VPORD X, S1, S1; \
	VPSRLD $4, A0, S2;   VPANDD M0F, S2, S2; VPSRLD $4, T, X; VPANDD M03, X, X; VPSLLD $4, X, X; VPORD X, S2, S2; \
	VPSRLD $4, A1, S3;   VPANDD M0F, S3, S3; VPSRLD $6, T, X; VPANDD M03, X, X; VPSLLD $4, X, X; VPORD X, S3, S3

// Q3SC sets Z to scale byte b of S less 32, as int32s (MFF = 0xff, M32 =
// 32 in every word).
#define Q3SC(b, S, Z, MFF, M32) \
	VPSRLD $(8*(b)), S, Z; \
	VPANDD MFF, Z, Z;      \
	VPSUBD M32, Z, Z

// ILQ3STEP adds chunk c of half h of the interleaved column at SI, times
// the q8K block at R8, to the group sums G0..G3 of its four planes.
#define ILQ3STEP(h, c, G0, G1, G2, G3) \
	VMOVDQU32     0+(736+64*(8*(h)+(c)))(SI), Z8;              \
	VMOVDQU32     0+(224+64*(c))(SI), Z9;                      \
	Q3U(0, h, Z8, Z9, Z11, Z12, Z28, Z29);                     \
	VPDPBUSD.BCST 0+(4+128*(h)+4*(c))(R8), Z11, G0;            \
	Q3U(1, h, Z8, Z9, Z11, Z12, Z28, Z29);                     \
	VPDPBUSD.BCST 0+(36+128*(h)+4*(c))(R8), Z11, G1;           \
	Q3U(2, h, Z8, Z9, Z11, Z12, Z28, Z29);                     \
	VPDPBUSD.BCST 0+(68+128*(h)+4*(c))(R8), Z11, G2;           \
	Q3U(3, h, Z8, Z9, Z11, Z12, Z28, Z29);                     \
	VPDPBUSD.BCST 0+(100+128*(h)+4*(c))(R8), Z11, G3

// ILQ3FOLD adds to Z18 group sum G of group k less 4 times its bsum,
// times its scale (byte b of S).
#define ILQ3FOLD(k, G, S, b) \
	MOVWQSX      0+(260+2*(k))(R8), AX; \
	IMUL3Q       $-4, AX, AX;           \
	VPBROADCASTD AX, Z11;               \
	VPADDD       Z11, G, G;             \
	Q3SC(b, S, Z12, Z30, Z31);          \
	VPMULLD      Z12, G, G;             \
	VPADDD       G, Z18, Z18

// ILQ3HALF adds half h of the column at SI to Z18 (S0, S1: its scales).
#define ILQ3HALF(h, S0, S1) \
	VPXORD Z0, Z0, Z0; VPXORD Z1, Z1, Z1; VPXORD Z2, Z2, Z2; VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; VPXORD Z5, Z5, Z5; VPXORD Z6, Z6, Z6; VPXORD Z7, Z7, Z7; \
	ILQ3STEP(h, 0, Z0, Z2, Z4, Z6); \
	ILQ3STEP(h, 1, Z0, Z2, Z4, Z6); \
	ILQ3STEP(h, 2, Z0, Z2, Z4, Z6); \
	ILQ3STEP(h, 3, Z0, Z2, Z4, Z6); \
	ILQ3STEP(h, 4, Z1, Z3, Z5, Z7); \
	ILQ3STEP(h, 5, Z1, Z3, Z5, Z7); \
	ILQ3STEP(h, 6, Z1, Z3, Z5, Z7); \
	ILQ3STEP(h, 7, Z1, Z3, Z5, Z7); \
	ILQ3FOLD(8*(h)+0, Z0, S0, 0); \
	ILQ3FOLD(8*(h)+1, Z1, S0, 1); \
	ILQ3FOLD(8*(h)+2, Z2, S0, 2); \
	ILQ3FOLD(8*(h)+3, Z3, S0, 3); \
	ILQ3FOLD(8*(h)+4, Z4, S1, 0); \
	ILQ3FOLD(8*(h)+5, Z5, S1, 1); \
	ILQ3FOLD(8*(h)+6, Z6, S1, 2); \
	ILQ3FOLD(8*(h)+7, Z7, S1, 3)

// func ilRowsQ3K(w *byte, ng, nb int, y *byte, out *float32)
// ilRowsQ4K for interleaved Q3_K weights (the C il_rows_q3_K): per half
// of a super-block, eight 16-element group sums of unsigned quants, each
// less 4 times its bsum, times its scale less 32.
#define ILQ3CONST \
	VPBROADCASTD gemmConst<>+4(SB), Z27;  \
	VPBROADCASTD gemmConst<>+28(SB), Z28; \
	MOVL         $0x04040404, AX;         \
	VPBROADCASTD AX, Z29;                 \
	MOVL         $0xff, AX;               \
	VPBROADCASTD AX, Z30;                 \
	MOVL         $32, AX;                 \
	VPBROADCASTD AX, Z31
#define ILQ3BODY \
	VMOVDQU32  32(SI), Z10;  \
	VMOVDQU32  96(SI), Z13;  \
	VMOVDQU32  160(SI), Z15; \
	Q3SCALES(Z10, Z13, Z15, Z20, Z21, Z22, Z23, Z24, Z27, Z28); \
	PF9(8192);               \
	PF9(8768);               \
	ILQ3HALF(0, Z20, Z21);   \
	PF9(9344);               \
	PREFETCHT0 9920(SI);     \
	ILQ3HALF(1, Z22, Z23)
ILKDROWS(·ilRowsQ3K, ILQ3CONST, ILQ3BODY, 1760)

// Q3PACKC sets Z to the signed quants (less 4) of plane j, chunk c of half
// h, read by LQ(h, c, Z) (qs) and LM(c, Z) (hmask).
#define Q3PACKC(LQ, LM, j, h, c, Z) \
	LQ(h, c, Z10);                            \
	LM(c, Z11);                               \
	Q3U(j, h, Z10, Z11, Z, Z12, Z28, Z25);    \
	VPSUBB Z25, Z, Z

// Q3PACKJ packs run j (half j/4, plane j%4) into the gemmPack at DI: its
// signed quants, the scales of its halves (bytes 2j%4, 2j%4+1 of S) times
// the rows' d (Z14) as d and d2, no bias (Z29 = 0).
#define Q3PACKJ(LQ, LM, j, S) \
	Q3PACKC(LQ, LM, (j)%4, (j)/4, 0, Z0); \
	Q3PACKC(LQ, LM, (j)%4, (j)/4, 1, Z1); \
	Q3PACKC(LQ, LM, (j)%4, (j)/4, 2, Z2); \
	Q3PACKC(LQ, LM, (j)%4, (j)/4, 3, Z3); \
	Q3PACKC(LQ, LM, (j)%4, (j)/4, 4, Z4); \
	Q3PACKC(LQ, LM, (j)%4, (j)/4, 5, Z5); \
	Q3PACKC(LQ, LM, (j)%4, (j)/4, 6, Z6); \
	Q3PACKC(LQ, LM, (j)%4, (j)/4, 7, Z7); \
	STOREQ;                               \
	CSUMS;                                \
	Q3SC((2*(j))%4, S, Z15, Z24, Z26);    \
	VCVTDQ2PS Z15, Z15;                   \
	VMULPS    Z15, Z14, Z15;              \
	VMOVUPS   Z15, PD(DI);                \
	Q3SC((2*(j))%4+1, S, Z15, Z24, Z26);  \
	VCVTDQ2PS Z15, Z15;                   \
	VMULPS    Z15, Z14, Z15;              \
	VMOVUPS   Z15, PD2(DI);               \
	VMOVUPS   Z29, PB(DI);                \
	ADDQ      $PSIZE, DI

// Q3PACKBLOCK packs a super-block whose scales words are A0, A1, T and d
// Z14: its eight runs.
#define Q3PACKBLOCK(LQ, LM) \
	Q3SCALES(Z10, Z11, Z12, Z20, Z21, Z22, Z23, Z13, Z27, Z28); \
	Q3PACKJ(LQ, LM, 0, Z20); \
	Q3PACKJ(LQ, LM, 1, Z20); \
	Q3PACKJ(LQ, LM, 2, Z21); \
	Q3PACKJ(LQ, LM, 3, Z21); \
	Q3PACKJ(LQ, LM, 4, Z22); \
	Q3PACKJ(LQ, LM, 5, Z22); \
	Q3PACKJ(LQ, LM, 6, Z23); \
	Q3PACKJ(LQ, LM, 7, Z23)

// Q3PACKCONST loads the pack's constants: 0x0f, 0x03, 0x04 bytes, 0xff
// and 32 words.
#define Q3PACKCONST \
	VPBROADCASTD gemmConst<>+4(SB), Z27;  \
	VPBROADCASTD gemmConst<>+28(SB), Z28; \
	MOVL         $0x04040404, AX;         \
	VPBROADCASTD AX, Z25;                 \
	MOVL         $0xff, AX;               \
	VPBROADCASTD AX, Z24;                 \
	MOVL         $32, AX;                 \
	VPBROADCASTD AX, Z26

#define ILQ3LQ(h, c, Z) VMOVDQU32 0+(736+64*(8*(h)+(c)))(BX), Z
#define ILQ3LM(c, Z) VMOVDQU32 0+(224+64*(c))(BX), Z
#define RMQ3LQ(h, c, Z) GATHER(32+32*(h)+4*(c), Z)
#define RMQ3LM(c, Z) GATHER(4*(c), Z)

// func packILQ3K(dst, w *byte, nb int)
// Repacks nb interleaved Q3_K super-block columns at w into 8*nb
// gemmPacks at dst (as packQ3K).
TEXT ·packILQ3K(SB), NOSPLIT, $0-24
	MOVQ         dst+0(FP), DI
	MOVQ         w+8(FP), BX
	MOVQ         nb+16(FP), R9
	VPBROADCASTD gemmConst<>+0(SB), Z31
	VPXORD       Z29, Z29, Z29
	Q3PACKCONST

iq3pack:
	VCVTPH2PS (BX), Z14
	VMOVDQU32 32(BX), Z10
	VMOVDQU32 96(BX), Z11
	VMOVDQU32 160(BX), Z12
	Q3PACKBLOCK(ILQ3LQ, ILQ3LM)
	ADDQ      $1760, BX
	DECQ      R9
	JNZ       iq3pack
	VZEROUPPER
	RET

// func packQ3K(dst, w *byte, rs, nr, nb int)
// nb counts super-blocks (110 bytes: hmask[32], qs[64], scales[12], d);
// each becomes 8 packs of signed quants, a pack per 32-element run with
// the scales of its halves (the C gemm_q3_K).
TEXT ·packQ3K(SB), NOSPLIT, $0-40
	PACKSETUP
	Q3PACKCONST

q3kloop:
	GATHER(106, Z14)
	VPSRLD    $16, Z14, Z14
	VPMOVDW   Z14, Y14
	VCVTPH2PS Y14, Z14
	GATHER(96, Z10)
	GATHER(100, Z11)
	GATHER(104, Z12)
	Q3PACKBLOCK(RMQ3LQ, RMQ3LM)
	ADDQ $110, BX
	DECQ R9
	JNZ  q3kloop
	VZEROUPPER
	RET

// func gemmPlain(p *byte, nb int, y *byte, ys int, out *float32, os int, mask int)
// Sets out[t*os/4 + r] (r in mask) to Σ over the nb packs at p of row r
// times the q8a blocks of token t at y + t*ys, for 4 tokens.
TEXT ·gemmPlain(SB), NOSPLIT, $0-56
	GEMMSETUP
plainloop:
	LOADW
	TOKPLAIN(R8, Z16)
	TOKPLAIN(R10, Z17)
	TOKPLAIN(R11, Z18)
	TOKPLAIN(R12, Z19)
	ADDQ $PSIZE, SI
	DECQ CX
	JNZ  plainloop
	GEMMSTORE

// func gemmBias(p *byte, nb int, y *byte, ys int, out *float32, os int, mask int)
// gemmPlain for packs with a bias (values d*q + b).
TEXT ·gemmBias(SB), NOSPLIT, $0-56
	GEMMSETUP
biasloop:
	LOADW
	VMOVUPS PB(SI), Z12
	TOKBIAS(R8, Z16)
	TOKBIAS(R10, Z17)
	TOKBIAS(R11, Z18)
	TOKBIAS(R12, Z19)
	ADDQ $PSIZE, SI
	DECQ CX
	JNZ  biasloop
	GEMMSTORE

// func gemmSplit(p *byte, nb int, y *byte, ys int, out *float32, os int, mask int)
// gemmPlain for packs whose halves have their own scales (d, d2).
TEXT ·gemmSplit(SB), NOSPLIT, $0-56
	GEMMSETUP
splitloop:
	LOADW
	VMOVUPS PD2(SI), Z11
	TOKSPLIT(R8, Z16)
	TOKSPLIT(R10, Z17)
	TOKSPLIT(R11, Z18)
	TOKSPLIT(R12, Z19)
	ADDQ $PSIZE, SI
	DECQ CX
	JNZ  splitloop
	GEMMSTORE

// Interleaved weights (interleave.go): per 16-row group and block column,
// the rows' F16 scales (32 bytes), then 64-byte chunks whose lane r holds
// four quant bytes of row r (Q4_0: qs[4c:4c+4], nibbles; Q8_0: qs[4c:4c+4]
// XOR 0x80).

// ILSCALE stores the 16 F16 scales at BX as floats at PD(DI).
#define ILSCALE \
	VCVTPH2PS (BX), Z10; \
	VMOVUPS   Z10, PD(DI)

// func packILQ4_0(dst, w *byte, nb int)
// Repacks nb interleaved Q4_0 block columns at w into gemmPacks at dst.
TEXT ·packILQ4_0(SB), NOSPLIT, $0-24
	MOVQ         dst+0(FP), DI
	MOVQ         w+8(FP), BX
	MOVQ         nb+16(FP), R9
	VPBROADCASTD gemmConst<>+0(SB), Z31
	VPXORD       Z29, Z29, Z29
	VPBROADCASTD gemmConst<>+4(SB), Z27
	VPBROADCASTD gemmConst<>+8(SB), Z26
il4pack:
	VMOVDQU32 32(BX), Z0
	VMOVDQU32 96(BX), Z1
	VMOVDQU32 160(BX), Z2
	VMOVDQU32 224(BX), Z3
	NIBS4
	OFFSETQ
	STOREQ
	CSUMS
	ILSCALE
	ADDQ $288, BX
	ADDQ $PSIZE, DI
	DECQ R9
	JNZ  il4pack
	VZEROUPPER
	RET

// func packILQ8_0(dst, w *byte, nb int)
// packILQ4_0 for interleaved Q8_0 block columns.
TEXT ·packILQ8_0(SB), NOSPLIT, $0-24
	MOVQ         dst+0(FP), DI
	MOVQ         w+8(FP), BX
	MOVQ         nb+16(FP), R9
	VPBROADCASTD gemmConst<>+0(SB), Z31
	VPXORD       Z29, Z29, Z29
il8pack:
	VPXORD 32(BX), Z31, Z0
	VPXORD 96(BX), Z31, Z1
	VPXORD 160(BX), Z31, Z2
	VPXORD 224(BX), Z31, Z3
	VPXORD 288(BX), Z31, Z4
	VPXORD 352(BX), Z31, Z5
	VPXORD 416(BX), Z31, Z6
	VPXORD 480(BX), Z31, Z7
	STOREQ
	CSUMS
	ILSCALE
	ADDQ $544, BX
	ADDQ $PSIZE, DI
	DECQ R9
	JNZ  il8pack
	VZEROUPPER
	RET

// IQ4_NL: Q4_0's bytes, whose nibbles index 16 levels (the C library's
// kvalues_iq4nl) in every 128-bit lane: signed for the packs, offset to
// unsigned (+128) for the decode rows, which fold the offset as Q8_0's do.
DATA iq4nlSigned<>+0(SB)/8, $0xf6eaddcfbfad9881
DATA iq4nlSigned<>+8(SB)/8, $0x7159453526190d01
DATA iq4nlSigned<>+16(SB)/8, $0xf6eaddcfbfad9881
DATA iq4nlSigned<>+24(SB)/8, $0x7159453526190d01
DATA iq4nlSigned<>+32(SB)/8, $0xf6eaddcfbfad9881
DATA iq4nlSigned<>+40(SB)/8, $0x7159453526190d01
DATA iq4nlSigned<>+48(SB)/8, $0xf6eaddcfbfad9881
DATA iq4nlSigned<>+56(SB)/8, $0x7159453526190d01
GLOBL iq4nlSigned<>(SB), RODATA|NOPTR, $64
DATA iq4nlUnsigned<>+0(SB)/8, $0x766a5d4f3f2d1801
DATA iq4nlUnsigned<>+8(SB)/8, $0xf1d9c5b5a6998d81
DATA iq4nlUnsigned<>+16(SB)/8, $0x766a5d4f3f2d1801
DATA iq4nlUnsigned<>+24(SB)/8, $0xf1d9c5b5a6998d81
DATA iq4nlUnsigned<>+32(SB)/8, $0x766a5d4f3f2d1801
DATA iq4nlUnsigned<>+40(SB)/8, $0xf1d9c5b5a6998d81
DATA iq4nlUnsigned<>+48(SB)/8, $0x766a5d4f3f2d1801
DATA iq4nlUnsigned<>+56(SB)/8, $0xf1d9c5b5a6998d81
GLOBL iq4nlUnsigned<>(SB), RODATA|NOPTR, $64

#define ILIQ4SETUP \
	VPBROADCASTD gemmConst<>+4(SB), Z27;  \
	VMOVDQU32    iq4nlUnsigned<>(SB), Z25; \
	MOVL         $0xc3000000, AX;         \
	VPBROADCASTD AX, Z26
#define ILIQ4QUANTS \
	ILQ4QUANTS; \
	LUT8(Z25)

// func ilRowsIQ4NL(w *byte, ng, nb int, y *byte, out *float32)
ILROWS(·ilRowsIQ4NL, 288, ILIQ4SETUP, ILIQ4QUANTS)

// func packILIQ4NL(dst, w *byte, nb int)
// packILQ4_0 for interleaved IQ4_NL block columns: the levels are the
// signed quants.
TEXT ·packILIQ4NL(SB), NOSPLIT, $0-24
	MOVQ         dst+0(FP), DI
	MOVQ         w+8(FP), BX
	MOVQ         nb+16(FP), R9
	VPBROADCASTD gemmConst<>+0(SB), Z31
	VPXORD       Z29, Z29, Z29
	VPBROADCASTD gemmConst<>+4(SB), Z27
	VMOVDQU32    iq4nlSigned<>(SB), Z25
iq4pack:
	VMOVDQU32 32(BX), Z0
	VMOVDQU32 96(BX), Z1
	VMOVDQU32 160(BX), Z2
	VMOVDQU32 224(BX), Z3
	NIBS4
	LUT8(Z25)
	STOREQ
	CSUMS
	ILSCALE
	ADDQ $288, BX
	ADDQ $PSIZE, DI
	DECQ R9
	JNZ  iq4pack
	VZEROUPPER
	RET

// func ilRowsQ4_0(w *byte, ng, nb int, y *byte, out *float32)
ILROWS(·ilRowsQ4_0, 288, ILQ4SETUP, ILQ4QUANTS)

// func ilRowsQ8_0(w *byte, ng, nb int, y *byte, out *float32)
ILROWS(·ilRowsQ8_0, 544, ILQ8SETUP, ILQ8QUANTS)

// func ilRowsQ5_0(w *byte, ng, nb int, y *byte, out *float32)
ILROWS(·ilRowsQ5_0, 352, ILQ5ROWSSETUP, ILQ5QUANTS)

// func packILQ5_0(dst, w *byte, nb int)
// packILQ4_0 for interleaved Q5_0 block columns (qh chunk, then nibbles).
TEXT ·packILQ5_0(SB), NOSPLIT, $0-24
	MOVQ         dst+0(FP), DI
	MOVQ         w+8(FP), BX
	MOVQ         nb+16(FP), R9
	VPBROADCASTD gemmConst<>+0(SB), Z31
	VPXORD       Z29, Z29, Z29
	VPBROADCASTD gemmConst<>+4(SB), Z27
	VPBROADCASTD gemmConst<>+12(SB), Z26
	ILQ5SETUP
il5pack:
	VMOVDQU32 96(BX), Z0
	VMOVDQU32 160(BX), Z1
	VMOVDQU32 224(BX), Z2
	VMOVDQU32 288(BX), Z3
	NIBS4
	ILHI5(32(BX), Z26)
	OFFSETQ
	STOREQ
	CSUMS
	ILSCALE
	ADDQ $352, BX
	ADDQ $PSIZE, DI
	DECQ R9
	JNZ  il5pack
	VZEROUPPER
	RET

// ILK45BODY is ILKDROWS's BODY for interleaved Q4_K (PAIR = ILK4PAIR) and
// Q5_K (ILK5PAIR): the scaled sub-block sums into Z18, and their mins
// times the bsums, scaled by dmin*d_y, into Z17.
#define ILK45BODY(PAIR) \
	ILK4SCALES(SI);              \
	VPXORD Z19, Z19, Z19;        \
	PAIR(0, Z10, Z11, 0);        \
	PAIR(1, Z10, Z11, 2);        \
	PAIR(2, Z12, Z13, 0);        \
	PAIR(3, Z12, Z13, 2);        \
	VCVTDQ2PS   Z19, Z19;        \
	VCVTPH2PS   32(SI), Z15;     \
	VMULPS.BCST (R8), Z15, Z15;  \
	VFMADD231PS Z19, Z15, Z17
#define ILK4BODY ILK45BODY(ILK4PAIR)
#define ILK5BODY ILK45BODY(ILK5PAIR)

// ILKPACK repacks nb interleaved Q4_K (CONST = ILK4CONST, PACKJ =
// ILK4PACKJ, blk = 2304) or Q5_K (ILK5CONST, ILK5PACKJ, 2816) super-block
// columns at w into 8*nb gemmPacks at dst, a pack per 32-element
// sub-block: scale d*sc_j, bias -dmin*m_j (as packQ4K, packQ5K).
#define ILKPACK(name, CONST, PACKJ, blk) \
TEXT name(SB), NOSPLIT, $0-24;        \
	MOVQ         dst+0(FP), DI;        \
	MOVQ         w+8(FP), BX;          \
	MOVQ         nb+16(FP), R9;        \
	VPBROADCASTD gemmConst<>+0(SB), Z31; \
	VPXORD       Z29, Z29, Z29;        \
	CONST;                             \
pack:;                                 \
	ILK4SCALES(BX);                    \
	VCVTPH2PS (BX), Z14;               \
	VCVTPH2PS 32(BX), Z15;             \
	PACKJ(0, 0, Z10, Z11, 0);          \
	PACKJ(1, 4, Z10, Z11, 1);          \
	PACKJ(2, 0, Z10, Z11, 2);          \
	PACKJ(3, 4, Z10, Z11, 3);          \
	PACKJ(4, 0, Z12, Z13, 0);          \
	PACKJ(5, 4, Z12, Z13, 1);          \
	PACKJ(6, 0, Z12, Z13, 2);          \
	PACKJ(7, 4, Z12, Z13, 3);          \
	ADDQ      $blk, BX;                \
	DECQ      R9;                      \
	JNZ       pack;                    \
	VZEROUPPER;                        \
	RET

// func ilRowsQ4K(w *byte, ng, nb int, y *byte, out *float32)
// Interleaved Q4_K decode (the C il_rows_k45), 2304 bytes a column.
ILKDROWS(·ilRowsQ4K, ILK4CONST, ILK4BODY, 2304)

// func ilRowsQ5K(w *byte, ng, nb int, y *byte, out *float32)
ILKDROWS(·ilRowsQ5K, ILK5CONST, ILK5BODY, 2816)

// func packILQ4K(dst, w *byte, nb int)
ILKPACK(·packILQ4K, ILK4CONST, ILK4PACKJ, 2304)

// func packILQ5K(dst, w *byte, nb int)
ILKPACK(·packILQ5K, ILK5CONST, ILK5PACKJ, 2816)

// func ilRowsQ6K(w *byte, ng, nb int, y *byte, out *float32)
// ilRowsQ4K for interleaved Q6_K weights (the C il_rows_q6_K): per half
// of a super-block, eight 16-element group sums of unsigned quants, each
// less 32 times its bsum, times its int8 scale.
#define ILQ6CONST ILQ6MASKS(Z27, Z28, Z29, Z30, Z31)
#define ILQ6BODY \
	ILQ6HALF(0);     \
	ILQ6HALF(1)
ILKDROWS(·ilRowsQ6K, ILQ6CONST, ILQ6BODY, 3360)

// func packILQ6K(dst, w *byte, nb int)
// Repacks nb interleaved Q6_K super-block columns at w into 8*nb
// gemmPacks at dst, a pack per 32-element run: signed quants, the scales
// of its two halves (as packQ6K).
TEXT ·packILQ6K(SB), NOSPLIT, $0-24
	MOVQ         dst+0(FP), DI
	MOVQ         w+8(FP), BX
	MOVQ         nb+16(FP), R9
	VPBROADCASTD gemmConst<>+0(SB), Z31
	VPXORD       Z29, Z29, Z29
	VPBROADCASTD gemmConst<>+32(SB), Z26
	ILQ6MASKS(Z20, Z21, Z22, Z23, Z24)

iq6pack:
	VCVTPH2PS (BX), Z14
	ILQ6PACKJ(0, ILQ6U0)
	ILQ6PACKJ(1, ILQ6U1)
	ILQ6PACKJ(2, ILQ6U2)
	ILQ6PACKJ(3, ILQ6U3)
	ILQ6PACKJ(4, ILQ6U0)
	ILQ6PACKJ(5, ILQ6U1)
	ILQ6PACKJ(6, ILQ6U2)
	ILQ6PACKJ(7, ILQ6U3)
	ADDQ      $3360, BX
	DECQ      R9
	JNZ       iq6pack
	VZEROUPPER
	RET
