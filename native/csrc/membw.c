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

static void read_chunks(void *arg, int64_t lo, int64_t hi) {
  read_task *a = arg;
  const int64_t per = READ_CHUNK / 8;
  const int64_t w0 = lo * per, w1 = hi * per < a->words ? hi * per : a->words;
  /* four independent chains so loads are not serialized by the xor */
  uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t i = w0;
  for (; i + 4 <= w1; i += 4) {
    s0 ^= a->buf[i];
    s1 ^= a->buf[i + 1];
    s2 ^= a->buf[i + 2];
    s3 ^= a->buf[i + 3];
  }
  for (; i < w1; i++) s0 ^= a->buf[i];
  atomic_fetch_xor_explicit(&a->sum, s0 ^ s1 ^ s2 ^ s3, memory_order_relaxed);
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
