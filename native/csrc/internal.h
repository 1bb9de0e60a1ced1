/* internal.h: block layouts, the kernel dispatch table and helpers shared by
 * the C sources. Nothing here is part of the ABI (that is lrt.h). */
#ifndef LRT_INTERNAL_H
#define LRT_INTERNAL_H
#include <stdint.h>
#include <string.h>

#include "lrt.h"

#define QK 32   /* elements of a legacy block (Q4_0, Q8_0) */
#define QKK 256 /* elements of a K-quant super-block */

/* LRT_NTYPES bounds the element type ids the kernel tables index. */
#define LRT_NTYPES 40

/* Weight blocks, byte for byte ggml's (ggml-common.h). */
typedef struct {
  uint16_t d; /* f16 scale */
  uint8_t qs[QK / 2]; /* element j: low nibble of qs[j]; j+16: high nibble */
} block_q4_0;

typedef struct {
  uint16_t d, m;      /* value d*q + m */
  uint8_t qs[QK / 2]; /* as block_q4_0 */
} block_q4_1;

typedef struct {
  uint16_t d;
  uint8_t qh[4];      /* bit j: fifth bit of element j (little-endian) */
  uint8_t qs[QK / 2]; /* low four bits, as block_q4_0; value d*(q-16) */
} block_q5_0;

typedef struct {
  uint16_t d, m; /* value d*q + m */
  uint8_t qh[4];
  uint8_t qs[QK / 2];
} block_q5_1;

typedef struct {
  uint16_t d;
  int8_t qs[QK];
} block_q8_0;

typedef struct {
  uint16_t d, dmin;
  uint8_t scales[12]; /* 8 pairs of 6-bit scale and min */
  uint8_t qs[QKK / 2];
} block_q4_K;

typedef struct {
  uint16_t d, dmin;
  uint8_t scales[12];
  uint8_t qh[QKK / 8];
  uint8_t qs[QKK / 2];
} block_q5_K;

typedef struct {
  uint8_t ql[QKK / 2];
  uint8_t qh[QKK / 4];
  int8_t scales[QKK / 16];
  uint16_t d;
} block_q6_K;

/* Q2_K: 16 sub-blocks of 16, scales[j] = 4-bit scale | 4-bit min << 4;
 * element 128h+32k+l has 2 bits at 2k of qs[32h+l]. */
typedef struct {
  uint8_t scales[QKK / 16];
  uint8_t qs[QKK / 4];
  uint16_t d, dmin;
} block_q2_K;

/* Q3_K: Q2_K's low bits, a high bit per element in hmask (bit 4h+k of
 * byte l), sixteen 6-bit scales offset by 32 packed in 12 bytes. */
typedef struct {
  uint8_t hmask[QKK / 8];
  uint8_t qs[QKK / 4];
  uint8_t scales[12];
  uint16_t d;
} block_q3_K;

/* IQ4_NL: 4-bit indices into kvalues_iq4nl, legacy nibble order. */
typedef struct {
  uint16_t d;
  uint8_t qs[QK / 2];
} block_iq4_nl;

/* MXFP4: an E8M0 exponent and 32 E2M1 codes, legacy nibble order. */
typedef struct {
  uint8_t e;
  uint8_t qs[QK / 2];
} block_mxfp4;

/* kvalues_iq4nl, the 16 levels of IQ4_NL and IQ4_XS. */
static const int8_t kvalues_iq4nl[16] = {-127, -104, -83, -65, -49, -35, -22, -10,
                                         1,    13,   25,  38,  53,  69,  89,  113};

