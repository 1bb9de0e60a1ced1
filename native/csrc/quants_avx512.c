/* quants_avx512.c: the x86 kernels built for AVX-512 (F, BW, DQ, VL) with
 * VNNI: 8-bit dot products are single vpdpbusd instructions, and the
 * multi-token tiles get 32 vector registers. CMake compiles this file alone
 * with the matching -m flags; the dispatcher calls it only where the CPU has
 * them (Ice Lake, Sapphire Rapids, Zen 4 and later). */
#if defined(__x86_64__) || defined(_M_X64)
#define ISA_NAME "avx512vnni"
#define FILL_FN lrt_fill_avx512
#define X86_VNNI 1
#include "quants_x86.inc"
#endif
