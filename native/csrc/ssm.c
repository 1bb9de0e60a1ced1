/* ssm.c: the operations of recurrent and convolutional layers (LFM2's short
 * convolutions, Qwen3.5's gated DeltaNet): twins of native/go_ssm.go, which
 * is their specification. The entry points are declared here rather than in
 * lrt.h: the Go side looks them up by name and falls back to its own
 * kernels when a library lacks them. */
#include <math.h>

#include "internal.h"

/* SSM_PAR_MIN is the multiply-add count under which an op runs on the
 * caller only. */
#define SSM_PAR_MIN 16384

/* ---- causal depthwise convolution ---- */

typedef struct {
  float *out;
  const float *x;
  float *state;
  const float *w;
  int64_t channels, kernel, ntok;
} conv_task;

/* conv_range convolves channels [lo, hi): out[t][c] = sum_j w[c][j] x'[t+j][c]
 * over x' = the kernel-1 rows of state, then x; then state keeps the last
 * kernel-1 rows of x'. */
static void conv_range(void *arg, int64_t lo, int64_t hi) {
  const conv_task *a = arg;
  const int64_t C = a->channels, K = a->kernel, H = K - 1;
  for (int64_t t = 0; t < a->ntok; t++) {
    float *o = a->out + t * C;
    for (int64_t c = lo; c < hi; c++) o[c] = 0;
    for (int64_t j = 0; j < K; j++) {
      const int64_t r = t + j;
      const float *xr = r < H ? a->state + r * C : a->x + (r - H) * C;
      for (int64_t c = lo; c < hi; c++) o[c] += xr[c] * a->w[c * K + j];
    }
  }
  /* source row ntok+r is never before destination row r */
  for (int64_t r = 0; r < H; r++) {
    const int64_t s = a->ntok + r;
    const float *src = s < H ? a->state + s * C : a->x + (s - H) * C;
    memmove(a->state + r * C + lo, src + lo, (size_t)(hi - lo) * sizeof(float));
  }
}

LRT_API int32_t lrt_causal_conv(lrt_pool *p, float *out, const float *x, float *state, const float *w,
                                int64_t channels, int64_t kernel, int64_t ntok) {
  if (!p || channels <= 0 || kernel < 2 || ntok < 0) return LRT_EINVAL;
  if (ntok == 0) return LRT_OK;
  if (!out || !x || !state || !w) return LRT_EINVAL;
  conv_task a = {out, x, state, w, channels, kernel, ntok};
  pool_begin(p);
  pool_run(p, conv_range, &a, channels, 1 + SSM_PAR_MIN / (kernel * ntok));
  pool_end(p);
  return LRT_OK;
}

/* ---- gated delta rule ---- */

/* lrt_delta_params mirrors deltaParams of native/cpu_ssm.go. */
typedef struct {
  float *out, *q, *k;
  const float *v, *gate, *beta;
  float *state;
  int64_t nk, nv, dim, ntok;
  float eps;
  int32_t pad;
} lrt_delta_params;

LRT_API int64_t lrt_delta_params_size(void) { return (int64_t)sizeof(lrt_delta_params); }

