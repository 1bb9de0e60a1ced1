package models

import (
	"math"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// This file holds the layers Gemma 3n (gemma3n.go) and Gemma 4 (gemma4.go)
// share: per-layer token embeddings, attention over a cache that later
// layers share, the GeGLU MLP with Gemma 3n's activation sparsity, and the
// element-wise steps between them.

// Scratch buffers of State.Buffer used by gemma3n and gemma4, one id per
// use.
const (
	bufGemmaX      = 170 + iota // the residual stream(s): [streams][n][Dim]
	bufGemmaPred                // gemma3n: AltUp predictions [streams][n][Dim]
	bufGemmaPLE                 // per-layer inputs, layer-major [NLayers][n][PerLayer]
	bufGemmaPLETmp              // per-layer inputs, token-major [n][NLayers·PerLayer]
	bufGemmaXB                  // a block's normed input [n][Dim]
	bufGemmaAttn                // attention output [n][Dim]
	bufGemmaFFN                 // MLP output [n][Dim]
	bufGemmaAux                 // gemma3n: LAuReL output [n][Dim]
	bufGemmaAux2                // gemma3n: LAuReL's low-rank rows; gemma4: the per-layer gate [n][max(rank, PerLayer)]
	bufGemmaQ                   // queries [n][NHeads·HeadDim]
	bufGemmaK                   // keys [n][NKVHeads·HeadDim]
	bufGemmaV                   // values [n][NKVHeads·HeadDim]
	bufGemmaAtt                 // attention before the output projection [n][NHeads·HeadDim]
	bufGemmaGate                // MLP gate [n][HiddenDim]
	bufGemmaUp                  // MLP up [n][HiddenDim]
	bufGemmaSmall               // gemma3n: router modalities and coefficients [n][streams+streams²]
	bufGemmaRoute               // gemma3n: the router's normed input [n][Dim]
)

// invSqrt2 is ggml's 1.0f/sqrtf(2.0f), by which Gemma 3n and Gemma 4
// scale their per-layer inputs and Gemma 3n its LAuReL sums.
const invSqrt2 float32 = 0.7071067811865476

// perLayerEmbedding is the per-layer token embedding of Gemma 3n and Gemma
// 4 (llama.cpp's build_inp_per_layer and project_per_layer_inputs): each
// layer gets PerLayer values per token, the sum of its slice of the
// token's row of per_layer_token_embd (×√PerLayer) and of a normed
// projection of the scaled token embedding (×1/√Dim), ×1/√2.
type perLayerEmbedding struct {
	Embd native.Weight // per_layer_token_embd.weight [VocabSize][NLayers·PerLayer]
	Proj Linear        // per_layer_model_proj.weight [NLayers·PerLayer][Dim]
	Norm RMSNorm       // per_layer_proj_norm.weight [PerLayer]
	Size int           // PerLayer (embedding_length_per_layer_input)
}

// forward writes the per-layer inputs of the nTokens rows of x (the scaled
// token embeddings) into out, layer-major: out[l][t] is layer l's row of
// token t. Rows from input embeddings (tokens nil) take token 0's
// per-layer embedding, as llama.cpp's multimodal path does.
func (e *perLayerEmbedding) forward(b native.Backend, s *State, out, x []float32, tokens []int32, nTokens int) {
	nl, pl := e.Embd.Cols/e.Size, e.Size
	w := nl * pl
	tmp := s.Buffer(bufGemmaPLETmp, nTokens*w)
	proj := out[:nTokens*w] // the projection, token-major, before the transpose
	e.Proj.Forward(b, proj, x, nTokens)
	scale(proj, 1/float32(math.Sqrt(float64(e.Proj.W.Cols))))
	e.Norm.Forward(b, proj, proj)
	sel := float32(math.Sqrt(float64(pl)))
	if tokens != nil {
		embedInput(b, e.Embd, Tokens(tokens), tmp, sel)
	} else {
		embedInput(b, e.Embd, Tokens([]int32{0}), tmp[:w], sel)
		for t := 1; t < nTokens; t++ {
			copy(tmp[t*w:(t+1)*w], tmp[:w])
		}
	}
	for i, v := range proj {
		tmp[i] = (v + tmp[i]) * invSqrt2
	}
	// transpose [t][l] rows into [l][t]
	for t := range nTokens {
		for l := range nl {
			copy(out[(l*nTokens+t)*pl:(l*nTokens+t+1)*pl], tmp[(t*nl+l)*pl:(t*nl+l+1)*pl])
		}
	}
}

// perLayerBlock is the per-layer embedding's step in each block: gelu of
// a gate projection of x, times the layer's per-layer input, projected back
// to Dim and normed.
type perLayerBlock struct {
	Gate     Linear  // blk.N.inp_gate.weight [PerLayer][Dim]
	Proj     Linear  // blk.N.proj.weight [Dim][PerLayer]
	PostNorm RMSNorm // blk.N.post_norm.weight [Dim]
}

// forward writes the step's output for the nTokens rows of x into out,
// with in the layer's per-layer inputs [n][PerLayer] and gate scratch.
func (p *perLayerBlock) forward(b native.Backend, out, x, in, gate []float32, nTokens int) {
	gate = gate[:nTokens*p.Gate.W.Rows]
	p.Gate.Forward(b, gate, x, nTokens)
	b.GeGLU(gate, in)
	p.Proj.Forward(b, out, gate, nTokens)
	p.PostNorm.Forward(b, out, out)
}

// loadPerLayerBlock loads block prefix blk's per-layer embedding tensors.
func (l *loader) loadPerLayerBlock(blk string, dim, size int, eps float32) perLayerBlock {
	return perLayerBlock{
		Gate:     l.linear(blk+"inp_gate", size, dim),
		Proj:     l.linear(blk+"proj", dim, size),
		PostNorm: l.norm(blk+"post_norm", dim, eps),
	}
}

// loadPerLayerEmbedding loads the per-layer embedding of nLayers layers of
// size values.
func (l *loader) loadPerLayerEmbedding(p Params, size int) perLayerEmbedding {
	w := p.NLayers * size
	return perLayerEmbedding{
		Embd: l.weight("per_layer_token_embd.weight", p.VocabSize, w),
		Proj: l.linear("per_layer_model_proj", w, p.Dim),
		Norm: l.norm("per_layer_proj_norm", size, p.NormEps),
		Size: size,
	}
}

// gemmaAttention is the attention of Gemma 3n and Gemma 4: per-head RMSNorm
// of queries and keys (with weights) and of values (without), RoPE, scale
// 1, and either its own cache or, in the last layers, the cache of an
// earlier layer (KVLayer), which it reads without computing keys or values.
type gemmaAttention struct {
	Q, K, V Linear  // V.W.Data nil: the values are the keys (Gemma 4's global layers)
	O       Linear  // [Dim][NHeads·HeadDim]
	QNorm   RMSNorm // attn_q_norm.weight [HeadDim]
	KNorm   RMSNorm // attn_k_norm.weight [HeadDim]; W nil in a layer without its own cache
	Rope    native.RoPE
	Attn    native.Attention
	KVLayer int       // the layer whose cache this one attends over: itself, or an earlier one
	ones    []float32 // HeadDim ones: the value norm's weight
}

// own reports whether the layer computes and stores its keys and values.
func (a *gemmaAttention) own(layer int) bool { return a.KVLayer == layer }

// forward runs attention for the nTokens rows of x at positions pos0, …
// into out.
func (a *gemmaAttention) forward(b native.Backend, s *State, layer int, out, x []float32, pos0, nTokens int) {
	hd, nh, nkv := a.Attn.HeadDim, a.Attn.NHeads, a.Attn.NKVHeads
	q := s.Buffer(bufGemmaQ, nTokens*nh*hd)
	a.Q.Forward(b, q, x, nTokens)
	a.QNorm.Forward(b, q, q)
	b.RoPE(q, nh, hd, pos0, nTokens, a.Rope)
	rotV := kvRotate(s.KV(a.KVLayer), hd, q, nil, nil) // a quantized cache's rotation (kvrot.go)
	if a.own(layer) {
		k := s.Buffer(bufGemmaK, nTokens*nkv*hd)
		v := s.Buffer(bufGemmaV, nTokens*nkv*hd)
		a.K.Forward(b, k, x, nTokens)
		if a.V.W.Data != nil {
			a.V.Forward(b, v, x, nTokens)
		} else {
			copy(v, k)
		}
		a.KNorm.Forward(b, k, k)
		b.RMSNorm(v, v, a.ones, hd, a.KNorm.Eps)
		b.RoPE(k, nkv, hd, pos0, nTokens, a.Rope)
		kvRotate(s.KV(layer), hd, nil, k, v)
		b.StoreKV(s.KV(layer), pos0, k, v, nTokens)
	}
	att := s.Buffer(bufGemmaAtt, nTokens*nh*hd)
	b.Attend(att, q, s.KV(a.KVLayer), pos0, nTokens, s.attention(a.Attn))
	kvUnrotate(att, rotV)
	a.O.Forward(b, out, att, nTokens)
}

// loadGemmaAttention loads block i's attention of nHeads heads and nKV KV
// heads of hd: attn_q, attn_output, attn_q_norm and, if withKV, attn_k,
// attn_k_norm and attn_v, which optionalV lets be absent (values are then
// the keys). Gemma 3n loads the keys and values of every layer, Gemma 4
// only of the layers with a cache.
func (l *loader) loadGemmaAttention(i, dim, nHeads, nKV, hd int, eps float32, withKV, optionalV bool) gemmaAttention {
	blk := blockName(i)
	a := gemmaAttention{
		Q:     l.linear(blk+"attn_q", nHeads*hd, dim),
		O:     l.linear(blk+"attn_output", dim, nHeads*hd),
		QNorm: l.norm(blk+"attn_q_norm", hd, eps),
	}
	if withKV {
		a.K = l.linear(blk+"attn_k", nKV*hd, dim)
		a.KNorm = l.norm(blk+"attn_k_norm", hd, eps)
		if !optionalV || l.has(blk+"attn_v.weight") {
			a.V = l.linear(blk+"attn_v", nKV*hd, dim)
		}
	}
	a.ones = make([]float32, hd)
	for j := range a.ones {
		a.ones[j] = 1
	}
	return a
}

// sharedKVSource returns the layer whose cache layer il reads, as llama.cpp
// decides for gemma3n and gemma4: the first kvLayers layers have their own;
// each later one reads the last of them of its kind (kvLayers-2, which must
// be a sliding layer, or kvLayers-1, a global one).
func (l *loader) sharedKVSource(il, kvLayers int, local []bool) int {
	if il < kvLayers {
		return il
	}
	src := kvLayers - 1
	if local[il] {
		src = kvLayers - 2
	}
	if src < 0 || local[src] != local[il] {
		l.fail("layer %d shares the cache of layer %d, which is not of its kind (the last two layers with a cache must be a sliding and a global one)", il, src)
		return il
	}
	return src
}

// gemmaMLP is the GeGLU MLP down(gelu(gate(x)) · up(x)), whose gate in
// Gemma 3n's first layers keeps only the values above a Gaussian
// percentile (SparseStd standard deviations above the row's mean).
type gemmaMLP struct {
	Gate, Up, Down Linear
	SparseStd      float32 // 0: dense
}

// forward writes the MLP of the nTokens rows of x into out.
func (m *gemmaMLP) forward(b native.Backend, s *State, out, x []float32, nTokens int) {
	h := m.Gate.W.Rows
	gate := s.Buffer(bufGemmaGate, nTokens*h)
	up := s.Buffer(bufGemmaUp, nTokens*h)
	forwardShared(b, s, x, nTokens, []Linear{m.Up, m.Gate}, [][]float32{up, gate})
	if m.SparseStd > 0 {
		for t := range nTokens {
			gaussianTopK(gate[t*h:(t+1)*h], m.SparseStd)
		}
	}
	b.GeGLU(gate, up)
	m.Down.Forward(b, out, gate, nTokens)
}

// gaussianTopK sets x to relu(x - (mean + k·std)), with std the sample
// standard deviation of x: llama.cpp's gaussian_topk (Gemma 3n's activation
// sparsity: k is the standard normal's 95th percentile).
func gaussianTopK(x []float32, k float32) {
	var sum float64
	for _, v := range x {
		sum += float64(v)
	}
	mean := float32(sum / float64(len(x)))
	var sq float64
	for _, v := range x {
		d := v - mean
		sq += float64(d * d)
	}
	std := float32(math.Sqrt(float64(float32(sq) * (1 / float32(len(x)-1)))))
	cut := mean + std*k
	for i, v := range x {
		x[i] = max(v-cut, 0)
	}
}

// magnitude returns the Euclidean norm of x, summed in float64 as ggml's
// sum_rows.
func magnitude(x []float32) float32 {
	var s float64
	for _, v := range x {
		s += float64(v * v)
	}
	return float32(math.Sqrt(float64(float32(s))))
}

// rescale sets y to y·target/|y| (ggml_div(ggml_mul(y, target), |y|)).
func rescale(y []float32, target float32) {
	m := magnitude(y)
	for i, v := range y {
		y[i] = v * target / m
	}
}

// perLayerInts reads the per-layer key <arch>.k: an array of n positive
// counts, or one count for every layer; def when absent (0: required).
func (l *loader) perLayerInts(k string, n, def int) []int {
	out := make([]int, n)
	key := l.key(k)
	v, ok := l.f.Lookup(key)
	if !ok {
		if def == 0 {
			l.fail("required key %q is missing", key)
		}
		for i := range out {
			out[i] = def
		}
		return out
	}
	if v.Type != gguf.TypeArray {
		c := l.int(k)
		for i := range out {
			out[i] = c
		}
		return out
	}
	vs, err := l.f.Ints(key)
	if err != nil {
		l.fail("%w", err)
		return out
	}
	if len(vs) != n {
		l.fail("key %q has %d entries for %d layers", key, len(vs), n)
		return out
	}
	for i, c := range vs {
		if c <= 0 || c > 1<<24 {
			l.fail("key %q: layer %d has %d, want a positive count", key, i, c)
			return out
		}
		out[i] = int(c)
	}
	return out
}

// checkSoftCap fails unless c is a finite number ≥ 0.
func (l *loader) checkSoftCap(k string, c float64) float32 {
	if !(c >= 0) || math.IsInf(c, 0) {
		l.fail("key %q is %g, want a finite number ≥ 0", l.key(k), c)
		return 0
	}
	return float32(c)
}

// gemmaCaches lists the caches of layers whose attention is attn: a KV
// cache of their own, or the shared one of an earlier layer.
func gemmaCaches(attn []*gemmaAttention) []LayerCache {
	cs := make([]LayerCache, len(attn))
	for i, a := range attn {
		if a.own(i) {
			cs[i] = LayerCache{KVWidth: a.Attn.NKVHeads * a.Attn.HeadDim, SharedKV: -1}
		} else {
			cs[i] = LayerCache{SharedKV: a.KVLayer}
		}
	}
	return cs
}
