/* ops.c: the element-wise and row-wise operations of a transformer layer:
 * RMSNorm, RoPE, softmax, the gated activations and the residual add, bias
 * add and scale. Each splits its rows
 * (or elements) over the pool when the work is large enough to pay for
 * waking the workers. */
#include <math.h>

#include "internal.h"

/* PAR_MIN is the element count under which an op runs on the caller only. */
#define PAR_MIN 32768

/* run calls fn over nitems items of item_size elements each, in chunks of
 * about PAR_MIN elements (all on the caller when the op is small). */
static void run(lrt_pool *p, int64_t nitems, int64_t item_size, task_fn fn, void *arg) {
  pool_run(p, fn, arg, nitems, 1 + PAR_MIN / (item_size > 0 ? item_size : 1));
}

/* ---- RMSNorm ---- */

typedef struct {
  float *out;
  const float *x, *w;
  int64_t n, ntok;
  float eps;
  int add_one;
} norm_task;

static void norm_rows(void *arg, int64_t lo, int64_t hi) {
  const norm_task *a = arg;
  for (int64_t t = lo; t < hi; t++) {
    const float *x = a->x + t * a->n;
    float *o = a->out + t * a->n;
    /* squares summed in double, as ggml_compute_forward_rms_norm_f32 */
    double ss = 0;
    for (int64_t i = 0; i < a->n; i++) ss += (double)(x[i] * x[i]);
    const float scale = (float)(1.0 / sqrt((double)((float)(ss / (double)a->n) + a->eps)));
    if (!a->w)
      for (int64_t i = 0; i < a->n; i++) o[i] = x[i] * scale;
    else if (a->add_one)
      for (int64_t i = 0; i < a->n; i++) o[i] = x[i] * scale * (1.0f + a->w[i]);
    else
      for (int64_t i = 0; i < a->n; i++) o[i] = x[i] * scale * a->w[i];
  }
}

int32_t lrt_rmsnorm(lrt_pool *p, float *out, const float *x, const float *weight, int64_t n,
                    int64_t ntok, const lrt_norm_params *prm) {
  if (!p || !prm || n < 0 || ntok < 0) return LRT_EINVAL;
  if (n == 0 || ntok == 0) return LRT_OK;
  if (!out || !x) return LRT_EINVAL;
  norm_task a = {out, x, weight, n, ntok, prm->eps, prm->add_one};
  pool_begin(p);
  run(p, ntok, n, norm_rows, &a);
  pool_end(p);
  return LRT_OK;
}

/* ---- RoPE ---- */

#define ROPE_MAX_DIM 1024

typedef struct {
  float *x;
  int64_t ntok, nheads, head_dim, pos0;
  const float *inv_freq;
  int rot, neox;
} rope_task;

static void rope_rows(void *arg, int64_t lo, int64_t hi) {
  const rope_task *a = arg;
  const int half = a->rot / 2;
  float cs[ROPE_MAX_DIM / 2], sn[ROPE_MAX_DIM / 2];
  for (int64_t t = lo; t < hi; t++) {
    /* angle in double, as the Go twin: positions reach 1e5 and more */
    const double p = (double)(a->pos0 + t);
    for (int i = 0; i < half; i++) {
      const double th = p * (double)a->inv_freq[i];
      cs[i] = (float)cos(th);
      sn[i] = (float)sin(th);
    }
    for (int64_t h = 0; h < a->nheads; h++) {
      float *v = a->x + (t * a->nheads + h) * a->head_dim;
      if (a->neox) {
        for (int i = 0; i < half; i++) {
          const float x0 = v[i], x1 = v[i + half];
          v[i] = x0 * cs[i] - x1 * sn[i];
          v[i + half] = x0 * sn[i] + x1 * cs[i];
        }
      } else {
        for (int i = 0; i < half; i++) {
          const float x0 = v[2 * i], x1 = v[2 * i + 1];
          v[2 * i] = x0 * cs[i] - x1 * sn[i];
          v[2 * i + 1] = x0 * sn[i] + x1 * cs[i];
        }
      }
    }
  }
}

