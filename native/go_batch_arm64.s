//go:build arm64 && !purego

// The arm64 batch kernels: the gemm of quantized weights, and the panel
// product of the prefill attention tiles (go_attend_tile.go).
//
// The gemm (go_gemm_arm64.go) multiplies the
// gemmPacks of go_gemm.go (16 rows' quants four to an int32 lane, built
// by packRowsScalar) against q8a activations as quantized (signed, not
// flipped), with the Armv8.2 dot product's by-element form: one SDOT
// multiplies 4 rows' 4 quants by one token's same 4 quants, so a block
// column of 16 rows and 2 tokens is 64 SDOTs into int32 sums, which then
// meet their scales once a block (twice for the split kinds).

#include "textflag.h"

// SDOTE is SDOT (by element) Vd.4S += Vn.16B · Vm.4B[i]: each int32 lane
// k of d gains the dot product of bytes 4k..4k+3 of n with bytes
// 4i..4i+3 of m (registers by number; WORD-encoded, as go_kernels_arm64.s
// does its SDOT).
#define SDOTE(d, n, m, i) WORD $(0x4F80E000 | (((i)&1)<<21) | ((m)<<16) | (((i)>>1)<<11) | ((n)<<5) | (d))

// FMLAE is FMLA (by element) Vd.4S += Vn.4S * Vm.S[i].
#define FMLAE(d, n, m, i) WORD $(0x4F801000 | (((i)&1)<<21) | ((m)<<16) | (((i)>>1)<<11) | ((n)<<5) | (d))

// QUAD adds quant vector q of the pack (V16-V19: rows 0-3, 4-7, 8-11,
// 12-15, loaded from R8) times the tokens' quants 4i..4i+3 of ta and tb
// (the registers holding the half's 16 quants of tokens a and b) to the
// int32 sums V0-V3 (token a) and V4-V7 (token b).
#define QUAD(ta, tb, i) \
	VLD1.P 64(R8), [V16.B16, V17.B16, V18.B16, V19.B16]; \
	SDOTE(0, 16, ta, i);                                  \
	SDOTE(1, 17, ta, i);                                  \
	SDOTE(2, 18, ta, i);                                  \
	SDOTE(3, 19, ta, i);                                  \
	SDOTE(4, 16, tb, i);                                  \
	SDOTE(5, 17, tb, i);                                  \
	SDOTE(6, 18, tb, i);                                  \
	SDOTE(7, 19, tb, i)

// ZERO8 clears 8 vector registers.
#define ZERO8(a, b, c, d, e, f, g, h) \
	VEOR a.B16, a.B16, a.B16; \
	VEOR b.B16, b.B16, b.B16; \
	VEOR c.B16, c.B16, c.B16; \
	VEOR d.B16, d.B16, d.B16; \
	VEOR e.B16, e.B16, e.B16; \
	VEOR f.B16, f.B16, f.B16; \
	VEOR g.B16, g.B16, g.B16; \
	VEOR h.B16, h.B16, h.B16

// ZEROSUMS clears the int32 sums V0-V7.
#define ZEROSUMS ZERO8(V0, V1, V2, V3, V4, V5, V6, V7)

// FOLDROWS adds rows 4g..4g+3's int32 sums (ia for token a, ib for token
// b: numbered ian, ibn) times their scales sc and the tokens' d (V28
// lanes 0 and 2) to the float sums numbered fan, fbn.
#define FOLDROWS(ia, ib, sc, ian, ibn, fan, fbn) \
	VSCVTF ia.S4, ia.S4;        \
	VFMUL  sc.S4, ia.S4, ia.S4; \
	FMLAE(fan, ian, 28, 0);     \
	VSCVTF ib.S4, ib.S4;        \
	VFMUL  sc.S4, ib.S4, ib.S4; \
	FMLAE(fbn, ibn, 28, 2)

// FOLD adds the int32 sums, scaled by the 16 floats at (reg), to the float
// sums.
#define FOLD(reg) \
	VLD1 (reg), [V24.S4, V25.S4, V26.S4, V27.S4]; \
	FOLDROWS(V0, V4, V24, 0, 4, 8, 12);           \
	FOLDROWS(V1, V5, V25, 1, 5, 9, 13);           \
	FOLDROWS(V2, V6, V26, 2, 6, 10, 14);          \
	FOLDROWS(V3, V7, V27, 3, 7, 11, 15)

// func gemmSDOT(p *byte, nb int, y *byte, ys int, out *float32, os int, kind gemmKind)
//
// For the 16 rows of the nb gemmPacks at p and 4 tokens (q8a blocks at y
// + t*ys bytes), sets out[t*os/4 + r] to row r's product with token t.
// kind (gemmKind) 0, plain: row r's value j is d[r]*q[j]; 1, split: d2[r]
// for j >= 16; 2, bias: d[r]*q[j] + b[r], whose sum over a block is b[r] times the
// activations' s. Tokens go two at a time: V8-V11 and V12-V15 hold their
// float sums.
TEXT ·gemmSDOT(SB), NOSPLIT, $0-56
	MOVD p+0(FP), R0
	MOVD nb+8(FP), R1
	MOVD y+16(FP), R2
	MOVD ys+24(FP), R3
	MOVD out+32(FP), R4
	MOVD os+40(FP), R5
	MOVD kind+48(FP), R6
	MOVD $2, R7

