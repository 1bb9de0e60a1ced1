//go:build amd64 && !purego

// AVX2 + FMA kernels of the softmax in attention: scaling scores with
// their maximum, and exponentials with their sum, and SwiGLU's gate. On
// AVX-512 CPUs (haveAVX512) each takes 16 lanes a step, by the same steps
// (EXP512 is EXP on zmm registers, so an element's value is the same on
// either path); the last 8 elements take the AVX2 step. Contracts are in
// go_kernels_simd.go.

#include "textflag.h"

// Constants of Cephes' expf: ln 2 split in two for an exact range
// reduction, and the polynomial of e^r on [-ln2/2, ln2/2].
DATA expLog2e<>+0(SB)/8, $0x3fb8aa3b3fb8aa3b
DATA expLog2e<>+8(SB)/8, $0x3fb8aa3b3fb8aa3b
DATA expLog2e<>+16(SB)/8, $0x3fb8aa3b3fb8aa3b
DATA expLog2e<>+24(SB)/8, $0x3fb8aa3b3fb8aa3b
GLOBL expLog2e<>(SB), RODATA|NOPTR, $32

DATA expC1<>+0(SB)/8, $0x3f3180003f318000
DATA expC1<>+8(SB)/8, $0x3f3180003f318000
DATA expC1<>+16(SB)/8, $0x3f3180003f318000
DATA expC1<>+24(SB)/8, $0x3f3180003f318000
GLOBL expC1<>(SB), RODATA|NOPTR, $32

DATA expC2<>+0(SB)/8, $0xb95e8083b95e8083
DATA expC2<>+8(SB)/8, $0xb95e8083b95e8083
DATA expC2<>+16(SB)/8, $0xb95e8083b95e8083
DATA expC2<>+24(SB)/8, $0xb95e8083b95e8083
GLOBL expC2<>(SB), RODATA|NOPTR, $32

DATA expLo<>+0(SB)/8, $0xc2ae0000c2ae0000
DATA expLo<>+8(SB)/8, $0xc2ae0000c2ae0000
DATA expLo<>+16(SB)/8, $0xc2ae0000c2ae0000
DATA expLo<>+24(SB)/8, $0xc2ae0000c2ae0000
GLOBL expLo<>(SB), RODATA|NOPTR, $32

DATA expOne<>+0(SB)/8, $0x3f8000003f800000
DATA expOne<>+8(SB)/8, $0x3f8000003f800000
DATA expOne<>+16(SB)/8, $0x3f8000003f800000
DATA expOne<>+24(SB)/8, $0x3f8000003f800000
GLOBL expOne<>(SB), RODATA|NOPTR, $32

DATA expP0<>+0(SB)/8, $0x3950696739506967
DATA expP0<>+8(SB)/8, $0x3950696739506967
DATA expP0<>+16(SB)/8, $0x3950696739506967
DATA expP0<>+24(SB)/8, $0x3950696739506967
GLOBL expP0<>(SB), RODATA|NOPTR, $32

DATA expP1<>+0(SB)/8, $0x3ab743ce3ab743ce
DATA expP1<>+8(SB)/8, $0x3ab743ce3ab743ce
DATA expP1<>+16(SB)/8, $0x3ab743ce3ab743ce
DATA expP1<>+24(SB)/8, $0x3ab743ce3ab743ce
GLOBL expP1<>(SB), RODATA|NOPTR, $32

DATA expP2<>+0(SB)/8, $0x3c0889083c088908
DATA expP2<>+8(SB)/8, $0x3c0889083c088908
DATA expP2<>+16(SB)/8, $0x3c0889083c088908
DATA expP2<>+24(SB)/8, $0x3c0889083c088908
GLOBL expP2<>(SB), RODATA|NOPTR, $32

DATA expP3<>+0(SB)/8, $0x3d2aa9c13d2aa9c1
DATA expP3<>+8(SB)/8, $0x3d2aa9c13d2aa9c1
DATA expP3<>+16(SB)/8, $0x3d2aa9c13d2aa9c1
DATA expP3<>+24(SB)/8, $0x3d2aa9c13d2aa9c1
GLOBL expP3<>(SB), RODATA|NOPTR, $32

DATA expP4<>+0(SB)/8, $0x3e2aaaaa3e2aaaaa
DATA expP4<>+8(SB)/8, $0x3e2aaaaa3e2aaaaa
DATA expP4<>+16(SB)/8, $0x3e2aaaaa3e2aaaaa
DATA expP4<>+24(SB)/8, $0x3e2aaaaa3e2aaaaa
GLOBL expP4<>(SB), RODATA|NOPTR, $32

