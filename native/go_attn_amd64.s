//go:build amd64 && !purego

// AVX2 + FMA + F16C attention kernels of the pure-Go backend: the scores
// of one query against many cached keys, and the weighted sum of cached
// values. Contracts are in go_kernels_simd.go.

#include "textflag.h"
#include "gattn_amd64.h"

// PREFETCH4ROWS prefetches the first 128 bytes of the 4 rows at R12, DX
// bytes apart (R13 = 3*DX).
#define PREFETCH4ROWS \
	PREFETCHT0 (R12) \
	PREFETCHT0 64(R12) \
	PREFETCHT0 (R12)(DX*1) \
	PREFETCHT0 64(R12)(DX*1) \
	PREFETCHT0 (R12)(DX*2) \
	PREFETCHT0 64(R12)(DX*2) \
	PREFETCHT0 (R12)(R13*1) \
	PREFETCHT0 64(R12)(R13*1)

// REDUCE8 sets lane i of Y1 to the sum of the 8 lanes of Yi (i < 8),
// through Y0..Y7.
#define REDUCE8 \
	VHADDPS    Y1, Y0, Y0;       \
	VHADDPS    Y3, Y2, Y2;       \
	VHADDPS    Y5, Y4, Y4;       \
	VHADDPS    Y7, Y6, Y6;       \
	VHADDPS    Y2, Y0, Y0;       \
	VHADDPS    Y6, Y4, Y4;       \
	VPERM2F128 $0x20, Y4, Y0, Y1; \
	VPERM2F128 $0x31, Y4, Y0, Y2; \
	VADDPS     Y2, Y1, Y1

// DOTS8 scores the query at DI against key rows in blocks of 8 while CX
// >= 8, each block's 8 sums reduced together (the reduction per row would
// cost as much as a short row's products): rows at SI, DX bytes apart,
// BX bytes of key per row, KSTEP bytes of key (8 elements, widened by
// VLOAD) per step; scores to R8. It leaves SI, CX and R8 past the blocks
// and jumps to the per-row loop, rows. Each block first prefetches the
// first 128 bytes of the next block's rows (R12): a cache head's rows are
// a stride apart, which the hardware prefetcher follows badly, and at
// depth 4096 this took smollm2-135m F16-cache decode (2 threads, Sapphire
// Rapids) from 53 to 60 tok/s.
#define DOTS8(VLOAD, KSTEP) \
rows8: \
	CMPQ CX, $8 \
	JLT  rows \
	LEAQ (DX)(DX*2), R13 \
	MOVQ DX, R12 \
	SHLQ $5, R12 \
	ADDQ SI, R12 \
	PREFETCH4ROWS \
	LEAQ (R12)(DX*4), R12 \
	PREFETCH4ROWS \
	LEAQ (SI)(DX*4), R14 \
	MOVQ SI, R10 \
	MOVQ DI, R11 \
	XORQ AX, AX \
	VXORPS Y0, Y0, Y0 \
	VXORPS Y1, Y1, Y1 \
	VXORPS Y2, Y2, Y2 \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7 \
rows8cols: \
	VMOVUPS (R11), Y8 \
	VLOAD (R10), Y9 \
	VFMADD231PS Y8, Y9, Y0 \
	VLOAD (R10)(DX*1), Y10 \
	VFMADD231PS Y8, Y10, Y1 \
	VLOAD (R10)(DX*2), Y11 \
	VFMADD231PS Y8, Y11, Y2 \
	VLOAD (R10)(R13*1), Y12 \
	VFMADD231PS Y8, Y12, Y3 \
	VLOAD (R14), Y9 \
	VFMADD231PS Y8, Y9, Y4 \
	VLOAD (R14)(DX*1), Y10 \
	VFMADD231PS Y8, Y10, Y5 \
	VLOAD (R14)(DX*2), Y11 \
	VFMADD231PS Y8, Y11, Y6 \
	VLOAD (R14)(R13*1), Y12 \
	VFMADD231PS Y8, Y12, Y7 \
	ADDQ $32, R11 \
	ADDQ $KSTEP, R10 \
	ADDQ $KSTEP, R14 \
	ADDQ $KSTEP, AX \
	CMPQ AX, BX \
	JLT  rows8cols \
	REDUCE8 \
	VMOVUPS Y1, (R8) \
	ADDQ $32, R8 \
	LEAQ (SI)(DX*8), SI \
	SUBQ $8, CX \
	JMP  rows8