/* kvalues_mxfp4: twice the E2M1 values of codes 0..15. */
static const int8_t kvalues_mxfp4[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

/* e8m0_half returns 2^(e-128), half the E8M0 value e (ggml's
 * ggml_e8m0_to_fp32_half). */
static inline float e8m0_half(uint8_t e) {
  const uint32_t bits = e < 2 ? 0x00200000u << e : (uint32_t)(e - 1) << 23;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* IQ4_XS: eight IQ4_NL sub-blocks with 6-bit scales offset by 32. */
typedef struct {
  uint16_t d;
  uint16_t scales_h;
  uint8_t scales_l[QKK / 64];
  uint8_t qs[QKK / 2];
} block_iq4_xs;

_Static_assert(sizeof(block_q4_0) == 18, "block_q4_0 is 18 bytes");
_Static_assert(sizeof(block_q4_1) == 20, "block_q4_1 is 20 bytes");
_Static_assert(sizeof(block_q5_0) == 22, "block_q5_0 is 22 bytes");
_Static_assert(sizeof(block_q5_1) == 24, "block_q5_1 is 24 bytes");
_Static_assert(sizeof(block_q8_0) == 34, "block_q8_0 is 34 bytes");
_Static_assert(sizeof(block_q4_K) == 144, "block_q4_K is 144 bytes");
_Static_assert(sizeof(block_q5_K) == 176, "block_q5_K is 176 bytes");
_Static_assert(sizeof(block_q6_K) == 210, "block_q6_K is 210 bytes");
_Static_assert(sizeof(block_q2_K) == 84, "block_q2_K is 84 bytes");
_Static_assert(sizeof(block_q3_K) == 110, "block_q3_K is 110 bytes");
_Static_assert(sizeof(block_iq4_nl) == 18, "block_iq4_nl is 18 bytes");
_Static_assert(sizeof(block_iq4_xs) == 136, "block_iq4_xs is 136 bytes");
_Static_assert(sizeof(block_mxfp4) == 17, "block_mxfp4 is 17 bytes");

/* Activation blocks: our own formats, never stored in files.
 *
 * block_q8a is a Q8_0 block with a float scale and the scaled sum of its
 * quants, s = d*sum(qs), so kernels can use unsigned weight quants and
 * correct the offset with one multiply (Q4_0: q-8). */
typedef struct {
  float d;
  float s;
  int8_t qs[QK];
} block_q8a;

/* block_q8K is ggml's block_q8_K: bsums[j] = sum of qs[16j..16j+15]. */
typedef struct {
  float d;
  int8_t qs[QKK];
  int16_t bsums[QKK / 16];
} block_q8K;

_Static_assert(sizeof(block_q8a) == 40, "block_q8a is 40 bytes");
_Static_assert(sizeof(block_q8K) == 292, "block_q8K is 292 bytes");

/* Activation formats a weight type multiplies. */
/* ACT_BF16R: F32 rows of values rounded to BF16, which BF16 weights multiply
 * (as ggml's vec_dot_type); ACT_BF16: the same values as BF16 rows, for
 * kernels.panel_mul_bf16. */
enum { ACT_F32 = 0, ACT_Q8A = 1, ACT_Q8K = 2, ACT_BF16R = 3, ACT_BF16 = 4 };

/* vecdot_fn computes, for one weight row w of n elements and nt (1..4)
 * prepared activation rows x, x+xstride, ... (xstride in bytes),
 * out[t*ostride] = dot(w, x_t). The weight row is read once for all nt
 * activation rows. */
typedef void (*vecdot_fn)(int64_t n, const void *w, const void *x,
                          size_t xstride, int nt, float *out, size_t ostride);

/* tile_fn is vecdot_fn for nr (1..tile_rows) weight rows at once, w, w+ws,
 * ... (ws in bytes): out[t*ostride + r] = dot(w_r, x_t). Each activation
 * block is loaded once for all nr rows and each weight block once for all
 * nt tokens, the register tile of a GEMM micro-kernel. */
typedef void (*tile_fn)(int64_t n, const void *w, size_t ws, int nr, const void *x,
                        size_t xstride, int nt, float *out, size_t ostride);

/* gemm_fn multiplies nr (1..16) weight rows w, w+ws, ... (ws in bytes) by
 * ntok block_q8a activation rows x, x+xs, ... whose quants are stored
 * offset by 128 (each byte XORed with 0x80, unsigned), writing
 * out[t*os + r] = dot(w_r, x_t). It repacks the rows once so 8-bit
 * products of 16 rows run side by side in one vector (one broadcast
 * activation word feeds 16 rows) and then walks every token. Returns 0, or
 * -1 when out of memory (out untouched). */
typedef int (*gemm_fn)(int64_t n, const void *w, size_t ws, int nr, const void *x, size_t xs,
                       int64_t ntok, float *out, size_t os);

/* GEMM_ROWS is the rows of one gemm_fn call. */
#define GEMM_ROWS 16
/* IL_ROWS is the rows of one group of interleaved weights. */
#define IL_ROWS 16

/* PANEL_ROWS is the rows of one packed panel (kernels.panel): a column is
 * two 8-float vectors, or one 16-float one. */
#define PANEL_ROWS 16

/* quant_fn converts n floats (a multiple of the block size) to activation
 * blocks. */
typedef void (*quant_fn)(const float *x, void *y, int64_t n);

/* kernels is the dispatch table chosen once at load. */
typedef struct {
  const char *name;
  vecdot_fn dot[LRT_NTYPES]; /* indexed by element type; NULL if unsupported */
  tile_fn tile[LRT_NTYPES];  /* optional multi-row kernels */
  int tile_rows[LRT_NTYPES]; /* rows per tile call */
  /* dec_rows[t], where set, is the decode product of nr weight rows, ws
   * bytes apart, by one activation row: out[r] = dot(w_r, x), the rows
   * walked in one call (matmul.c uses it for single tokens). */
  void (*dec_rows[LRT_NTYPES])(int64_t n, const void *w, size_t ws, int64_t nr, const void *x,
                               float *out);
  gemm_fn gemm[LRT_NTYPES];  /* optional batch kernels on +128 activations */
  /* il_rows[t] and il_gemm[t], where set, are dec_rows and gemm for
   * weights interleaved in groups of IL_ROWS rows (lrt_matmul_il16; the
   * layout is at "interleaved weights" in quants_x86.inc): nr is a multiple of
   * IL_ROWS, w a group's start, ws unused. */
  void (*il_rows[LRT_NTYPES])(int64_t n, const void *w, size_t ws, int64_t nr, const void *x,
                              float *out);
  gemm_fn il_gemm[LRT_NTYPES];
  /* il_gemm_signed[t] says il_gemm[t] takes its activations' quants as
   * they are (signed), not flipped to +128: AVX2's kernels of quants up to
   * 128 in magnitude, which sign the activations by the quants instead. */
  unsigned char il_gemm_signed[LRT_NTYPES];
  /* il_panel[t], where set (F16, BF16; on AVX2 Q4_0, Q5_0, Q8_0, Q4_K,
   * Q5_K and Q6_K, for when their gemm cannot allocate its packs: the
   * other interleaved types then take il_rows a token at a time), returns the
   * panel that panels_mul multiplies for one
   * interleaved group (its IL_ROWS rows of n elements at w): a float panel
   * it packs into p (F16 and the quantized types), or the group itself,
   * which already is the BF16 pair panel. Batches of such weights run as
   * those panels. */
  const float *(*il_panel[LRT_NTYPES])(const void *w, int64_t n, float *p);
  /* panel[t], where set, packs nr (1..PANEL_ROWS) rows of the float type t
   * (F32, F16, BF16), ws bytes apart and n elements each, as F32 into the
   * panel p of PANEL_ROWS*n floats: element k of row r at p[k*PANEL_ROWS +
   * r], rows nr and up zero. panel_mul multiplies a panel by nt
   * (1..panel_tokens) F32 activation rows x, x+xs, ... (xs in bytes):
   * out[t*os + r] for r < nr. Where set, matmul.c runs batches of type t
   * as panels (and attention.c its tiles). Panels are 64-byte aligned. */
  void (*panel[LRT_NTYPES])(const void *w, size_t ws, int nr, int64_t n, float *p);
  void (*panel_mul)(int64_t n, const float *p, size_t ps, const void *x, size_t xs, int nt, float *out,
                    size_t os, int nr);
  /* panel_rows is the rows one panel_mul call covers: PANEL_ROWS, or a
   * multiple of it where the kernel takes the next panels too (the second
   * at p + ps floats: PANEL_ROWS*n where they follow each other); nr may
   * then be up to panel_rows. panel_tokens is the most tokens of one call
   * (its register tile's width). */
  int panel_rows, panel_tokens;
  /* panel_mul_bf16, where set (AVX512_BF16), is panel_mul for BF16 weights
   * by BF16 activation rows x (ACT_BF16, xs bytes apart), n even: the
   * panels hold element pairs, pair k of row r as one 32-bit word at
   * p[k*PANEL_ROWS + r] (panel[LRT_F32] of the rows read as n/2 words), and
   * one vdpbf16ps adds a pair's two products for 16 rows. */
  void (*panel_mul_bf16)(int64_t n, const float *p, size_t ps, const void *x, size_t xs, int nt,
                         float *out, size_t os, int nr);
  quant_fn quant_q8a;
  quant_fn quant_q8K;
  /* dot_f32 returns sum a[i]*b[i]; axpy does y += a*x. */
  float (*dot_f32)(const float *a, const float *b, int64_t n);
  void (*axpy_f32)(float *y, float a, const float *x, int64_t n);
  float (*dot_f16)(const uint16_t *a, const float *b, int64_t n);
  void (*axpy_f16)(float *y, float a, const uint16_t *x, int64_t n);
  /* exp_sum sets x[i] = exp(x[i] - m) for i < n and returns their sum
   * (the SIMD versions use a polynomial within 2 ulp of expf). */
  float (*exp_sum)(float *x, int64_t n, float m);
  /* swiglu sets out[i] = silu(gate[i]) * up[i] = gate[i] / (1 +
   * exp(-gate[i])) * up[i] for i < n (the SIMD versions by exp_sum's
   * polynomial, as ggml's vectorized silu). */
  void (*swiglu)(float *out, const float *gate, const float *up, int64_t n);
  /* scale_max sets x[i] *= scale for i < n (n > 0) and returns their max. */
  float (*scale_max)(float *x, int64_t n, float scale);
  /* att_scores sets s[g*ss + j] = q_g . k_j for ng query rows q_g = q +
   * g*qs and nk cache rows k_j = k + j*ks (elements; F16 if f16), hd long:
   * each key row is loaded once for every query row. */
  void (*att_scores)(const float *q, size_t qs, int ng, const void *k, size_t ks, int f16, int nk,
                     int hd, float *s, size_t ss);
  /* att_accum adds sum_j p[g*ps + j] * v_j to acc + g*as for g < ng. */
  void (*att_accum)(float *acc, size_t as, int ng, const float *p, size_t ps, const void *v,
                    size_t vs, int f16, int nk, int hd);
  /* att_accum_q[t], for the cache block types t = Q8_0 and Q4_0, is
   * att_accum over value rows of blocks v_j = v + j*vs (vs in bytes), hd
   * elements long, each block dequantized in registers as it is summed. */
  void (*att_accum_q[LRT_NTYPES])(float *acc, size_t as, int ng, const float *p, size_t ps,
                                  const void *v, size_t vs, int nk, int hd);
  /* att_scores_qg[t], where the set has it (AVX-512 VNNI, t = Q8_0 and
   * Q4_0), sets s[g*ss + j] for g < ng (1..4) query heads, packed by
   * att_pack_qg at qp (ATT_QG_BYTES(hd) bytes a head), against nk key
   * rows of blocks k_j = k + j*ks (ks in bytes), hd a multiple of 64. */
  void (*att_scores_qg[LRT_NTYPES])(const uint8_t *qp, int ng, const void *k, size_t ks, int nk, int hd,
                                    float *s, size_t ss);
} kernels;

/* ATT_QG_BYTES is the bytes of one query head of hd elements as
 * att_pack_qg lays it out for att_scores_qg: per pair of blocks, 64 query
 * bytes in the order the kernel reads the keys' (Q8_0: block 0's quants,
 * block 1's; Q4_0: quants 0-15 of block 0, of block 1, quants 16-31 of
 * block 0, of block 1), then per 4-byte lane of those the int32
 * correction of the key bytes' offset (a Q8_0 key byte is read as its
 * quant+128: -16 times the lane's block's query sum; a Q4_0 nibble is its
 * quant+8: minus that sum) and the float32 query scale. The Go backend's
 * packGroupQuery writes the same layout. */
#define ATT_QG_BYTES(hd) ((size_t)3 * (size_t)(hd))

/* lrt_kernels returns the kernel set named isa, or the best one this CPU
 * runs for NULL or ""; NULL if that set is not available here. The tables
 * are filled once, on first use. */
const kernels *lrt_kernels(const char *isa);

/* Per-ISA table fillers: each sets what it speeds up and leaves the rest. */
void lrt_fill_generic(kernels *k);
#if defined(__x86_64__) || defined(_M_X64)
void lrt_fill_avx2(kernels *k);
void lrt_fill_avx512(kernels *k);
void lrt_fill_avx512bf16(kernels *k);
#endif
#if defined(__aarch64__)
void lrt_fill_neon(kernels *k);
#endif

/* act_format returns the activation format weights of type t multiply,
 * block_elems its block size and row bytes. */
int act_format(int32_t t);
/* act_round sets y to the n floats x rounded to the 8-bit blocks of fmt
 * (ACT_Q8A or ACT_Q8K): the values d*q the integer kernels multiply; or,
 * for ACT_BF16R, to BF16 (ggml's rounding, as lrt_f32_to_bf16). */
void act_round(const kernels *k, int fmt, const float *x, float *y, int64_t n);
int64_t act_row_bytes(int fmt, int64_t n);
/* slot_take claims a free slot of a scratch split into per-thread slots (a
 * set bit of *free_slots per free one) and returns it, or -1 if none is
 * free; slot_give frees it again. */
int slot_take(_Atomic uint64_t *free_slots);
void slot_give(_Atomic uint64_t *free_slots, int s);
/* bf16_panels reports whether batches of wtype rows of n elements run as
 * BF16 pair panels (kernels.panel_mul_bf16), whose activations are
 * ACT_BF16 rows (act_bf16); else panels of floats. */
static inline int bf16_panels(const kernels *k, int32_t wtype, int64_t n) {
  return wtype == LRT_BF16 && k->panel_mul_bf16 && n % 2 == 0;
}
/* act_bf16 sets y to the n floats x as BF16 (ACT_BF16). */
void act_bf16(const float *x, uint16_t *y, int64_t n);
/* TILE_TOKENS is the tokens of one tile call. */
#define TILE_TOKENS 4
/* rows_mul multiplies nrows weight rows of type t (wrow bytes apart, n
 * elements) by ntok prepared activation rows x (xs bytes apart) into
 * out[t*os + r]: one token with k->dec_rows where set, else TILE_TOKENS
 * tokens (and tile_rows rows where the kernels have tiles) at a time. */
void rows_mul(const kernels *k, int32_t t, const char *w, int64_t wrow, int64_t nrows, int64_t n,
              const char *x, size_t xs, int64_t ntok, float *out, size_t os);
/* panels_mul multiplies nrows weight rows of type t (wrow bytes apart, n
 * elements) by ntok F32 activation rows x (xs bytes apart) into out[t*os +
 * r] with k->panel and k->panel_mul: the rows are packed into pan (room for
 * nrows rounded up to PANEL_ROWS rows), then each token tile passes over
 * every panel while they stay in L2. A row's sums do not depend on nrows.
 * Where bf16_panels holds, the activations are ACT_BF16 rows and the
 * panels BF16 pairs (k->panel_mul_bf16). With il, the rows are interleaved
 * groups (nrows a multiple of IL_ROWS), their panels k->il_panel's. */
void panels_mul(const kernels *k, int32_t t, int il, const char *w, int64_t wrow, int64_t nrows, int64_t n,
                const char *x, size_t xs, int64_t ntok, float *out, size_t os, float *pan);
int64_t weight_row_bytes(int32_t t, int64_t n);
int64_t weight_block(int32_t t);

/* Half-precision conversions (scalar, exact; ggml's generic algorithm). */
static inline float fp32_from_bits(uint32_t w) {
  float f;
  memcpy(&f, &w, 4);
  return f;
}
static inline uint32_t fp32_to_bits(float f) {
  uint32_t w;
  memcpy(&w, &f, 4);
  return w;
}
static inline float lrt_f16_to_f32(uint16_t h) {
  const uint32_t w = (uint32_t)h << 16;
  const uint32_t sign = w & 0x80000000u;
  const uint32_t two_w = w + w;
  const float normalized = fp32_from_bits((two_w >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
  const float denormalized = fp32_from_bits((two_w >> 17) | (126u << 23)) - 0.5f;
  const uint32_t bits = two_w < (1u << 27) ? fp32_to_bits(denormalized) : fp32_to_bits(normalized);
  return fp32_from_bits(sign | bits);
}
static inline uint16_t lrt_f32_to_f16(float f) {
  float base = (__builtin_fabsf(f) * 0x1.0p+112f) * 0x1.0p-110f;
  const uint32_t w = fp32_to_bits(f);
  const uint32_t shl1_w = w + w;
  const uint32_t sign = w & 0x80000000u;
  uint32_t bias = shl1_w & 0xFF000000u;
  if (bias < 0x71000000u) bias = 0x71000000u;
  base = fp32_from_bits((bias >> 1) + 0x07800000u) + base;
  const uint32_t bits = fp32_to_bits(base);
  const uint32_t exp_bits = (bits >> 13) & 0x00007C00u;
  const uint32_t mantissa_bits = bits & 0x00000FFFu;
  const uint32_t nonsign = exp_bits + mantissa_bits;
  return (uint16_t)((sign >> 16) | (shl1_w > 0xFF000000u ? 0x7E00u : nonsign));
}
static inline float lrt_bf16_to_f32(uint16_t h) { return fp32_from_bits((uint32_t)h << 16); }
/* lrt_f32_to_bf16 is ggml's GGML_FP32_TO_BF16: round to nearest even, a NaN
 * made quiet, subnormals kept. */
static inline uint16_t lrt_f32_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffff) > 0x7f800000) return (uint16_t)((u >> 16) | 64);
  return (uint16_t)((u + (0x7fff + ((u >> 16) & 1))) >> 16);
}

/* q3_K_scale returns the 6-bit scale j of a Q3_K block, minus 32. */
static inline int q3_K_scale(const uint8_t *s, int j) {
  const int lo = j < 8 ? s[j % 8] & 0xF : s[j % 8] >> 4;
  return (lo | ((s[8 + j % 4] >> (2 * (j / 4))) & 3) << 4) - 32;
}

/* get_scale_min_k4 unpacks the 6-bit scale and min of sub-block j of a
 * Q4_K/Q5_K block (ggml's get_scale_min_k4). */
static inline void get_scale_min_k4(int j, const uint8_t *q, uint8_t *d, uint8_t *m) {
  if (j < 4) {
    *d = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *d = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    *m = (q[j + 4] >> 4) | ((q[j - 0] >> 6) << 4);
  }
}

/* Thread pool (pool.c). pool_run calls fn(arg, lo, hi) for chunks [lo, hi)
 * of grain items (the last may be shorter) covering [0, nitems), claimed
 * by whichever threads of p are running, and returns when all are done. */
typedef void (*task_fn)(void *arg, int64_t lo, int64_t hi);
void pool_run(lrt_pool *p, task_fn fn, void *arg, int64_t nitems, int64_t grain);
/* pool_kernels returns the kernel set of p. */
const kernels *pool_kernels(const lrt_pool *p);
/* pool_scratch returns a 64-byte-aligned buffer of at least n bytes owned by
 * p, valid until the next call; NULL on failure. Call only while holding the
 * op lock (inside pool_begin/pool_end). */
void *pool_scratch(lrt_pool *p, size_t n);
void pool_begin(lrt_pool *p);
void pool_end(lrt_pool *p);

#endif