pass:
	ZERO8(V8, V9, V10, V11, V12, V13, V14, V15)
	MOVD R0, R8       // the pack
	MOVD R2, R9       // token a's blocks
	ADD  R3, R2, R10  // token b's
	MOVD R1, R11

block:
	CBZ  R11, store
	// V28: token a's d and s, token b's d and s; V20, V21 and V22, V23:
	// their quants
	VLD1   (R9), V28.D[0]
	VLD1   (R10), V28.D[1]
	ADD    $8, R9
	ADD    $8, R10
	VLD1.P 32(R9), [V20.B16, V21.B16]
	VLD1.P 32(R10), [V22.B16, V23.B16]
	ZEROSUMS
	QUAD(20, 22, 0)
	QUAD(20, 22, 1)
	QUAD(20, 22, 2)
	QUAD(20, 22, 3)
	CMP  $1, R6
	BNE  second
	// split: the first half meets d now (R8 is at the pack's byte 256)
	ADD  $256, R8, R12
	FOLD(R12)
	ZEROSUMS

second:
	QUAD(21, 23, 0)
	QUAD(21, 23, 1)
	QUAD(21, 23, 2)
	QUAD(21, 23, 3)
	// R8 is at d (byte 512); d2 at 576, b at 640
	MOVD R8, R12
	CMP  $1, R6
	BNE  fold
	ADD  $64, R8, R12

fold:
	FOLD(R12)
	CMP  $2, R6
	BNE  next
	ADD  $128, R8, R12
	VLD1 (R12), [V24.S4, V25.S4, V26.S4, V27.S4]
	FMLAE(8, 24, 28, 1)
	FMLAE(9, 25, 28, 1)
	FMLAE(10, 26, 28, 1)
	FMLAE(11, 27, 28, 1)
	FMLAE(12, 24, 28, 3)
	FMLAE(13, 25, 28, 3)
	FMLAE(14, 26, 28, 3)
	FMLAE(15, 27, 28, 3)

next:
	ADD  $320, R8 // the next pack (832 bytes a pack)
	SUB  $1, R11
	B    block

store:
	VST1 [V8.S4, V9.S4, V10.S4, V11.S4], (R4)
	ADD  R5, R4, R12
	VST1 [V12.S4, V13.S4, V14.S4, V15.S4], (R12)
	ADD  R3<<1, R2, R2
	ADD  R5<<1, R4, R4
	SUB  $1, R7
	CBNZ R7, pass
	RET

// PSTEP adds panel step j (16 lanes: V16-V19, loaded from R0) times
// element j of the 4 rows' y (V20-V23) to their sums V0-V3, V4-V7,
// V8-V11, V12-V15.
#define PSTEP(j) \
	VLD1.P 64(R0), [V16.S4, V17.S4, V18.S4, V19.S4]; \
	FMLAE(0, 16, 20, j);                             \
	FMLAE(1, 17, 20, j);                             \
	FMLAE(2, 18, 20, j);                             \
	FMLAE(3, 19, 20, j);                             \
	FMLAE(4, 16, 21, j);                             \
	FMLAE(5, 17, 21, j);                             \
	FMLAE(6, 18, 21, j);                             \
	FMLAE(7, 19, 21, j);                             \
	FMLAE(8, 16, 22, j);                             \
	FMLAE(9, 17, 22, j);                             \
	FMLAE(10, 18, 22, j);                            \
	FMLAE(11, 19, 22, j);                            \
	FMLAE(12, 16, 23, j);                            \
	FMLAE(13, 17, 23, j);                            \
	FMLAE(14, 18, 23, j);                            \
	FMLAE(15, 19, 23, j)

// func panelMul4NEON(p *float32, n, ps int, y *float32, ys int, o *float32, os int)
//
// The tiles' panel product on NEON: o_t[r] = sum over k < n of p[16k+r] *
// y_t[k] for the panel's 16 lanes r and 4 rows t (y_t at y + t*ys bytes,
// o_t at o + t*os bytes); n is a multiple of 4, ps unused (one panel).
// Four y elements a row load at once and feed four steps by element.
TEXT ·panelMul4NEON(SB), NOSPLIT, $0-56
	MOVD p+0(FP), R0
	MOVD n+8(FP), R1
	MOVD y+24(FP), R2
	MOVD ys+32(FP), R3
	MOVD o+40(FP), R4
	MOVD os+48(FP), R5
	ADD  R3, R2, R6
	ADD  R3, R6, R7
	ADD  R3, R7, R8
	ZERO8(V0, V1, V2, V3, V4, V5, V6, V7)
	ZERO8(V8, V9, V10, V11, V12, V13, V14, V15)

ploop:
	CBZ    R1, pstore
	VLD1.P 16(R2), [V20.S4]
	VLD1.P 16(R6), [V21.S4]
	VLD1.P 16(R7), [V22.S4]
	VLD1.P 16(R8), [V23.S4]
	PSTEP(0)
	PSTEP(1)
	PSTEP(2)
	PSTEP(3)
	SUB    $4, R1
	B      ploop

pstore:
	VST1 [V0.S4, V1.S4, V2.S4, V3.S4], (R4)
	ADD  R5, R4
	VST1 [V4.S4, V5.S4, V6.S4, V7.S4], (R4)
	ADD  R5, R4
	VST1 [V8.S4, V9.S4, V10.S4, V11.S4], (R4)
	ADD  R5, R4
	VST1 [V12.S4, V13.S4, V14.S4, V15.S4], (R4)
	RET