// func dotsF32SIMD(s, q, k *float32, kstride, nrows, hd int)
TEXT ·dotsF32SIMD(SB), NOSPLIT, $0-48
	MOVQ s+0(FP), R8
	MOVQ q+8(FP), DI
	MOVQ k+16(FP), SI
	MOVQ kstride+24(FP), DX
	MOVQ nrows+32(FP), CX
	MOVQ hd+40(FP), BX
	SHLQ $2, BX
	DOTS8(VMOVUPS, 32)

rows:
	CMPQ   CX, $0
	JEQ    done
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	XORQ   AX, AX

cols16:
	LEAQ        64(AX), R9
	CMPQ        R9, BX
	JGT         cols8
	VMOVUPS     (SI)(AX*1), Y2
	VMOVUPS     32(SI)(AX*1), Y3
	VFMADD231PS (DI)(AX*1), Y2, Y0
	VFMADD231PS 32(DI)(AX*1), Y3, Y1
	MOVQ        R9, AX
	JMP         cols16

cols8:
	CMPQ        AX, BX
	JGE         rowdone
	VMOVUPS     (SI)(AX*1), Y2
	VFMADD231PS (DI)(AX*1), Y2, Y0
	ADDQ        $32, AX
	JMP         cols8

rowdone:
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, (R8)
	ADDQ         $4, R8
	ADDQ         DX, SI
	DECQ         CX
	JMP          rows

done:
	VZEROUPPER
	RET

// func dotsF16SIMD(s, q *float32, k *byte, kstride, nrows, hd int)
TEXT ·dotsF16SIMD(SB), NOSPLIT, $0-48
	MOVQ s+0(FP), R8
	MOVQ q+8(FP), DI
	MOVQ k+16(FP), SI
	MOVQ kstride+24(FP), DX
	MOVQ nrows+32(FP), CX
	MOVQ hd+40(FP), BX
	SHLQ $1, BX
	DOTS8(VCVTPH2PS, 16)

rows:
	CMPQ       CX, $0
	JEQ        done
	PREFETCHT0 (SI)(DX*8)    // the row 8 ahead (rows are a stride apart)
	PREFETCHT0 64(SI)(DX*8)
	VXORPS     Y0, Y0, Y0
	VXORPS     Y1, Y1, Y1
	XORQ       AX, AX        // byte offset in k (2 per element)
	MOVQ       DI, R10       // q

cols16:
	LEAQ        32(AX), R9
	CMPQ        R9, BX
	JGT         cols8
	VCVTPH2PS   (SI)(AX*1), Y2
	VCVTPH2PS   16(SI)(AX*1), Y3
	VFMADD231PS (R10), Y2, Y0
	VFMADD231PS 32(R10), Y3, Y1
	ADDQ        $64, R10
	MOVQ        R9, AX
	JMP         cols16

cols8:
	CMPQ        AX, BX
	JGE         rowdone
	VCVTPH2PS   (SI)(AX*1), Y2
	VFMADD231PS (R10), Y2, Y0
	ADDQ        $32, R10
	ADDQ        $16, AX
	JMP         cols8

rowdone:
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSS       X0, (R8)
	ADDQ         $4, R8
	ADDQ         DX, SI
	DECQ         CX
	JMP          rows

done:
	VZEROUPPER
	RET

