/* attention.c: lrt_attention, fused attention over the KV cache.
 *
 * For each query token and cache head, the visible keys are scored in
 * blocks of ATT_BLOCK against every query head of the GQA group at once
 * (the kernels' att_scores), and the output is built with the online
 * softmax of FlashAttention (Dao et al. 2022, algorithm 1, per query row):
 * keep the running max m and denominator l, rescale the accumulator by
 * exp(m_old - m_new) when a block raises the max, add p.V (att_accum). The
 * cache is read once per (token, cache head), scores never leave a small
 * buffer, and (token, cache head) jobs are spread over the pool. A head's
 * sink logit (gpt-oss), if given, joins its softmax's denominator at the
 * end, relative to the running max as the scores are. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "internal.h"

#define ATT_BLOCK 64
#define ATT_MAX_HEAD 1024

typedef struct {
  const lrt_attn_params *a;
  const kernels *k;
  _Atomic int failed; /* a job could not allocate its buffers */
} att_task;

/* att_rows runs jobs [lo, hi): job = token t * n_kv_heads + cache head h,
 * covering the group of query heads that share cache head h, so each key
 * and value row is read once for the whole group. */
static void att_rows(void *arg, int64_t lo_job, int64_t hi_job) {
  att_task *at = arg;
  const lrt_attn_params *a = at->a;
  const kernels *k = at->k;
  const int hd = a->head_dim;
  const int ng = a->n_heads / a->n_kv_heads;
  const int f16 = a->kv_type == LRT_F16;
  /* per query head: accumulator [hd], scores [ATT_BLOCK], max, sum */
  float *mem = malloc(sizeof(float) * (size_t)ng * (hd + ATT_BLOCK + 2));
  if (!mem) {
    atomic_store(&at->failed, 1);
    return;
  }
  float *acc = mem, *s = acc + (size_t)ng * hd, *m = s + (size_t)ng * ATT_BLOCK, *l = m + ng;
  for (int64_t job = lo_job; job < hi_job; job++) {
    const int64_t t = job / a->n_kv_heads;
    const int kvh = (int)(job % a->n_kv_heads);
    const float *q = a->q + (t * a->n_heads + (int64_t)kvh * ng) * hd;
    float *o = a->out + (t * a->n_heads + (int64_t)kvh * ng) * hd;
    /* visible keys: [lo, hi) */
    const int64_t pos = a->pos0 + t;
    int64_t hi = a->n_kv, lo = 0;
    if (a->causal && pos + 1 < hi) hi = pos + 1;
    if (a->window > 0 && pos - a->window + 1 > lo) lo = pos - a->window + 1;
    memset(acc, 0, sizeof(float) * (size_t)ng * hd);
    for (int g = 0; g < ng; g++) {
      m[g] = -INFINITY;
      l[g] = 0;
    }
    for (int64_t j0 = lo; j0 < hi; j0 += ATT_BLOCK) {
      const int nb = hi - j0 < ATT_BLOCK ? (int)(hi - j0) : ATT_BLOCK;
      const size_t off = (size_t)j0 * a->kv_stride + (size_t)kvh * hd;
      const void *kb = f16 ? (const void *)((const uint16_t *)a->k + off) : (const void *)((const float *)a->k + off);
      const void *vb = f16 ? (const void *)((const uint16_t *)a->v + off) : (const void *)((const float *)a->v + off);
      k->att_scores(q, hd, ng, kb, a->kv_stride, f16, nb, hd, s, ATT_BLOCK);
      for (int g = 0; g < ng; g++) {
        float *sg = s + (size_t)g * ATT_BLOCK;
        float bm = -INFINITY;
        for (int j = 0; j < nb; j++) {
          float x = sg[j] * a->scale;
          if (a->softcap > 0) x = a->softcap * tanhf(x / a->softcap);
          sg[j] = x;
          bm = x > bm ? x : bm;
        }
        if (bm > m[g]) {
          const float r = expf(m[g] - bm); /* 0 on the first block */
          float *ag = acc + (size_t)g * hd;
          for (int d = 0; d < hd; d++) ag[d] *= r;
          l[g] *= r;
          m[g] = bm;
        }
        l[g] += k->exp_sum(sg, nb, m[g]);
      }
      k->att_accum(acc, hd, ng, s, ATT_BLOCK, vb, a->kv_stride, f16, nb, hd);
    }
    for (int g = 0; g < ng; g++) {
      /* a sink joins the denominator: e^(sink - m), m the scores' max */
      if (a->sinks) l[g] += expf(a->sinks[kvh * ng + g] - m[g]);
      const float inv = l[g] > 0 ? 1.0f / l[g] : 0.0f;
      for (int d = 0; d < hd; d++) o[(size_t)g * hd + d] = acc[(size_t)g * hd + d] * inv;
    }
  }
  free(mem);
}

int32_t lrt_attention(lrt_pool *p, const lrt_attn_params *a) {
  if (!p || !a) return LRT_EINVAL;
  if (a->ntok < 0 || a->n_kv < 0 || a->n_heads <= 0 || a->n_kv_heads <= 0 || a->head_dim <= 0)
    return LRT_EINVAL;
  if (a->n_heads % a->n_kv_heads != 0) return LRT_EINVAL;
  if (a->kv_stride < (int64_t)a->n_kv_heads * a->head_dim) return LRT_EINVAL;
  if (a->kv_type != LRT_F32 && a->kv_type != LRT_F16) return LRT_EUNSUPPORTED;
  if (a->head_dim > ATT_MAX_HEAD) return LRT_EUNSUPPORTED;
  if (a->ntok == 0) return LRT_OK;
  if (a->pos0 < 0) return LRT_EINVAL;
  if (!a->q || !a->out || (a->n_kv > 0 && (!a->k || !a->v))) return LRT_EINVAL;
  att_task at = {a, pool_kernels(p), 0};
  pool_begin(p);
  /* (token, cache head) jobs, one at a time: costs grow along a causal batch */
  pool_run(p, att_rows, &at, a->ntok * a->n_kv_heads, 1);
  pool_end(p);
  return atomic_load(&at.failed) ? LRT_ENOMEM : LRT_OK;
}
