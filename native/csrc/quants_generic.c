/* quants_generic.c: portable scalar kernels. They define the arithmetic the
 * ISA-specific files must reproduce and serve CPUs without them. */
#include <math.h>

#include "internal.h"

/* ---- activation quantization ---- */

static void quant_q8a_generic(const float *x, void *vy, int64_t n) {
  block_q8a *y = vy;
  for (int64_t i = 0; i < n / QK; i++) {
    const float *xb = x + i * QK;
    float amax = 0.0f;
    for (int j = 0; j < QK; j++) amax = fmaxf(amax, fabsf(xb[j]));
    const float d = amax / 127.0f;
    const float id = amax != 0.0f ? 127.0f / amax : 0.0f; /* as the SIMD kernels */
    int sum = 0;
    for (int j = 0; j < QK; j++) {
      const int q = (int)lrintf(xb[j] * id);
      y[i].qs[j] = (int8_t)q;
      sum += q;
    }
    y[i].d = d;
    y[i].s = d * (float)sum;
  }
}

static void quant_q8K_generic(const float *x, void *vy, int64_t n) {
  block_q8K *y = vy;
  for (int64_t i = 0; i < n / QKK; i++) {
    const float *xb = x + i * QKK;
    float amax = 0.0f;
    for (int j = 0; j < QKK; j++) amax = fmaxf(amax, fabsf(xb[j]));
    if (amax == 0.0f) {
      memset(&y[i], 0, sizeof(y[i]));
      continue;
    }
    const float iscale = 127.0f / amax;
    for (int j = 0; j < QKK; j++) {
      int q = (int)lrintf(iscale * xb[j]);
      y[i].qs[j] = (int8_t)(q > 127 ? 127 : q < -127 ? -127 : q);
    }
    for (int j = 0; j < QKK / 16; j++) {
      int s = 0;
      for (int l = 0; l < 16; l++) s += y[i].qs[16 * j + l];
      y[i].bsums[j] = (int16_t)s;
    }
    y[i].d = 1.0f / iscale;
  }
}

/* ---- float rows ---- */

static float dot_f32_generic(const float *a, const float *b, int64_t n) {
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; i++) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

static void axpy_f32_generic(float *y, float a, const float *x, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] += a * x[i];
}

static float dot_f16_generic(const uint16_t *a, const float *b, int64_t n) {
  float s0 = 0, s1 = 0;
  int64_t i = 0;
  for (; i + 2 <= n; i += 2) {
    s0 += lrt_f16_to_f32(a[i]) * b[i];
    s1 += lrt_f16_to_f32(a[i + 1]) * b[i + 1];
  }
  for (; i < n; i++) s0 += lrt_f16_to_f32(a[i]) * b[i];
  return s0 + s1;
}

static void axpy_f16_generic(float *y, float a, const uint16_t *x, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] += a * lrt_f16_to_f32(x[i]);
}

static void vecdot_f32_generic(int64_t n, const void *w, const void *x, size_t xs, int nt,
                               float *out, size_t os) {
  for (int t = 0; t < nt; t++)
    out[t * os] = dot_f32_generic(w, (const float *)((const char *)x + t * xs), n);
}

static void vecdot_f16_generic(int64_t n, const void *w, const void *x, size_t xs, int nt,
                               float *out, size_t os) {
  for (int t = 0; t < nt; t++)
    out[t * os] = dot_f16_generic(w, (const float *)((const char *)x + t * xs), n);
}

static void vecdot_bf16_generic(int64_t n, const void *vw, const void *x, size_t xs, int nt,
                                float *out, size_t os) {
  const uint16_t *w = vw;
  for (int t = 0; t < nt; t++) {
    const float *b = (const float *)((const char *)x + t * xs);
    float s0 = 0, s1 = 0;
    int64_t i = 0;
    for (; i + 2 <= n; i += 2) {
      s0 += lrt_bf16_to_f32(w[i]) * b[i];
      s1 += lrt_bf16_to_f32(w[i + 1]) * b[i + 1];
    }
    for (; i < n; i++) s0 += lrt_bf16_to_f32(w[i]) * b[i];
    out[t * os] = s0 + s1;
  }
}

