package native

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/litert-go/litert-go/models/ggml"
)

// attendTask is one Attend call; its iterations are query rows × heads.
type attendTask struct {
	g      *Go
	q, out []float32
	c      *KVCache
	pos0   int
	n      int // query rows
	a      Attention
}

func (at *attendTask) run(lo, hi int) {
	a, hd := at.a, at.a.HeadDim
	group := a.NHeads / a.NKVHeads
	// one score per visible position, reused for every head of the chunk
	buf := at.g.scores.Get().(*[]float32)
	defer at.g.scores.Put(buf)
	need := at.pos0 + hi/a.NHeads + 1
	if a.NonCausal {
		need = at.pos0 + at.n
	}
	if cap(*buf) < need {
		// the context grows a token at a time: leave room
		*buf = make([]float32, max(need, 2*cap(*buf), 1024))
	}
	var qs *kvScratch
	if at.c.quantized() {
		qs = newKVScratch(hd)
	}
	for i := lo; i < hi; i++ {
		t, h := i/a.NHeads, i%a.NHeads
		pos := at.pos0 + t
		last := pos // causal: keys up to the query's own position
		if a.NonCausal {
			last = at.pos0 + at.n - 1 // the whole batch
		}
		first := 0
		if a.Window > 0 {
			first = max(0, pos-a.Window+1)
		}
		sink := float32(math.Inf(-1)) // e^-∞ = 0: no sink
		if a.Sinks != nil {
			sink = a.Sinks[h]
		}
		if qs != nil {
			attendHeadQ(at.out[i*hd:(i+1)*hd], at.q[i*hd:(i+1)*hd], at.c, h/group, first, last,
				a.Scale, a.SoftCap, sink, (*buf)[:last-first+1], qs)
			continue
		}
		attendHead(at.out[i*hd:(i+1)*hd], at.q[i*hd:(i+1)*hd], at.c, (h/group)*hd, first, last,
			a.Scale, a.SoftCap, sink, (*buf)[:last-first+1])
	}
}

// kvScratch is attendHeadQ's room for one head: the query's Q8_0 blocks
// and, for the SIMD kernels, the same blocks as q8a activations (qa);
// without them, the blocks' values and one value row in float32.
type kvScratch struct {
	qb, qa []byte
	qr, vr []float32
}

func newKVScratch(hd int) *kvScratch {
	return &kvScratch{qb: make([]byte, hd/qk*ggml.Q8_0.TypeSize()), qa: make([]byte, hd/qk*sizeQ8a),
		qr: make([]float32, hd), vr: make([]float32, hd)}
}

// q8aFromQ8_0 rewrites the Q8_0 blocks b as q8a blocks in dst (d widened
// to float32, s = d·Σq), the activations the integer dots take.
func q8aFromQ8_0(dst, b []byte) {
	bs := ggml.Q8_0.TypeSize()
	for i := range len(b) / bs {
		blk, out := b[i*bs:(i+1)*bs], dst[i*sizeQ8a:(i+1)*sizeQ8a]
		d := ggml.F16ToF32(binary.LittleEndian.Uint16(blk))
		sum := 0
		for j, q := range blk[2:] {
			sum += int(int8(q))
			out[8+j] = q
		}
		binary.LittleEndian.PutUint32(out, math.Float32bits(d))
		binary.LittleEndian.PutUint32(out[4:], math.Float32bits(d*float32(sum)))
	}
}

