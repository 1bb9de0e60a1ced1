/* quants_neon.c: arm64 kernels on baseline ARMv8-A NEON (no dotprod
 * extension needed): float rows, F16 rows and the 8-bit legacy quants.
 * The K-quants keep the generic kernels on arm64 for now. */
#if defined(__aarch64__)
#include <arm_neon.h>

#include "internal.h"

static float dot_f32_neon(const float *a, const float *b, int64_t n) {
  float32x4_t s0 = vdupq_n_f32(0), s1 = vdupq_n_f32(0);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    s0 = vfmaq_f32(s0, vld1q_f32(a + i), vld1q_f32(b + i));
    s1 = vfmaq_f32(s1, vld1q_f32(a + i + 4), vld1q_f32(b + i + 4));
  }
  float s = vaddvq_f32(vaddq_f32(s0, s1));
  for (; i < n; i++) s += a[i] * b[i];
  return s;
}

static void axpy_f32_neon(float *y, float a, const float *x, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vfmaq_n_f32(vld1q_f32(y + i), vld1q_f32(x + i), a));
  for (; i < n; i++) y[i] += a * x[i];
}

static float dot_f16_neon(const uint16_t *a, const float *b, int64_t n) {
  float32x4_t s0 = vdupq_n_f32(0), s1 = vdupq_n_f32(0);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(a + i));
    s0 = vfmaq_f32(s0, vcvt_f32_f16(vget_low_f16(h)), vld1q_f32(b + i));
    s1 = vfmaq_f32(s1, vcvt_high_f32_f16(h), vld1q_f32(b + i + 4));
  }
  float s = vaddvq_f32(vaddq_f32(s0, s1));
  for (; i < n; i++) s += lrt_f16_to_f32(a[i]) * b[i];
  return s;
}

static void axpy_f16_neon(float *y, float a, const uint16_t *x, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const float32x4_t v = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(x + i)));
    vst1q_f32(y + i, vfmaq_n_f32(vld1q_f32(y + i), v, a));
  }
  for (; i < n; i++) y[i] += a * lrt_f16_to_f32(x[i]);
}

static void vecdot_f32_neon(int64_t n, const void *w, const void *x, size_t xs, int nt, float *out,
                            size_t os) {
  for (int t = 0; t < nt; t++) out[t * os] = dot_f32_neon(w, (const float *)((const char *)x + t * xs), n);
}

static void vecdot_f16_neon(int64_t n, const void *w, const void *x, size_t xs, int nt, float *out,
                            size_t os) {
  for (int t = 0; t < nt; t++) out[t * os] = dot_f16_neon(w, (const float *)((const char *)x + t * xs), n);
}

/* dot32 returns sum a[j]*b[j] over 32 signed bytes. */
static inline int32_t dot32(int8x16_t a0, int8x16_t a1, const int8_t *b) {
  const int8x16_t b0 = vld1q_s8(b), b1 = vld1q_s8(b + 16);
  int16x8_t p = vmull_s8(vget_low_s8(a0), vget_low_s8(b0));
  p = vmlal_s8(p, vget_high_s8(a0), vget_high_s8(b0));
  int16x8_t r = vmull_s8(vget_low_s8(a1), vget_low_s8(b1));
  r = vmlal_s8(r, vget_high_s8(a1), vget_high_s8(b1));
  return vaddvq_s32(vaddq_s32(vpaddlq_s16(p), vpaddlq_s16(r)));
}

static void vecdot_q8_0_neon(int64_t n, const void *vw, const void *vx, size_t xs, int nt, float *out,
                             size_t os) {
  const block_q8_0 *w = vw;
  float acc[4] = {0, 0, 0, 0};
  for (int64_t i = 0; i < n / QK; i++) {
    const int8x16_t a0 = vld1q_s8(w[i].qs), a1 = vld1q_s8(w[i].qs + 16);
    const float dw = lrt_f16_to_f32(w[i].d);
    for (int t = 0; t < nt; t++) {
      const block_q8a *y = (const block_q8a *)((const char *)vx + t * xs) + i;
      acc[t] += dw * y->d * (float)dot32(a0, a1, y->qs);
    }
  }
  for (int t = 0; t < nt; t++) out[t * os] = acc[t];
}

static void vecdot_q4_0_neon(int64_t n, const void *vw, const void *vx, size_t xs, int nt, float *out,
                             size_t os) {
  const block_q4_0 *w = vw;
  float acc[4] = {0, 0, 0, 0};
  const uint8x16_t m4 = vdupq_n_u8(0xF);
  const int8x16_t s8 = vdupq_n_s8(8);
  for (int64_t i = 0; i < n / QK; i++) {
    const uint8x16_t b = vld1q_u8(w[i].qs);
    const int8x16_t lo = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(b, m4)), s8);
    const int8x16_t hi = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8(b, 4)), s8);
    const float dw = lrt_f16_to_f32(w[i].d);
    for (int t = 0; t < nt; t++) {
      const block_q8a *y = (const block_q8a *)((const char *)vx + t * xs) + i;
      acc[t] += dw * y->d * (float)dot32(lo, hi, y->qs);
    }
  }
  for (int t = 0; t < nt; t++) out[t * os] = acc[t];
}

void lrt_fill_neon(kernels *k) {
  k->name = "neon";
  k->dot[LRT_F32] = vecdot_f32_neon;
  k->dot[LRT_F16] = vecdot_f16_neon;
  k->dot[LRT_Q8_0] = vecdot_q8_0_neon;
  k->dot[LRT_Q4_0] = vecdot_q4_0_neon;
  k->dot_f32 = dot_f32_neon;
  k->axpy_f32 = axpy_f32_neon;
  k->dot_f16 = dot_f16_neon;
  k->axpy_f16 = axpy_f16_neon;
}
#endif