/* ---- legacy quants against block_q8a ---- */

static void vecdot_q8_0_generic(int64_t n, const void *vw, const void *vx, size_t xs, int nt,
                                float *out, size_t os) {
  const block_q8_0 *w = vw;
  for (int t = 0; t < nt; t++) {
    const block_q8a *x = (const block_q8a *)((const char *)vx + t * xs);
    float sum = 0;
    for (int64_t i = 0; i < n / QK; i++) {
      int s = 0;
      for (int j = 0; j < QK; j++) s += w[i].qs[j] * x[i].qs[j];
      sum += lrt_f16_to_f32(w[i].d) * x[i].d * (float)s;
    }
    out[t * os] = sum;
  }
}

static void vecdot_q4_0_generic(int64_t n, const void *vw, const void *vx, size_t xs, int nt,
                                float *out, size_t os) {
  const block_q4_0 *w = vw;
  for (int t = 0; t < nt; t++) {
    const block_q8a *x = (const block_q8a *)((const char *)vx + t * xs);
    float sum = 0;
    for (int64_t i = 0; i < n / QK; i++) {
      int s = 0;
      for (int j = 0; j < QK / 2; j++) {
        s += (w[i].qs[j] & 0xF) * x[i].qs[j];
        s += (w[i].qs[j] >> 4) * x[i].qs[j + QK / 2];
      }
      /* sum (q-8)*y = sum q*y - 8*sum y */
      const float dw = lrt_f16_to_f32(w[i].d);
      sum += dw * (x[i].d * (float)s - 8.0f * x[i].s);
    }
    out[t * os] = sum;
  }
}

/* The other legacy types as signed quants plus a per-block bias:
 * value = d*q + b, so dot = d*dy*sum(q*qy) + b*s_y. */

/* q5_at returns element j's 5-bit quant of a Q5 block. */
static inline int q5_at(const uint8_t *qs, uint32_t qh, int j) {
  const int lo = j < 16 ? qs[j] & 0xF : qs[j - 16] >> 4;
  return lo | (int)((qh >> j) & 1) << 4;
}

#define LEGACY_GENERIC(NAME, BLOCK, PREP, Q, BIAS)                                                \
  static void vecdot_##NAME##_generic(int64_t n, const void *vw, const void *vx, size_t xs,   \
                                      int nt, float *out, size_t os) {                        \
    const BLOCK *w = vw;                                                                      \
    for (int t = 0; t < nt; t++) {                                                            \
      const block_q8a *x = (const block_q8a *)((const char *)vx + t * xs);                    \
      float sum = 0;                                                                          \
      for (int64_t i = 0; i < n / QK; i++) {                                                  \
        const BLOCK *b = &w[i];                                                               \
        uint32_t qh = 0;                                                                      \
        PREP;                                                                                 \
        int s = 0;                                                                            \
        for (int j = 0; j < QK; j++) s += (Q) * x[i].qs[j];                                   \
        sum += lrt_f16_to_f32(b->d) * x[i].d * (float)s + (BIAS) * x[i].s;                   \
      }                                                                                       \
      out[t * os] = sum;                                                                      \
    }                                                                                         \
  }

#define Q4_AT(j) ((j) < 16 ? b->qs[j] & 0xF : b->qs[(j) - 16] >> 4)
LEGACY_GENERIC(q4_1, block_q4_1, (void)qh, Q4_AT(j), lrt_f16_to_f32(b->m))
LEGACY_GENERIC(q5_0, block_q5_0, memcpy(&qh, b->qh, 4), q5_at(b->qs, qh, j) - 16, 0.0f)
LEGACY_GENERIC(q5_1, block_q5_1, memcpy(&qh, b->qh, 4), q5_at(b->qs, qh, j), lrt_f16_to_f32(b->m))

