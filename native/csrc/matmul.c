/* matmul.c: lrt_matmul, quantized weights times a batch of activations.
 *
 * Two phases on the pool. First the activations are converted once to the
 * format the weight type multiplies (8-bit blocks for quantized weights).
 * Then threads take chunks of weight rows from a shared counter; for each
 * chunk, every tile of up to 4 tokens walks the chunk's rows, so a weight
 * row is unpacked once per tile and the chunk (at most CHUNK_BYTES) stays
 * in L2 while the tiles stream past it. Decode (one token) is then a plain
 * row-parallel matrix-vector product.
 *
 * Batches of GEMM_MIN_TOKENS or more take the kernels' gemm path where the
 * CPU has one (AVX-512 VNNI: every legacy type, Q3_K-Q6_K and IQ4_XS;
 * AVX2: the interleaved types but F16, with vpmaddubsw + vpmaddwd, and
 * for quants that reach 128 in magnitude |q| against activations signed
 * by q, left unflipped: kernels.il_gemm_signed). The
 * activations become 32-element 8-bit blocks with their quants offset to
 * unsigned, and each call repacks GEMM_ROWS weight rows so that one
 * vpdpbusd advances all of them against one broadcast activation word:
 * no per-pair sign fix-ups or horizontal sums. On smollm2-135m (2 Zen 4
 * threads, 64-token batches) this took Q8_0 prefill from about 460 to about
 * 1000 tokens/s.
 *
 * Where the kernels have panels (AVX2: the row-major types, the float
 * ones and, should a gemm fail to allocate, the interleaved ones; AVX-512:
 * the float ones), batches of PANEL_MIN_TOKENS or more of every weight
 * type without a gemm run as panels instead: a chunk of rows is packed
 * (dequantized, widened) into a per-thread slot of the scratch as 16-row
 * column-major panels, and tiles of broadcast activations pass over them
 * (kernels.panel_mul: 16 rows x 6 tokens on AVX2, 32 x 12 on AVX-512).
 * Quantized weights then meet their activations rounded to the 8-bit
 * blocks the integer kernels would multiply, as floats (act_round). On one
 * Zen 3 core this took smollm2-135m pp512 from about 195 to 260 tokens/s
 * in F16 and from about 150 to 210-240 in Q8_0, Q4_0 and Q4_K_M; on one
 * Sapphire Rapids core (AVX-512) F16 from about 367 to 431, against the
 * 4x4 dot tiles over widened rows that path had (see Tried and dropped).
 *
 * Tried and dropped: float weights widened to F32 a chunk at a time and
 * the F32 dot tiles run over them (the panels replaced that path on both
 * x86 sets); 8-token gemm tiles (register spills, slower than 4);
 * software prefetch of the 16 row streams while repacking (no gain);
 * for quantized weights, widening the weights of a chunk to floats and
 * running a float FMA tile for batches of 16+ tokens, next to the VNNI
 * gemm: float activations are 3.2x the bytes of 8-bit ones and every chunk
 * re-streams all of them, which made a 64-token 896x4864 Q8_0 product 2.4x
 * slower on one Zen 4 core. Without VNNI (AVX2) the panels above win. */
#include <stdatomic.h>

#include "internal.h"

#define CHUNK_BYTES (192 * 1024)
#define GEMM_MIN_TOKENS 4
#define PANEL_MIN_TOKENS (2 * TILE_TOKENS)
#define PANEL_SLOTS 64 /* bits of mm_task.wide_free */