// func wsumF32SIMD(o, w, v *float32, vstride, nrows, hd int)
TEXT ·wsumF32SIMD(SB), NOSPLIT, $0-48
	MOVQ o+0(FP), R8
	MOVQ w+8(FP), DI
	MOVQ v+16(FP), SI
	MOVQ vstride+24(FP), DX
	MOVQ nrows+32(FP), CX
	MOVQ hd+40(FP), BX
	SHLQ $2, BX
	XORQ AX, AX              // byte offset of the column block

blk64:
	LEAQ   256(AX), R12
	CMPQ   R12, BX
	JGT    blk8
	VMOVUPS (R8)(AX*1), Y0
	VMOVUPS 32(R8)(AX*1), Y1
	VMOVUPS 64(R8)(AX*1), Y2
	VMOVUPS 96(R8)(AX*1), Y3
	VMOVUPS 128(R8)(AX*1), Y4
	VMOVUPS 160(R8)(AX*1), Y5
	VMOVUPS 192(R8)(AX*1), Y6
	VMOVUPS 224(R8)(AX*1), Y7
	LEAQ   (SI)(AX*1), R10
	MOVQ   DI, R11
	MOVQ   CX, R9

r64:
	CMPQ         R9, $0
	JEQ          s64
	VBROADCASTSS (R11), Y8
	VFMADD231PS  (R10), Y8, Y0
	VFMADD231PS  32(R10), Y8, Y1
	VFMADD231PS  64(R10), Y8, Y2
	VFMADD231PS  96(R10), Y8, Y3
	VFMADD231PS  128(R10), Y8, Y4
	VFMADD231PS  160(R10), Y8, Y5
	VFMADD231PS  192(R10), Y8, Y6
	VFMADD231PS  224(R10), Y8, Y7
	ADDQ         $4, R11
	ADDQ         DX, R10
	DECQ         R9
	JMP          r64

s64:
	VMOVUPS Y0, (R8)(AX*1)
	VMOVUPS Y1, 32(R8)(AX*1)
	VMOVUPS Y2, 64(R8)(AX*1)
	VMOVUPS Y3, 96(R8)(AX*1)
	VMOVUPS Y4, 128(R8)(AX*1)
	VMOVUPS Y5, 160(R8)(AX*1)
	VMOVUPS Y6, 192(R8)(AX*1)
	VMOVUPS Y7, 224(R8)(AX*1)
	MOVQ    R12, AX
	JMP     blk64

blk8:
	CMPQ   AX, BX
	JGE    done
	VMOVUPS (R8)(AX*1), Y0
	VXORPS Y1, Y1, Y1
	LEAQ   (SI)(AX*1), R10
	MOVQ   DI, R11
	MOVQ   CX, R9

r8:
	CMPQ         R9, $2
	JLT          r8tail
	VBROADCASTSS (R11), Y8
	VBROADCASTSS 4(R11), Y9
	VFMADD231PS  (R10), Y8, Y0
	VFMADD231PS  (R10)(DX*1), Y9, Y1
	ADDQ         $8, R11
	LEAQ         (R10)(DX*2), R10
	SUBQ         $2, R9
	JMP          r8

r8tail:
	CMPQ         R9, $0
	JEQ          s8
	VBROADCASTSS (R11), Y8
	VFMADD231PS  (R10), Y8, Y0

s8:
	VADDPS  Y1, Y0, Y0
	VMOVUPS Y0, (R8)(AX*1)
	ADDQ    $32, AX
	JMP     blk8

done:
	VZEROUPPER
	RET

// func wsumF16SIMD(o, w *float32, v *byte, vstride, nrows, hd int)
TEXT ·wsumF16SIMD(SB), NOSPLIT, $0-48
	MOVQ o+0(FP), R8
	MOVQ w+8(FP), DI
	MOVQ v+16(FP), SI
	MOVQ vstride+24(FP), DX
	MOVQ nrows+32(FP), CX
	MOVQ hd+40(FP), BX
	SHLQ $2, BX
	XORQ AX, AX              // byte offset of the column block in o
	MOVQ DX, R14
	SHLQ $5, R14             // 32 rows