// attendHeadQ is attendHead over a Q8_0 or Q4_0 cache, computed as
// llama.cpp's CPU flash attention does (ggml_compute_forward_flash_attn_ext
// with a quantized K and V, which llama.cpp requires for a quantized V):
// the query is quantized to Q8_0 (K's vec_dot_type) and dotted with each
// key row's blocks by the integer dots, and each value row's blocks are
// summed with its softmax weight, widened in registers (wsumQ*AVX2). kvh
// is the head's KV head.
func attendHeadQ(o, q []float32, c *KVCache, kvh, first, last int, scale, softCap, sink float32, s []float32, qs *kvScratch) {
	hd := len(q)
	nb := hd / qk
	hb := nb * c.typ.TypeSize() // bytes of a head in a row
	base := first*c.rowBytes + kvh*hb
	_ = ggml.Quantize(ggml.Q8_0, q, qs.qb)
	if haveSIMD {
		q8aFromQ8_0(qs.qa, qs.qb)
		dotRowsQ8(c.typ, c.kq[base:], c.rowBytes, len(s), qs.qa, nb, s)
	} else {
		// the query as Q8_0 values d·q: the blocks' products are then
		// those of ggml's integer dot, up to float rounding
		_ = dequantRow(ggml.Q8_0, qs.qb, qs.qr)
		for j := range s {
			b := base + j*c.rowBytes
			s[j] = dotRow(c.typ, c.kq[b:b+hb], qs.qr)
		}
	}
	sum, m := softmaxScores(s, scale, softCap, haveSIMD)
	sum += float32(math.Exp(float64(sink - m)))
	switch {
	case haveSIMD && len(s) > 0:
		_ = c.vq[base+(len(s)-1)*c.rowBytes+hb-1]
		v := &c.vq[base]
		if c.typ == ggml.Q8_0 {
			wsumQ8_0SIMD(&o[0], &s[0], v, c.rowBytes, len(s), nb)
		} else {
			wsumQ4_0SIMD(&o[0], &s[0], v, c.rowBytes, len(s), nb)
		}
	default:
		clear(o)
		for j, w := range s {
			b := base + j*c.rowBytes
			_ = dequantRow(c.typ, c.vq[b:b+hb], qs.vr)
			axpy(o, w, qs.vr)
		}
	}
	inv := 1 / sum
	for i := range o {
		o[i] *= inv
	}
}

// attendHead computes one head's output o over cache positions [first,
// last] in two passes: the scaled (and soft-capped) scores into s, which
// has one element per position, then their softmax weights, which sum the
// value rows. off is the head's element offset within a cache row. The
// sink logit (-∞ for none) joins the softmax's denominator only.
func attendHead(o, q []float32, c *KVCache, off, first, last int, scale, softCap, sink float32, s []float32) {
	hd, n := len(q), len(s)
	simd := haveSIMD && hd%8 == 0
	base := first*c.width + off
	switch {
	case simd && c.typ == ggml.F16:
		dotsF16SIMD(&s[0], &q[0], (*byte)(unsafe.Pointer(&c.k16[base])), 2*c.width, n, hd)
	case simd:
		dotsF32SIMD(&s[0], &q[0], &c.k32[base], 4*c.width, n, hd)
	default:
		for j := range s {
			b := base + j*c.width
			if c.typ == ggml.F16 {
				s[j] = dotF16(c.k16[b:b+hd], q)
			} else {
				s[j] = dot(c.k32[b:b+hd], q)
			}
		}
	}
	sum, m := softmaxScores(s, scale, softCap, simd)
	sum += float32(math.Exp(float64(sink - m)))
	switch {
	case simd && c.typ == ggml.F16:
		wsumF16SIMD(&o[0], &s[0], (*byte)(unsafe.Pointer(&c.v16[base])), 2*c.width, n, hd)
	case simd:
		wsumF32SIMD(&o[0], &s[0], &c.v32[base], 4*c.width, n, hd)
	default:
		clear(o)
		for j, w := range s {
			b := base + j*c.width
			if c.typ == ggml.F16 {
				axpyF16(o, w, c.v16[b:b+hd])
			} else {
				axpy(o, w, c.v32[b:b+hd])
			}
		}
	}
	inv := 1 / sum
	for i := range o {
		o[i] *= inv
	}
}

// softmaxScores scales the scores s (and soft-caps them if softCap > 0),
// replaces them by e^(s-max) and returns their sum and the max.
func softmaxScores(s []float32, scale, softCap float32, simd bool) (sum, m float32) {
	n := len(s)
	k := 0 // scores done by the SIMD kernels
	if simd && softCap == 0 {
		k = n &^ 7
	}
	m = float32(math.Inf(-1))
	if k > 0 {
		m = scaleMaxSIMD(&s[0], k, scale)
	}
	for j := k; j < n; j++ {
		v := s[j] * scale
		if softCap > 0 {
			v = softCap * float32(math.Tanh(float64(v/softCap)))
		}
		s[j] = v
		m = max(m, v)
	}
	if k > 0 {
		sum = expSubSIMD(&s[0], k, m)
	}
	for j := k; j < n; j++ {
		e := float32(math.Exp(float64(s[j] - m)))
		s[j] = e
		sum += e
	}
	return sum, m
}