DATA expP5<>+0(SB)/8, $0x3f0000003f000000
DATA expP5<>+8(SB)/8, $0x3f0000003f000000
DATA expP5<>+16(SB)/8, $0x3f0000003f000000
DATA expP5<>+24(SB)/8, $0x3f0000003f000000
GLOBL expP5<>(SB), RODATA|NOPTR, $32

DATA expBias<>+0(SB)/8, $0x0000007f0000007f
DATA expBias<>+8(SB)/8, $0x0000007f0000007f
DATA expBias<>+16(SB)/8, $0x0000007f0000007f
DATA expBias<>+24(SB)/8, $0x0000007f0000007f
GLOBL expBias<>(SB), RODATA|NOPTR, $32

// EXP sets Y2 = e^Y0 for Y0 ≥ -87 (Y1, Y3 and Y0 are clobbered). Needs
// Y14 = log2(e), Y13 = C1, Y12 = C2, Y10 = 1, Y9 = 127 in each lane.
#define EXP \
	VMULPS       Y14, Y0, Y1;               \
	VROUNDPS     $0, Y1, Y1;                \
	VFNMADD231PS Y13, Y1, Y0;               \
	VFNMADD231PS Y12, Y1, Y0;               \
	VMOVUPS      expP0<>(SB), Y2;           \
	VFMADD213PS  expP1<>(SB), Y0, Y2;       \
	VFMADD213PS  expP2<>(SB), Y0, Y2;       \
	VFMADD213PS  expP3<>(SB), Y0, Y2;       \
	VFMADD213PS  expP4<>(SB), Y0, Y2;       \
	VFMADD213PS  expP5<>(SB), Y0, Y2;       \
	VMULPS       Y0, Y0, Y3;                \
	VFMADD213PS  Y0, Y3, Y2;                \
	VADDPS       Y10, Y2, Y2;               \
	VCVTPS2DQ    Y1, Y1;                    \
	VPADDD       Y9, Y1, Y1;                \
	VPSLLD       $23, Y1, Y1;               \
	VMULPS       Y1, Y2, Y2

#define EXPCONST \
	VMOVUPS expLog2e<>(SB), Y14; \
	VMOVUPS expC1<>(SB), Y13;    \
	VMOVUPS expC2<>(SB), Y12;    \
	VMOVUPS expLo<>(SB), Y11;    \
	VMOVUPS expOne<>(SB), Y10;   \
	VMOVUPS expBias<>(SB), Y9

// EXP512 is EXP on 16 lanes: Z2 = e^Z0 (Z1, Z3 and Z0 clobbered). Needs
// EXPCONST512's registers, whose low halves are EXPCONST's.
#define EXP512 \
	VMULPS       Z14, Z0, Z1;  \
	VRNDSCALEPS  $0, Z1, Z1;   \
	VFNMADD231PS Z13, Z1, Z0;  \
	VFNMADD231PS Z12, Z1, Z0;  \
	VMOVAPS      Z20, Z2;      \
	VFMADD213PS  Z21, Z0, Z2;  \
	VFMADD213PS  Z22, Z0, Z2;  \
	VFMADD213PS  Z23, Z0, Z2;  \
	VFMADD213PS  Z24, Z0, Z2;  \
	VFMADD213PS  Z25, Z0, Z2;  \
	VMULPS       Z0, Z0, Z3;   \
	VFMADD213PS  Z0, Z3, Z2;   \
	VADDPS       Z10, Z2, Z2;  \
	VCVTPS2DQ    Z1, Z1;       \
	VPADDD       Z9, Z1, Z1;   \
	VPSLLD       $23, Z1, Z1;  \
	VMULPS       Z1, Z2, Z2

#define EXPCONST512 \
	VBROADCASTSS expLog2e<>(SB), Z14; \
	VBROADCASTSS expC1<>(SB), Z13;    \
	VBROADCASTSS expC2<>(SB), Z12;    \
	VBROADCASTSS expLo<>(SB), Z11;    \
	VBROADCASTSS expOne<>(SB), Z10;   \
	VBROADCASTSS expBias<>(SB), Z9;   \
	VBROADCASTSS expP0<>(SB), Z20;    \
	VBROADCASTSS expP1<>(SB), Z21;    \
	VBROADCASTSS expP2<>(SB), Z22;    \
	VBROADCASTSS expP3<>(SB), Z23;    \
	VBROADCASTSS expP4<>(SB), Z24;    \
	VBROADCASTSS expP5<>(SB), Z25

// func scaleMaxSIMD(s *float32, n int, scale float32) float32
TEXT ·scaleMaxSIMD(SB), NOSPLIT, $0-28
	MOVQ         s+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSS scale+16(FP), Y15
	VMULPS       (SI), Y15, Y0         // the first 8 scores start the maximum
	CMPB         ·haveAVX512(SB), $0
	JEQ          loop
	VBROADCASTSS scale+16(FP), Z15
	VINSERTF32X8 $1, Y0, Z0, Z0