typedef struct {
  const kernels *k;
  int32_t wtype;
  const char *w;
  int64_t rows, cols, ntok;
  const float *x;
  float *out;
  int fmt;
  char *xq;     /* prepared activations, ntok rows of xrow bytes */
  int64_t xrow;
  int64_t wrow; /* bytes per weight row */
  gemm_fn gemm; /* the batch kernel, or NULL for the tiles */
  int signed_gemm; /* gemm takes the activations' quants unflipped */
  int il;       /* weights interleaved in groups of IL_ROWS rows (lrt_matmul_il16) */
  _Atomic int gemm_failed;
  float *wide;   /* PANEL_SLOTS-bounded slots of wide_rows*cols floats (kernels.panel
                  * panels, wide_rows a multiple of PANEL_ROWS), or NULL */
  int64_t wide_rows;
  int round;     /* quantized weights as panels: x rounded to this format's 8-bit blocks, as floats */
  _Atomic uint64_t wide_free; /* a set bit per free slot */
} mm_task;

/* flip_q8a toggles the top bit of every quant of nb blocks: signed quants
 * become the unsigned quant+128 the gemm kernels multiply. */
static void flip_q8a(block_q8a *y, int64_t nb) {
  for (int64_t i = 0; i < nb; i++)
    for (int j = 0; j < QK; j += 8) {
      uint64_t v;
      memcpy(&v, y[i].qs + j, 8);
      v ^= 0x8080808080808080ULL;
      memcpy(y[i].qs + j, &v, 8);
    }
}

void act_round(const kernels *k, int fmt, const float *x, float *y, int64_t n) {
  if (fmt == ACT_BF16R) {
    for (int64_t i = 0; i < n; i++) y[i] = lrt_bf16_to_f32(lrt_f32_to_bf16(x[i]));
    return;
  }
  /* quantized into y's own bytes (a block is smaller than its floats),
   * then widened in place from the last block, each copied out first */
  if (fmt == ACT_Q8K) {
    k->quant_q8K(x, y, n);
    for (int64_t b = n / QKK - 1; b >= 0; b--) {
      block_q8K q;
      memcpy(&q, (const char *)y + (size_t)b * sizeof q, sizeof q);
      for (int j = 0; j < QKK; j++) y[b * QKK + j] = q.d * (float)q.qs[j];
    }
    return;
  }
  k->quant_q8a(x, y, n);
  for (int64_t b = n / QK - 1; b >= 0; b--) {
    block_q8a q;
    memcpy(&q, (const char *)y + (size_t)b * sizeof q, sizeof q);
    for (int j = 0; j < QK; j++) y[b * QK + j] = q.d * (float)q.qs[j];
  }
}

static void quant_task(void *arg, int64_t lo, int64_t hi) {
  mm_task *m = arg;
  if (m->round) {
    for (int64_t t = lo; t < hi; t++)
      act_round(m->k, m->round, m->x + t * m->cols, (float *)(m->xq + t * m->xrow), m->cols);
    return;
  }
  if (m->fmt == ACT_BF16) {
    for (int64_t t = lo; t < hi; t++) act_bf16(m->x + t * m->cols, (uint16_t *)(m->xq + t * m->xrow), m->cols);
    return;
  }
  quant_fn q = m->fmt == ACT_Q8A ? m->k->quant_q8a : m->k->quant_q8K;
  for (int64_t t = lo; t < hi; t++) {
    block_q8a *y = (block_q8a *)(m->xq + t * m->xrow);
    q(m->x + t * m->cols, y, m->cols);
    if (m->gemm && !m->signed_gemm) flip_q8a(y, m->cols / QK);
  }
}

/* mm_gemm multiplies rows [r0, r1) by every token with the batch kernel,
 * GEMM_ROWS rows at a time. */
static void mm_gemm(void *arg, int64_t r0, int64_t r1) {
  mm_task *m = arg;
  for (int64_t r = r0; r < r1; r += GEMM_ROWS) {
    const int nr = r1 - r < GEMM_ROWS ? (int)(r1 - r) : GEMM_ROWS;
    if (m->gemm(m->cols, m->w + r * m->wrow, (size_t)m->wrow, nr, m->xq, (size_t)m->xrow, m->ntok,
                m->out + r, (size_t)m->rows) != 0) {
      atomic_store(&m->gemm_failed, 1);
      return;
    }
  }
}