int32_t lrt_rope(lrt_pool *p, float *x, int64_t ntok, int64_t nheads, int64_t head_dim,
                 int64_t pos0, const float *inv_freq, int64_t rot_dim, int32_t neox) {
  if (!p || ntok < 0 || nheads < 0 || head_dim < 0 || pos0 < 0) return LRT_EINVAL;
  if (rot_dim < 0 || rot_dim % 2 != 0 || rot_dim > head_dim) return LRT_EINVAL;
  if (rot_dim > ROPE_MAX_DIM) return LRT_EUNSUPPORTED;
  if (ntok == 0 || nheads == 0 || rot_dim == 0) return LRT_OK;
  if (!x || !inv_freq) return LRT_EINVAL;
  rope_task a = {x, ntok, nheads, head_dim, pos0, inv_freq, (int)rot_dim, neox != 0};
  pool_begin(p);
  run(p, ntok, nheads * head_dim, rope_rows, &a);
  pool_end(p);
  return LRT_OK;
}

/* ---- softmax ---- */

typedef struct {
  const kernels *k;
  float *x;
  int64_t n, rows;
} softmax_task;

static void softmax_row(const kernels *k, float *x, int64_t n) {
  float m = -INFINITY;
  for (int64_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  if (m == -INFINITY) { /* every entry masked: uniform zero */
    for (int64_t i = 0; i < n; i++) x[i] = 0;
    return;
  }
  const float inv = 1.0f / k->exp_sum(x, n, m);
  for (int64_t i = 0; i < n; i++) x[i] *= inv;
}

static void softmax_rows(void *arg, int64_t lo, int64_t hi) {
  const softmax_task *a = arg;
  for (int64_t r = lo; r < hi; r++) softmax_row(a->k, a->x + r * a->n, a->n);
}

int32_t lrt_softmax(lrt_pool *p, float *x, int64_t n, int64_t rows) {
  if (!p || n < 0 || rows < 0) return LRT_EINVAL;
  if (n == 0 || rows == 0) return LRT_OK;
  if (!x) return LRT_EINVAL;
  softmax_task a = {pool_kernels(p), x, n, rows};
  pool_begin(p);
  run(p, rows, n, softmax_rows, &a);
  pool_end(p);
  return LRT_OK;
}

/* ---- gated activations ---- */

typedef struct {
  const kernels *k;
  int act;
  float *out;
  const float *gate, *up;
  int64_t n;
} glu_task;

static void glu_range(void *arg, int64_t lo, int64_t hi) {
  const glu_task *a = arg;
  if (a->act == LRT_SILU) {
    a->k->swiglu(a->out + lo, a->gate + lo, a->up + lo, hi - lo);
  } else {
    /* 0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3))), ggml_gelu_f32 */
    const float c = 0.7978845608028654f;
    for (int64_t i = lo; i < hi; i++) {
      const float g = a->gate[i];
      a->out[i] = 0.5f * g * (1.0f + tanhf(c * g * (1.0f + 0.044715f * g * g))) * a->up[i];
    }
  }
}

int32_t lrt_glu(lrt_pool *p, int32_t act, float *out, const float *gate, const float *up,
                int64_t n) {
  if (!p || n < 0) return LRT_EINVAL;
  if (act != LRT_SILU && act != LRT_GELU) return LRT_EUNSUPPORTED;
  if (n == 0) return LRT_OK;
  if (!out || !gate || !up) return LRT_EINVAL;
  glu_task a = {pool_kernels(p), act, out, gate, up, n};
  pool_begin(p);
  run(p, n, 1, glu_range, &a);
  pool_end(p);
  return LRT_OK;
}

/* ---- residual add, bias add, scale ---- */

typedef struct {
  int op;
  float *y;
  const float *x;
  int64_t period;
  float c;
} elt_task;

/* elt_range runs items lo..hi: elements, or rows of period for
 * LRT_ELT_ADD_ROW. */
static void elt_range(void *arg, int64_t lo, int64_t hi) {
  const elt_task *a = arg;
  float *y = a->y;
  const float *x = a->x;
  switch (a->op) {
  case LRT_ELT_ADD:
    for (int64_t i = lo; i < hi; i++) y[i] += x[i];
    break;
  case LRT_ELT_ADD_ROW:
    for (int64_t r = lo; r < hi; r++) {
      float *yr = y + r * a->period;
      for (int64_t j = 0; j < a->period; j++) yr[j] += x[j];
    }
    break;
  case LRT_ELT_SCALE:
    for (int64_t i = lo; i < hi; i++) y[i] *= a->c;
    break;
  }
}

int32_t lrt_eltwise(lrt_pool *p, int32_t op, float *y, const float *x, int64_t n, int64_t period,
                    const lrt_elt_params *prm) {
  if (!p || !prm || n < 0) return LRT_EINVAL;
  if (op != LRT_ELT_ADD && op != LRT_ELT_ADD_ROW && op != LRT_ELT_SCALE) return LRT_EUNSUPPORTED;
  if (op == LRT_ELT_ADD_ROW && (period <= 0 || n % period != 0)) return LRT_EINVAL;
  if (n == 0) return LRT_OK;
  if (!y || (op != LRT_ELT_SCALE && !x)) return LRT_EINVAL;
  elt_task a = {op, y, x, period, prm->c};
  pool_begin(p);
  if (op == LRT_ELT_ADD_ROW)
    run(p, n / period, period, elt_range, &a);
  else
    run(p, n, 1, elt_range, &a);
  pool_end(p);
  return LRT_OK;
}

/* ---- embedding lookup ---- */

int32_t lrt_get_rows(lrt_pool *p, int32_t wtype, const void *w, int64_t rows, int64_t cols,
                     const int32_t *ids, int64_t nids, float *out) {
  if (!p || rows < 0 || cols < 0 || nids < 0) return LRT_EINVAL;
  if (wtype != LRT_F32 && wtype != LRT_F16 && wtype != LRT_BF16 && wtype != LRT_Q8_0)
    return LRT_EUNSUPPORTED;
  if (wtype == LRT_Q8_0 && cols % QK != 0) return LRT_EINVAL;
  if (nids == 0 || cols == 0) return LRT_OK;
  if (!w || !ids || !out) return LRT_EINVAL;
  const int64_t rb = weight_row_bytes(wtype, cols);
  for (int64_t t = 0; t < nids; t++) {
    if (ids[t] < 0 || ids[t] >= rows) return LRT_EINVAL;
    const uint8_t *row = (const uint8_t *)w + (int64_t)ids[t] * rb;
    float *o = out + t * cols;
    switch (wtype) {
    case LRT_F32:
      memcpy(o, row, (size_t)cols * sizeof(float));
      break;
    /* rows may sit at any byte offset: halves are read with memcpy */
    case LRT_F16:
    case LRT_BF16:
      for (int64_t i = 0; i < cols; i++) {
        uint16_t h;
        memcpy(&h, row + 2 * i, 2);
        o[i] = wtype == LRT_F16 ? lrt_f16_to_f32(h) : lrt_bf16_to_f32(h);
      }
      break;
    case LRT_Q8_0:
      for (int64_t b = 0; b < cols / QK; b++) {
        const uint8_t *blk = row + b * (int64_t)sizeof(block_q8_0);
        uint16_t dh;
        memcpy(&dh, blk, 2);
        const float d = lrt_f16_to_f32(dh);
        const int8_t *qs = (const int8_t *)(blk + 2);
        for (int j = 0; j < QK; j++) o[b * QK + j] = (float)qs[j] * d;
      }
      break;
    }
  }
  return LRT_OK;
}
