/* attention.c: lrt_attention, fused attention over the KV cache.
 *
 * For each query token and cache head, the visible keys are scored in
 * blocks of ATT_BLOCK against every query head of the GQA group at once
 * (the kernels' att_scores), and the output is built with the online
 * softmax of FlashAttention (Dao et al. 2022, algorithm 1, per query row):
 * keep the running max m and denominator l, rescale the accumulator by
 * exp(m_old - m_new) when a block raises the max, add p.V (att_accum). The
 * cache is read once per (token, cache head), scores never leave a small
 * buffer, and (token, cache head) jobs are spread over the pool. A call
 * with fewer jobs than the threads want (decode) splits each job's keys
 * into spans whose partial results (max, sum, unnormalized output) are
 * merged afterwards, the combine of flash decoding (the Go backend's
 * attendSpans has the same rule). A Q8_0 or
 * Q4_0 cache is read as blocks, as llama.cpp's CPU flash attention reads
 * it: the group's queries are quantized once per job to Q8_0 and scored
 * by the matmul's integer dots, and the value blocks are widened in
 * registers as they are summed (att_accum_q). A head's
 * sink logit (gpt-oss), if given, joins its softmax's denominator at the
 * end, relative to the running max as the scores are. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define ATT_BLOCK 64
#define ATT_MAX_HEAD 1024
/* ATT_MIN_SPAN is the fewest keys of a span of a split job (a span costs a
 * combine of ng*(hd+2) floats); ATT_CHUNKS the items wanted per thread. */
#define ATT_MIN_SPAN 256
#define ATT_CHUNKS 4

typedef struct {
  const lrt_attn_params *a;
  const kernels *k;
  int spans;          /* key spans per (token, cache head) job */
  float *part;        /* spans > 1: per item, the group's maxima, sums, then outputs */
  _Atomic int failed; /* a job could not allocate its buffers */
} att_task;

/* att_spans is how many spans to split the keys of each of jobs jobs into
 * on nth threads when each sees at least keys keys: enough that every
 * thread gets work, none shorter than ATT_MIN_SPAN; 1 where the jobs alone
 * are enough. */
static int att_spans(int nth, int64_t jobs, int64_t keys) {
  const int64_t want = (int64_t)nth * ATT_CHUNKS;
  if (nth <= 1 || jobs >= want || keys < 2 * ATT_MIN_SPAN) return 1;
  const int64_t by_jobs = (want + jobs - 1) / jobs, by_keys = keys / ATT_MIN_SPAN;
  return (int)(by_jobs < by_keys ? by_jobs : by_keys);
}

/* att_visible sets [*lo, *hi) to the cache rows query row t sees. */
static void att_visible(const lrt_attn_params *a, int64_t t, int64_t *lo, int64_t *hi) {
  const int64_t pos = a->pos0 + t;
  *hi = a->n_kv;
  *lo = 0;
  if (a->causal && pos + 1 < *hi) *hi = pos + 1;
  if (a->window > 0 && pos - a->window + 1 > *lo) *lo = pos - a->window + 1;
}

/* att_norm sets o = acc / (l + e^(sink - m)) for query head h. */
static void att_norm(const lrt_attn_params *a, int h, const float *acc, float m, float l, float *o) {
  if (a->sinks) l += expf(a->sinks[h] - m);
  const float inv = l > 0 ? 1.0f / l : 0.0f;
  for (int d = 0; d < a->head_dim; d++) o[d] = acc[d] * inv;
}

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

/* att_rows runs items [lo_item, hi_item): item = job * spans + span, job =
 * token t * n_kv_heads + cache head h, covering the group of query heads
 * that share cache head h, so each key and value row is read once for the
 * whole group; the span is a share of the job's visible keys. One span
 * writes the normalized output, several their partial results. */