void rows_mul(const kernels *k, int32_t wtype, const char *w, int64_t wrow, int64_t nrows, int64_t n,
              const char *x, size_t xs, int64_t ntok, float *out, size_t os) {
  if (ntok == 1 && k->dec_rows[wtype]) {
    k->dec_rows[wtype](n, w, (size_t)wrow, nrows, x, out);
    return;
  }
  const vecdot_fn dot = k->dot[wtype];
  const tile_fn tile = k->tile[wtype];
  /* Decode streams the weights from memory once: one row at a time keeps a
   * single sequential stream per thread, which measured 2-3x faster from
   * DRAM than interleaving 4 rows. Batches reuse rows from L2 and gain
   * from the register tile. */
  const int tr = ntok == 1 ? 1 : k->tile_rows[wtype];
  for (int64_t t0 = 0; t0 < ntok; t0 += TILE_TOKENS) {
    const int nt = ntok - t0 < TILE_TOKENS ? (int)(ntok - t0) : TILE_TOKENS;
    const char *xt = x + (size_t)t0 * xs;
    float *ot = out + (size_t)t0 * os;
    if (tile) {
      for (int64_t r = 0; r < nrows; r += tr) {
        const int nr = nrows - r < tr ? (int)(nrows - r) : tr;
        tile(n, w + r * wrow, (size_t)wrow, nr, xt, xs, nt, ot + r, os);
      }
      continue;
    }
    for (int64_t r = 0; r < nrows; r++) dot(n, w + r * wrow, xt, xs, nt, ot + r, os);
  }
}

/* rows_tiles is rows_mul for the task's activations and output. */
static void rows_tiles(const mm_task *m, int32_t wtype, const char *w, int64_t wrow, int64_t nrows,
                       float *out) {
  rows_mul(m->k, wtype, w, wrow, nrows, m->cols, m->xq, (size_t)m->xrow, m->ntok, out, (size_t)m->rows);
}

int slot_take(_Atomic uint64_t *free_slots) {
  uint64_t f = atomic_load(free_slots);
  while (f) {
    const int s = __builtin_ctzll(f);
    if (atomic_compare_exchange_weak(free_slots, &f, f & ~(1ULL << s))) return s;
  }
  return -1;
}

void slot_give(_Atomic uint64_t *free_slots, int s) { atomic_fetch_or(free_slots, 1ULL << s); }

void act_bf16(const float *x, uint16_t *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = lrt_f32_to_bf16(x[i]);
}

void panels_mul(const kernels *k, int32_t wtype, int il, const char *w, int64_t wrow, int64_t nrows, int64_t n,
                const char *x, size_t xs, int64_t ntok, float *out, size_t os, float *pan) {
  /* BF16 pair panels (bf16_panels): the rows read as n/2 32-bit words,
   * each holding an element pair, packed as F32 panels would be */
  const int pairs = bf16_panels(k, wtype, n);
  const int64_t pn = pairs ? n / 2 : n; /* a panel's columns */
  /* the panels' base: an interleaved group's panel is packed into pan or
   * is the group itself, and either way they lie pn*PANEL_ROWS floats
   * apart, so the first one's place is the base of all */
  const float *base = pan;
  for (int64_t r = 0; r < nrows; r += PANEL_ROWS) {
    const int nr = nrows - r < PANEL_ROWS ? (int)(nrows - r) : PANEL_ROWS;
    if (il) {
      const float *q = k->il_panel[wtype](w + r * wrow, n, pan + r * pn);
      if (r == 0) base = q;
    } else {
      k->panel[pairs ? LRT_F32 : wtype](w + r * wrow, (size_t)wrow, nr, pn, pan + r * pn);
    }
  }
  for (int64_t t0 = 0; t0 < ntok; t0 += k->panel_tokens) {
    const int nt = ntok - t0 < k->panel_tokens ? (int)(ntok - t0) : k->panel_tokens;
    for (int64_t r = 0; r < nrows; r += k->panel_rows) {
      const int nr = nrows - r < k->panel_rows ? (int)(nrows - r) : k->panel_rows;
      (pairs ? k->panel_mul_bf16 : k->panel_mul)(n, base + r * pn, (size_t)PANEL_ROWS * pn, x + (size_t)t0 * xs,
                                                 xs, nt, out + (size_t)t0 * os + r, os, nr);
    }
  }
}

