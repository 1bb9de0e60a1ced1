/* matmul.c: lrt_matmul, quantized weights times a batch of activations.
 *
 * Two phases on the pool. First the activations are converted once to the
 * format the weight type multiplies (8-bit blocks for quantized weights).
 * Then threads take chunks of weight rows from a shared counter; for each
 * chunk, every tile of up to 4 tokens walks the chunk's rows, so a weight
 * row is unpacked once per tile and the chunk (at most CHUNK_BYTES) stays
 * in L2 while the tiles stream past it. Decode (one token) is then a plain
 * row-parallel matrix-vector product. */
#include <stdatomic.h>

#include "internal.h"

#define TILE_TOKENS 4
#define CHUNK_BYTES (192 * 1024)

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
  int64_t chunk, nchunks;
  _Atomic int64_t next;
} mm_task;

static void quant_task(void *arg, int ith, int nth) {
  mm_task *m = arg;
  quant_fn q = m->fmt == ACT_Q8A ? m->k->quant_q8a : m->k->quant_q8K;
  for (int64_t t = ith; t < m->ntok; t += nth)
    q(m->x + t * m->cols, m->xq + t * m->xrow, m->cols);
}

static void mm_chunk(const mm_task *m, int64_t c) {
  const vecdot_fn dot = m->k->dot[m->wtype];
  const int64_t r0 = c * m->chunk;
  const int64_t r1 = r0 + m->chunk < m->rows ? r0 + m->chunk : m->rows;
  for (int64_t t0 = 0; t0 < m->ntok; t0 += TILE_TOKENS) {
    const int nt = m->ntok - t0 < TILE_TOKENS ? (int)(m->ntok - t0) : TILE_TOKENS;
    const char *xt = m->xq + t0 * m->xrow;
    float *ot = m->out + t0 * m->rows;
    for (int64_t r = r0; r < r1; r++)
      dot(m->cols, m->w + r * m->wrow, xt, (size_t)m->xrow, nt, ot + r, (size_t)m->rows);
  }
}

static void mm_task_run(void *arg, int ith, int nth) {
  (void)ith;
  (void)nth;
  mm_task *m = arg;
  int64_t c;
  while ((c = atomic_fetch_add_explicit(&m->next, 1, memory_order_relaxed)) < m->nchunks)
    mm_chunk(m, c);
}

int32_t lrt_matmul(lrt_pool *p, int32_t wtype, const void *w, int64_t rows, int64_t cols,
                   const float *x, int64_t ntok, float *out) {
  if (!p || rows < 0 || cols < 0 || ntok < 0) return LRT_EINVAL;
  if (!lrt_supports(wtype)) return LRT_EUNSUPPORTED;
  const int64_t bs = weight_block(wtype);
  if (cols % bs != 0) return LRT_EINVAL;
  if (rows == 0 || ntok == 0) return LRT_OK;
  if (!w || !x || !out) return LRT_EINVAL;
  if (cols == 0) {
    memset(out, 0, (size_t)(rows * ntok) * sizeof(float));
    return LRT_OK;
  }

  mm_task m = {
      .k = lrt_kernels(),
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
  m.xrow = act_row_bytes(m.fmt, cols);

  pool_begin(p);
  const int nth = lrt_pool_threads(p);
  if (m.fmt == ACT_F32) {
    m.xq = (char *)x;
  } else {
    m.xq = pool_scratch(p, (size_t)(m.xrow * ntok));
    if (!m.xq) {
      pool_end(p);
      return LRT_ENOMEM;
    }
    if (ntok * cols < 16384)
      quant_task(&m, 0, 1);
    else
      pool_run(p, quant_task, &m);
  }

  int64_t chunk = rows / ((int64_t)nth * 4);
  const int64_t max_rows = CHUNK_BYTES / m.wrow;
  if (chunk > max_rows) chunk = max_rows;
  if (chunk < 1) chunk = 1;
  m.chunk = chunk;
  m.nchunks = (rows + chunk - 1) / chunk;
  atomic_init(&m.next, 0);
  if (m.nchunks == 1 || nth == 1)
    mm_task_run(&m, 0, 1);
  else
    pool_run(p, mm_task_run, &m);
  pool_end(p);
  return LRT_OK;
}