/* ---- K-quants against block_q8K ---- */

static void vecdot_q4_K_generic(int64_t n, const void *vw, const void *vx, size_t xs, int nt,
                                float *out, size_t os) {
  const block_q4_K *w = vw;
  for (int t = 0; t < nt; t++) {
    const block_q8K *x = (const block_q8K *)((const char *)vx + t * xs);
    float sum = 0;
    for (int64_t i = 0; i < n / QKK; i++) {
      const uint8_t *q = w[i].qs;
      const int8_t *y = x[i].qs;
      int isum = 0, msum = 0;
      for (int g = 0; g < 4; g++) {
        uint8_t sc1, m1, sc2, m2;
        get_scale_min_k4(2 * g, w[i].scales, &sc1, &m1);
        get_scale_min_k4(2 * g + 1, w[i].scales, &sc2, &m2);
        int s1 = 0, s2 = 0;
        for (int l = 0; l < 32; l++) {
          s1 += (q[l] & 0xF) * y[l];
          s2 += (q[l] >> 4) * y[l + 32];
        }
        isum += sc1 * s1 + sc2 * s2;
        msum += m1 * (x[i].bsums[4 * g] + x[i].bsums[4 * g + 1]) +
                m2 * (x[i].bsums[4 * g + 2] + x[i].bsums[4 * g + 3]);
        q += 32;
        y += 64;
      }
      const float d = lrt_f16_to_f32(w[i].d) * x[i].d;
      const float dmin = lrt_f16_to_f32(w[i].dmin) * x[i].d;
      sum += d * (float)isum - dmin * (float)msum;
    }
    out[t * os] = sum;
  }
}

static void vecdot_q5_K_generic(int64_t n, const void *vw, const void *vx, size_t xs, int nt,
                                float *out, size_t os) {
  const block_q5_K *w = vw;
  for (int t = 0; t < nt; t++) {
    const block_q8K *x = (const block_q8K *)((const char *)vx + t * xs);
    float sum = 0;
    for (int64_t i = 0; i < n / QKK; i++) {
      const uint8_t *q = w[i].qs;
      const uint8_t *qh = w[i].qh;
      const int8_t *y = x[i].qs;
      int isum = 0, msum = 0;
      for (int g = 0; g < 4; g++) {
        uint8_t sc1, m1, sc2, m2;
        get_scale_min_k4(2 * g, w[i].scales, &sc1, &m1);
        get_scale_min_k4(2 * g + 1, w[i].scales, &sc2, &m2);
        int s1 = 0, s2 = 0;
        for (int l = 0; l < 32; l++) {
          s1 += ((q[l] & 0xF) | (((qh[l] >> (2 * g)) & 1) << 4)) * y[l];
          s2 += ((q[l] >> 4) | (((qh[l] >> (2 * g + 1)) & 1) << 4)) * y[l + 32];
        }
        isum += sc1 * s1 + sc2 * s2;
        msum += m1 * (x[i].bsums[4 * g] + x[i].bsums[4 * g + 1]) +
                m2 * (x[i].bsums[4 * g + 2] + x[i].bsums[4 * g + 3]);
        q += 32;
        y += 64;
      }
      const float d = lrt_f16_to_f32(w[i].d) * x[i].d;
      const float dmin = lrt_f16_to_f32(w[i].dmin) * x[i].d;
      sum += d * (float)isum - dmin * (float)msum;
    }
    out[t * os] = sum;
  }
}

