package models

import (
	"math"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// Gemma3n is the text model of Google's Gemma 3n (E2B, E4B): Gemma 3's
// block (q/k norms, RMSNorm before and after attention and MLP, GeGLU,
// sliding and global layers) around which run
//
//   - AltUp: four copies of the residual stream; each block predicts all
//     four from the first (altup_predict_coef, from a router over the
//     first), runs on the first prediction only, and corrects the four by
//     the innovation (altup_correct_coef);
//   - LAuReL: a rank-64 residual (laurel_l, laurel_r, laurel_post_norm)
//     added to the attention output, the sum scaled by 1/√2;
//   - per-layer embeddings: each layer adds a gated projection of its
//     256-wide slice of per_layer_token_embd (and of a projection of the
//     token embedding) to the three other streams;
//   - activation sparsity: the MLP gate of the first 10 layers keeps only
//     what lies above the 95th percentile of a Gaussian fit of its row;
//   - KV sharing: layers 20 and up compute only queries and attend over
//     the cache of layer 18 (sliding) or 19 (global);
//   - values RMS-normed, attention scale 1 and logits soft-capped at 30.
//
// It follows llama.cpp src/models/gemma3n.cpp and its load_arch_hparams,
// which fix n_altup 4 (active stream 0), LAuReL rank 64, the 20 layers
// with a cache, the 10 sparse layers and the cap of 30 whatever the file
// says; the layout (sliding pattern, per-layer width) comes from the
// tensors and keys as there.
type Gemma3n struct {
	p Params
	b native.Backend

	TokEmbd  native.Weight // token_embd.weight [VocabSize][Dim]
	PerLayer perLayerEmbedding
	AltUp    [gemma3nStreams - 1]Linear // altup_proj.weight, per stream [Dim][Dim]
	Unembd   [gemma3nStreams - 1]Linear // altup_unembd_proj.weight, per stream [Dim][Dim]
	Layers   []gemma3nBlock
	OutNorm  RMSNorm // output_norm.weight [Dim]
	Output   Linear  // output.weight or token_embd.weight
}

// Gemma 3n's constants, fixed by llama.cpp's llama_hparams and
// llama_model_gemma3n.
const (
	gemma3nStreams     = 4  // n_altup
	gemma3nLaurelRank  = 64 // laurel_rank
	gemma3nKVLayers    = 20 // n_layer_kv_from_start
	gemma3nSparse      = 10 // n_layer_sparsity
	gemma3nFinalCap    = 30 // f_final_logit_softcapping
	gemma3nPerLayer    = 256
	gemma3nSparsityStd = 1.6448533535003662 // f_sparsity_std_mul: the standard normal's 95th percentile
)

// gemma3nBlock is one Gemma 3n block.
type gemma3nBlock struct {
	AttnNorm, PostAttnNorm RMSNorm // attn_norm, post_attention_norm [Dim]
	Attn                   gemmaAttention
	FFNNorm, PostFFNNorm   RMSNorm // ffn_norm, post_ffw_norm [Dim]
	FFN                    gemmaMLP
	PerLayer               perLayerBlock

	// AltUp
	Router       Linear    // altup_router.weight [streams][Dim]
	RouterNorm   RMSNorm   // altup_router_norm.weight [Dim]
	Predict      Linear    // altup_predict_coef.weight [streams²][streams]
	Correct      Linear    // altup_correct_coef.weight [streams][streams]
	CorrectScale []float32 // altup_correct_scale.weight [Dim]

	// LAuReL
	LaurelL, LaurelR Linear  // laurel_l.weight [rank][Dim], laurel_r.weight [Dim][rank]
	LaurelNorm       RMSNorm // laurel_post_norm.weight [Dim]
}

func init() { Register("gemma3n", loadGemma3n) }

// loadGemma3n reads hyper-parameters and tensors: every tensor of
// llama.cpp's load_arch_tensors is required but output (tied to token_embd
// when absent).
func loadGemma3n(f *gguf.File, b native.Backend) (Model, error) {
	l := &loader{f: f, b: b, arch: "gemma3n", perLayer: true}
	p := l.params()
	if l.err != nil {
		return nil, l.err
	}
	// convert_hf_to_gguf writes config.json's list of MLP widths
	ff := l.perLayerInts("feed_forward_length", p.NLayers, 0)
	p.Window = l.int("attention.sliding_window")
	local := l.localLayers(p.NLayers, 5)
	localBase := l.positiveFloatOr("rope.freq_base_swa", 10000)
	globalScale := l.ropeScale()
	if l.err != nil {
		return nil, l.err
	}
	globalRope := native.NewRoPE(p.RopeDim, p.RopeBase, globalScale, nil, true)
	localRope := native.NewRoPE(p.RopeDim, localBase, 1, nil, true)
	kvLayers := min(p.NLayers, gemma3nKVLayers)

	m := &Gemma3n{p: p, b: b, Layers: make([]gemma3nBlock, p.NLayers)}
	m.TokEmbd = l.weight("token_embd.weight", p.VocabSize, p.Dim)
	m.PerLayer = l.loadPerLayerEmbedding(p, gemma3nPerLayer)
	proj := l.experts("altup_proj.weight", gemma3nStreams-1, p.Dim, p.Dim)
	unembd := l.experts("altup_unembd_proj.weight", gemma3nStreams-1, p.Dim, p.Dim)
	if l.err != nil {
		return nil, l.err
	}
	for i := range m.AltUp {
		m.AltUp[i], m.Unembd[i] = Linear{W: proj[i]}, Linear{W: unembd[i]}
	}
	m.OutNorm = l.norm("output_norm", p.Dim, p.NormEps)
	m.Output = l.output(p)
	a := gemma3nStreams
	for i := range m.Layers {
		blk, ly := blockName(i), &m.Layers[i]
		ly.AttnNorm = l.norm(blk+"attn_norm", p.Dim, p.NormEps)
		ly.Attn = l.loadGemmaAttention(i, p.Dim, p.NHeads, p.NKVHeads, p.HeadDim, p.NormEps, true, false)
		ly.Attn.Rope, ly.Attn.KVLayer = globalRope, l.sharedKVSource(i, kvLayers, local)
		ly.Attn.Attn = native.Attention{NHeads: p.NHeads, NKVHeads: p.NKVHeads, HeadDim: p.HeadDim, Scale: 1}
		if local[i] {
			ly.Attn.Rope, ly.Attn.Attn.Window = localRope, p.Window
		}
		ly.PostAttnNorm = l.norm(blk+"post_attention_norm", p.Dim, p.NormEps)
		ly.FFNNorm = l.norm(blk+"ffn_norm", p.Dim, p.NormEps)
		ly.FFN = gemmaMLP{
			Gate: l.linear(blk+"ffn_gate", ff[i], p.Dim),
			Up:   l.linear(blk+"ffn_up", ff[i], p.Dim),
			Down: l.linear(blk+"ffn_down", p.Dim, ff[i]),
		}
		if i < gemma3nSparse {
			ly.FFN.SparseStd = gemma3nSparsityStd
		}
		ly.PostFFNNorm = l.norm(blk+"post_ffw_norm", p.Dim, p.NormEps)
		ly.PerLayer = l.loadPerLayerBlock(blk, p.Dim, gemma3nPerLayer, p.NormEps)
		ly.Correct = l.linear(blk+"altup_correct_coef", a, a)
		ly.CorrectScale = l.vector(blk+"altup_correct_scale.weight", p.Dim)
		ly.Predict = l.linear(blk+"altup_predict_coef", a*a, a)
		ly.Router = l.linear(blk+"altup_router", a, p.Dim)
		ly.RouterNorm = l.norm(blk+"altup_router_norm", p.Dim, p.NormEps)
		ly.LaurelL = l.linear(blk+"laurel_l", gemma3nLaurelRank, p.Dim)
		ly.LaurelR = l.linear(blk+"laurel_r", p.Dim, gemma3nLaurelRank)
		ly.LaurelNorm = l.norm(blk+"laurel_post_norm", p.Dim, p.NormEps)
		if l.err != nil {
			return nil, l.err
		}
	}
	return m, nil
}

// Params returns the hyper-parameters.
func (m *Gemma3n) Params() Params { return m.p }

// Caches says which layers have a cache of their own and which share one.
func (m *Gemma3n) Caches() []LayerCache {
	attn := make([]*gemmaAttention, len(m.Layers))
	for i := range m.Layers {
		attn[i] = &m.Layers[i].Attn
	}
	return gemmaCaches(attn)
}

// Backend returns the backend the model runs on.
func (m *Gemma3n) Backend() native.Backend { return m.b }

// embedding returns the token embedding, token_embd.weight.
func (m *Gemma3n) embedding() native.Weight { return m.TokEmbd }

// Forward runs a batch through the model (see Model.Forward). Rows of
// input embeddings take token 0's per-layer embeddings, as llama.cpp's.
func (m *Gemma3n) Forward(s *State, in Input, logits []float32) {
	s.begin(m.p, in)
	b, n, pos0, dim, nl := m.b, in.Len(), s.Len(), m.p.Dim, m.p.NLayers
	const a = gemma3nStreams
	nd := n * dim
	x := s.Buffer(bufGemmaX, a*nd) // the streams, [a][n][dim]
	pred := s.Buffer(bufGemmaPred, a*nd)
	stream := func(v []float32, i int) []float32 { return v[i*nd : (i+1)*nd] }
	x0 := stream(x, 0)
	// token embeddings scaled by √Dim (input embeddings as they are)
	embedInput(b, m.TokEmbd, in, x0, float32(math.Sqrt(float64(dim))))
	s.traced("token_embd", -1, x0, dim, pos0)
	pl := m.PerLayer.Size
	ple := s.Buffer(bufGemmaPLE, nl*n*pl)
	m.PerLayer.forward(b, s, ple, x0, in.Tokens, n)
	// the other streams: projections of the first, at its magnitude
	for i := 1; i < a; i++ {
		xi := stream(x, i)
		m.AltUp[i-1].Forward(b, xi, x0, n)
		for t := range n {
			rescale(xi[t*dim:(t+1)*dim], magnitude(x0[t*dim:(t+1)*dim]))
		}
	}

	xb := s.Buffer(bufGemmaXB, nd)
	attn := s.Buffer(bufGemmaAttn, nd)
	ffn := s.Buffer(bufGemmaFFN, nd)
	laurel := s.Buffer(bufGemmaAux, nd)
	low := s.Buffer(bufGemmaAux2, n*max(gemma3nLaurelRank, pl))
	small := s.Buffer(bufGemmaSmall, n*(a+a*a))
	for i := range m.Layers {
		ly := &m.Layers[i]
		// AltUp predict: the four streams from the first
		ly.predict(b, s, pred, x, small, n)
		active := stream(pred, 0)
		// attention rmsnorm
		ly.AttnNorm.Forward(b, xb, active)
		// LAuReL: x + norm(r(l(x)))
		ly.LaurelL.Forward(b, low[:n*gemma3nLaurelRank], xb, n)
		ly.LaurelR.Forward(b, laurel, low[:n*gemma3nLaurelRank], n)
		ly.LaurelNorm.Forward(b, laurel, laurel)
		b.Add(laurel, xb)
		// self-attention (on an earlier layer's cache in the last layers)
		ly.Attn.forward(b, s, i, attn, xb, pos0, n)
		// post-attention rmsnorm, residual from the prediction, LAuReL
		ly.PostAttnNorm.Forward(b, attn, attn)
		b.Add(attn, active)
		for j, v := range attn {
			attn[j] = (v + laurel[j]) * invSqrt2
		}
		s.traced("attention", i, attn, dim, pos0)
		// ffn rmsnorm, GeGLU MLP (sparse gate in the first layers),
		// post-ffn rmsnorm, residual
		ly.FFNNorm.Forward(b, xb, attn)
		ly.FFN.forward(b, s, ffn, xb, n)
		ly.PostFFNNorm.Forward(b, ffn, ffn)
		b.Add(ffn, attn)
		s.traced("feed-forward", i, ffn, dim, pos0)
		// AltUp correct: the four streams by the block's innovation
		ly.correct(b, s, x, pred, ffn, small, n)
		// per-layer embedding, from the first stream into the others
		for e := range x0 {
			xb[e] = x0[e] * ly.CorrectScale[e%dim]
		}
		ly.PerLayer.forward(b, attn, xb, ple[i*n*pl:(i+1)*n*pl], low, n)
		for j := 1; j < a; j++ {
			b.Add(stream(x, j), attn)
		}
	}
	s.advance(n)
	if logits == nil {
		return
	}
	// the streams merged back, last token only: the mean of the first and
	// the others' unembedding projections at the first's magnitude
	last := func(v []float32) []float32 { return v[(n-1)*dim : n*dim] }
	out := last(xb)
	copy(out, last(x0))
	target := magnitude(last(x0))
	y := last(ffn)
	for j := 1; j < a; j++ {
		m.Unembd[j-1].Forward(b, y, last(stream(x, j)), 1)
		rescale(y, target)
		b.Add(out, y)
	}
	scale(out, 1/float32(a))
	head(b, s, m.OutNorm, m.Output, out, last(attn), pos0+n-1, 1, logits)
	softCap(logits[:m.p.VocabSize], gemma3nFinalCap)
}

// predict writes AltUp's predictions of the nTokens rows of the streams x
// ([streams][n][Dim]) into pred: pred[j] = x[j] + Σ_k x[k]·c[j][k], with
// c = altup_predict_coef · route(x[0]). small is scratch of
// n·(streams+streams²).
func (ly *gemma3nBlock) predict(b native.Backend, s *State, pred, x, small []float32, nTokens int) {
	const a = gemma3nStreams
	dim := len(ly.CorrectScale)
	nd := nTokens * dim
	coefs := small[nTokens*a:]
	ly.Predict.Forward(b, coefs, ly.route(b, s, small[:nTokens*a], x[:nd], nTokens), nTokens)
	for t := range nTokens {
		c := coefs[t*a*a : (t+1)*a*a]
		for j := range a {
			pj := pred[j*nd+t*dim : j*nd+(t+1)*dim]
			copy(pj, x[j*nd+t*dim:j*nd+(t+1)*dim])
			for k := range a {
				axpy(pj, x[k*nd+t*dim:k*nd+(t+1)*dim], c[j*a+k])
			}
		}
	}
}

// correct sets the streams x to AltUp's corrections of the predictions
// pred by the block's output out (nTokens rows, overwritten by the
// innovation out - pred[0]): x[j] = pred[j] + (out - pred[0])·(c[j]+1),
// with c = altup_correct_coef · route(out). small is scratch as for
// predict.
func (ly *gemma3nBlock) correct(b native.Backend, s *State, x, pred, out, small []float32, nTokens int) {
	const a = gemma3nStreams
	dim := len(ly.CorrectScale)
	nd := nTokens * dim
	corr := small[nTokens*a : 2*nTokens*a]
	ly.Correct.Forward(b, corr, ly.route(b, s, small[:nTokens*a], out, nTokens), nTokens)
	for i, v := range out {
		out[i] = v - pred[i]
	}
	for t := range nTokens {
		inno := out[t*dim : (t+1)*dim]
		for j := range a {
			c := corr[t*a+j] + 1
			xj, pj := x[j*nd+t*dim:j*nd+(t+1)*dim], pred[j*nd+t*dim:j*nd+(t+1)*dim]
			for e, v := range inno {
				xj[e] = v*c + pj[e]
			}
		}
	}
}

// route writes the AltUp router's modalities of the nTokens rows of x into
// out ([n][streams]): tanh(router · norm(x)/Dim).
func (ly *gemma3nBlock) route(b native.Backend, s *State, out, x []float32, nTokens int) []float32 {
	dim := len(ly.RouterNorm.W)
	normed := s.Buffer(bufGemmaRoute, nTokens*dim)
	ly.RouterNorm.Forward(b, normed, x)
	scale(normed, 1/float32(dim))
	ly.Router.Forward(b, out, normed, nTokens)
	for i, v := range out {
		out[i] = float32(math.Tanh(float64(v)))
	}
	return out
}