loop16:
	CMPQ    CX, $16
	JLT     fold16
	VMULPS  (SI), Z15, Z2
	VMOVUPS Z2, (SI)
	VMAXPS  Z2, Z0, Z0
	ADDQ    $64, SI
	SUBQ    $16, CX
	JMP     loop16

fold16:
	VEXTRACTF32X8 $1, Z0, Y1
	VMAXPS        Y1, Y0, Y0

loop:
	CMPQ    CX, $0
	JEQ     done
	VMULPS  (SI), Y15, Y2
	VMOVUPS Y2, (SI)
	VMAXPS  Y2, Y0, Y0
	ADDQ    $32, SI
	SUBQ    $8, CX
	JMP     loop

done:
	VEXTRACTF128 $1, Y0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0x4E, X0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0xB1, X0, X1
	VMAXPS       X1, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// func expSubSIMD(s *float32, n int, m float32) float32
TEXT ·expSubSIMD(SB), NOSPLIT, $0-28
	MOVQ         s+0(FP), SI
	MOVQ         n+8(FP), CX
	VBROADCASTSS m+16(FP), Y15
	VXORPS       Y8, Y8, Y8
	CMPB         ·haveAVX512(SB), $0
	JEQ          avx2
	VBROADCASTSS m+16(FP), Z15
	EXPCONST512
	VPXORD       Z8, Z8, Z8

loop16:
	CMPQ    CX, $16
	JLT     fold16
	VMOVUPS (SI), Z0
	VSUBPS  Z15, Z0, Z0
	VMAXPS  Z11, Z0, Z0
	EXP512
	VMOVUPS Z2, (SI)
	VADDPS  Z2, Z8, Z8
	ADDQ    $64, SI
	SUBQ    $16, CX
	JMP     loop16

fold16:
	VEXTRACTF32X8 $1, Z8, Y1
	VADDPS        Y1, Y8, Y8
	JMP           loop

avx2:
	EXPCONST

loop:
	CMPQ         CX, $0
	JEQ          done
	VMOVUPS      (SI), Y0
	VSUBPS       Y15, Y0, Y0
	VMAXPS       Y11, Y0, Y0
	EXP
	VMOVUPS      Y2, (SI)
	VADDPS       Y2, Y8, Y8
	ADDQ         $32, SI
	SUBQ         $8, CX
	JMP          loop

done:
	VEXTRACTF128 $1, Y8, X1
	VADDPS       X1, X8, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

DATA expHi<>+0(SB)/8, $0x42b0000042b00000
DATA expHi<>+8(SB)/8, $0x42b0000042b00000
DATA expHi<>+16(SB)/8, $0x42b0000042b00000
DATA expHi<>+24(SB)/8, $0x42b0000042b00000
GLOBL expHi<>(SB), RODATA|NOPTR, $32

// func swigluSIMD(gate, up *float32, n int)
// gate[i] = gate[i] / (1 + e^-gate[i]) * up[i]; n is a multiple of 8. The
// exponent is clamped to [-87, 88], which moves results by less than 1e-36.
TEXT ·swigluSIMD(SB), NOSPLIT, $0-24
	MOVQ    gate+0(FP), SI
	MOVQ    up+8(FP), DI
	MOVQ    n+16(FP), CX
	VXORPS  Y7, Y7, Y7
	CMPB    ·haveAVX512(SB), $0
	JEQ     avx2
	EXPCONST512
	VBROADCASTSS expHi<>(SB), Z8
	VPXORD  Z7, Z7, Z7

loop16:
	CMPQ    CX, $16
	JLT     loop
	VMOVUPS (SI), Z6
	VSUBPS  Z6, Z7, Z0
	VMAXPS  Z11, Z0, Z0
	VMINPS  Z8, Z0, Z0
	EXP512
	VADDPS  Z10, Z2, Z2
	VDIVPS  Z2, Z6, Z6
	VMULPS  (DI), Z6, Z6
	VMOVUPS Z6, (SI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $16, CX
	JMP     loop16

avx2:
	EXPCONST
	VMOVUPS expHi<>(SB), Y8

loop:
	CMPQ    CX, $0
	JEQ     done
	VMOVUPS (SI), Y6
	VSUBPS  Y6, Y7, Y0
	VMAXPS  Y11, Y0, Y0
	VMINPS  Y8, Y0, Y0
	EXP
	VADDPS  Y10, Y2, Y2
	VDIVPS  Y2, Y6, Y6
	VMULPS  (DI), Y6, Y6
	VMOVUPS Y6, (SI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     loop

done:
	VZEROUPPER
	RET
