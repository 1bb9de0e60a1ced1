/* lrt.c: ABI version, CPU feature dispatch and type geometry. */
#include <pthread.h>

#include "internal.h"

int32_t lrt_abi_version(void) { return LRT_ABI_VERSION; }

int64_t lrt_struct_size(int32_t which) {
  switch (which) {
  case 1:
    return (int64_t)sizeof(lrt_rope_params);
  case 2:
    return (int64_t)sizeof(lrt_attn_params);
  case 3:
    return (int64_t)sizeof(lrt_norm_params);
  }
  return -1;
}

static kernels table;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

/* choose fills the table once: the generic kernels, then, in order, every
 * ISA level this CPU supports overrides what it speeds up. */
static void choose(void) {
  lrt_fill_generic(&table);
#if defined(__x86_64__) || defined(_M_X64)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("f16c")) {
    lrt_fill_avx2(&table);
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni") &&
        __builtin_cpu_supports("avx512dq"))
      lrt_fill_avx512(&table);
  }
#elif defined(__aarch64__)
  lrt_fill_neon(&table);
#endif
}

const kernels *lrt_kernels(void) {
  pthread_once(&table_once, choose);
  return &table;
}

const char *lrt_isa(void) { return lrt_kernels()->name; }

int act_format(int32_t t) {
  switch (t) {
  case LRT_Q4_0:
  case LRT_Q8_0:
    return ACT_Q8A;
  case LRT_Q4_K:
  case LRT_Q5_K:
  case LRT_Q6_K:
    return ACT_Q8K;
  }
  return ACT_F32;
}

int64_t act_row_bytes(int fmt, int64_t n) {
  switch (fmt) {
  case ACT_Q8A:
    return n / QK * (int64_t)sizeof(block_q8a);
  case ACT_Q8K:
    return n / QKK * (int64_t)sizeof(block_q8K);
  }
  return n * 4;
}

int64_t weight_block(int32_t t) {
  switch (t) {
  case LRT_F32:
  case LRT_F16:
  case LRT_BF16:
    return 1;
  case LRT_Q4_0:
  case LRT_Q8_0:
    return QK;
  case LRT_Q4_K:
  case LRT_Q5_K:
  case LRT_Q6_K:
    return QKK;
  }
  return 0;
}

int64_t weight_row_bytes(int32_t t, int64_t n) {
  switch (t) {
  case LRT_F32:
    return 4 * n;
  case LRT_F16:
  case LRT_BF16:
    return 2 * n;
  case LRT_Q4_0:
    return n / QK * (int64_t)sizeof(block_q4_0);
  case LRT_Q8_0:
    return n / QK * (int64_t)sizeof(block_q8_0);
  case LRT_Q4_K:
    return n / QKK * (int64_t)sizeof(block_q4_K);
  case LRT_Q5_K:
    return n / QKK * (int64_t)sizeof(block_q5_K);
  case LRT_Q6_K:
    return n / QKK * (int64_t)sizeof(block_q6_K);
  }
  return 0;
}

int32_t lrt_supports(int32_t t) {
  return t >= 0 && t < 31 && lrt_kernels()->dot[t] != NULL;
}