/* mm_rows multiplies weight rows [r0, r1) by every token: as panels where
 * m->wide is set (and a slot is free), else by the tiles. */
static void mm_rows(void *arg, int64_t r0, int64_t r1) {
  mm_task *m = arg;
  if (m->il && !m->wide) { /* whole groups, a token at a time */
    for (int64_t t = 0; t < m->ntok; t++)
      m->k->il_rows[m->wtype](m->cols, m->w + r0 * m->wrow, (size_t)m->wrow, r1 - r0,
                              m->xq + t * m->xrow, m->out + t * m->rows + r0);
    return;
  }
  const int s = m->wide ? slot_take(&m->wide_free) : -1;
  if (s < 0) {
    rows_tiles(m, m->wtype, m->w + r0 * m->wrow, m->wrow, r1 - r0, m->out + r0);
    return;
  }
  float *wide = m->wide + (size_t)s * (size_t)(m->wide_rows * m->cols);
  /* the pool may hand one thread more than a chunk */
  for (int64_t c0 = r0; c0 < r1; c0 += m->wide_rows) {
    const int64_t c1 = r1 - c0 < m->wide_rows ? r1 : c0 + m->wide_rows;
    panels_mul(m->k, m->wtype, m->il, m->w + c0 * m->wrow, m->wrow, c1 - c0, m->cols, m->xq, (size_t)m->xrow,
               m->ntok, m->out + c0, (size_t)m->rows, wide);
  }
  slot_give(&m->wide_free, s);
}

/* prepare points m->xq at the activations in m->fmt, converting them on the
 * pool into its scratch (signed quants flipped for m->gemm; rounded and
 * kept as floats for m->round), and m->wide at extra bytes of the scratch
 * after them (64-byte aligned) where extra is not 0. */
static int32_t prepare(lrt_pool *p, mm_task *m, size_t extra) {
  m->xrow = act_row_bytes(m->fmt, m->cols);
  if (m->fmt == ACT_F32 && !m->round) {
    m->xq = (char *)m->x;
    if (extra) {
      m->wide = pool_scratch(p, extra);
      if (!m->wide) return LRT_ENOMEM;
    }
    return LRT_OK;
  }
  const size_t xbytes = ((size_t)(m->xrow * m->ntok) + 63) & ~(size_t)63;
  m->xq = pool_scratch(p, xbytes + extra);
  if (!m->xq) return LRT_ENOMEM;
  if (extra) m->wide = (float *)(m->xq + xbytes);
  /* tokens in chunks of about 16K elements: one chunk for decode */
  pool_run(p, quant_task, m, m->ntok, 1 + 16384 / m->cols);
  return LRT_OK;
}

static int32_t matmul(lrt_pool *p, int32_t wtype, int il, const void *w, int64_t rows, int64_t cols,
                      const float *x, int64_t ntok, float *out);

/* rows_chunk is the rows of a chunk of a product of rows rows of wrow
 * bytes by ntok tokens on nth threads: about 4 per thread for balance; for
 * a batch at most CHUNK_BYTES, so that a chunk stays in L2 while the
 * token tiles pass. Decode reuses nothing: each chunk is one stream from
 * memory, and the longer the better (2048x2048 F16 at 2 threads: 45-46
 * GB/s in 128 KB chunks, 50 in 1 MB ones, the Go backend's size). */
static int64_t rows_chunk(int64_t rows, int nth, int64_t wrow, int64_t ntok) {
  int64_t chunk = rows / ((int64_t)nth * 4);
  const int64_t max_rows = CHUNK_BYTES / wrow;
  if (ntok > 1 && chunk > max_rows) chunk = max_rows;
  return chunk < 1 ? 1 : chunk;
}

