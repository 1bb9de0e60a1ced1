/* quants_avx2.c: the x86 kernels built for AVX2 + FMA + F16C (Haswell and
 * later, Zen). CMake compiles this file alone with -mavx2 -mfma -mf16c; the
 * dispatcher calls it only where the CPU has them. */
#if defined(__x86_64__) || defined(_M_X64)
#define ISA_NAME "avx2"
#define FILL_FN lrt_fill_avx2
#include "quants_x86.inc"
#endif
