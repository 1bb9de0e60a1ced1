/* lrt.h: the whole ABI of litert-go's native kernel library.
 * Every symbol carries the lrt_ prefix and mirrors the Go function it backs. */
#ifndef LRT_H
#define LRT_H
#include <stddef.h>
#include <stdint.h>

/* lrt_abi_version returns the ABI version; the Go loader refuses a mismatch. */
int32_t lrt_abi_version(void);

/* lrt_dot_f32 returns sum(a[i]*b[i]) for i < n. */
float lrt_dot_f32(const float *a, const float *b, int64_t n);

#endif