/* balanced_chunk is the rows of a chunk, a multiple of unit rows and at
 * most max_rows (or one unit), of a product of rows rows on nth threads:
 * of those sizes, the one whose chunks, taken as threads free up, end
 * soonest; the largest of ties, as each chunk passes over all the tokens.
 * 576 rows in 16-row units on 2 threads, at most 64 a chunk: 12 chunks of
 * 48, where 9 of 64 would leave one thread 5 (a tenth of the product idle). */
static int64_t balanced_chunk(int64_t rows, int64_t unit, int64_t max_rows, int nth) {
  const int64_t units = (rows + unit - 1) / unit;
  int64_t best = max_rows / unit < 1 ? 1 : max_rows / unit;
  if (best > units) best = units;
  int64_t best_span = INT64_MAX;
  for (int64_t per = best; per >= 1; per--) {
    /* a thread takes at most ceil(chunks/nth) chunks of per units */
    const int64_t span = (units + per * nth - 1) / (per * nth) * per;
    if (span < best_span) {
      best_span = span;
      best = per;
    }
  }
  return best * unit;
}

/* mm_new is the task of a product before its path is chosen: the
 * activation format its weight type multiplies (BF16 weights take
 * activations rounded to BF16, as ggml's do). */
static mm_task mm_new(lrt_pool *p, int32_t wtype, const void *w, int64_t rows, int64_t cols, const float *x,
                      int64_t ntok, float *out) {
  return (mm_task){
      .k = pool_kernels(p),
      .wtype = wtype,
      .w = w,
      .rows = rows,
      .cols = cols,
      .ntok = ntok,
      .x = x,
      .out = out,
      .fmt = act_format(wtype),
      .wrow = weight_row_bytes(wtype, cols),
      .round = wtype == LRT_BF16 ? ACT_BF16R : 0,
  };
}

/* mm_check validates the arguments of a product, as lrt_matmul's. */
static int32_t mm_check(lrt_pool *p, int32_t wtype, int il, const void *w, int64_t rows, int64_t cols,
                        const float *x, int64_t ntok, float *out) {
  if (!p || rows < 0 || cols < 0 || ntok < 0) return LRT_EINVAL;
  if (wtype < 0 || wtype >= LRT_NTYPES || !pool_kernels(p)->dot[wtype]) return LRT_EUNSUPPORTED;
  if (il && !lrt_pool_il16(p, wtype)) return LRT_EUNSUPPORTED;
  if (il && rows % IL_ROWS != 0) return LRT_EINVAL;
  if (cols % weight_block(wtype) != 0) return LRT_EINVAL;
  if (rows > 0 && ntok > 0 && (!w || !x || !out)) return LRT_EINVAL;
  return LRT_OK;
}

/* mm_multi is a decode pass over several products (lrt_matmuls): item i
 * is chunk i - start[e] of product e, for the e with start[e] <= i <
 * start[e+1]. */
typedef struct {
  mm_task *m;
  int n;
  int64_t start[LRT_MATMULS_MAX + 1];
  int64_t chunk[LRT_MATMULS_MAX];
} mm_multi;

static void mm_multi_rows(void *arg, int64_t lo, int64_t hi) {
  const mm_multi *mt = arg;
  int e = 0;
  for (int64_t i = lo; i < hi; i++) {
    while (i >= mt->start[e + 1]) e++;
    const int64_t r0 = (i - mt->start[e]) * mt->chunk[e], rows = mt->m[e].rows;
    mm_rows(&mt->m[e], r0, r0 + mt->chunk[e] < rows ? r0 + mt->chunk[e] : rows);
  }
}

