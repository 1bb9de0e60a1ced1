package models

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// refModel is a deliberately plain float64 transformer written from the
// Hugging Face definitions (modeling_llama, modeling_qwen2/3,
// modeling_gemma3), independent of layers.go: whole-sequence attention
// with an explicit mask, every weight dequantized.
type refModel struct {
	f    *gguf.File
	arch string
	p    Params
}

func (r *refModel) mat(t *testing.T, name string) (w []float64, rows, cols int) {
	ti, ok := r.f.Tensor(name)
	require.True(t, ok, name)
	f := make([]float32, ti.Elements())
	require.NoError(t, ggml.Dequantize(ti.Type, r.f.TensorData(ti), f))
	w = make([]float64, len(f))
	for i, v := range f {
		w[i] = float64(v)
	}
	return w, ti.Rows(), int(ti.Dims[0])
}

func (r *refModel) has(name string) bool { _, ok := r.f.Tensor(name); return ok }

// linear applies tensor name(.weight, .bias) to each row of x.
func (r *refModel) linear(t *testing.T, name string, x [][]float64) [][]float64 {
	w, rows, cols := r.mat(t, name+".weight")
	var b []float64
	if r.has(name + ".bias") {
		b, _, _ = r.mat(t, name+".bias")
	}
	out := make([][]float64, len(x))
	for i, xi := range x {
		out[i] = make([]float64, rows)
		for o := range rows {
			s := 0.0
			for j := range cols {
				s += w[o*cols+j] * xi[j]
			}
			if b != nil {
				s += b[o]
			}
			out[i][o] = s
		}
	}
	return out
}

// rmsnorm normalizes each chunk of len(weight) of each row.
func (r *refModel) rmsnorm(t *testing.T, name string, x [][]float64) [][]float64 {
	w, _, _ := r.mat(t, name+".weight")
	out := make([][]float64, len(x))
	for i, xi := range x {
		out[i] = make([]float64, len(xi))
		for c := 0; c < len(xi); c += len(w) {
			ss := 0.0
			for _, v := range xi[c : c+len(w)] {
				ss += v * v
			}
			s := 1 / math.Sqrt(ss/float64(len(w))+float64(r.p.NormEps))
			for j := range w {
				out[i][c+j] = xi[c+j] * s * w[j]
			}
		}
	}
	return out
}

