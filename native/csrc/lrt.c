#include "lrt.h"

int32_t lrt_abi_version(void) { return 1; }

float lrt_dot_f32(const float *a, const float *b, int64_t n) {
  float s = 0.0f;
  for (int64_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