int32_t lrt_matmuls(lrt_pool *p, const lrt_product *ps, int32_t n, int64_t cols, const float *x, int64_t ntok) {
  if (!p || n < 0 || n > LRT_MATMULS_MAX || (n > 0 && !ps)) return LRT_EINVAL;
  for (int e = 0; e < n; e++) {
    const int32_t rc = mm_check(p, ps[e].wtype, ps[e].il16 != 0, ps[e].w, ps[e].rows, cols, x, ntok, ps[e].out);
    if (rc != LRT_OK) return rc;
  }
  if (ntok != 1 || cols == 0) { /* batches fill the threads one product at a time */
    for (int e = 0; e < n; e++) {
      const int32_t rc = matmul(p, ps[e].wtype, ps[e].il16 != 0, ps[e].w, ps[e].rows, cols, x, ntok, ps[e].out);
      if (rc != LRT_OK) return rc;
    }
    return LRT_OK;
  }
  /* decode: each product's task as matmul sets one up for a token; the
   * activations converted once per format (Q, K and V of one type share
   * them), each format in its own stretch of the scratch */
  mm_task m[LRT_MATMULS_MAX];
  size_t off[LRT_MATMULS_MAX], total = 0;
  int same[LRT_MATMULS_MAX]; /* the first product with e's activations */
  for (int e = 0; e < n; e++) {
    m[e] = mm_new(p, ps[e].wtype, ps[e].w, ps[e].rows, cols, x, 1, ps[e].out);
    m[e].il = ps[e].il16 != 0;
    m[e].xrow = act_row_bytes(m[e].fmt, cols);
    same[e] = e;
    for (int f = 0; f < e; f++)
      if (m[f].fmt == m[e].fmt && m[f].round == m[e].round) {
        same[e] = f;
        break;
      }
    off[e] = same[e] == e ? total : off[same[e]];
    if (same[e] == e && (m[e].fmt != ACT_F32 || m[e].round)) total += ((size_t)m[e].xrow + 63) & ~(size_t)63;
  }
  pool_begin(p);
  char *scratch = total ? pool_scratch(p, total) : NULL;
  if (total && !scratch) {
    pool_end(p);
    return LRT_ENOMEM;
  }
  mm_multi mt = {.m = m, .n = n};
  const int nth = lrt_pool_threads(p);
  for (int e = 0; e < n; e++) {
    if (m[e].fmt == ACT_F32 && !m[e].round) {
      m[e].xq = (char *)x;
    } else {
      m[e].xq = scratch + off[e];
      if (same[e] == e) quant_task(&m[e], 0, 1);
    }
    int64_t chunk = rows_chunk(m[e].rows, nth, m[e].wrow, 1);
    if (m[e].il) chunk = (chunk + IL_ROWS - 1) / IL_ROWS * IL_ROWS;
    mt.chunk[e] = chunk;
    mt.start[e + 1] = mt.start[e] + (m[e].rows + chunk - 1) / chunk;
  }
  pool_run(p, mm_multi_rows, &mt, mt.start[n], 1);
  pool_end(p);
  return LRT_OK;
}

int32_t lrt_matmul(lrt_pool *p, int32_t wtype, const void *w, int64_t rows, int64_t cols,
                   const float *x, int64_t ntok, float *out) {
  return matmul(p, wtype, 0, w, rows, cols, x, ntok, out);
}

int32_t lrt_matmul_il16(lrt_pool *p, int32_t wtype, const void *w, int64_t rows, int64_t cols,
                        const float *x, int64_t ntok, float *out) {
  return matmul(p, wtype, 1, w, rows, cols, x, ntok, out);
}

int32_t lrt_pool_il16(const lrt_pool *p, int32_t wtype) {
  return p && wtype >= 0 && wtype < LRT_NTYPES && pool_kernels(p)->il_rows[wtype] &&
         (pool_kernels(p)->il_gemm[wtype] || pool_kernels(p)->il_panel[wtype]);
}

