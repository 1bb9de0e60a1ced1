/* moe.c: lrt_matmul_grouped, the products of a mixture of experts in one
 * call (ggml's mul_mat_id): weight e times its group of activation rows,
 * for every group, with the pool's threads sharing the (group, row chunk)
 * pairs of all groups. A decode step with 8 of 128 experts is then one
 * dispatch per projection instead of 8, and the threads start and stop
 * once. Each group is multiplied exactly as lrt_matmul multiplies it (same
 * activation format, tiles and batch kernel for its row count), so the
 * results equal a loop of lrt_matmul calls; native/go_moe.go has the
 * specification. The entry point is declared here rather than in lrt.h:
 * the Go side (native/cpu_moe.go) looks it up and falls back to a loop of
 * MatMul calls when a library lacks it. */
#include <stdatomic.h>

#include "internal.h"

/* as matmul.c's CHUNK_BYTES, GEMM_MIN_TOKENS and PANEL_MIN_TOKENS */
#define MOE_CHUNK_BYTES (192 * 1024)
#define MOE_GEMM_MIN_TOKENS 4
#define MOE_PANEL_MIN_TOKENS 8

typedef struct {
  const kernels *k;
  int32_t wtype;
  const char *const *w; /* per group */
  const int64_t *n;     /* rows of each group */
  int64_t *first;       /* first activation row of each group */
  int32_t *tokgroup;    /* group of each activation row */
  int64_t ngroups, rows, cols;
  int64_t chunk, gchunk, nchunks; /* rows per item (gchunk for the batch kernel), items per group */
  const float *x;
  float *out;
  int fmt;      /* activation format of the tiles */
  char *xq;     /* prepared activations, one row per xrow bytes */
  int64_t xrow; /* the larger of the two formats' row bytes */
  int64_t wrow;
  gemm_fn gemm; /* the batch kernel for groups of MOE_GEMM_MIN_TOKENS+ rows, or NULL */
  _Atomic int gemm_failed;
  /* weights with kernels.panel: one panel of PANEL_ROWS*cols floats per
   * thread for groups of MOE_PANEL_MIN_TOKENS+ rows without the batch
   * kernel (as matmul.c's panels, quantized weights by activations rounded
   * to their 8-bit blocks; a panel's sums do not depend on how rows are
   * chunked) */
  float *panels;
  _Atomic uint64_t panel_free; /* a set bit per free panel */
} moe_task;

static int uses_gemm(const moe_task *m, int64_t g) { return m->gemm && m->n[g] >= MOE_GEMM_MIN_TOKENS; }

static int uses_panels(const moe_task *m, int64_t g) {
  return m->panels && !uses_gemm(m, g) && m->n[g] >= MOE_PANEL_MIN_TOKENS;
}


/* moe_panels multiplies weight rows [r0, r1) of w by the nt_all rows of
 * xg a panel at a time (the thread's slot holds one), as matmul.c does;
 * false when no slot is free. */
static int moe_panels(moe_task *m, const char *w, int64_t r0, int64_t r1, const char *xg, int64_t nt_all,
                      float *og) {
  const int s = slot_take(&m->panel_free);
  if (s < 0) return 0;
  float *pan = m->panels + (size_t)s * (size_t)(PANEL_ROWS * m->cols);
  for (int64_t r = r0; r < r1; r += PANEL_ROWS) {
    const int64_t nr = r1 - r < PANEL_ROWS ? r1 - r : PANEL_ROWS;
    panels_mul(m->k, m->wtype, 0, w + r * m->wrow, m->wrow, nr, m->cols, xg, (size_t)m->xrow, nt_all, og + r,
               (size_t)m->rows, pan);
  }
  slot_give(&m->panel_free, s);
  return 1;
}

/* moe_quant prepares activation rows [lo, hi) in their group's format:
 * the gemm kernels take +128 32-element blocks. */
