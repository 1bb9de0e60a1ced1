/* membw.c: lrt_read_bytes, a memory-read probe. Decode is bound by how fast
 * the weights stream from memory; timing this loop over a buffer much
 * larger than the caches gives the bound to report decode speed against. */
#include <stdatomic.h>

#include "internal.h"

#define READ_CHUNK (1 << 20)

typedef struct {
  const uint64_t *buf;
  int64_t words;
  _Atomic uint64_t sum;
} read_task;

/* v2u is two 64-bit words: 16-byte loads in every build (SSE2, NEON). */
typedef uint64_t v2u __attribute__((vector_size(16)));

static void read_chunks(void *arg, int64_t lo, int64_t hi) {
  read_task *a = arg;
  const int64_t per = READ_CHUNK / 8;
  const int64_t w0 = lo * per, w1 = hi * per < a->words ? hi * per : a->words;
  /* a cache line per step in four independent chains */
  v2u s0 = {0, 0}, s1 = s0, s2 = s0, s3 = s0;
  int64_t i = w0;
  for (; i + 8 <= w1; i += 8) {
    v2u x0, x1, x2, x3;
    memcpy(&x0, a->buf + i, 16);
    memcpy(&x1, a->buf + i + 2, 16);
    memcpy(&x2, a->buf + i + 4, 16);
    memcpy(&x3, a->buf + i + 6, 16);
    s0 ^= x0;
    s1 ^= x1;
    s2 ^= x2;
    s3 ^= x3;
  }
  const v2u s = s0 ^ s1 ^ s2 ^ s3;
  uint64_t x = s[0] ^ s[1];
  for (; i < w1; i++) x ^= a->buf[i];
  atomic_fetch_xor_explicit(&a->sum, x, memory_order_relaxed);
}

int32_t lrt_read_bytes(lrt_pool *p, const void *buf, int64_t n, uint64_t *xor_out) {
  if (!p || n < 0 || (n > 0 && !buf) || !xor_out) return LRT_EINVAL;
  read_task a = {buf, n / 8, 0};
  pool_begin(p);
  pool_run(p, read_chunks, &a, (n + READ_CHUNK - 1) / READ_CHUNK, 1);
  pool_end(p);
  *xor_out = atomic_load(&a.sum);
  return LRT_OK;
}
