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
 * CPU has one (AVX-512 VNNI: every legacy type and Q4_K/Q5_K/Q6_K). The
 * activations become 32-element 8-bit blocks with their quants offset to
 * unsigned, and each call repacks GEMM_ROWS weight rows so that one
 * vpdpbusd advances all of them against one broadcast activation word:
 * no per-pair sign fix-ups or horizontal sums. On smollm2-135m (2 Zen 4
 * threads, 64-token batches) this took Q8_0 prefill from about 460 to about
 * 1000 tokens/s.
 *
 * Tried and dropped: 8-token gemm tiles (register spills, slower than 4);
 * software prefetch of the 16 row streams while repacking (no gain);
 * widening the weights of a chunk to floats and running
 * a float FMA tile for batches of 16+ tokens. Float activations are 3.2x
 * the bytes of 8-bit ones and every chunk re-streams all of them, which
 * made a 64-token 896x4864 Q8_0 product 2.4x slower on one Zen 4 core. */
#include <stdatomic.h>

#include "internal.h"

#define TILE_TOKENS 4
#define CHUNK_BYTES (192 * 1024)
#define GEMM_MIN_TOKENS 4

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
  _Atomic int gemm_failed;
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

static void quant_task(void *arg, int64_t lo, int64_t hi) {
  mm_task *m = arg;
  quant_fn q = m->fmt == ACT_Q8A ? m->k->quant_q8a : m->k->quant_q8K;
  for (int64_t t = lo; t < hi; t++) {
    block_q8a *y = (block_q8a *)(m->xq + t * m->xrow);
    q(m->x + t * m->cols, y, m->cols);
    if (m->gemm) flip_q8a(y, m->cols / QK);
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

/* mm_rows multiplies weight rows [r0, r1) by every token, a tile of
 * TILE_TOKENS tokens (and tile_rows rows where the kernels have tiles) at
 * a time. */
static void mm_rows(void *arg, int64_t r0, int64_t r1) {
  const mm_task *m = arg;
  const vecdot_fn dot = m->k->dot[m->wtype];
  const tile_fn tile = m->k->tile[m->wtype];
  /* Decode streams the weights from memory once: one row at a time keeps a
   * single sequential stream per thread, which measured 2-3x faster from
   * DRAM than interleaving 4 rows. Batches reuse rows from L2 and gain
   * from the register tile. */
  const int tr = m->ntok == 1 ? 1 : m->k->tile_rows[m->wtype];
  for (int64_t t0 = 0; t0 < m->ntok; t0 += TILE_TOKENS) {
    const int nt = m->ntok - t0 < TILE_TOKENS ? (int)(m->ntok - t0) : TILE_TOKENS;
    const char *xt = m->xq + t0 * m->xrow;
    float *ot = m->out + t0 * m->rows;
    if (tile) {
      for (int64_t r = r0; r < r1; r += tr) {
        const int nr = r1 - r < tr ? (int)(r1 - r) : tr;
        tile(m->cols, m->w + r * m->wrow, (size_t)m->wrow, nr, xt, (size_t)m->xrow, nt, ot + r,
             (size_t)m->rows);
      }
      continue;
    }
    for (int64_t r = r0; r < r1; r++)
      dot(m->cols, m->w + r * m->wrow, xt, (size_t)m->xrow, nt, ot + r, (size_t)m->rows);
  }
}

/* prepare points m->xq at the activations in m->fmt, converting them on the
 * pool into its scratch (signed quants flipped for m->gemm). */
static int32_t prepare(lrt_pool *p, mm_task *m) {
  m->xrow = act_row_bytes(m->fmt, m->cols);
  if (m->fmt == ACT_F32) {
    m->xq = (char *)m->x;
    return LRT_OK;
  }
  m->xq = pool_scratch(p, (size_t)(m->xrow * m->ntok));
  if (!m->xq) return LRT_ENOMEM;
  /* tokens in chunks of about 16K elements: one chunk for decode */
  pool_run(p, quant_task, m, m->ntok, 1 + 16384 / m->cols);
  return LRT_OK;
}

int32_t lrt_matmul(lrt_pool *p, int32_t wtype, const void *w, int64_t rows, int64_t cols,
                   const float *x, int64_t ntok, float *out) {
  if (!p || rows < 0 || cols < 0 || ntok < 0) return LRT_EINVAL;
  if (wtype < 0 || wtype >= LRT_NTYPES || !pool_kernels(p)->dot[wtype]) return LRT_EUNSUPPORTED;
  const int64_t bs = weight_block(wtype);
  if (cols % bs != 0) return LRT_EINVAL;
  if (rows == 0 || ntok == 0) return LRT_OK;
  if (!w || !x || !out) return LRT_EINVAL;
  if (cols == 0) {
    memset(out, 0, (size_t)(rows * ntok) * sizeof(float));
    return LRT_OK;
  }

  mm_task m = {
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
  };
  /* the batch kernels repack GEMM_ROWS rows per call, worth it from a few
   * tokens on; they take 32-element activation blocks for every type */
  if (ntok >= GEMM_MIN_TOKENS && m.fmt != ACT_F32 && m.k->gemm[wtype]) {
    m.gemm = m.k->gemm[wtype];
    m.fmt = ACT_Q8A;
  }

  pool_begin(p);
  const int nth = lrt_pool_threads(p);
  int32_t rc = prepare(p, &m);
  if (rc != LRT_OK) {
    pool_end(p);
    return rc;
  }

  /* rows in chunks: about 4 per thread for balance, at most CHUNK_BYTES
   * so a chunk stays in L2 while the token tiles pass */
  int64_t chunk = rows / ((int64_t)nth * 4);
  const int64_t max_rows = CHUNK_BYTES / m.wrow;
  if (chunk > max_rows) chunk = max_rows;
  if (chunk < 1) chunk = 1;
  if (m.gemm) {
    chunk = (chunk + GEMM_ROWS - 1) / GEMM_ROWS * GEMM_ROWS;
    pool_run(p, mm_gemm, &m, rows, chunk);
    if (!atomic_load(&m.gemm_failed)) {
      pool_end(p);
      return LRT_OK;
    }
    /* out of memory for a repack: redo the product with the tiles, which
     * need no memory */
    m.gemm = NULL;
    m.fmt = act_format(wtype);
    rc = prepare(p, &m);
    if (rc != LRT_OK) {
      pool_end(p);
      return rc;
    }
  }
  pool_run(p, mm_rows, &m, rows, chunk);
  pool_end(p);
  return LRT_OK;
}