static void moe_quant(void *arg, int64_t lo, int64_t hi) {
  moe_task *m = arg;
  for (int64_t t = lo; t < hi; t++) {
    block_q8a *y = (block_q8a *)(m->xq + t * m->xrow);
    const float *xt = m->x + t * m->cols;
    if (uses_panels(m, m->tokgroup[t]) && bf16_panels(m->k, m->wtype, m->cols)) {
      act_bf16(xt, (uint16_t *)y, m->cols);
    } else if (uses_panels(m, m->tokgroup[t]) || m->fmt == ACT_BF16R) {
      act_round(m->k, m->fmt, xt, (float *)y, m->cols);
    } else if (uses_gemm(m, m->tokgroup[t])) {
      m->k->quant_q8a(xt, y, m->cols);
      for (int64_t i = 0; i < m->cols / QK; i++)
        for (int j = 0; j < QK; j++) y[i].qs[j] = (int8_t)((uint8_t)y[i].qs[j] ^ 0x80);
    } else {
      (m->fmt == ACT_Q8A ? m->k->quant_q8a : m->k->quant_q8K)(xt, y, m->cols);
    }
  }
}

/* moe_items multiplies items [lo, hi): item i is row chunk i % nchunks of
 * group i / nchunks, by every row of the group, as matmul.c's mm_rows and
 * mm_gemm multiply a chunk. */
static void moe_items(void *arg, int64_t lo, int64_t hi) {
  moe_task *m = arg;
  for (int64_t i = lo; i < hi; i++) {
    const int64_t g = i / m->nchunks, c = i % m->nchunks, nt_all = m->n[g];
    if (nt_all == 0) continue;
    const int64_t ch = uses_gemm(m, g) ? m->gchunk : m->chunk, r0 = c * ch;
    const int64_t r1 = r0 + ch < m->rows ? r0 + ch : m->rows;
    if (r0 >= r1) continue; /* the batch kernel's larger chunks need fewer items */
    const char *w = m->w[g], *xg = m->xq + m->first[g] * m->xrow;
    float *og = m->out + m->first[g] * m->rows;
    if (uses_gemm(m, g)) {
      for (int64_t r = r0; r < r1; r += GEMM_ROWS) {
        const int nr = r1 - r < GEMM_ROWS ? (int)(r1 - r) : GEMM_ROWS;
        if (m->gemm(m->cols, w + r * m->wrow, (size_t)m->wrow, nr, xg, (size_t)m->xrow, nt_all, og + r,
                    (size_t)m->rows) != 0) {
          atomic_store(&m->gemm_failed, 1);
          return;
        }
      }
      continue;
    }
    if (uses_panels(m, g) && moe_panels(m, w, r0, r1, xg, nt_all, og)) continue;
    rows_mul(m->k, m->wtype, w + r0 * m->wrow, m->wrow, r1 - r0, m->cols, xg, (size_t)m->xrow, nt_all,
             og + r0, (size_t)m->rows);
  }
}

/* lrt_matmul_grouped computes, for each group g < ngroups of n[g] rows
 * (first = the rows of the groups before g), out[(first+t)*rows + r] =
 * sum_c W_g[r][c] * x[(first+t)*cols + c]: lrt_matmul(p, wtype, w[g], rows,
 * cols, x + first*cols, n[g], out + first*rows) for every g. */
