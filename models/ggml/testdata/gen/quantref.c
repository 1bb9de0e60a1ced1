// quantref writes llama.cpp's quantization of a fixed float vector for the
// types listed below, as references for models/ggml's tests:
//
//   input.f32          the vector: N little-endian float32 values
//   <type>.q           ggml_quantize_chunk's bytes (no importance matrix,
//                      as llama-quantize does without --imatrix)
//   <type>.deq.f32     ggml's dequantize (type_traits to_float) of those bytes
//
// Build and run with gen.sh.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml.h"

enum { N = 2048, ROW = 512 };

// lcg returns a uniform value in [0, 1) from a 64-bit LCG (Knuth's MMIX).
static double lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 9007199254740992.0;
}

static void fill(float *x) {
  uint64_t s = 1;
  for (int i = 0; i < N; i++) {
    double g = 0;  // Irwin-Hall approximation of a unit Gaussian
    for (int k = 0; k < 12; k++) g += lcg(&s);
    g -= 6;
    switch (i / ROW) {
    case 0: x[i] = (float)(0.02 * g); break;                       // weight-like
    case 1: x[i] = (float)(g * g * g); break;                      // heavy tails
    case 2: x[i] = (float)(1 + lcg(&s)); break;                    // all positive
    default: x[i] = (i % 256) < 32 ? 0.0f : (float)(0.1 + 2 * cos(i)); break;  // a zero run
    }
  }
}

static void put(const char *dir, const char *name, const void *p, size_t n) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: quantref OUTDIR\n");
    return 2;
  }
  const char *dir = argv[1];
  static float x[N], y[N];
  fill(x);
  put(dir, "input.f32", x, sizeof x);
  const enum ggml_type types[] = {GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_IQ4_NL, GGML_TYPE_IQ4_XS,
                                  GGML_TYPE_MXFP4};
  ggml_quantize_init(GGML_TYPE_COUNT);
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    enum ggml_type typ = types[t];
    size_t rs = ggml_row_size(typ, ROW);
    uint8_t *q = calloc(N / ROW, rs);
    size_t n = ggml_quantize_chunk(typ, x, q, 0, N / ROW, ROW, NULL);
    ggml_get_type_traits(typ)->to_float(q, y, N);
    char name[64];
    snprintf(name, sizeof name, "%s.q", ggml_type_name(typ));
    put(dir, name, q, n);
    snprintf(name, sizeof name, "%s.deq.f32", ggml_type_name(typ));
    put(dir, name, y, sizeof y);
    free(q);
  }
  ggml_quantize_free();
  return 0;
}