blk32:
	LEAQ   128(AX), R12
	CMPQ   R12, BX
	JGT    blk8
	VMOVUPS (R8)(AX*1), Y0
	VMOVUPS 32(R8)(AX*1), Y1
	VMOVUPS 64(R8)(AX*1), Y2
	VMOVUPS 96(R8)(AX*1), Y3
	MOVQ   AX, R13
	SHRQ   $1, R13
	LEAQ   (SI)(R13*1), R10
	MOVQ   DI, R11
	MOVQ   CX, R9

r32:
	CMPQ         R9, $0
	JEQ          s32
	PREFETCHT0   (R10)(R14*1) // the row 32 ahead (rows are a stride apart)
	VBROADCASTSS (R11), Y8
	VCVTPH2PS    (R10), Y4
	VCVTPH2PS    16(R10), Y5
	VCVTPH2PS    32(R10), Y6
	VCVTPH2PS    48(R10), Y7
	VFMADD231PS  Y4, Y8, Y0
	VFMADD231PS  Y5, Y8, Y1
	VFMADD231PS  Y6, Y8, Y2
	VFMADD231PS  Y7, Y8, Y3
	ADDQ         $4, R11
	ADDQ         DX, R10
	DECQ         R9
	JMP          r32

s32:
	VMOVUPS Y0, (R8)(AX*1)
	VMOVUPS Y1, 32(R8)(AX*1)
	VMOVUPS Y2, 64(R8)(AX*1)
	VMOVUPS Y3, 96(R8)(AX*1)
	MOVQ    R12, AX
	JMP     blk32

blk8:
	CMPQ   AX, BX
	JGE    done
	VMOVUPS (R8)(AX*1), Y0
	MOVQ   AX, R13
	SHRQ   $1, R13
	LEAQ   (SI)(R13*1), R10
	MOVQ   DI, R11
	MOVQ   CX, R9

r8:
	CMPQ         R9, $0
	JEQ          s8
	VBROADCASTSS (R11), Y8
	VCVTPH2PS    (R10), Y4
	VFMADD231PS  Y4, Y8, Y0
	ADDQ         $4, R11
	ADDQ         DX, R10
	DECQ         R9
	JMP          r8

s8:
	VMOVUPS Y0, (R8)(AX*1)
	ADDQ    $32, AX
	JMP     blk8

done:
	VZEROUPPER
	RET

// Weighted sums of quantized value rows: o[i] += Σ w[j]*v_j[i] over nrows
// rows of nb blocks (Q8_0 or Q4_0), vstride bytes apart, each block widened
// to float32 in registers. Block by block of 32 elements, Y0..Y3 hold the
// sums over all rows; Y8 is w[j] times the row's block scale.

// WSCALE sets Y8 = w[j] (at R11) times the f16 scale at (R10).
#define WSCALE \
	MOVWQZX      (R10), R13;    \
	VMOVQ        R13, X9;       \
	VCVTPH2PS    X9, X9;        \
	VMULSS       (R11), X9, X9; \
	VBROADCASTSS X9, Y8

// func wsumQ8_0SIMD(o, w *float32, v *byte, vstride, nrows, nb int)
TEXT ·wsumQ8_0SIMD(SB), NOSPLIT, $0-48
	MOVQ o+0(FP), R8
	MOVQ w+8(FP), DI
	MOVQ v+16(FP), SI
	MOVQ vstride+24(FP), DX
	MOVQ nrows+32(FP), CX
	MOVQ nb+40(FP), BX

q8blk:
	CMPQ   BX, $0
	JEQ    q8done
	VMOVUPS (R8), Y0
	VMOVUPS 32(R8), Y1
	VMOVUPS 64(R8), Y2
	VMOVUPS 96(R8), Y3
	MOVQ   SI, R10
	MOVQ   DI, R11
	MOVQ   CX, R9

