/* attention.c: lrt_attention, fused attention over the KV cache.
 *
 * For each (query token, head) the visible keys are scored in blocks of
 * ATT_BLOCK, and the output is built with the online softmax of
 * FlashAttention (Dao et al. 2022, algorithm 1, one query row at a time):
 * keep the running max m and denominator l, rescale the accumulator by
 * exp(m_old - m_new) when a block raises the max. The cache is read once
 * per (token, head) and scores never leave the stack. (token, head) pairs
 * are spread over the pool; GQA maps head h to cache head h/(n_heads/n_kv). */
#include <math.h>

#include "internal.h"

#define ATT_BLOCK 128
#define ATT_MAX_HEAD 1024

typedef struct {
  const lrt_attn_params *a;
  const kernels *k;
} att_task;

static void att_rows(void *arg, int64_t lo_job, int64_t hi_job) {
  const att_task *at = arg;
  const lrt_attn_params *a = at->a;
  const kernels *k = at->k;
  const int hd = a->head_dim;
  const int group = a->n_heads / a->n_kv_heads;
  float acc[ATT_MAX_HEAD];
  float s[ATT_BLOCK];
  for (int64_t job = lo_job; job < hi_job; job++) {
    const int64_t t = job / a->n_heads;
    const int h = (int)(job % a->n_heads);
    const int kvh = h / group;
    const float *q = a->q + (t * a->n_heads + h) * hd;
    float *o = a->out + (t * a->n_heads + h) * hd;
    /* visible keys: [lo, hi) */
    int64_t hi = a->n_kv;
    int64_t lo = 0;
    const int64_t pos = a->pos0 + t;
    if (a->causal && pos + 1 < hi) hi = pos + 1;
    if (a->window > 0 && pos - a->window + 1 > lo) lo = pos - a->window + 1;
    for (int d = 0; d < hd; d++) acc[d] = 0;
    float m = -INFINITY, l = 0;
    for (int64_t j0 = lo; j0 < hi; j0 += ATT_BLOCK) {
      const int nb = hi - j0 < ATT_BLOCK ? (int)(hi - j0) : ATT_BLOCK;
      float bm = -INFINITY;
      for (int j = 0; j < nb; j++) {
        const int64_t off = (j0 + j) * a->kv_stride + (int64_t)kvh * hd;
        float x = a->kv_type == LRT_F16 ? k->dot_f16((const uint16_t *)a->k + off, q, hd)
                                        : k->dot_f32((const float *)a->k + off, q, hd);
        x *= a->scale;
        if (a->softcap > 0) x = a->softcap * tanhf(x / a->softcap);
        s[j] = x;
        bm = x > bm ? x : bm;
      }
      if (bm > m) {
        const float r = expf(m - bm); /* 0 on the first block */
        for (int d = 0; d < hd; d++) acc[d] *= r;
        l *= r;
        m = bm;
      }
      for (int j = 0; j < nb; j++) {
        const float pj = expf(s[j] - m);
        l += pj;
        const int64_t off = (j0 + j) * a->kv_stride + (int64_t)kvh * hd;
        if (a->kv_type == LRT_F16)
          k->axpy_f16(acc, pj, (const uint16_t *)a->v + off, hd);
        else
          k->axpy_f32(acc, pj, (const float *)a->v + off, hd);
      }
    }
    const float inv = l > 0 ? 1.0f / l : 0.0f;
    for (int d = 0; d < hd; d++) o[d] = acc[d] * inv;
  }
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
  att_task at = {a, pool_kernels(p)};
  pool_begin(p);
  /* (token, head) jobs; one each, the costs differ along a causal batch */
  pool_run(p, att_rows, &at, a->ntok * a->n_heads, 1);
  pool_end(p);
  return LRT_OK;
}
