//go:build amd64 && !purego

// AVX-512 (F, BW, VL) variants of the legacy-block dot products: 16 floats
// per register, and Q5_0's fifth bits straight from a mask register. Same
// contracts as the AVX2 kernels in go_kernels_amd64.s.

#include "textflag.h"

DATA nib512<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA nib512<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL nib512<>(SB), RODATA|NOPTR, $16

DATA eight512<>+0(SB)/8, $0x0808080808080808
DATA eight512<>+8(SB)/8, $0x0808080808080808
DATA eight512<>+16(SB)/8, $0x0808080808080808
DATA eight512<>+24(SB)/8, $0x0808080808080808
GLOBL eight512<>(SB), RODATA|NOPTR, $32

DATA sixteen512<>+0(SB)/8, $0x1010101010101010
DATA sixteen512<>+8(SB)/8, $0x1010101010101010
DATA sixteen512<>+16(SB)/8, $0x1010101010101010
DATA sixteen512<>+24(SB)/8, $0x1010101010101010
GLOBL sixteen512<>(SB), RODATA|NOPTR, $32

// NIBBLES512 loads the 16 bytes at off(SI) and leaves the 32 nibbles in
// element order (low nibbles, then high nibbles) in Y5. Needs X15 = 0x0f….
#define NIBBLES512(off) \
	VMOVDQU     off(SI), X5;    \
	VPSRLW      $4, X5, X6;     \
	VPAND       X15, X5, X5;    \
	VPAND       X15, X6, X6;    \
	VINSERTI128 $1, X6, Y5, Y5

// DOT512 multiplies the 32 signed bytes of Y5 by the 32 floats at xoff(DI)
// and adds the result times the block's scale (f16 at boff(SI)) to acc.
#define DOT512(boff, xoff, acc) \
	VPBROADCASTW boff(SI), Y4;           \
	VCVTPH2PS    Y4, Z4;                 \
	VEXTRACTI128 $1, Y5, X6;             \
	VPMOVSXBD    X5, Z7;                 \
	VPMOVSXBD    X6, Z8;                 \
	VCVTDQ2PS    Z7, Z7;                 \
	VCVTDQ2PS    Z8, Z8;                 \
	VMULPS       xoff(DI), Z7, Z7;       \
	VFMADD231PS  xoff+64(DI), Z8, Z7;    \
	VFMADD231PS  Z7, Z4, acc

#define Q4BLOCK512(boff, xoff, acc) \
	NIBBLES512(boff+2);             \
	VPSUBB Y14, Y5, Y5;             \
	DOT512(boff, xoff, acc)

// Q5BLOCK512: bit j of qh is the fifth bit of element j; where it is clear
// the value is the nibble minus 16.
#define Q5BLOCK512(boff, xoff, acc) \
	NIBBLES512(boff+6);             \
	KMOVD  boff+2(SI), K1;          \
	KNOTD  K1, K1;                  \
	VPSUBB Y14, Y5, K1, Y5;         \
	DOT512(boff, xoff, acc)

#define Q8BLOCK512(boff, xoff, acc) \
	VPBROADCASTW boff(SI), Y4;           \
	VCVTPH2PS    Y4, Z4;                 \
	VPMOVSXBD    boff+2(SI), Z7;         \
	VPMOVSXBD    boff+18(SI), Z8;        \
	VCVTDQ2PS    Z7, Z7;                 \
	VCVTDQ2PS    Z8, Z8;                 \
	VMULPS       xoff(DI), Z7, Z7;       \
	VFMADD231PS  xoff+64(DI), Z8, Z7;    \
	VFMADD231PS  Z7, Z4, acc

#define Q4CONST512 \
	VMOVDQU nib512<>(SB), X15; \
	VMOVDQU eight512<>(SB), Y14

#define Q5CONST512 \
	VMOVDQU nib512<>(SB), X15; \
	VMOVDQU sixteen512<>(SB), Y14

#define NOCONST512

// BLOCKDOT512 defines func name(w *byte, x *float32, nb int) float32, two
// blocks per iteration.
#define BLOCKDOT512(name, size, block, consts) \
TEXT name(SB), NOSPLIT, $0-28;       \
	MOVQ   w+0(FP), SI;              \
	MOVQ   x+8(FP), DI;              \
	MOVQ   nb+16(FP), CX;            \
	consts;                          \
	VPXORD Z0, Z0, Z0;               \
	VPXORD Z1, Z1, Z1;               \
loop2:;                              \
	CMPQ   CX, $2;                   \
	JLT    tail;                     \
	block(0, 0, Z0);                 \
	block(size, 128, Z1);            \
	ADDQ   $(2*size), SI;            \
	ADDQ   $256, DI;                 \
	SUBQ   $2, CX;                   \
	JMP    loop2;                    \
tail:;                               \
	CMPQ   CX, $0;                   \
	JEQ    done;                     \
	block(0, 0, Z0);                 \
