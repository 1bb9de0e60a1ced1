/* lrt.h: the whole ABI of litert-go's native kernel library.
 *
 * Every symbol carries the lrt_ prefix and mirrors the Go method it backs in
 * native/cpu.go. Calls are coarse (a whole matmul, a whole attention block),
 * take plain pointers and sizes, and return a status code (LRT_OK or a
 * negative LRT_E* value). Only integer and pointer arguments cross the
 * boundary; float parameters travel in small structs so the Go side can use
 * purego.SyscallN without reflection. Struct layouts are checked at load by
 * lrt_struct_size.
 *
 * Matrices are row-major. Element types use ggml's numbering (enum
 * ggml_type), and quantized blocks ggml's byte layouts. */
#ifndef LRT_H
#define LRT_H
#include <stddef.h>
#include <stdint.h>

/* LRT_ABI_VERSION changes whenever a signature or struct below changes. */
#define LRT_ABI_VERSION 11

/* LRT_API marks the exported symbols; everything else is hidden. */
#if defined(__GNUC__)
#define LRT_API __attribute__((visibility("default")))
#else
#define LRT_API
#endif

/* Status codes. */
enum {
  LRT_OK = 0,
  LRT_EINVAL = -1,      /* bad argument: null pointer, negative size, shape */
  LRT_EUNSUPPORTED = -2, /* valid but unsupported: element type, head size */
  LRT_ENOMEM = -3,      /* allocation failed */
};

/* Element types (ggml_type ids). */
enum {
  LRT_F32 = 0,
  LRT_F16 = 1,
  LRT_Q4_0 = 2,
  LRT_Q4_1 = 3,
  LRT_Q5_0 = 6,
  LRT_Q5_1 = 7,
  LRT_Q8_0 = 8,
  LRT_Q2_K = 10,
  LRT_Q3_K = 11,
  LRT_Q4_K = 12,
  LRT_Q5_K = 13,
  LRT_Q6_K = 14,
  LRT_IQ4_NL = 20,
  LRT_IQ4_XS = 23,
  LRT_BF16 = 30,
  LRT_MXFP4 = 39,
};

/* lrt_abi_version returns LRT_ABI_VERSION; the Go loader refuses a mismatch. */
LRT_API int32_t lrt_abi_version(void);

/* lrt_struct_size returns sizeof the struct numbered which
 * (2: lrt_attn_params, 3: lrt_norm_params, 4: lrt_elt_params, 5:
 * lrt_product), or -1. */
LRT_API int64_t lrt_struct_size(int32_t which);

/* lrt_isa_list copies the names of the kernel sets this CPU can run, best
 * first and comma-separated, such as "avx512vnni,avx2,generic", into buf (at
 * most cap bytes, no NUL) and returns the full length. */
LRT_API int64_t lrt_isa_list(char *buf, int64_t cap);

/* lrt_supports reports (1/0) whether lrt_matmul accepts weights of type t. */
LRT_API int32_t lrt_supports(int32_t t);

/* lrt_pool is a set of persistent worker threads. The calling thread takes
 * part in every operation as worker 0, so a pool of n threads starts n-1
 * pthreads. Operations on one pool are serialized by a mutex. */
typedef struct lrt_pool lrt_pool;

/* lrt_pool_new starts a pool of nthreads (clamped to [1, 512]) running the
 * kernel set named isa (one of lrt_isa_list; NULL or "" for the best);
 * NULL if the set is not available here or the threads fail to start. */
LRT_API lrt_pool *lrt_pool_new(int32_t nthreads, const char *isa);

/* lrt_pool_isa copies the name of p's kernel set into buf as lrt_isa_list
 * does and returns its length. */
LRT_API int64_t lrt_pool_isa(const lrt_pool *p, char *buf, int64_t cap);

/* lrt_pool_free stops and joins the workers and frees the pool. */
LRT_API void lrt_pool_free(lrt_pool *p);

/* lrt_pool_threads returns the number of threads of p, the caller included. */
LRT_API int32_t lrt_pool_threads(const lrt_pool *p);

