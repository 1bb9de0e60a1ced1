// Package native holds the compute kernels behind the models. Model code
// calls the coarse operations of a Backend (a whole matrix product, a whole
// attention block) and never sees threads, SIMD or foreign calls; kernels
// never see models.
//
// NewGo returns the pure-Go backend, which is the specification of every
// operation and the fallback when no native library is available. Other
// backends (C kernels loaded with purego, a GPU) implement the same
// interface and are compared against it in tests.
package native

import (
	"fmt"

	"github.com/litert-go/litert-go/models/ggml"
)

// Weight is a matrix of Rows rows of Cols elements of Type, kept in its
// stored (possibly quantized) form, laid out as Layout says. Data is
// usually a slice of the model file's memory (mapped or read) and is never
// written by the backends (Interleave16 rewrites it once, at load).
type Weight struct {
	Type       ggml.DType
	Rows, Cols int
	Data       []byte
	Layout     Layout
}

// Layout is how a Weight's rows lie in its Data.
type Layout uint8

const (
	// RowMajor stores the rows one after another, as GGUF does.
	RowMajor Layout = iota
	// Interleaved16 stores groups of 16 rows interleaved a block column
	// at a time (Interleave16), in the bytes the group's rows had.
	Interleaved16
)

// RowBytes is the size of one row of w in bytes.
func (w Weight) RowBytes() int {
	n, err := w.Type.RowSize(w.Cols)
	if err != nil {
		return 0
	}
	return n
}

// Check reports whether w's data holds exactly Rows rows of Cols elements.
func (w Weight) Check() error {
	rs, err := w.Type.RowSize(w.Cols)
	if err != nil {
		return err
	}
	if len(w.Data) != rs*w.Rows {
		return fmt.Errorf("%d×%d %s matrix needs %d bytes, has %d", w.Rows, w.Cols, w.Type, rs*w.Rows, len(w.Data))
	}
	return nil
}

// RoPE describes rotary position embedding of one head: the first Dim
// elements of each head are rotated by angle pos*InvFreq[i] for pair i.
//
// In the normal mode (llama.cpp's LLAMA_ROPE_TYPE_NORM, used with the
// GGUF-permuted Q/K of llama) pair i is elements (2i, 2i+1); in the NeoX
// mode (Qwen, Gemma) pair i is elements (i, i+Dim/2).
type RoPE struct {
	Dim     int       // rotated elements per head (n_rot), even, ≤ head size
	Neox    bool      // NeoX pairing (i, i+Dim/2) instead of (2i, 2i+1)
	InvFreq []float32 // Dim/2 angular frequencies, scaling and factors applied
}

// NewRoPE returns the RoPE of dim rotated elements with frequency base
// base: InvFreq[i] = scale / (base^(2i/dim) * factors[i]), where scale is
// the linear position scale (1 for none) and factors are the optional
// per-pair divisors of llama 3's rope_freqs.weight (nil for none). This is
// ggml_rope_ext with ext_factor 0 (no YaRN) and attn_factor 1.
func NewRoPE(dim int, base, scale float64, factors []float32, neox bool) RoPE {
	r := RoPE{Dim: dim, Neox: neox, InvFreq: make([]float32, dim/2)}
	for i := range r.InvFreq {
		f := scale / pow(base, float64(2*i)/float64(dim))
		if factors != nil {
			f /= float64(factors[i])
		}
		r.InvFreq[i] = float32(f)
	}
	return r
}

// Attention describes multi-head attention with grouped KV heads, causal
// unless NonCausal is set.
type Attention struct {
	NHeads   int     // query heads
	NKVHeads int     // key/value heads; NHeads is a multiple of it
	HeadDim  int     // elements per head, for queries, keys and values
	Scale    float32 // multiplies q·k before the softmax
	Window   int     // sliding window: a query at pos sees keys in (pos-Window, pos]; 0 for none
	SoftCap  float32 // if > 0, scores become SoftCap*tanh(score/SoftCap)
	// Sinks, if not nil, holds a logit per query head that joins the
	// softmax's denominator without a value (gpt-oss attn_sinks).
	Sinks []float32
	// NonCausal lets every query row of the call see every row of the
	// call, later ones too (and all the cache before it): llama.cpp's
	// causal_attn false, which mtmd sets for a Gemma 3 image chunk. The
	// window still bounds the past: a query at pos sees the keys j with
	// pos-j < Window and j < pos0+nTokens (llama.cpp's is_masked_swa under
	// LLAMA_NON_CAUSAL_TYPE_ALL).
	NonCausal bool
}

// Product is one weight of a MatMuls call and where its product goes.
type Product struct {
	Out []float32
	W   Weight
}

