/* lrt.c: ABI version, CPU feature dispatch and type geometry. */
#include <pthread.h>

#include "internal.h"

int32_t lrt_abi_version(void) { return LRT_ABI_VERSION; }

int64_t lrt_struct_size(int32_t which) {
  switch (which) {
  case 2:
    return (int64_t)sizeof(lrt_attn_params);
  case 3:
    return (int64_t)sizeof(lrt_norm_params);
  case 4:
    return (int64_t)sizeof(lrt_elt_params);
  case 5:
    return (int64_t)sizeof(lrt_product);
  }
  return -1;
}

/* Kernel sets, best last; n_sets of them are available on this CPU. */
#define MAX_SETS 4
static kernels sets[MAX_SETS];
static int n_sets;
static pthread_once_t sets_once = PTHREAD_ONCE_INIT;

/* choose fills the tables once. Each set starts from the generic kernels
 * and overrides what its ISA speeds up, so a higher level keeps the lower
 * one's kernels for what it does not redo. */
static void choose(void) {
  lrt_fill_generic(&sets[n_sets++]);
#if defined(__x86_64__) || defined(_M_X64)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("f16c")) {
    sets[n_sets] = sets[n_sets - 1];
    lrt_fill_avx2(&sets[n_sets++]);
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni") &&
        __builtin_cpu_supports("avx512dq")) {
      sets[n_sets] = sets[n_sets - 1];
      lrt_fill_avx512(&sets[n_sets++]);
      /* the BF16 pair panels: the default only where they beat BF16
       * widened to float panels (AMD's cores; not Intel's: see
       * lrt_fill_avx512bf16), listed wherever they run */
      if (__builtin_cpu_supports("avx512bf16")) {
        sets[n_sets] = sets[n_sets - 1];
        lrt_fill_avx512bf16(&sets[n_sets++]);
        if (!__builtin_cpu_is("amd")) { /* the plain set stays the best */
          const kernels t = sets[n_sets - 1];
          sets[n_sets - 1] = sets[n_sets - 2];
          sets[n_sets - 2] = t;
        }
      }
    }
  }
#elif defined(__aarch64__)
  sets[n_sets] = sets[n_sets - 1];
  lrt_fill_neon(&sets[n_sets++]);
#endif
}

const kernels *lrt_kernels(const char *isa) {
  pthread_once(&sets_once, choose);
  if (!isa || !*isa) return &sets[n_sets - 1];
  for (int i = 0; i < n_sets; i++)
    if (strcmp(sets[i].name, isa) == 0) return &sets[i];
  return NULL;
}

/* copy_name writes s into buf (at most cap bytes) and returns strlen(s). */
static int64_t copy_name(const char *s, char *buf, int64_t cap) {
  const int64_t n = (int64_t)strlen(s);
  if (buf && cap > 0) memcpy(buf, s, (size_t)(n < cap ? n : cap));
  return n;
}

int64_t lrt_isa_list(char *buf, int64_t cap) {
  pthread_once(&sets_once, choose);
  char list[128] = "";
  for (int i = n_sets - 1; i >= 0; i--) {
    strcat(list, sets[i].name);
    if (i > 0) strcat(list, ",");
  }
  return copy_name(list, buf, cap);
}

int64_t lrt_pool_isa(const lrt_pool *p, char *buf, int64_t cap) {
  return p ? copy_name(pool_kernels(p)->name, buf, cap) : 0;
}

int act_format(int32_t t) {
  switch (t) {
  case LRT_Q4_0:
  case LRT_Q4_1:
  case LRT_Q5_0:
  case LRT_Q5_1:
  case LRT_Q8_0:
  case LRT_IQ4_NL:
  case LRT_MXFP4:
    return ACT_Q8A;
  case LRT_Q2_K:
  case LRT_Q3_K:
  case LRT_IQ4_XS:
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
  case ACT_BF16:
    return n * 2;
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
  case LRT_Q4_1:
  case LRT_Q5_0:
  case LRT_Q5_1:
  case LRT_Q8_0:
  case LRT_IQ4_NL:
  case LRT_MXFP4:
    return QK;
  case LRT_Q2_K:
  case LRT_Q3_K:
  case LRT_IQ4_XS:
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
  case LRT_Q4_1:
    return n / QK * (int64_t)sizeof(block_q4_1);
  case LRT_Q5_0:
    return n / QK * (int64_t)sizeof(block_q5_0);
  case LRT_Q5_1:
    return n / QK * (int64_t)sizeof(block_q5_1);
  case LRT_Q8_0:
    return n / QK * (int64_t)sizeof(block_q8_0);
  case LRT_Q4_K:
    return n / QKK * (int64_t)sizeof(block_q4_K);
  case LRT_Q5_K:
    return n / QKK * (int64_t)sizeof(block_q5_K);
  case LRT_Q6_K:
    return n / QKK * (int64_t)sizeof(block_q6_K);
  case LRT_Q2_K:
    return n / QKK * (int64_t)sizeof(block_q2_K);
  case LRT_Q3_K:
    return n / QKK * (int64_t)sizeof(block_q3_K);
  case LRT_IQ4_NL:
    return n / QK * (int64_t)sizeof(block_iq4_nl);
  case LRT_IQ4_XS:
    return n / QKK * (int64_t)sizeof(block_iq4_xs);
  case LRT_MXFP4:
    return n / QK * (int64_t)sizeof(block_mxfp4);
  }
  return 0;
}

int32_t lrt_supports(int32_t t) {
  return t >= 0 && t < LRT_NTYPES && lrt_kernels(NULL)->dot[t] != NULL;
}
