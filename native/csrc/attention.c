/* attention.c: lrt_attention, fused attention over the KV cache.
 *
 * For each query token and cache head, the visible keys are scored in
 * blocks of ATT_BLOCK against every query head of the GQA group at once
 * (the kernels' att_scores), and the output is built with the online
 * softmax of FlashAttention (Dao et al. 2022, algorithm 1, per query row):
 * keep the running max m and denominator l, rescale the accumulator by
 * exp(m_old - m_new) when a block raises the max, add p.V (att_accum). The
 * cache is read once per (token, cache head), scores never leave a small
 * buffer, and (token, cache head) jobs are spread over the pool. A Q8_0 or
 * Q4_0 cache is read as blocks, as llama.cpp's CPU flash attention reads
 * it: the group's queries are quantized once per job to Q8_0 and scored
 * by the matmul's integer dots, and the value blocks are widened in
 * registers as they are summed (att_accum_q). A head's
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

/* kv_quantized reports whether the cache holds ggml blocks (Q8_0, Q4_0). */
static int kv_quantized(int32_t t) { return t == LRT_Q8_0 || t == LRT_Q4_0; }

/* kv_block_bytes is the size of a cache block of 32 elements of type t. */
static size_t kv_block_bytes(int32_t t) { return t == LRT_Q8_0 ? sizeof(block_q8_0) : sizeof(block_q4_0); }

/* quant_q8_0_ref sets y to the Q8_0 blocks of x as ggml's
 * quantize_row_q8_0_ref makes them (the scale rounded to f16, quants
 * rounded half away from zero), stored as block_q8a for the matmul's
 * integer dots: the query's rounding in llama.cpp's CPU flash attention
 * over a quantized K (K's vec_dot_type is Q8_0). */
static void quant_q8_0_ref(const float *x, block_q8a *y, int n) {
  for (int b = 0; b < n / QK; b++, x += QK) {
    float amax = 0;
    for (int j = 0; j < QK; j++) {
      const float v = fabsf(x[j]);
      amax = v > amax ? v : amax;
    }
    const float d = amax / 127, id = d != 0 ? 1 / d : 0;
    int sum = 0;
    for (int j = 0; j < QK; j++) {
      y[b].qs[j] = (int8_t)roundf(x[j] * id);
      sum += y[b].qs[j];
    }
    y[b].d = lrt_f16_to_f32(lrt_f32_to_f16(d));
    y[b].s = y[b].d * (float)sum;
  }
}

/* att_scores_q sets s[g*ss + j] = q_g . k_j for the ng query rows of
 * block_q8a blocks at q (qs bytes apart) and the nk key rows of type t
 * blocks at k (ks bytes apart), hd elements: the matmul's tiles (each key
 * block unpacked once for up to 4 query rows), or its row dots. */
static void att_scores_q(const kernels *kn, int32_t t, const void *q, size_t qs, int ng, const void *k,
                         size_t ks, int nk, int hd, float *s, size_t ss) {
  const tile_fn tile = kn->tile[t];
  const int tr = tile ? kn->tile_rows[t] : 1;
  for (int g0 = 0; g0 < ng; g0 += 4) {
    const int nt = ng - g0 < 4 ? ng - g0 : 4;
    const void *qg = (const char *)q + (size_t)g0 * qs;
    for (int j = 0; j < nk; j += tr) {
      const void *kj = (const char *)k + (size_t)j * ks;
      float *sj = s + (size_t)g0 * ss + j;
      if (tile)
        tile(hd, kj, ks, nk - j < tr ? nk - j : tr, qg, qs, nt, sj, ss);
      else
        kn->dot[t](hd, kj, qg, qs, nt, sj, ss);
    }
  }
}

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
  /* a quantized cache: the group's queries as Q8_0 blocks (qb, qbs bytes a
   * row), scored against the key blocks and summing the value blocks
   * directly; rowb and headb are the bytes of a cache row and of a head */
  const int quant = kv_quantized(a->kv_type);
  const size_t qbs = quant ? (size_t)(hd / QK) * sizeof(block_q8a) : 0;
  const size_t rowb = quant ? (size_t)(a->kv_stride / QK) * kv_block_bytes(a->kv_type) : 0;
  const size_t headb = quant ? (size_t)(hd / QK) * kv_block_bytes(a->kv_type) : 0;
  /* per query head: accumulator [hd], scores [ATT_BLOCK], max, sum; then
   * the query blocks (a block_q8a is 10 floats) */
  const size_t nf = (size_t)ng * (hd + ATT_BLOCK + 2);
  float *mem = malloc(sizeof(float) * nf + (size_t)ng * qbs);
  if (!mem) {
    atomic_store(&at->failed, 1);
    return;
  }
  float *acc = mem, *s = acc + (size_t)ng * hd, *m = s + (size_t)ng * ATT_BLOCK, *l = m + ng;
  block_q8a *qb = (block_q8a *)(mem + nf);
  for (int64_t job = lo_job; job < hi_job; job++) {
    const int64_t t = job / a->n_kv_heads;
    const int kvh = (int)(job % a->n_kv_heads);
    const float *q = a->q + (t * a->n_heads + (int64_t)kvh * ng) * hd;
    if (quant)
      for (int g = 0; g < ng; g++) quant_q8_0_ref(q + (size_t)g * hd, qb + (size_t)g * (hd / QK), hd);
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
      const size_t qoff = (size_t)j0 * rowb + (size_t)kvh * headb;
      if (quant)
        att_scores_q(k, a->kv_type, qb, qbs, ng, (const uint8_t *)a->k + qoff, rowb, nb, hd, s, ATT_BLOCK);
      else
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
      if (quant)
        k->att_accum_q[a->kv_type](acc, hd, ng, s, ATT_BLOCK, (const uint8_t *)a->v + qoff, rowb, nb, hd);
      else
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
  if (a->kv_type != LRT_F32 && a->kv_type != LRT_F16 && !kv_quantized(a->kv_type)) return LRT_EUNSUPPORTED;
  if (kv_quantized(a->kv_type) && (a->head_dim % QK != 0 || a->kv_stride % QK != 0)) return LRT_EINVAL;
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