// Backend is the set of coarse operations a forward pass is made of.
// Activations are float32 slices holding nTokens rows back to back.
// Implementations must be safe for concurrent use by several goroutines
// (one per session); the arguments of one call are owned by the caller.
// Shape errors are programming errors and panic: models validate shapes
// when they load.
type Backend interface {
	// Name identifies the backend, such as "go".
	Name() string
	// Threads is the number of threads a call may use.
	Threads() int
	// Supports reports whether MatMul accepts weights of type t.
	Supports(t ggml.DType) bool

	// MatMul sets out[t*w.Rows+r] = row r of w · x[t*w.Cols:(t+1)*w.Cols]
	// for each of the nTokens rows of x.
	MatMul(out []float32, w Weight, x []float32, nTokens int)
	// MatMuls is MatMul(p.Out, p.W, x, nTokens) for each product p of
	// weights that share their input (a layer's Q, K and V projections,
	// its gate and up), in one call: for decode, the threads share the
	// rows of all of them, one dispatch and one wait for the set rather
	// than one per weight.
	MatMuls(ps []Product, x []float32, nTokens int)
	// RMSNorm normalizes each row of n elements of x into out:
	// out = x / sqrt(mean(x²) + eps) * weight. out may alias x.
	RMSNorm(out, x, weight []float32, n int, eps float32)
	// RoPE rotates, in place, each head of headDim elements of x, which
	// holds nTokens rows of nHeads heads; row t is at position pos0+t.
	RoPE(x []float32, nHeads, headDim, pos0, nTokens int, r RoPE)
	// StoreKV writes nTokens rows of keys k and values v (each
	// cache.Width() wide) to the cache at positions pos0, pos0+1, ….
	StoreKV(cache *KVCache, pos0 int, k, v []float32, nTokens int)
	// Attend computes, for each of the nTokens query rows of q (row t at
	// position pos0+t, holding a.NHeads heads), softmax(scale·q·Kᵀ)·V over
	// the cached positions the query may see, into out (same shape as q):
	// positions ≤ pos0+t, or < pos0+nTokens if a.NonCausal, within the
	// window.
	Attend(out, q []float32, cache *KVCache, pos0, nTokens int, a Attention)
	// SwiGLU sets gate[i] = silu(gate[i]) * up[i].
	SwiGLU(gate, up []float32)
	// GeGLU sets gate[i] = gelu_tanh(gate[i]) * up[i].
	GeGLU(gate, up []float32)
	// Softmax replaces x by softmax(x).
	Softmax(x []float32)

	// Embed sets row t of out (w.Cols elements) to row ids[t] of w,
	// converted to float32: the token embedding lookup. The ids are
	// below w.Rows.
	Embed(out []float32, w Weight, ids []int32)
	// Add sets dst[i] += src[i] for each element of dst: the residual add.
	Add(dst, src []float32)
	// AddRows adds row to each of the len(x)/len(row) rows of x: the bias
	// add of a projection.
	AddRows(x, row []float32)
	// Scale sets x[i] *= c.
	Scale(x []float32, c float32)

	// NewKVCache allocates a KV cache of ctxLen positions of width
	// elements in type t (ggml.F32 or ggml.F16) in the backend's memory.
	NewKVCache(t ggml.DType, ctxLen, width int) (*KVCache, error)
	// Alloc returns n zeroed float32 elements of the backend's memory, for
	// a sequence's state (convolution and recurrent states, their
	// checkpoints) and its activations. Host backends return Go memory,
	// freed by the garbage collector.
	Alloc(n int) []float32

	// Close releases the backend's threads and memory.
	Close() error

	// Recurrent and convolutional layers (LFM2, Qwen3.5; go_ssm.go has
	// the specification of each).

	// CausalConv runs a causal depthwise convolution of kernel taps over
	// nTokens rows of channels, continuing from and updating state (the
	// previous kernel-1 rows).
	CausalConv(out, x, state, w []float32, channels, kernel, nTokens int)
	// DeltaNet runs the gated delta rule of d over nTokens rows,
	// continuing from and updating state; q and k are normalized in place.
	DeltaNet(out, q, k, v, gate, beta, state []float32, d DeltaNet, nTokens int)
	// GatedRMSNorm sets out = RMSNorm(x)·weight·silu(gate) in rows of
	// len(weight).
	GatedRMSNorm(out, x, gate, weight []float32, eps float32)

	// MatMulGrouped multiplies each weight ws[e] by its group of
	// groups[e] rows of x, the groups back to back in order: with o the
	// rows of the groups before e, it is MatMul(out[o*Rows:], ws[e],
	// x[o*Cols:], groups[e]) for each e, in one call whose threads share
	// the (weight, row block) pairs of all groups (the experts of a mixture,
	// ggml's mul_mat_id). The weights have one type and shape.
	MatMulGrouped(out []float32, ws []Weight, x []float32, groups []int)
}