LRT_API int32_t lrt_matmul_grouped(lrt_pool *p, int32_t wtype, const void *const *w, const int64_t *n,
                                   int64_t ngroups, int64_t rows, int64_t cols, const float *x,
                                   float *out) {
  if (!p || ngroups < 0 || rows < 0 || cols < 0 || (ngroups > 0 && (!w || !n))) return LRT_EINVAL;
  if (wtype < 0 || wtype >= LRT_NTYPES || !pool_kernels(p)->dot[wtype]) return LRT_EUNSUPPORTED;
  if (cols % weight_block(wtype) != 0) return LRT_EINVAL;
  int64_t ntok = 0;
  for (int64_t g = 0; g < ngroups; g++) {
    if (n[g] < 0 || (n[g] > 0 && !w[g])) return LRT_EINVAL;
    ntok += n[g];
  }
  if (rows == 0 || ntok == 0) return LRT_OK;
  if (!x || !out) return LRT_EINVAL;
  if (cols == 0) {
    memset(out, 0, (size_t)(rows * ntok) * sizeof(float));
    return LRT_OK;
  }
  moe_task m = {
      .k = pool_kernels(p),
      .wtype = wtype,
      .w = (const char *const *)w,
      .n = n,
      .ngroups = ngroups,
      .rows = rows,
      .cols = cols,
      .x = x,
      .out = out,
      .fmt = wtype == LRT_BF16 ? ACT_BF16R : act_format(wtype), /* as lrt_matmul rounds them */
      .wrow = weight_row_bytes(wtype, cols),
  };
  if (m.fmt != ACT_F32 && m.k->gemm[wtype])
    for (int64_t g = 0; g < ngroups && !m.gemm; g++)
      if (n[g] >= MOE_GEMM_MIN_TOKENS) m.gemm = m.k->gemm[wtype];
  m.xrow = act_row_bytes(m.fmt, cols);
  if (m.gemm && act_row_bytes(ACT_Q8A, cols) > m.xrow) m.xrow = act_row_bytes(ACT_Q8A, cols);

  pool_begin(p);
  const int nth = lrt_pool_threads(p);
  /* scratch: first[ngroups], tokgroup[ntok], then the activations or the
   * float panels (one per thread, at most 64) */
  const size_t idx = ((size_t)ngroups * sizeof(int64_t) + (size_t)ntok * sizeof(int32_t) + 63) & ~(size_t)63;
  int npanels = 0;
  if (m.k->panel[wtype])
    for (int64_t g = 0; g < ngroups && !npanels; g++)
      if (n[g] >= MOE_PANEL_MIN_TOKENS && !(m.gemm && n[g] >= MOE_GEMM_MIN_TOKENS)) npanels = nth < 64 ? nth : 64;
  if (npanels && m.fmt != ACT_F32 && cols * (int64_t)sizeof(float) > m.xrow)
    m.xrow = cols * (int64_t)sizeof(float); /* rounded rows as floats */
  const size_t panel_bytes = (size_t)npanels * (size_t)(PANEL_ROWS * cols) * sizeof(float);
  const size_t act_bytes = m.fmt == ACT_F32 ? 0 : ((size_t)(m.xrow * ntok) + 63) & ~(size_t)63;
  char *s = pool_scratch(p, idx + act_bytes + panel_bytes);
  if (!s) {
    pool_end(p);
    return LRT_ENOMEM;
  }
  m.first = (int64_t *)s;
  m.tokgroup = (int32_t *)(s + (size_t)ngroups * sizeof(int64_t));
  int64_t o = 0;
  for (int64_t g = 0; g < ngroups; g++) {
    m.first[g] = o;
    for (int64_t t = 0; t < n[g]; t++) m.tokgroup[o + t] = (int32_t)g;
    o += n[g];
  }
  if (npanels) {
    m.panels = (float *)(s + idx + act_bytes);
    m.panel_free = npanels == 64 ? ~0ULL : (1ULL << npanels) - 1;
  }
  if (m.fmt == ACT_F32) {
    m.xq = (char *)x;
  } else {
    m.xq = s + idx;
    pool_run(p, moe_quant, &m, ntok, 1 + 16384 / cols);
  }
  /* rows in chunks as lrt_matmul cuts them (about 4 per thread, at most
   * MOE_CHUNK_BYTES, whole GEMM_ROWS for the batch kernel), so the tiles
   * fall on the same rows and the sums are lrt_matmul's bit for bit */
  int64_t chunk = rows / ((int64_t)nth * 4);
  const int64_t max_rows = MOE_CHUNK_BYTES / m.wrow;
  if (chunk > max_rows) chunk = max_rows;
  if (chunk < 1) chunk = 1;
  m.chunk = chunk;
  m.gchunk = (chunk + GEMM_ROWS - 1) / GEMM_ROWS * GEMM_ROWS;
  m.nchunks = (rows + chunk - 1) / chunk;
  pool_run(p, moe_items, &m, ngroups * m.nchunks, 1);
  pool_end(p);
  if (!atomic_load(&m.gemm_failed)) return LRT_OK;
  /* out of memory for a repack: redo each group with lrt_matmul, which
   * falls back to the tiles */
  for (int64_t g = 0, first = 0; g < ngroups; first += n[g], g++) {
    if (n[g] == 0) continue;
    const int32_t rc = lrt_matmul(p, wtype, w[g], rows, cols, x + first * cols, n[g], out + first * rows);
    if (rc != LRT_OK) return rc;
  }
  return LRT_OK;
}