static void vecdot_q6_K_generic(int64_t n, const void *vw, const void *vx, size_t xs, int nt,
                                float *out, size_t os) {
  const block_q6_K *w = vw;
  for (int t = 0; t < nt; t++) {
    const block_q8K *x = (const block_q8K *)((const char *)vx + t * xs);
    float sum = 0;
    for (int64_t i = 0; i < n / QKK; i++) {
      int isum = 0;
      for (int h = 0; h < 2; h++) {
        const uint8_t *ql = w[i].ql + 64 * h;
        const uint8_t *qh = w[i].qh + 32 * h;
        const int8_t *sc = w[i].scales + 8 * h;
        const int8_t *y = x[i].qs + 128 * h;
        for (int is = 0; is < 2; is++) {
          int s1 = 0, s2 = 0, s3 = 0, s4 = 0;
          for (int l = 16 * is; l < 16 * is + 16; l++) {
            s1 += (((ql[l] & 0xF) | ((qh[l] & 3) << 4)) - 32) * y[l];
            s2 += (((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32) * y[l + 32];
            s3 += (((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32) * y[l + 64];
            s4 += (((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32) * y[l + 96];
          }
          isum += sc[is] * s1 + sc[is + 2] * s2 + sc[is + 4] * s3 + sc[is + 6] * s4;
        }
      }
      sum += lrt_f16_to_f32(w[i].d) * x[i].d * (float)isum;
    }
    out[t * os] = sum;
  }
}

/* ---- attention blocks ---- */

static float exp_sum_generic(float *x, int64_t n, float m) {
  double sum = 0; /* softmax rows reach the vocabulary size */
  for (int64_t i = 0; i < n; i++) {
    x[i] = expf(x[i] - m);
    sum += x[i];
  }
  return (float)sum;
}

static void swiglu_generic(float *out, const float *gate, const float *up, int64_t n) {
  for (int64_t i = 0; i < n; i++) out[i] = gate[i] / (1.0f + expf(-gate[i])) * up[i];
}

static float scale_max_generic(float *x, int64_t n, float scale) {
  float mx = -INFINITY;
  for (int64_t i = 0; i < n; i++) {
    x[i] *= scale;
    mx = x[i] > mx ? x[i] : mx;
  }
  return mx;
}

static void att_scores_generic(const float *q, size_t qs, int ng, const void *k, size_t ks, int f16,
                               int nk, int hd, float *s, size_t ss) {
  for (int j = 0; j < nk; j++)
    for (int g = 0; g < ng; g++)
      s[g * ss + j] = f16 ? dot_f16_generic((const uint16_t *)k + j * ks, q + g * qs, hd)
                          : dot_f32_generic((const float *)k + j * ks, q + g * qs, hd);
}

static void att_accum_generic(float *acc, size_t as, int ng, const float *p, size_t ps, const void *v,
                              size_t vs, int f16, int nk, int hd) {
  for (int j = 0; j < nk; j++)
    for (int g = 0; g < ng; g++) {
      if (f16)
        axpy_f16_generic(acc + g * as, p[g * ps + j], (const uint16_t *)v + j * vs, hd);
      else
        axpy_f32_generic(acc + g * as, p[g * ps + j], (const float *)v + j * vs, hd);
    }
}

/* att_accum_q8_0_generic and att_accum_q4_0_generic are kernels.att_accum_q
 * for Q8_0 and Q4_0 value rows: element i of block b is d*q. */
static void att_accum_q8_0_generic(float *acc, size_t as, int ng, const float *p, size_t ps,
                                   const void *v, size_t vs, int nk, int hd) {
  for (int j = 0; j < nk; j++) {
    const block_q8_0 *x = (const block_q8_0 *)((const char *)v + (size_t)j * vs);
    for (int b = 0; b < hd / QK; b++) {
      const float d = lrt_f16_to_f32(x[b].d);
      for (int g = 0; g < ng; g++) {
        const float c = p[g * ps + j] * d;
        float *a = acc + g * as + b * QK;
        for (int i = 0; i < QK; i++) a[i] += c * x[b].qs[i];
      }
    }
  }
}

static void att_accum_q4_0_generic(float *acc, size_t as, int ng, const float *p, size_t ps,
                                   const void *v, size_t vs, int nk, int hd) {
  for (int j = 0; j < nk; j++) {
    const block_q4_0 *x = (const block_q4_0 *)((const char *)v + (size_t)j * vs);
    for (int b = 0; b < hd / QK; b++) {
      const float d = lrt_f16_to_f32(x[b].d);
      for (int g = 0; g < ng; g++) {
        const float c = p[g * ps + j] * d;
        float *a = acc + g * as + b * QK;
        for (int i = 0; i < QK / 2; i++) {
          a[i] += c * ((x[b].qs[i] & 0x0F) - 8);
          a[i + QK / 2] += c * ((x[b].qs[i] >> 4) - 8);
        }
      }
    }
  }
}

/* ---- low-bit and non-linear types (Go twins: models/ggml/lowbit.go) ---- */


static void vecdot_q2_K_generic(int64_t n, const void *vw, const void *vx, size_t xs, int nt,
                                float *out, size_t os) {
  const block_q2_K *w = vw;
  for (int t = 0; t < nt; t++) {
    const block_q8K *x = (const block_q8K *)((const char *)vx + t * xs);
    float sum = 0;
    for (int64_t i = 0; i < n / QKK; i++) {
      /* sum (d*sc*q - dmin*m)*y = d*sum sc*(q.y) - dmin*sum m*bsum */
      int isum = 0, msum = 0;
      for (int e = 0; e < QKK; e += 16) {
        const int h = e / 128, k = (e % 128) / 32, l0 = e % 32;
        int s = 0;
        for (int l = l0; l < l0 + 16; l++) s += ((w[i].qs[32 * h + l] >> (2 * k)) & 3) * x[i].qs[e + l - l0];
        isum += (w[i].scales[e / 16] & 0xF) * s;
        msum += (w[i].scales[e / 16] >> 4) * x[i].bsums[e / 16];
      }
      sum += x[i].d * (lrt_f16_to_f32(w[i].d) * (float)isum - lrt_f16_to_f32(w[i].dmin) * (float)msum);
    }
    out[t * os] = sum;
  }
}

static void vecdot_q3_K_generic(int64_t n, const void *vw, const void *vx, size_t xs, int nt,
                                float *out, size_t os) {
  const block_q3_K *w = vw;
  for (int t = 0; t < nt; t++) {
    const block_q8K *x = (const block_q8K *)((const char *)vx + t * xs);
    float sum = 0;
    for (int64_t i = 0; i < n / QKK; i++) {
      int isum = 0;
      for (int e = 0; e < QKK; e += 16) {
        const int h = e / 128, k = (e % 128) / 32, l0 = e % 32;
        const int m = 1 << (4 * h + k);
        int s = 0;
        for (int l = l0; l < l0 + 16; l++) {
          const int q = ((w[i].qs[32 * h + l] >> (2 * k)) & 3) - ((w[i].hmask[l] & m) ? 0 : 4);
          s += q * x[i].qs[e + l - l0];
        }
        isum += q3_K_scale(w[i].scales, e / 16) * s;
      }
      sum += lrt_f16_to_f32(w[i].d) * x[i].d * (float)isum;
    }
    out[t * os] = sum;
  }
}

static void vecdot_iq4_nl_generic(int64_t n, const void *vw, const void *vx, size_t xs, int nt,
                                  float *out, size_t os) {
  const block_iq4_nl *w = vw;
  for (int t = 0; t < nt; t++) {
    const block_q8a *x = (const block_q8a *)((const char *)vx + t * xs);
    float sum = 0;
    for (int64_t i = 0; i < n / QK; i++) {
      int s = 0;
      for (int j = 0; j < QK / 2; j++) {
        s += kvalues_iq4nl[w[i].qs[j] & 0xF] * x[i].qs[j];
        s += kvalues_iq4nl[w[i].qs[j] >> 4] * x[i].qs[j + QK / 2];
      }
      sum += lrt_f16_to_f32(w[i].d) * x[i].d * (float)s;
    }
    out[t * os] = sum;
  }
}

static void vecdot_iq4_xs_generic(int64_t n, const void *vw, const void *vx, size_t xs, int nt,
                                  float *out, size_t os) {
  const block_iq4_xs *w = vw;
  for (int t = 0; t < nt; t++) {
    const block_q8K *x = (const block_q8K *)((const char *)vx + t * xs);
    float sum = 0;
    for (int64_t i = 0; i < n / QKK; i++) {
      int isum = 0;
      for (int ib = 0; ib < QKK / 32; ib++) {
        const int ls = (((w[i].scales_l[ib / 2] >> (4 * (ib % 2))) & 0xF) |
                        (((w[i].scales_h >> (2 * ib)) & 3) << 4)) - 32;
        const uint8_t *q = w[i].qs + 16 * ib;
        const int8_t *y = x[i].qs + 32 * ib;
        int s = 0;
        for (int j = 0; j < 16; j++) s += kvalues_iq4nl[q[j] & 0xF] * y[j] + kvalues_iq4nl[q[j] >> 4] * y[j + 16];
        isum += ls * s;
      }
      sum += lrt_f16_to_f32(w[i].d) * x[i].d * (float)isum;
    }
    out[t * os] = sum;
  }
}


static void vecdot_mxfp4_generic(int64_t n, const void *vw, const void *vx, size_t xs, int nt,
                                 float *out, size_t os) {
  const block_mxfp4 *w = vw;
  for (int t = 0; t < nt; t++) {
    const block_q8a *x = (const block_q8a *)((const char *)vx + t * xs);
    float sum = 0;
    for (int64_t i = 0; i < n / QK; i++) {
      int s = 0;
      for (int j = 0; j < QK / 2; j++) {
        s += kvalues_mxfp4[w[i].qs[j] & 0xF] * x[i].qs[j];
        s += kvalues_mxfp4[w[i].qs[j] >> 4] * x[i].qs[j + QK / 2];
      }
      sum += e8m0_half(w[i].e) * x[i].d * (float)s;
    }
    out[t * os] = sum;
  }
}

void lrt_fill_generic(kernels *k) {
  k->name = "generic";
  k->dot[LRT_F32] = vecdot_f32_generic;
  k->dot[LRT_F16] = vecdot_f16_generic;
  k->dot[LRT_BF16] = vecdot_bf16_generic;
  k->dot[LRT_Q8_0] = vecdot_q8_0_generic;
  k->dot[LRT_Q4_0] = vecdot_q4_0_generic;
  k->dot[LRT_Q4_1] = vecdot_q4_1_generic;
  k->dot[LRT_Q5_0] = vecdot_q5_0_generic;
  k->dot[LRT_Q5_1] = vecdot_q5_1_generic;
  k->dot[LRT_Q4_K] = vecdot_q4_K_generic;
  k->dot[LRT_Q5_K] = vecdot_q5_K_generic;
  k->dot[LRT_Q6_K] = vecdot_q6_K_generic;
  k->dot[LRT_Q2_K] = vecdot_q2_K_generic;
  k->dot[LRT_Q3_K] = vecdot_q3_K_generic;
  k->dot[LRT_IQ4_NL] = vecdot_iq4_nl_generic;
  k->dot[LRT_IQ4_XS] = vecdot_iq4_xs_generic;
  k->dot[LRT_MXFP4] = vecdot_mxfp4_generic;
  k->quant_q8a = quant_q8a_generic;
  k->quant_q8K = quant_q8K_generic;
  k->dot_f32 = dot_f32_generic;
  k->axpy_f32 = axpy_f32_generic;
  k->dot_f16 = dot_f16_generic;
  k->axpy_f16 = axpy_f16_generic;
  k->exp_sum = exp_sum_generic;
  k->swiglu = swiglu_generic;
  k->scale_max = scale_max_generic;
  k->att_scores = att_scores_generic;
  k->att_accum = att_accum_generic;
  k->att_accum_q[LRT_Q8_0] = att_accum_q8_0_generic;
  k->att_accum_q[LRT_Q4_0] = att_accum_q4_0_generic;
}