/* lrt_matmul computes out[t*rows + r] = sum_c W[r][c] * x[t*cols + c] for
 * t < ntok and r < rows, where W holds rows rows of cols elements of type
 * wtype (ggml layout, rows stored back to back). Activations are quantized
 * to 8 bits on the fly for the quantized types (as ggml does); float
 * weights multiply float activations. cols must be a multiple of the block
 * size. */
LRT_API int32_t lrt_matmul(lrt_pool *p, int32_t wtype, const void *w, int64_t rows,
                   int64_t cols, const float *x, int64_t ntok, float *out);

/* lrt_matmul_il16 is lrt_matmul for weights whose rows were interleaved
 * in groups of 16 (rows a multiple of 16; the layout is described in
 * quants_x86.inc at "interleaved weights" and made by the Go package's
 * Interleave16), where lrt_pool_il16 reports (1/0) that p's kernels have
 * them for wtype (AVX-512 VNNI: Q4_0, IQ4_NL, Q5_0, Q8_0, Q3_K, Q4_K,
 * Q5_K, Q6_K and IQ4_XS; AVX-512: F16; AVX512_BF16: BF16; AVX2: Q4_0,
 * Q5_0, Q8_0, Q4_K, Q5_K, Q6_K and F16). */
LRT_API int32_t lrt_matmul_il16(lrt_pool *p, int32_t wtype, const void *w, int64_t rows,
                        int64_t cols, const float *x, int64_t ntok, float *out);
LRT_API int32_t lrt_pool_il16(const lrt_pool *p, int32_t wtype);

/* lrt_product is one weight of lrt_matmuls. Pointers first, so the layout
 * has no padding. */
typedef struct {
  const void *w;  /* rows rows of the call's cols elements of type wtype */
  float *out;     /* [ntok][rows] */
  int64_t rows;
  int32_t wtype;
  int32_t il16;   /* 1: rows interleaved as lrt_matmul_il16 takes them */
} lrt_product;

/* LRT_MATMULS_MAX is the most products one lrt_matmuls call takes. */
#define LRT_MATMULS_MAX 8

/* lrt_matmuls computes the n products of weights that share their
 * activations x (ntok rows of cols), each as lrt_matmul (or
 * lrt_matmul_il16) would: the Q, K and V projections of a layer, its gate
 * and up. For decode (ntok 1) they run in one pass of the pool, the
 * threads sharing the row chunks of all of them: one dispatch and one
 * wait for the set rather than one per weight. */
LRT_API int32_t lrt_matmuls(lrt_pool *p, const lrt_product *ps, int32_t n, int64_t cols, const float *x,
                            int64_t ntok);

/* lrt_norm_params configures lrt_rmsnorm. */
typedef struct {
  float eps;       /* added to the mean square */
  int32_t add_one; /* 1: scale by (1 + weight), as Gemma stores it */
} lrt_norm_params;

/* lrt_rmsnorm computes out[t] = x[t] / sqrt(mean(x[t]^2) + eps) * weight for
 * ntok rows of n floats; weight may be NULL (no scaling). out may equal x. */
LRT_API int32_t lrt_rmsnorm(lrt_pool *p, float *out, const float *x,
                    const float *weight, int64_t n, int64_t ntok,
                    const lrt_norm_params *prm);

/* lrt_rope rotates x, ntok rows of nheads heads of head_dim floats, in
 * place: row t is at position pos0+t, and pair i of the first rot_dim
 * elements of each head turns by (pos0+t)*inv_freq[i] (rot_dim/2
 * frequencies, scaling already applied). neox 0 pairs elements (2i, 2i+1),
 * neox 1 pairs (i, i+rot_dim/2). */
LRT_API int32_t lrt_rope(lrt_pool *p, float *x, int64_t ntok, int64_t nheads,
                         int64_t head_dim, int64_t pos0, const float *inv_freq,
                         int64_t rot_dim, int32_t neox);

