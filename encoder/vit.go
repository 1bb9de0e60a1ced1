package encoder

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/litert-go/litert-go/native"
)

// block is one pre-norm transformer layer of a ViT or Whisper encoder
// (tensors <prefix>.blk.N.*).
type block struct {
	ln1W, ln1B []float32     // [nEmbd]
	q, k, v, o native.Weight // [nEmbd, nHead*headDim] (o: transposed)
	qB, kB     []float32     // [nHead*headDim]; kB is nil in Whisper
	vB, oB     []float32
	ln2W, ln2B []float32     // [nEmbd]
	up, down   native.Weight // [nEmbd, nFF], [nFF, nEmbd]
	upB, downB []float32     // [nFF], [nEmbd]
}

// transformer is the stack of layers shared by every tower: clip.cpp's
// build_vit with NORM_TYPE_NORMAL (LayerNorm), separate q/k/v, and an
// optional pre-norm and post-norm.
type transformer struct {
	hp           hparams
	preW, preB   []float32 // <prefix>.pre_ln, optional
	blocks       []block
	postW, postB []float32 // <prefix>.post_ln, optional
	avgPool      bool      // Voxtral: average pairs of positions before post_ln
}

// ffnSwapped lists the projectors whose old conversions stored ffn_up and
// ffn_down under each other's names; clip.cpp swaps them back whenever
// ffn_down's input width is nEmbd (so always when nFF equals nEmbd).
var ffnSwapped = []string{"gemma3", "idefics3"}

// loadTransformer loads the layers under prefix ("v" or "a").
func loadTransformer(l *loader, prefix string) transformer {
	hp := l.hp
	E, F, A := hp.nEmbd, hp.nFF, hp.nHead*hp.headDim
	tr := transformer{hp: hp}
	tr.preW = l.optVector(prefix+".pre_ln.weight", E)
	tr.preB = l.optVector(prefix+".pre_ln.bias", E)
	tr.blocks = make([]block, hp.nLayer)
	for i := range tr.blocks {
		n := func(s string) string { return fmt.Sprintf("%s.blk.%d.%s", prefix, i, s) }
		b := &tr.blocks[i]
		b.ln1W, b.ln1B = l.vector(n("ln1.weight"), E), l.vector(n("ln1.bias"), E)
		b.q, b.qB = l.matrix(n("attn_q.weight"), E, A), l.optVector(n("attn_q.bias"), A)
		b.k, b.kB = l.matrix(n("attn_k.weight"), E, A), l.optVector(n("attn_k.bias"), A)
		b.v, b.vB = l.matrix(n("attn_v.weight"), E, A), l.optVector(n("attn_v.bias"), A)
		b.o, b.oB = l.matrix(n("attn_out.weight"), A, E), l.optVector(n("attn_out.bias"), E)
		b.ln2W, b.ln2B = l.vector(n("ln2.weight"), E), l.vector(n("ln2.bias"), E)
		up, down := n("ffn_up"), n("ffn_down")
		if slices.Contains(ffnSwapped, hp.proj) {
			if t, ok := l.f.Tensor(down + ".weight"); ok && len(t.Dims) > 0 && t.Dims[0] == uint64(E) {
				up, down = down, up
			}
		}
		b.up, b.upB = l.matrix(up+".weight", E, F), l.optVector(up+".bias", F)
		b.down, b.downB = l.matrix(down+".weight", F, E), l.optVector(down+".bias", E)
	}
	tr.postW = l.optVector(prefix+".post_ln.weight", E)
	tr.postB = l.optVector(prefix+".post_ln.bias", E)
	return tr
}

// forward runs the layers over x, n rows of nEmbd, and returns the result
// and its number of rows (halved by the average pooling).
func (tr *transformer) forward(ctx context.Context, b native.Backend, x []float32, n int) ([]float32, int, error) {
	hp := tr.hp
	E := hp.nEmbd
	scale := float32(1 / math.Sqrt(float64(hp.headDim)))
	if tr.preW != nil {
		layerNorm(x, tr.preW, tr.preB, E, hp.eps)
	}
	h := make([]float32, len(x))
	for i := range tr.blocks {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		l := &tr.blocks[i]
		// attention layernorm
		copy(h, x)
		layerNorm(h, l.ln1W, l.ln1B, E, hp.eps)
		// self-attention over all positions
		q := matmul(b, l.q, h, n, l.qB)
		k := matmul(b, l.k, h, n, l.kB)
		v := matmul(b, l.v, h, n, l.vB)
		a := attention(b, q, k, v, n, hp.nHead, hp.headDim, scale)
		a = matmul(b, l.o, a, n, l.oB)
		// residual
		for j := range x {
			x[j] += a[j]
		}
		// feed-forward layernorm, up, activation, down
		copy(h, x)
		layerNorm(h, l.ln2W, l.ln2B, E, hp.eps)
		f := matmul(b, l.up, h, n, l.upB)
		activate(f, hp.ffn)
		f = matmul(b, l.down, f, n, l.downB)
		// residual
		for j := range x {
			x[j] += f[j]
		}
	}
	if tr.avgPool {
		// ggml_pool_1d(AVG, 2, 2) over positions: a trailing odd one is dropped
		m := n / 2
		p := make([]float32, m*E)
		for t := range m {
			for e := range E {
				p[t*E+e] = (x[2*t*E+e] + x[(2*t+1)*E+e]) / 2
			}
		}
		x, n = p, m
	}
	if tr.postW != nil {
		layerNorm(x, tr.postW, tr.postB, E, hp.eps)
	}
	return x, n, nil
}