static float dotf(const float *a, const float *b, int64_t n) {
  float s[8] = {0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; l++) s[l] += a[i + l] * b[i + l];
  for (; i < n; i++) s[0] += a[i] * b[i];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

typedef struct {
  float *x;
  int64_t n;
  float eps, c;
} l2_task;

/* l2_range sets rows [lo, hi) of n to x/sqrt(sum x^2 + eps)*c, computed as
 * ggml_rms_norm(x, eps/n) scaled by 1/sqrt(n). */
static void l2_range(void *arg, int64_t lo, int64_t hi) {
  const l2_task *a = arg;
  const float inv = (float)(1.0 / sqrt((double)a->n));
  for (int64_t r = lo; r < hi; r++) {
    float *x = a->x + r * a->n;
    double ss = 0;
    for (int64_t i = 0; i < a->n; i++) ss += (double)(x[i] * x[i]);
    const float s = (float)(1.0 / sqrt((double)((float)(ss / (double)a->n) + a->eps / (float)a->n))) * inv;
    for (int64_t i = 0; i < a->n; i++) x[i] = x[i] * s * a->c;
  }
}

/* delta_range scans value heads [lo, hi) as deltaHead of go_ssm.go: per
 * row j of the state (column j of S), with a = e^g,
 * d = beta (v[j] - a S[:,j].k), out[j] = a S[:,j].q + d (k.q), then
 * S[:,j] = a S[:,j] + d k. */
static void delta_range(void *arg, int64_t lo, int64_t hi) {
  const lrt_delta_params *a = arg;
  const int64_t n = a->dim, kw = a->nk * n, vw = a->nv * n;
  for (int64_t h = lo; h < hi; h++) {
    const int64_t hk = h % a->nk;
    float *s = a->state + h * n * n;
    for (int64_t t = 0; t < a->ntok; t++) {
      const float *q = a->q + t * kw + hk * n, *k = a->k + t * kw + hk * n;
      const float *v = a->v + t * vw + h * n;
      float *o = a->out + t * vw + h * n;
      const float decay = (float)exp((double)a->gate[t * a->nv + h]);
      const float b = a->beta[t * a->nv + h];
      const float kq = dotf(k, q, n);
      for (int64_t j = 0; j < n; j++) {
        float *sj = s + j * n;
        const float d = (v[j] - decay * dotf(sj, k, n)) * b;
        o[j] = decay * dotf(sj, q, n) + d * kq;
        for (int64_t i = 0; i < n; i++) sj[i] = decay * sj[i] + d * k[i];
      }
    }
  }
}

LRT_API int32_t lrt_delta_net(lrt_pool *p, const lrt_delta_params *a) {
  if (!p || !a || a->nk <= 0 || a->dim <= 0 || a->nv % a->nk != 0 || a->ntok < 0) return LRT_EINVAL;
  if (a->ntok == 0) return LRT_OK;
  if (!a->out || !a->q || !a->k || !a->v || !a->gate || !a->beta || !a->state) return LRT_EINVAL;
  const int64_t rows = a->ntok * a->nk;
  l2_task lq = {a->q, a->dim, a->eps, (float)(1.0 / sqrt((double)a->dim))};
  l2_task lk = {a->k, a->dim, a->eps, 1.0f};
  pool_begin(p);
  pool_run(p, l2_range, &lq, rows, 1 + SSM_PAR_MIN / a->dim);
  pool_run(p, l2_range, &lk, rows, 1 + SSM_PAR_MIN / a->dim);
  pool_run(p, delta_range, (void *)a, a->nv, 1);
  pool_end(p);
  return LRT_OK;
}

/* ---- gated RMSNorm ---- */

typedef struct {
  float *out;
  const float *x, *gate, *w;
  int64_t n;
  float eps;
} gnorm_task;

static void gnorm_range(void *arg, int64_t lo, int64_t hi) {
  const gnorm_task *a = arg;
  for (int64_t t = lo; t < hi; t++) {
    const float *x = a->x + t * a->n, *g = a->gate + t * a->n;
    float *o = a->out + t * a->n;
    double ss = 0;
    for (int64_t i = 0; i < a->n; i++) ss += (double)(x[i] * x[i]);
    const float scale = (float)(1.0 / sqrt((double)((float)(ss / (double)a->n) + a->eps)));
    for (int64_t i = 0; i < a->n; i++) {
      const float z = g[i];
      o[i] = x[i] * scale * a->w[i] * (z / (1.0f + (float)exp((double)-z)));
    }
  }
}

LRT_API int32_t lrt_gated_rmsnorm(lrt_pool *p, float *out, const float *x, const float *gate, const float *w,
                                  int64_t n, int64_t rows, const lrt_norm_params *prm) {
  if (!p || !prm || n <= 0 || rows < 0) return LRT_EINVAL;
  if (rows == 0) return LRT_OK;
  if (!out || !x || !gate || !w) return LRT_EINVAL;
  gnorm_task a = {out, x, gate, w, n, prm->eps};
  pool_begin(p);
  pool_run(p, gnorm_range, &a, rows, 1 + SSM_PAR_MIN / n);
  pool_end(p);
  return LRT_OK;
}