q8row:
	CMPQ        R9, $0
	JEQ         q8store
	WSCALE
	VPMOVSXBD   2(R10), Y4
	VPMOVSXBD   10(R10), Y5
	VPMOVSXBD   18(R10), Y6
	VPMOVSXBD   26(R10), Y7
	VCVTDQ2PS   Y4, Y4
	VCVTDQ2PS   Y5, Y5
	VCVTDQ2PS   Y6, Y6
	VCVTDQ2PS   Y7, Y7
	VFMADD231PS Y4, Y8, Y0
	VFMADD231PS Y5, Y8, Y1
	VFMADD231PS Y6, Y8, Y2
	VFMADD231PS Y7, Y8, Y3
	ADDQ        $4, R11
	ADDQ        DX, R10
	DECQ        R9
	JMP         q8row

q8store:
	VMOVUPS Y0, (R8)
	VMOVUPS Y1, 32(R8)
	VMOVUPS Y2, 64(R8)
	VMOVUPS Y3, 96(R8)
	ADDQ    $128, R8
	ADDQ    $34, SI
	DECQ    BX
	JMP     q8blk

q8done:
	VZEROUPPER
	RET

// func wsumQ4_0SIMD(o, w *float32, v *byte, vstride, nrows, nb int)
TEXT ·wsumQ4_0SIMD(SB), NOSPLIT, $0-48
	MOVQ         o+0(FP), R8
	MOVQ         w+8(FP), DI
	MOVQ         v+16(FP), SI
	MOVQ         vstride+24(FP), DX
	MOVQ         nrows+32(FP), CX
	MOVQ         nb+40(FP), BX
	MOVL         $0x0f0f0f0f, R13
	VMOVQ        R13, X15
	VPBROADCASTD X15, X15 // the nibble mask
	MOVL         $0x08080808, R13
	VMOVQ        R13, X14
	VPBROADCASTD X14, X14 // the offset 8

q4blk:
	CMPQ   BX, $0
	JEQ    q4done
	VMOVUPS (R8), Y0
	VMOVUPS 32(R8), Y1
	VMOVUPS 64(R8), Y2
	VMOVUPS 96(R8), Y3
	MOVQ   SI, R10
	MOVQ   DI, R11
	MOVQ   CX, R9

q4row:
	CMPQ        R9, $0
	JEQ         q4store
	WSCALE
	VMOVDQU     2(R10), X10
	VPAND       X15, X10, X11 // elements 0..15
	VPSRLW      $4, X10, X10
	VPAND       X15, X10, X10 // elements 16..31
	VPSUBB      X14, X11, X11
	VPSUBB      X14, X10, X10
	VPMOVSXBD   X11, Y4
	VPSRLDQ     $8, X11, X11
	VPMOVSXBD   X11, Y5
	VPMOVSXBD   X10, Y6
	VPSRLDQ     $8, X10, X10
	VPMOVSXBD   X10, Y7
	VCVTDQ2PS   Y4, Y4
	VCVTDQ2PS   Y5, Y5
	VCVTDQ2PS   Y6, Y6
	VCVTDQ2PS   Y7, Y7
	VFMADD231PS Y4, Y8, Y0
	VFMADD231PS Y5, Y8, Y1
	VFMADD231PS Y6, Y8, Y2
	VFMADD231PS Y7, Y8, Y3
	ADDQ        $4, R11
	ADDQ        DX, R10
	DECQ        R9
	JMP         q4row

q4store:
	VMOVUPS Y0, (R8)
	VMOVUPS Y1, 32(R8)
	VMOVUPS Y2, 64(R8)
	VMOVUPS Y3, 96(R8)
	ADDQ    $128, R8
	ADDQ    $18, SI
	DECQ    BX
	JMP     q4blk

q4done:
	VZEROUPPER
	RET