static void att_rows(void *arg, int64_t lo_item, int64_t hi_item) {
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
  float *s = mem + (size_t)ng * hd;
  block_q8a *qb = (block_q8a *)(mem + nf);
  for (int64_t item = lo_item; item < hi_item; item++) {
    const int64_t job = item / at->spans;
    const int span = (int)(item % at->spans);
    const int64_t t = job / a->n_kv_heads;
    const int kvh = (int)(job % a->n_kv_heads);
    const float *q = a->q + (t * a->n_heads + (int64_t)kvh * ng) * hd;
    if (quant)
      for (int g = 0; g < ng; g++) quant_q8_0_ref(q + (size_t)g * hd, qb + (size_t)g * (hd / QK), hd);
    float *o = a->out + (t * a->n_heads + (int64_t)kvh * ng) * hd;
    /* this span's keys: [lo, hi) */
    int64_t lo, hi;
    att_visible(a, t, &lo, &hi);
    if (at->spans > 1) {
      const int64_t nk = hi > lo ? hi - lo : 0, first = lo;
      lo = first + span * nk / at->spans;
      hi = first + (span + 1) * nk / at->spans;
    }
    /* the running maxima m, sums l and outputs acc: in the item's part of
     * the split's buffer, else in mem */
    float *m, *l, *acc;
    if (at->spans > 1) {
      m = at->part + (size_t)item * (size_t)ng * (hd + 2);
      l = m + ng;
      acc = l + ng;
    } else {
      acc = mem;
      m = s + (size_t)ng * ATT_BLOCK;
      l = m + ng;
    }
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
    if (at->spans == 1)
      for (int g = 0; g < ng; g++)
        att_norm(a, kvh * ng + g, acc + (size_t)g * hd, m[g], l[g], o + (size_t)g * hd);
  }
  free(mem);
}

/* att_combine merges the spans' partial results of the jobs into out: per
 * query head, with M the largest span max, out = sum_s acc_s e^(m_s - M) /
 * (sum_s l_s e^(m_s - M) + e^(sink - M)). tmp holds a head. */
static void att_combine(const att_task *at, int64_t njobs, float *tmp) {
  const lrt_attn_params *a = at->a;
  const int hd = a->head_dim, ng = a->n_heads / a->n_kv_heads;
  const size_t ps = (size_t)ng * (hd + 2);
  for (int64_t job = 0; job < njobs; job++) {
    const int64_t t = job / a->n_kv_heads;
    const int kvh = (int)(job % a->n_kv_heads);
    const float *parts = at->part + (size_t)job * at->spans * ps;
    for (int g = 0; g < ng; g++) {
      float mx = -INFINITY, sum = 0;
      for (int sp = 0; sp < at->spans; sp++) mx = parts[sp * ps + g] > mx ? parts[sp * ps + g] : mx;
      memset(tmp, 0, sizeof(float) * (size_t)hd);
      for (int sp = 0; sp < at->spans; sp++) {
        const float *p = parts + sp * ps;
        if (p[ng + g] == 0) continue; /* an empty span */
        const float r = expf(p[g] - mx);
        sum += p[ng + g] * r;
        at->k->axpy_f32(tmp, r, p + 2 * ng + (size_t)g * hd, hd);
      }
      att_norm(a, kvh * ng + g, tmp, mx, sum, a->out + (t * a->n_heads + (int64_t)kvh * ng + g) * hd);
    }
  }
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
  att_task at = {a, pool_kernels(p), 1, NULL, 0};
  const int64_t njobs = a->ntok * a->n_kv_heads;
  /* the fewest keys a row of the call sees: its first row's (causal) or
   * last row's (a window) */
  int64_t lo0, hi0, lo1, hi1;
  att_visible(a, 0, &lo0, &hi0);
  att_visible(a, a->ntok - 1, &lo1, &hi1);
  const int64_t keys = hi0 - lo0 < hi1 - lo1 ? hi0 - lo0 : hi1 - lo1;
  at.spans = att_spans(lrt_pool_threads(p), njobs, keys);
  float *tmp = NULL;
  if (at.spans > 1) {
    const int ng = a->n_heads / a->n_kv_heads;
    at.part = malloc(sizeof(float) * ((size_t)(njobs * at.spans) * (size_t)ng * (a->head_dim + 2) + (size_t)a->head_dim));
    if (at.part)
      tmp = at.part + (size_t)(njobs * at.spans) * (size_t)ng * (a->head_dim + 2);
    else
      at.spans = 1; /* no memory for the split: run the jobs whole */
  }
  pool_begin(p);
  /* (token, cache head[, span]) items, one at a time: costs grow along a
   * causal batch */
  pool_run(p, att_rows, &at, njobs * at.spans, 1);
  pool_end(p);
  if (at.spans > 1 && !atomic_load(&at.failed)) att_combine(&at, njobs, tmp);
  free(at.part);
  return atomic_load(&at.failed) ? LRT_ENOMEM : LRT_OK;
}