done:;                               \
	VADDPS       Z1, Z0, Z0;         \
	VEXTRACTF64X4 $1, Z0, Y1;        \
	VADDPS       Y1, Y0, Y0;         \
	VEXTRACTF128 $1, Y0, X1;         \
	VADDPS       X1, X0, X0;         \
	VHADDPS      X0, X0, X0;         \
	VHADDPS      X0, X0, X0;         \
	VZEROUPPER;                      \
	MOVSS  X0, ret+24(FP);           \
	RET

// func dotQ8_0AVX512(w *byte, x *float32, nb int) float32
BLOCKDOT512(·dotQ8_0AVX512, 34, Q8BLOCK512, NOCONST512)

// func dotQ4_0AVX512(w *byte, x *float32, nb int) float32
BLOCKDOT512(·dotQ4_0AVX512, 18, Q4BLOCK512, Q4CONST512)

// func dotQ5_0AVX512(w *byte, x *float32, nb int) float32
BLOCKDOT512(·dotQ5_0AVX512, 22, Q5BLOCK512, Q5CONST512)

// DOTROWS16 defines name(w *byte, rs, nrows int, x *float32, n int, out
// *float32), dotRowsF16AVX512 and dotRowsBF16AVX512 (R8 the row, R13 the
// row stride, R9 the rows left, R11 x, R12 n, R10 out): CVTZ(off, Z)
// widens 16 half-width floats at off(SI) into Z, CVTY(off, Y) 8 into Y.
#define DOTROWS16(name, CVTZ, CVTY) \
TEXT name(SB), NOSPLIT, $0-48; \
	MOVQ w+0(FP), R8; \
	MOVQ rs+8(FP), R13; \
	MOVQ nrows+16(FP), R9; \
	MOVQ x+24(FP), R11; \
	MOVQ n+32(FP), R12; \
	MOVQ out+40(FP), R10; \
	\
f16r512rows: \
	CMPQ   R9, $0; \
	JEQ    f16r512end; \
	MOVQ   R8, SI; \
	MOVQ   R11, DI; \
	MOVQ   R12, CX; \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	\
f16r512loop64: \
	CMPQ        CX, $64; \
	JLT         f16r512loop16; \
	PREFETCHT0  2048(SI); \
	PREFETCHT0  2112(SI); \
	CVTZ(0, Z4); \
	CVTZ(32, Z5); \
	CVTZ(64, Z6); \
	CVTZ(96, Z7); \
	VFMADD231PS (DI), Z4, Z0; \
	VFMADD231PS 64(DI), Z5, Z1; \
	VFMADD231PS 128(DI), Z6, Z2; \
	VFMADD231PS 192(DI), Z7, Z3; \
	ADDQ        $128, SI; \
	ADDQ        $256, DI; \
	SUBQ        $64, CX; \
	JMP         f16r512loop64; \
	\
f16r512loop16: \
	CMPQ        CX, $16; \
	JLT         f16r512tail; \
	CVTZ(0, Z4); \
	VFMADD231PS (DI), Z4, Z0; \
	ADDQ        $32, SI; \
	ADDQ        $64, DI; \
	SUBQ        $16, CX; \
	JMP         f16r512loop16; \
	\
f16r512tail: \
	VADDPS        Z1, Z0, Z0; \
	VADDPS        Z3, Z2, Z2; \
	VADDPS        Z2, Z0, Z0; \
	VEXTRACTF64X4 $1, Z0, Y1; \
	VADDPS        Y1, Y0, Y0; \
	CMPQ          CX, $8; \
	JLT           f16r512sum; \
	CVTY(0, Y4); \
	VFMADD231PS   (DI), Y4, Y0; \
	\
f16r512sum: \
	VEXTRACTF128 $1, Y0, X1; \
	VADDPS       X1, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VHADDPS      X0, X0, X0; \
	VMOVSS       X0, (R10); \
	ADDQ         $4, R10; \
	ADDQ         R13, R8; \
	DECQ         R9; \
	JMP          f16r512rows; \
	\
f16r512end: \
	VZEROUPPER; \
	RET

#define CVTF16Z(off, Z) VCVTPH2PS off(SI), Z
#define CVTF16Y(off, Y) VCVTPH2PS off(SI), Y
#define CVTBF16Z(off, Z) VPMOVZXWD off(SI), Z; VPSLLD $16, Z, Z
#define CVTBF16Y(off, Y) VPMOVZXWD off(SI), Y; VPSLLD $16, Y, Y

// func dotRowsF16AVX512(w *byte, rs, nrows int, x *float32, n int, out *float32)
// dotRowsF16SIMD on 16-float vectors, 64 elements a step, prefetching the
// row stream 2 KB ahead as the C library's AVX-512 decode kernels do (on
// a Sapphire Rapids core the prefetch took F16 decode from about 16 to 25
// GB/s); n is a multiple of 8.
DOTROWS16(·dotRowsF16AVX512, CVTF16Z, CVTF16Y)

// func dotRowsBF16AVX512(w *byte, rs, nrows int, x *float32, n int, out *float32)
// dotRowsF16AVX512 for BF16 rows (widened by a zero extension and a
// shift): the C library's FLOAT_DEC512 for BF16.
DOTROWS16(·dotRowsBF16AVX512, CVTBF16Z, CVTBF16Y)