// The AVX2 group kernels: GDOTSA2 and GWSUM (gattn_amd64.h) are their
// skeletons, for the heads listed by HEADS (a per-head op applied to
// each; G4 four heads, G3 three: GQA groups of 3, as smollm2's, padded to
// four spent a quarter of the products on a zero query).

// GDOTSA2 defines name(s, q *float32, k *byte, kstride, nrows, hd,
// sstride int): dotsF16SIMD for the heads of one GQA group at once (hd
// floats apart in q) against nrows key rows (a multiple of 2), two rows a
// step: each key chunk is widened once for the heads, and the (head, row)
// sums are reduced together (STORE). Head h's scores go to s + h*sstride
// bytes. hd is a multiple of 8. Head h sums in Y(2h), Y(2h+1).
#define GDOTSA2(name, ZERO, HEADS, STORE) \
TEXT name(SB), NOSPLIT, $0-56;  \
	GDOTS_ARGS;                 \
	GDF16SETUP;                 \
	LEAQ (R10)(R10*2), R13;     \
g2rows:;                        \
	CMPQ       CX, $2;          \
	JLT        g2done;          \
	MOVQ       DX, AX;          \
	SHLQ       $4, AX;          \
	ADDQ       SI, AX;          \
	PREFETCHT0 (AX);            \
	PREFETCHT0 64(AX);          \
	PREFETCHT0 (AX)(DX*1);      \
	PREFETCHT0 64(AX)(DX*1);    \
	ZERO;                       \
	MOVQ       SI, R14;         \
	MOVQ       DI, R12;         \
	XORQ       AX, AX;          \
g2cols:;                        \
	VCVTPH2PS (R14), Y8;        \
	VCVTPH2PS (R14)(DX*1), Y9;  \
	HEADS(GDOTHEAD);            \
	ADDQ      $16, R14;         \
	ADDQ      $32, R12;         \
	ADDQ      $16, AX;          \
	CMPQ      AX, BX;           \
	JLT       g2cols;           \
	STORE;                      \
	ADDQ      $8, R8;           \
	LEAQ      (SI)(DX*2), SI;   \
	SUBQ      $2, CX;           \
	JMP       g2rows;           \
g2done:;                        \
	VZEROUPPER;                 \
	RET

// GDOTHEAD multiplies the two widened key chunks by head h's query chunk
// (at Q, into Yq), into its sums A0, A1.
#define GDOTHEAD(Q, A0, A1, Yq) \
	VMOVUPS     Q, Yq;          \
	VFMADD231PS Yq, Y8, A0;     \
	VFMADD231PS Yq, Y9, A1
#define GDOTS4(OP) \
	OP((R12), Y0, Y1, Y10);          \
	OP((R12)(R9*1), Y2, Y3, Y11);    \
	OP((R12)(R9*2), Y4, Y5, Y12);    \
	OP((R12)(R11*1), Y6, Y7, Y13)
#define GDOTS3(OP) \
	OP((R12), Y0, Y1, Y10);          \
	OP((R12)(R9*1), Y2, Y3, Y11);    \
	OP((R12)(R9*2), Y4, Y5, Y12)
#define GZERO4 \
	VXORPS Y0, Y0, Y0; VXORPS Y1, Y1, Y1; VXORPS Y2, Y2, Y2; VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; VXORPS Y5, Y5, Y5; VXORPS Y6, Y6, Y6; VXORPS Y7, Y7, Y7
#define GZERO3 \
	VXORPS Y0, Y0, Y0; VXORPS Y1, Y1, Y1; VXORPS Y2, Y2, Y2; VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; VXORPS Y5, Y5, Y5
// (REDUCE8 leaves in Y1's lanes head 0 rows 0, 1, head 1 rows 0, 1, ...)
#define GSTORE3 \
	REDUCE8;                      \
	VMOVQ        X1, (R8);        \
	VMOVHPS      X1, (R8)(R10*1); \
	VEXTRACTF128 $1, Y1, X2;      \
	VMOVQ        X2, (R8)(R10*2)