/* lrt_softmax replaces each of rows rows of n floats by its softmax. */
LRT_API int32_t lrt_softmax(lrt_pool *p, float *x, int64_t n, int64_t rows);

/* Gate activations for lrt_glu. */
enum { LRT_SILU = 0, LRT_GELU = 1 };

/* lrt_glu computes out[i] = act(gate[i]) * up[i] for i < n (SwiGLU with
 * LRT_SILU, GeGLU with LRT_GELU, the tanh approximation). out may alias
 * gate or up. */
LRT_API int32_t lrt_glu(lrt_pool *p, int32_t act, float *out, const float *gate,
                const float *up, int64_t n);

/* lrt_attn_params configures lrt_attention. Pointers first, so the layout
 * has no padding. */
typedef struct {
  const float *q;    /* [ntok][n_heads*head_dim] queries */
  const void *k;     /* [ctx][n_kv_heads*head_dim] keys, F32, F16, or Q8_0 or
                        Q4_0 blocks (rows of kv_stride/32 blocks) */
  const void *v;     /* [ctx][n_kv_heads*head_dim] values, as k */
  float *out;        /* [ntok][n_heads*head_dim] */
  int64_t pos0;      /* position of query row 0; row t is at pos0+t */
  int64_t ntok;
  int64_t n_kv;      /* cache rows visible: keys 0..n_kv-1 */
  int32_t n_heads;
  int32_t n_kv_heads; /* n_heads must be a multiple of it (GQA) */
  int32_t head_dim;
  int32_t kv_type;   /* LRT_F32, LRT_F16, LRT_Q8_0 or LRT_Q4_0 (then the
                        queries are rounded to Q8_0, as ggml's flash
                        attention does, and head_dim is a multiple of 32) */
  int64_t kv_stride; /* elements between cache rows (>= n_kv_heads*head_dim) */
  float scale;       /* score multiplier, usually 1/sqrt(head_dim) */
  float softcap;     /* if > 0: score = softcap*tanh(score/softcap) */
  int32_t window;    /* if > 0: key j is visible to query at pos p only if
                        p - j < window */
  int32_t causal;    /* 1: key j is visible only if j <= pos */
  const float *sinks; /* NULL, or [n_heads] logits that join each head's
                         softmax denominator without a value (gpt-oss) */
} lrt_attn_params;

/* lrt_attention computes, for each query token and head, softmax over the
 * visible keys of scale*q.k, times v, into out (online softmax, one pass
 * over the cache). */
LRT_API int32_t lrt_attention(lrt_pool *p, const lrt_attn_params *prm);

/* Element-wise operations of lrt_eltwise. */
enum {
  LRT_ELT_ADD = 0,     /* y[i] += x[i], i < n */
  LRT_ELT_ADD_ROW = 1, /* y[r*period + j] += x[j]: x, one row of period, added to each row of y */
  LRT_ELT_SCALE = 2,   /* y[i] *= c; x is not read */
};

/* lrt_elt_params configures lrt_eltwise. */
typedef struct {
  float c; /* LRT_ELT_SCALE's factor */
} lrt_elt_params;

/* lrt_eltwise applies op to the n floats of y (with LRT_ELT_ADD_ROW, n is a
 * multiple of period > 0). x may not alias y except exactly (x == y). */
LRT_API int32_t lrt_eltwise(lrt_pool *p, int32_t op, float *y, const float *x, int64_t n,
                            int64_t period, const lrt_elt_params *prm);

/* lrt_get_rows converts row ids[t] of w (rows rows of cols elements of type
 * wtype, LRT_F32, LRT_F16, LRT_BF16 or LRT_Q8_0; others are
 * LRT_EUNSUPPORTED) to floats in out[t*cols ...] for t < nids: the token
 * embedding lookup. Every id must be below rows. */
LRT_API int32_t lrt_get_rows(lrt_pool *p, int32_t wtype, const void *w, int64_t rows, int64_t cols,
                             const int32_t *ids, int64_t nids, float *out);

#endif
