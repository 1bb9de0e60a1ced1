/* attention.c: lrt_attention, fused attention over the KV cache.
 *
 * A job is a query token (or a span of its keys). Its visible keys go by
 * in blocks of ATT_BLOCK, and the output is built with the online softmax
 * of FlashAttention (Dao et al. 2022, algorithm 1, per query row): keep
 * the running max m and denominator l, rescale the accumulator by
 * exp(m_old - m_new) when a block raises the max, add p.V (att_accum).
 * Within a block, the scores and then the value sums walk sub-blocks of
 * ATT_SUB rows through every cache head in turn, each cache head's group
 * of query heads at once (att_scores: a key row is read once for the
 * GQA group): the cache is read as whole rows, one small region at a
 * time, which the prefetchers follow, rather than one head's slice of a
 * block's rows after another's (the cold cache, as decode meets it, read
 * 1.5x faster). A call with fewer jobs than the threads want (decode)
 * splits each job's keys into spans whose partial results (max, sum,
 * unnormalized output) are merged afterwards, the combine of flash
 * decoding (the Go backend's attendSpans has the same rule). A Q8_0 or
 * Q4_0 cache is read as blocks, as llama.cpp's CPU flash attention reads
 * it: the queries are quantized to Q8_0 once per token (for a split, once
 * for all its spans) and scored by integer dots, a GQA group's heads at
 * once where the set has att_scores_qg (each key pair read once as
 * unsigned bytes for the group), else by the matmul's tiles; the value
 * blocks are widened in registers as they are summed (att_accum_q). A
 * head's sink logit (gpt-oss), if given, joins its softmax's denominator
 * at the end, relative to the running max as the scores are. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ATT_BLOCK is the keys of a softmax block; ATT_SUB (ATT_SUBQ for a
 * quantized cache) those of a sub-block taken through the cache heads:
 * measured best on an AVX-512 machine (a sub-block of 32 F16 rows read a
 * cold cache 1.5x slower than 16; Q8_0 rows 1.1x slower at 16 than 64). */
#define ATT_BLOCK 256
#define ATT_SUB 16
#define ATT_SUBQ 64
#define ATT_MAX_HEAD 1024
/* ATT_MIN_SPAN is the fewest keys of a span of a split job (a span costs a
 * combine of n_heads*(hd+2) floats); ATT_CHUNKS the items wanted per thread. */
#define ATT_MIN_SPAN 256
#define ATT_CHUNKS 4