#define GSTORE4 \
	GSTORE3;                      \
	VMOVHPS      X2, (R8)(R13*1)
#define GDOTS3ZERO \
	GZERO3; VXORPS Y6, Y6, Y6; VXORPS Y7, Y7, Y7

// func dotsF16G4AVX2(s, q *float32, k *byte, kstride, nrows, hd, sstride int)
GDOTSA2(·dotsF16G4AVX2, GZERO4, GDOTS4, GSTORE4)

// func dotsF16G3AVX2(s, q *float32, k *byte, kstride, nrows, hd, sstride int)
GDOTSA2(·dotsF16G3AVX2, GDOTS3ZERO, GDOTS3, GSTORE3)

// The AVX2 group value sums: GWSUM (gattn_amd64.h) at 8 floats a
// register. Column blocks of 16 elements (head h's sums in Y(2h),
// Y(2h+1), each FMA chain advancing once per row), then of 8. hd is a
// multiple of 8.
#define GW_BIG 64
#define GW_SMALL 32
#define GW_WIDEN_BIG \
	PREFETCHT0 (R11)(DX*8); \
	VCVTPH2PS  (R11), Y8;   \
	VCVTPH2PS  16(R11), Y9
#define GW_WIDEN_SMALL VCVTPH2PS (R11), Y8
#define GW_CHUNK \
	MOVQ AX, R11; \
	SHRQ $1, R11; \
	ADDQ SI, R11
#define GW_SETUP
#define GW_LOAD_BIG GWLOAD16
#define GW_SUM_BIG GWSUM16
#define GW_STORE_BIG GWSTORE16
#define GW_LOAD_SMALL GWLOAD8
#define GW_SUM_SMALL GWSUM8
#define GW_STORE_SMALL GWSTORE8

// The per-head ops of the AVX2 group value sums: head h's outputs at O, its weight at W,
// its sums A0, A1, Yw for its broadcast weight.
#define GWLOAD16(O, W, A0, A1, Yw) VMOVUPS O, A0; VMOVUPS 32 O, A1
#define GWSUM16(O, W, A0, A1, Yw) \
	VBROADCASTSS W, Yw;     \
	VFMADD231PS  Yw, Y8, A0; \
	VFMADD231PS  Yw, Y9, A1
#define GWSTORE16(O, W, A0, A1, Yw) VMOVUPS A0, O; VMOVUPS A1, 32 O
#define GWLOAD8(O, W, A0, A1, Yw) VMOVUPS O, A0
#define GWSUM8(O, W, A0, A1, Yw) \
	VBROADCASTSS W, Yw;     \
	VFMADD231PS  Yw, Y8, A0
#define GWSTORE8(O, W, A0, A1, Yw) VMOVUPS A0, O
#define GWSUMS4(OP) \
	OP((R13), (R12), Y0, Y1, Y10);                \
	OP((R13)(BX*1), (R12)(R9*1), Y2, Y3, Y11);    \
	OP((R13)(BX*2), (R12)(R9*2), Y4, Y5, Y12);    \
	OP((R13)(R14*1), (R12)(R10*1), Y6, Y7, Y13)
#define GWSUMS3(OP) \
	OP((R13), (R12), Y0, Y1, Y10);                \
	OP((R13)(BX*1), (R12)(R9*1), Y2, Y3, Y11);    \
	OP((R13)(BX*2), (R12)(R9*2), Y4, Y5, Y12)

// func wsumF16G4AVX2(o, w *float32, v *byte, vstride, nrows, hd, wstride int)
GWSUM(·wsumF16G4AVX2, GWSUMS4)

// func wsumF16G3AVX2(o, w *float32, v *byte, vstride, nrows, hd, wstride int)
GWSUM(·wsumF16G3AVX2, GWSUMS3)