static int32_t matmul(lrt_pool *p, int32_t wtype, int il, const void *w, int64_t rows, int64_t cols,
                      const float *x, int64_t ntok, float *out) {
  const int32_t bad = mm_check(p, wtype, il, w, rows, cols, x, ntok, out);
  if (bad != LRT_OK) return bad;
  if (rows == 0 || ntok == 0) return LRT_OK;
  if (cols == 0) {
    memset(out, 0, (size_t)(rows * ntok) * sizeof(float));
    return LRT_OK;
  }

  mm_task m = mm_new(p, wtype, w, rows, cols, x, ntok, out);
  /* the batch kernels repack GEMM_ROWS rows per call, worth it from a few
   * tokens on; they take 32-element activation blocks for every type */
  const gemm_fn gemm = il ? m.k->il_gemm[wtype] : m.k->gemm[wtype];
  if (ntok >= GEMM_MIN_TOKENS && m.fmt != ACT_F32 && gemm) {
    m.gemm = gemm;
    m.signed_gemm = il && m.k->il_gemm_signed[wtype];
    m.fmt = ACT_Q8A;
  } else {
    m.il = il;
  }

  pool_begin(p);
  const int nth = lrt_pool_threads(p);
  int64_t chunk = rows_chunk(rows, nth, m.wrow, ntok);
  int32_t rc;
  if (m.gemm) {
    rc = prepare(p, &m, 0);
    if (rc != LRT_OK) {
      pool_end(p);
      return rc;
    }
    chunk = balanced_chunk(rows, GEMM_ROWS, chunk, nth);
    pool_run(p, mm_gemm, &m, rows, chunk);
    if (!atomic_load(&m.gemm_failed)) {
      pool_end(p);
      return LRT_OK;
    }
    /* out of memory for a repack: redo the product with the tiles (or a
     * token at a time over interleaved groups), which need no memory */
    m.gemm = NULL;
    m.fmt = act_format(wtype);
    m.il = il;
  }
  /* batches as panels (every weight type with kernels.panel: quantized
   * ones by activations rounded to their 8-bit blocks): chunks of at most
   * CHUNK_BYTES once widened (whole panels, at least one; a long row's
   * panel may exceed it), one slot of the scratch per thread */
  size_t slots_bytes = 0;
  /* (interleaved groups need a slot for every thread: their rows have no
   * tiles to fall back on) */
  if (ntok >= PANEL_MIN_TOKENS && !m.gemm && (m.il ? m.k->il_panel[wtype] != NULL : m.k->panel[wtype] != NULL) &&
      (!m.il || nth <= PANEL_SLOTS)) {
    const int64_t wide_max = CHUNK_BYTES / (cols * (int64_t)sizeof(float));
    const int64_t wide_rows = balanced_chunk(rows, PANEL_ROWS, chunk < wide_max ? chunk : wide_max, nth);
    const int slots = nth < PANEL_SLOTS ? nth : PANEL_SLOTS;
    slots_bytes = (size_t)slots * (size_t)(wide_rows * cols) * sizeof(float);
    m.wide_rows = wide_rows;
    m.wide_free = slots == 64 ? ~0ULL : (1ULL << slots) - 1;
    if (m.fmt != ACT_F32) {
      m.round = m.fmt;
      m.fmt = ACT_F32;
    }
    if (bf16_panels(m.k, wtype, cols)) {
      m.fmt = ACT_BF16;
      m.round = 0;
    }
    chunk = wide_rows;
  }
  rc = prepare(p, &m, slots_bytes);
  if (rc != LRT_OK && slots_bytes) {
    /* no memory for the slots: the tiles, on the activations alone */
    m.wide = NULL;
    if (wtype == LRT_BF16) {
      m.fmt = ACT_F32;
      m.round = ACT_BF16R;
    } else {
      m.fmt = m.round ? m.round : m.fmt;
      m.round = 0;
    }
    rc = prepare(p, &m, 0);
  }
  if (rc != LRT_OK) {
    pool_end(p);
    return rc;
  }
  if (m.il && !m.wide) chunk = balanced_chunk(rows, IL_ROWS, (chunk + IL_ROWS - 1) / IL_ROWS * IL_ROWS, nth);
  pool_run(p, mm_rows, &m, rows, chunk);
  pool_end(p);
  return LRT_OK;
}