typedef struct {
  const lrt_attn_params *a;
  const kernels *k;
  int spans;          /* key spans per token job */
  float *part;        /* spans > 1: per item, the heads' maxima, sums, then outputs */
  uint8_t *qrows;     /* spans > 1 over a quantized cache: each token's queries, quantized once (att_quant_row) */
  char *slots;        /* per-thread working memory in the pool's scratch, */
  size_t slot_bytes;  /* slot_bytes each, */
  _Atomic uint64_t free_slots; /* a set bit per free one */
  _Atomic int failed; /* a job could not allocate its buffers */
  /* tiles (att_tiled): the packed keys (kp) and values (vp) of positions
   * [kf, kf + nkp) */
  int64_t kf, nkp;
  float *kp, *vp;
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

/* att_pack_qg writes a query head's hd/QK blocks q as att_scores_qg reads
 * them over a cache of type t (internal.h, ATT_QG_BYTES). */
static void att_pack_qg(const block_q8a *q, int hd, int32_t t, uint8_t *dst) {
  for (int p = 0; p < hd / 64; p++, dst += 192) {
    const block_q8a *b = q + 2 * p;
    int32_t sum[2] = {0, 0};
    for (int i = 0; i < 2; i++)
      for (int e = 0; e < QK; e++) sum[i] += b[i].qs[e];
    for (int j = 0; j < 64; j++) {
      const int blk = t == LRT_Q4_0 ? j / 16 % 2 : j / 32;
      const int e = t == LRT_Q4_0 ? j % 16 + 16 * (j / 32) : j % 32;
      dst[j] = (uint8_t)b[blk].qs[e];
    }
    for (int l = 0; l < 16; l++) {
      const int blk = t == LRT_Q4_0 ? l / 4 % 2 : l / 8;
      const int32_t corr = t == LRT_Q4_0 ? -sum[blk] : -16 * sum[blk];
      memcpy(dst + 64 + 4 * l, &corr, sizeof corr);
      memcpy(dst + 128 + 4 * l, &b[blk].d, sizeof b[blk].d);
    }
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

/* att_qrow_bytes is a token's queries quantized for a quantized cache
 * (att_quant_row): every head's Q8_0 blocks, then every head packed for
 * att_scores_qg; 0 for other caches. */
static size_t att_qrow_bytes(const lrt_attn_params *a) {
  if (!kv_quantized(a->kv_type)) return 0;
  return (size_t)a->n_heads * ((size_t)(a->head_dim / QK) * sizeof(block_q8a) + ATT_QG_BYTES(a->head_dim));
}

/* att_quant_row quantizes token t's queries into dst (att_qrow_bytes),
 * packing them for att_scores_qg where the set has it (qg). */
static void att_quant_row(const lrt_attn_params *a, int64_t t, int qg, uint8_t *dst) {
  const int hd = a->head_dim, nh = a->n_heads;
  block_q8a *qb = (block_q8a *)dst;
  uint8_t *qgp = (uint8_t *)(qb + (size_t)nh * (hd / QK));
  const float *q = a->q + t * nh * hd;
  for (int h = 0; h < nh; h++) {
    quant_q8_0_ref(q + (size_t)h * hd, qb + (size_t)h * (hd / QK), hd);
    if (qg) att_pack_qg(qb + (size_t)h * (hd / QK), hd, a->kv_type, qgp + (size_t)h * ATT_QG_BYTES(hd));
  }
}

/* att_slot_bytes is the working memory of a thread running att_rows: per
 * query head an accumulator [hd], scores [ATT_BLOCK], max and sum, then
 * for a quantized cache a token's quantized queries; whole cache lines. */
static size_t att_slot_bytes(const lrt_attn_params *a) {
  const size_t n = sizeof(float) * (size_t)a->n_heads * (size_t)(a->head_dim + ATT_BLOCK + 2) + att_qrow_bytes(a);
  return (n + 63) & ~(size_t)63;
}

/* att_qg reports whether kernel set k scores a's quantized cache by
 * att_scores_qg. */
static int att_qg(const lrt_attn_params *a, const kernels *k) {
  return kv_quantized(a->kv_type) && k->att_scores_qg[a->kv_type] && a->head_dim % 64 == 0;
}

/* att_slot returns a thread's working memory (at->slot_bytes): a free
 * slot of at's scratch (*slot its index), or memory of its own where there
 * are more threads than slots (*slot -1); NULL, with at->failed set, when
 * out of memory. att_slot_done gives it back. */
static char *att_slot(att_task *at, int *slot) {
  *slot = slot_take(&at->free_slots);
  if (*slot >= 0) return at->slots + (size_t)*slot * at->slot_bytes;
  char *mem = malloc(at->slot_bytes);
  if (!mem) atomic_store(&at->failed, 1);
  return mem;
}

static void att_slot_done(att_task *at, int slot, char *mem) {
  if (slot >= 0)
    slot_give(&at->free_slots, slot);
  else
    free(mem);
}

/* att_rows runs items [lo_item, hi_item): item = token t * spans + span,
 * the span a share of the token's visible keys. The keys go by in blocks
 * of ATT_BLOCK, each block through every cache head in turn: the group of
 * query heads sharing a cache head scores the block's keys at once (each
 * key row read once for the group), updates its online softmax and sums
 * the block's values. A block's rows are read whole, head after head
 * while they are in L1, rather than a head's slice of every row and then
 * the next head's. One span writes the normalized output, several their
 * partial results. */
static void att_rows(void *arg, int64_t lo_item, int64_t hi_item) {
  att_task *at = arg;
  const lrt_attn_params *a = at->a;
  const kernels *k = at->k;
  const int hd = a->head_dim, nh = a->n_heads;
  const int ng = a->n_heads / a->n_kv_heads;
  const int f16 = a->kv_type == LRT_F16;
  /* a quantized cache: the queries as Q8_0 blocks (qb, qbs bytes a head),
   * scored against the key blocks and summing the value blocks directly;
   * rowb and headb are the bytes of a cache row and of a head */
  const int quant = kv_quantized(a->kv_type);
  const size_t qbs = quant ? (size_t)(hd / QK) * sizeof(block_q8a) : 0;
  const size_t rowb = quant ? (size_t)(a->kv_stride / QK) * kv_block_bytes(a->kv_type) : 0;
  const size_t headb = quant ? (size_t)(hd / QK) * kv_block_bytes(a->kv_type) : 0;
  const int sub = quant ? ATT_SUBQ : ATT_SUB;
  /* per query head: accumulator [hd], scores [ATT_BLOCK], max, sum; then
   * the query blocks (a block_q8a is 10 floats) */
  const size_t nf = (size_t)nh * (hd + ATT_BLOCK + 2);
  int slot;
  float *mem = (float *)att_slot(at, &slot);
  if (!mem) return;
  float *s = mem + (size_t)nh * hd;
  /* the queries packed for the group scores, where the set has them */
  const int qg = att_qg(a, k);
  for (int64_t item = lo_item; item < hi_item; item++) {
    const int64_t t = item / at->spans;
    const int span = (int)(item % at->spans);
    const float *q = a->q + t * nh * hd;
    /* a quantized cache's queries: quantized for the token's spans
     * (qrows), else here */
    uint8_t *qrow = (uint8_t *)(mem + nf);
    if (at->qrows)
      qrow = at->qrows + (size_t)t * att_qrow_bytes(a);
    else if (quant)
      att_quant_row(a, t, qg, qrow);
    const block_q8a *qb = (const block_q8a *)qrow;
    const uint8_t *qgp = (const uint8_t *)(qb + (size_t)nh * (hd / QK));
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
      m = at->part + (size_t)item * (size_t)nh * (hd + 2);
      l = m + nh;
      acc = l + nh;
    } else {
      acc = mem;
      m = s + (size_t)nh * ATT_BLOCK;
      l = m + nh;
    }
    memset(acc, 0, sizeof(float) * (size_t)nh * hd);
    for (int h = 0; h < nh; h++) {
      m[h] = -INFINITY;
      l[h] = 0;
    }
    for (int64_t j0 = lo; j0 < hi; j0 += ATT_BLOCK) {
      const int nb = hi - j0 < ATT_BLOCK ? (int)(hi - j0) : ATT_BLOCK;
      /* the block's scores, ATT_SUB rows at a time through every cache
       * head (the rows' whole width, one region of memory) */
      for (int j1 = 0; j1 < nb; j1 += sub) {
        const int ns = nb - j1 < sub ? nb - j1 : sub;
        for (int kvh = 0; kvh < a->n_kv_heads; kvh++) {
          const int h0 = kvh * ng; /* the group's first query head */
          float *sk = s + (size_t)h0 * ATT_BLOCK + j1;
          const size_t off = (size_t)(j0 + j1) * a->kv_stride + (size_t)kvh * hd;
          const uint8_t *kq = (const uint8_t *)a->k + (size_t)(j0 + j1) * rowb + (size_t)kvh * headb;
          if (qg)
            for (int g0 = 0; g0 < ng; g0 += 4)
              k->att_scores_qg[a->kv_type](qgp + (size_t)(h0 + g0) * ATT_QG_BYTES(hd), ng - g0 < 4 ? ng - g0 : 4, kq,
                                           rowb, ns, hd, sk + (size_t)g0 * ATT_BLOCK, ATT_BLOCK);
          else if (quant)
            att_scores_q(k, a->kv_type, qb + (size_t)h0 * (hd / QK), qbs, ng, kq, rowb, ns, hd, sk, ATT_BLOCK);
          else
            k->att_scores(q + (size_t)h0 * hd, hd, ng, f16 ? (const void *)((const uint16_t *)a->k + off) : (const void *)((const float *)a->k + off),
                          a->kv_stride, f16, ns, hd, sk, ATT_BLOCK);
        }
      }
      for (int h = 0; h < nh; h++) {
        float *sg = s + (size_t)h * ATT_BLOCK;
        float bm;
        if (a->softcap > 0) {
          bm = -INFINITY;
          for (int j = 0; j < nb; j++) {
            const float x = a->softcap * tanhf(sg[j] * a->scale / a->softcap);
            sg[j] = x;
            bm = x > bm ? x : bm;
          }
        } else {
          bm = k->scale_max(sg, nb, a->scale);
        }
        if (bm > m[h]) {
          const float r = expf(m[h] - bm); /* 0 on the first block */
          float *ag = acc + (size_t)h * hd;
          for (int d = 0; d < hd; d++) ag[d] *= r;
          l[h] *= r;
          m[h] = bm;
        }
        l[h] += k->exp_sum(sg, nb, m[h]);
      }
      /* p.V, the same way through the block */
      for (int j1 = 0; j1 < nb; j1 += sub) {
        const int ns = nb - j1 < sub ? nb - j1 : sub;
        for (int kvh = 0; kvh < a->n_kv_heads; kvh++) {
          const int h0 = kvh * ng;
          const float *sk = s + (size_t)h0 * ATT_BLOCK + j1;
          float *ak = acc + (size_t)h0 * hd;
          const size_t off = (size_t)(j0 + j1) * a->kv_stride + (size_t)kvh * hd;
          if (quant)
            k->att_accum_q[a->kv_type](ak, hd, ng, sk, ATT_BLOCK,
                                       (const uint8_t *)a->v + (size_t)(j0 + j1) * rowb + (size_t)kvh * headb, rowb,
                                       ns, hd);
          else
            k->att_accum(ak, hd, ng, sk, ATT_BLOCK,
                         f16 ? (const void *)((const uint16_t *)a->v + off) : (const void *)((const float *)a->v + off),
                         a->kv_stride, f16, ns, hd);
        }
      }
    }
    if (at->spans == 1)
      for (int h = 0; h < nh; h++) att_norm(a, h, acc + (size_t)h * hd, m[h], l[h], a->out + (t * nh + h) * hd);
  }
  att_slot_done(at, slot, (char *)mem);
}

/* att_combine merges the spans' partial results of the tokens into out:
 * per query head, with M the largest span max, out = sum_s acc_s e^(m_s -
 * M) / (sum_s l_s e^(m_s - M) + e^(sink - M)). tmp holds a head. */
static void att_combine(const att_task *at, float *tmp) {
  const lrt_attn_params *a = at->a;
  const int hd = a->head_dim, nh = a->n_heads;
  const size_t ps = (size_t)nh * (hd + 2);
  for (int64_t t = 0; t < a->ntok; t++) {
    const float *parts = at->part + (size_t)t * at->spans * ps;
    for (int h = 0; h < nh; h++) {
      float mx = -INFINITY, sum = 0;
      for (int sp = 0; sp < at->spans; sp++) mx = parts[sp * ps + h] > mx ? parts[sp * ps + h] : mx;
      memset(tmp, 0, sizeof(float) * (size_t)hd);
      for (int sp = 0; sp < at->spans; sp++) {
        const float *p = parts + sp * ps;
        if (p[nh + h] == 0) continue; /* an empty span */
        const float r = expf(p[h] - mx);
        sum += p[nh + h] * r;
        at->k->axpy_f32(tmp, r, p + 2 * nh + (size_t)h * hd, hd);
      }
      att_norm(a, h, tmp, mx, sum, a->out + (t * nh + h) * hd);
    }
  }
}

/* Prefill in tiles. A batch's rows each meet every key they see once per
 * query head in att_rows; here a tile of rows and one cache head's group
 * of query heads (ATT_TILE_HEADS query heads in all) meet the keys
 * together as two panel products, the kernel of the float batches
 * (kernels.panel_mul): scores S = Q.K^T with a panel call's keys against
 * its tokens' query heads, then, after each row's softmax, O = P.V with a
 * panel call's head elements against the query heads. No horizontal
 * sums, and each key and value element widened once per call rather than
 * once per row and head: the call first packs every key it reads as
 * panels of PANEL_ROWS positions (element-major: kernels.panel) and every
 * value as panels of PANEL_ROWS head elements (position-major), as F32
 * whatever the cache type, and the tiles share them. A quantized cache's
 * queries are rounded to Q8_0 first, as the integer dots take them. The
 * Go backend's go_attend_tile.go is the same design. */
#define ATT_TILE_HEADS 48
#define ATT_TILE_MIN_ROWS 16
#define ATT_TILE_PACK 128 /* positions of one packing job, a multiple of 32 */
#define ATT_TILE_MAX_FLOATS ((size_t)1 << 24) /* the packs' bound (64 MB); longer takes att_rows */

/* att_tile_rows is the query rows of a tile for groups of ng heads. */
static int att_tile_rows(int ng) { return ATT_TILE_HEADS / ng > 1 ? ATT_TILE_HEADS / ng : 1; }

/* att_tiled reports whether a call runs in tiles on kernel set k, and sets
 * the packed positions [*kf, *kf + *nkp) if so. */
static int att_tiled(const lrt_attn_params *a, const kernels *k, int64_t *kf, int64_t *nkp) {
  if (!k->panel_mul || !k->panel[LRT_F32] || a->ntok < ATT_TILE_MIN_ROWS || a->head_dim % PANEL_ROWS != 0) return 0;
  int64_t lo0, hi0, lo1, hi1;
  att_visible(a, 0, &lo0, &hi0);
  att_visible(a, a->ntok - 1, &lo1, &hi1);
  if (hi1 <= lo0) return 0;
  *kf = lo0;
  *nkp = (hi1 - lo0 + 31) / 32 * 32;
  return (size_t)a->n_kv_heads * (size_t)*nkp * 2 * (size_t)a->head_dim <= ATT_TILE_MAX_FLOATS;
}

/* att_tile_slot_bytes is a thread's room in tiles: 16 key rows and a value
 * row to pack, or a tile's queries, scores, outputs, maxima and sums and a
 * query's Q8_0 blocks. */
static size_t att_tile_slot_bytes(const lrt_attn_params *a, int64_t nkp) {
  const size_t hd = (size_t)a->head_dim, ng = (size_t)(a->n_heads / a->n_kv_heads);
  const size_t nq = (size_t)att_tile_rows((int)ng) * ng;
  size_t n = nq * (2 * hd + (size_t)nkp + 2);
  if (n < 17 * hd) n = 17 * hd;
  n = sizeof(float) * n + (hd / QK + 1) * sizeof(block_q8a);
  return (n + 63) & ~(size_t)63;
}

/* att_row_f32 widens cache head kvh's row at position pos of kv (a->k or
 * a->v) to F32 in dst: F16 and blocks by the accumulate kernels with
 * weight 1 (exact). */
static void att_row_f32(const lrt_attn_params *a, const kernels *k, const void *kv, int64_t pos, int kvh, float *dst) {
  const int hd = a->head_dim;
  if (a->kv_type == LRT_F32) {
    memcpy(dst, (const float *)kv + pos * a->kv_stride + (int64_t)kvh * hd, sizeof(float) * (size_t)hd);
    return;
  }
  memset(dst, 0, sizeof(float) * (size_t)hd);
  if (a->kv_type == LRT_F16) {
    k->axpy_f16(dst, 1.0f, (const uint16_t *)kv + pos * a->kv_stride + (int64_t)kvh * hd, hd);
    return;
  }
  const size_t rowb = (size_t)(a->kv_stride / QK) * kv_block_bytes(a->kv_type);
  const size_t headb = (size_t)(hd / QK) * kv_block_bytes(a->kv_type);
  const float one = 1.0f;
  k->att_accum_q[a->kv_type](dst, (size_t)hd, 1, &one, 1, (const uint8_t *)kv + (size_t)pos * rowb + (size_t)kvh * headb,
                             rowb, 1, hd);
}

/* att_pack packs the jobs [lo, hi): job i is cache head i/jobs's
 * positions [kf + j*ATT_TILE_PACK, +ATT_TILE_PACK), j = i%jobs; positions
 * the batch does not see pack as zeros. Keys go to kp as panels of
 * PANEL_ROWS positions (head g's panel j at (g*nkp + 16j)*hd), values to
 * vp as panels of PANEL_ROWS elements (head g's elements [16i, 16i+16)
 * at (g*hd + 16i)*nkp, position p's at +16p). */
static void att_pack(void *arg, int64_t lo, int64_t hi) {
  att_task *at = arg;
  const lrt_attn_params *a = at->a;
  const int hd = a->head_dim;
  const int64_t nkp = at->nkp, jobs = (nkp + ATT_TILE_PACK - 1) / ATT_TILE_PACK;
  int64_t l1, end;
  att_visible(a, a->ntok - 1, &l1, &end);
  int slot;
  float *tk = (float *)att_slot(at, &slot);
  if (!tk) return;
  float *tv = tk + (size_t)PANEL_ROWS * hd;
  for (int64_t i = lo; i < hi; i++) {
    const int g = (int)(i / jobs);
    const int64_t j = i % jobs;
    float *kp = at->kp + (size_t)g * nkp * hd, *vp = at->vp + (size_t)g * nkp * hd;
    const int64_t p1 = (j + 1) * ATT_TILE_PACK < nkp ? (j + 1) * ATT_TILE_PACK : nkp;
    for (int64_t p0 = j * ATT_TILE_PACK; p0 < p1; p0 += PANEL_ROWS) {
      for (int r = 0; r < PANEL_ROWS; r++) {
        const int64_t p = p0 + r;
        float *kr = tk + (size_t)r * hd;
        if (at->kf + p < end) {
          att_row_f32(a, at->k, a->k, at->kf + p, g, kr);
          att_row_f32(a, at->k, a->v, at->kf + p, g, tv);
        } else {
          memset(kr, 0, sizeof(float) * (size_t)hd);
          memset(tv, 0, sizeof(float) * (size_t)hd);
        }
        for (int e = 0; e < hd; e += PANEL_ROWS)
          memcpy(vp + (size_t)e * nkp + (size_t)PANEL_ROWS * p, tv + e, sizeof(float) * PANEL_ROWS);
      }
      at->k->panel[LRT_F32](tk, sizeof(float) * (size_t)hd, PANEL_ROWS, hd, kp + (size_t)p0 * hd);
    }
  }
  att_slot_done(at, slot, (char *)tk);
}

/* att_tile runs the tile jobs [lo, hi): job i is tile i/n_kv_heads (query
 * rows [T*R, T*R + R), R = att_tile_rows) over cache head i%n_kv_heads and
 * its group's query heads. */
static void att_tile(void *arg, int64_t lo, int64_t hi) {
  att_task *at = arg;
  const lrt_attn_params *a = at->a;
  const kernels *k = at->k;
  const int hd = a->head_dim, nh = a->n_heads, nkv = a->n_kv_heads, ng = nh / nkv;
  const int rows = att_tile_rows(ng), pr = k->panel_rows, pt = k->panel_tokens;
  const int64_t nkp = at->nkp;
  int slot;
  char *mem = att_slot(at, &slot);
  if (!mem) return;
  const size_t nqmax = (size_t)rows * ng;
  float *qt = (float *)mem, *ot = qt + nqmax * hd, *m = ot + nqmax * hd, *l = m + nqmax, *s = l + nqmax;
  block_q8a *qb = (block_q8a *)(s + nqmax * (size_t)nkp);
  for (int64_t i = lo; i < hi; i++) {
    const int g = (int)(i % nkv);
    const int64_t t0 = i / nkv * rows, t1 = t0 + rows < a->ntok ? t0 + rows : a->ntok;
    const int nq = (int)(t1 - t0) * ng;
    int64_t f0, e0, f1, e1;
    att_visible(a, t0, &f0, &e0);
    att_visible(a, t1 - 1, &f1, &e1);
    const int64_t c0 = (f0 - at->kf) / 32 * 32, c1 = (e1 - at->kf + 31) / 32 * 32, ns = c1 - c0;
    for (int64_t t = t0; t < t1; t++)
      for (int x = 0; x < ng; x++) {
        const float *q = a->q + (t * nh + g * ng + x) * hd;
        float *dst = qt + ((t - t0) * ng + x) * hd;
        if (!kv_quantized(a->kv_type)) {
          memcpy(dst, q, sizeof(float) * (size_t)hd);
          continue;
        }
        quant_q8_0_ref(q, qb, hd); /* the Q8_0 values the integer dots see */
        for (int b = 0; b < hd / QK; b++)
          for (int j = 0; j < QK; j++) dst[b * QK + j] = qb[b].d * (float)qb[b].qs[j];
      }
    /* the scores: pr positions by pt query heads a call */
    const float *kp = at->kp + (size_t)g * nkp * hd;
    for (int64_t c = c0; c < c1; c += pr)
      for (int r = 0; r < nq; r += pt)
        k->panel_mul(hd, kp + (size_t)c * hd, (size_t)PANEL_ROWS * hd, qt + (size_t)r * hd, sizeof(float) * (size_t)hd,
                     nq - r < pt ? nq - r : pt, s + (size_t)r * ns + (c - c0), (size_t)ns, pr);
    /* each row's softmax over the positions it sees, the rest zero */
    for (int64_t t = t0; t < t1; t++) {
      int64_t f, e;
      att_visible(a, t, &f, &e);
      const int64_t vlo = f - at->kf - c0, vhi = e - at->kf - c0;
      for (int x = 0; x < ng; x++) {
        const int row = (int)(t - t0) * ng + x;
        float *sg = s + (size_t)row * ns;
        memset(sg, 0, sizeof(float) * (size_t)vlo);
        float *sv = sg + vlo;
        int64_t nv = vhi - vlo;
        float bm = -INFINITY;
        if (a->softcap > 0) {
          for (int64_t j = 0; j < nv; j++) {
            sv[j] = a->softcap * tanhf(sv[j] * a->scale / a->softcap);
            bm = sv[j] > bm ? sv[j] : bm;
          }
        } else {
          /* where the tile's scores leave room, the row's last positions
           * pad to 16 with -INFINITY (exp_sum's vector steps give them 0;
           * cleared after), so none ends in scalar expf */
          const int64_t np = (nv + 15) & ~(int64_t)15;
          if (a->scale > 0 && vlo + np <= ns) {
            for (int64_t j = nv; j < np; j++) sv[j] = -INFINITY;
            nv = np;
          }
          bm = k->scale_max(sv, nv, a->scale);
        }
        m[row] = bm;
        l[row] = k->exp_sum(sv, nv, bm);
        memset(sg + vhi, 0, sizeof(float) * (size_t)(ns - vhi));
      }
    }
    /* the weighted values: pr elements by pt query heads a call */
    const float *vp = at->vp + (size_t)g * nkp * hd + (size_t)PANEL_ROWS * c0;
    for (int e = 0; e < hd; e += pr)
      for (int r = 0; r < nq; r += pt)
        k->panel_mul(ns, vp + (size_t)e * nkp, (size_t)PANEL_ROWS * nkp, s + (size_t)r * ns, sizeof(float) * (size_t)ns,
                     nq - r < pt ? nq - r : pt, ot + (size_t)r * hd + e, (size_t)hd, hd - e < pr ? hd - e : pr);
    for (int64_t t = t0; t < t1; t++)
      for (int x = 0; x < ng; x++) {
        const int row = (int)(t - t0) * ng + x, h = g * ng + x;
        att_norm(a, h, ot + (size_t)row * hd, m[row], l[row], a->out + (t * nh + h) * hd);
      }
  }
  att_slot_done(at, slot, mem);
}

/* att_tiles runs a call in tiles (att_tiled said so): the packs, then the
 * tiles, in the pool's scratch. */
static int32_t att_tiles(lrt_pool *p, att_task *at) {
  const lrt_attn_params *a = at->a;
  const int nslots = lrt_pool_threads(p) < 64 ? lrt_pool_threads(p) : 64;
  at->slot_bytes = att_tile_slot_bytes(a, at->nkp);
  const size_t pack = (size_t)a->n_kv_heads * (size_t)at->nkp * (size_t)a->head_dim;
  pool_begin(p);
  at->slots = pool_scratch(p, (size_t)nslots * at->slot_bytes + 2 * sizeof(float) * pack);
  if (!at->slots) {
    pool_end(p);
    return LRT_ENOMEM;
  }
  at->free_slots = nslots == 64 ? ~0ULL : (1ULL << nslots) - 1;
  at->kp = (float *)(at->slots + (size_t)nslots * at->slot_bytes);
  at->vp = at->kp + pack;
  pool_run(p, att_pack, at, a->n_kv_heads * ((at->nkp + ATT_TILE_PACK - 1) / ATT_TILE_PACK), 1);
  const int rows = att_tile_rows(a->n_heads / a->n_kv_heads);
  if (!atomic_load(&at->failed)) pool_run(p, att_tile, at, a->n_kv_heads * ((a->ntok + rows - 1) / rows), 1);
  pool_end(p);
  return atomic_load(&at->failed) ? LRT_ENOMEM : LRT_OK;
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
  att_task at = {.a = a, .k = pool_kernels(p), .spans = 1};
  if (att_tiled(a, at.k, &at.kf, &at.nkp)) return att_tiles(p, &at);
  const int64_t njobs = a->ntok;
  /* the fewest keys a row of the call sees: its first row's (causal) or
   * last row's (a window) */
  int64_t lo0, hi0, lo1, hi1;
  att_visible(a, 0, &lo0, &hi0);
  att_visible(a, a->ntok - 1, &lo1, &hi1);
  const int64_t keys = hi0 - lo0 < hi1 - lo1 ? hi0 - lo0 : hi1 - lo1;
  at.spans = att_spans(lrt_pool_threads(p), njobs, keys);
  /* the pool's scratch: a slot per thread (at most 64), then for a split
   * the spans' partial results and the combine's head */
  const int nslots = lrt_pool_threads(p) < 64 ? lrt_pool_threads(p) : 64;
  at.slot_bytes = att_slot_bytes(a);
  const size_t ps = (size_t)a->n_heads * (a->head_dim + 2);
  const size_t part_floats = at.spans > 1 ? (size_t)(njobs * at.spans) * ps + (size_t)a->head_dim : 0;
  const size_t qrows_bytes = at.spans > 1 ? (size_t)njobs * att_qrow_bytes(a) : 0;
  pool_begin(p);
  at.slots = pool_scratch(p, (size_t)nslots * at.slot_bytes + sizeof(float) * part_floats + qrows_bytes);
  if (!at.slots) {
    pool_end(p);
    return LRT_ENOMEM;
  }
  at.free_slots = nslots == 64 ? ~0ULL : (1ULL << nslots) - 1;
  float *tmp = NULL;
  if (at.spans > 1) {
    at.part = (float *)(at.slots + (size_t)nslots * at.slot_bytes);
    tmp = at.part + (size_t)(njobs * at.spans) * ps;
    if (qrows_bytes) { /* each token's queries quantized once for its spans */
      at.qrows = (uint8_t *)(tmp + a->head_dim);
      for (int64_t t = 0; t < njobs; t++) att_quant_row(a, t, att_qg(a, at.k), at.qrows + (size_t)t * att_qrow_bytes(a));
    }
  }
  /* (token[, span]) items, one at a time: costs grow along a causal batch */
  pool_run(p, att_rows, &at, njobs * at.spans, 1);
  if (at.spans > 1 && !atomic_load(&at.failed)) att_combine(&at, tmp);
  pool_end(p);
  return atomic_load(&at.failed) ? LRT_ENOMEM : LRT_OK;
}