func (r *refModel) forward(t *testing.T, ids []int32) []float64 {
	p := r.p
	gemma := r.arch == "gemma3"
	emb, _, dim := r.mat(t, "token_embd.weight")
	h := make([][]float64, len(ids))
	for i, id := range ids {
		h[i] = append([]float64(nil), emb[int(id)*dim:(int(id)+1)*dim]...)
		if gemma {
			for j := range h[i] {
				h[i][j] *= math.Sqrt(float64(dim))
			}
		}
	}
	var factors []float64
	if r.has("rope_freqs.weight") {
		factors, _, _ = r.mat(t, "rope_freqs.weight")
	}
	hd := p.HeadDim
	for l := range p.NLayers {
		blk := fmt.Sprintf("blk.%d.", l)
		x := r.rmsnorm(t, blk+"attn_norm", h)
		q := r.linear(t, blk+"attn_q", x)
		k := r.linear(t, blk+"attn_k", x)
		v := r.linear(t, blk+"attn_v", x)
		if r.has(blk + "attn_q_norm.weight") {
			q = r.rmsnorm(t, blk+"attn_q_norm", q)
			k = r.rmsnorm(t, blk+"attn_k_norm", k)
		}
		local := gemma && l%6 != 5
		base := p.RopeBase
		if local {
			base = 10000
		}
		rotate := func(vec []float64, pos int) {
			for hs := 0; hs < len(vec); hs += hd {
				for i := range p.RopeDim / 2 {
					theta := float64(pos) / math.Pow(base, float64(2*i)/float64(p.RopeDim))
					if factors != nil {
						theta /= factors[i]
					}
					a, b := hs+2*i, hs+2*i+1 // llama.cpp's permuted llama Q/K
					if r.arch != "llama" {
						a, b = hs+i, hs+i+p.RopeDim/2 // rotate_half
					}
					va, vb := vec[a], vec[b]
					vec[a] = va*math.Cos(theta) - vb*math.Sin(theta)
					vec[b] = va*math.Sin(theta) + vb*math.Cos(theta)
				}
			}
		}
		for i := range ids {
			rotate(q[i], i)
			rotate(k[i], i)
		}
		att := make([][]float64, len(ids))
		group := p.NHeads / p.NKVHeads
		for i := range ids {
			att[i] = make([]float64, p.NHeads*hd)
			for hh := range p.NHeads {
				kh := hh / group
				scores := make([]float64, i+1)
				m := math.Inf(-1)
				for j := 0; j <= i; j++ {
					if local && i-j >= p.Window {
						scores[j] = math.Inf(-1)
						continue
					}
					s := 0.0
					for d := range hd {
						s += q[i][hh*hd+d] * k[j][kh*hd+d]
					}
					scores[j] = s / math.Sqrt(float64(hd))
					m = math.Max(m, scores[j])
				}
				sum := 0.0
				for j := range scores {
					scores[j] = math.Exp(scores[j] - m)
					sum += scores[j]
				}
				for j := range scores {
					for d := range hd {
						att[i][hh*hd+d] += scores[j] / sum * v[j][kh*hd+d]
					}
				}
			}
		}
		o := r.linear(t, blk+"attn_output", att)
		if gemma {
			o = r.rmsnorm(t, blk+"post_attention_norm", o)
		}
		for i := range h {
			for j := range h[i] {
				h[i][j] += o[i][j]
			}
		}
		x = r.rmsnorm(t, blk+"ffn_norm", h)
		g := r.linear(t, blk+"ffn_gate", x)
		u := r.linear(t, blk+"ffn_up", x)
		for i := range g {
			for j, z := range g[i] {
				if gemma {
					z = 0.5 * z * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(z+0.044715*z*z*z)))
				} else {
					z = z / (1 + math.Exp(-z))
				}
				g[i][j] = z * u[i][j]
			}
		}
		d := r.linear(t, blk+"ffn_down", g)
		if gemma {
			d = r.rmsnorm(t, blk+"post_ffw_norm", d)
		}
		for i := range h {
			for j := range h[i] {
				h[i][j] += d[i][j]
			}
		}
	}
	last := r.rmsnorm(t, "output_norm", h[len(h)-1:])
	head := "output"
	if !r.has("output.weight") {
		head = "token_embd"
	}
	return r.linear(t, head, last)[0]
}

// TestAgainstReference compares every architecture with refModel on a
// sequence longer than Gemma's sliding window.
func TestAgainstReference(t *testing.T) {
	for _, shape := range tinyShapes {
		t.Run(shape, func(t *testing.T) {
			path := writeTiny(t, shape, ggml.F32)
			b := native.NewGo(2)
			defer b.Close()
			m := openModel(t, path, b)
			f, err := gguf.Open(path)
			require.NoError(t, err)
			defer f.Close()
			ref := &refModel{f: f, arch: m.Params().Arch, p: m.Params()}
			ids := testTokens(18, m.Params().VocabSize)
			want := ref.forward(t, ids)
			got := run(m, mustState(t, m, 32), ids, 8)
			worst, spread := 0.0, 0.0
			for i := range want {
				worst = math.Max(worst, math.Abs(want[i]-float64(got[i])))
				spread = math.Max(spread, math.Abs(want[i]-want[0]))
			}
			t.Logf("%s: max |Δlogit| vs float64 reference %.2g (logits spread over %.3g)", shape, worst, spread)
			require.Greater(t, spread, 0.5, "logits must vary for the comparison to mean something")
			require.Less(t, worst, 1e-3)
		})
	}
}

func mustState(t *testing.T, m Model, ctxLen int) *State {
	st, err := NewState(m, ctxLen, ctxLen, ggml.F32)
	require.NoError(t, err)
	return st
}
