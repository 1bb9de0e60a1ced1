package encoder

import (
	"math"
	"sync"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/native"
)

// The element-wise operations of the encoders, written as ggml's CPU
// backend computes them (ggml-cpu/vec.h, ops.cpp).

// matmul returns n rows of w·x (w.Rows wide), plus bias when not nil.
// The rows of x are first rounded to the type ggml's CPU backend converts
// activations to for weights of w's type (its vec_dot_type: F16 for F16,
// Q8_0 or Q8_K for the quantized types), so that the products are
// llama.cpp's.
func matmul(b native.Backend, w native.Weight, x []float32, n int, bias []float32) []float32 {
	if at, ok := activationType[w.Type]; ok && w.Cols%at.BlockSize() == 0 {
		x = roundTo(at, x, w.Cols)
	}
	out := make([]float32, n*w.Rows)
	b.MatMul(out, w, x, n)
	if bias != nil {
		addRows(out, bias)
	}
	return out
}

// addRows adds v to each len(v)-wide row of x.
func addRows(x, v []float32) {
	for r := 0; r+len(v) <= len(x); r += len(v) {
		row := x[r : r+len(v)]
		for i := range row {
			row[i] += v[i]
		}
	}
}

// layerNorm normalizes each n-wide row of x in place to zero mean and unit
// variance, then scales by w and shifts by bias (ggml_norm, mul, add).
func layerNorm(x, w, bias []float32, n int, eps float32) {
	for r := 0; r+n <= len(x); r += n {
		row := x[r : r+n]
		var sum float64
		for _, v := range row {
			sum += float64(v)
		}
		mean := float32(sum) / float32(n)
		var sum2 float64
		for i, v := range row {
			v -= mean
			row[i] = v
			sum2 += float64(v * v)
		}
		scale := float32(1 / math.Sqrt(float64(float32(sum2/float64(n))+eps)))
		for i := range row {
			row[i] *= scale
			if w != nil {
				row[i] *= w[i]
			}
			if bias != nil {
				row[i] += bias[i]
			}
		}
	}
}

// rmsNorm normalizes each n-wide row of x in place by its root mean square
// and scales by w (ggml_rms_norm, mul).
func rmsNorm(b native.Backend, x, w []float32, n int, eps float32) {
	for r := 0; r+n <= len(x); r += n {
		b.RMSNorm(x[r:r+n], x[r:r+n], w, n, eps)
	}
}

// roundF16 rounds v to the nearest half-precision value, as storing it in
// an F16 tensor does.
func roundF16(v float32) float32 { return ggml.F16ToF32(ggml.F32ToF16(v)) }

const (
	geluCoefA      = 0.044715
	sqrt2OverPi    = 0.79788456080286535587989211986876
	geluQuickCoef  = -1.702
	sqrt2Inv       = 0.70710678118654752440084436210484
	geluTableLimit = 10 // |x| ≥ 10: ggml skips the table
)

// geluF32 is ggml_gelu_f32, the tanh approximation in float32.
func geluF32(x float32) float32 {
	return 0.5 * x * (1 + float32(math.Tanh(float64(sqrt2OverPi*x*(1+geluCoefA*x*x)))))
}

// activate applies the feed-forward activation op to x in place.
func activate(x []float32, op ffnOp) {
	switch op {
	case geluTanh:
		// ggml_vec_gelu_f32 with GGML_GELU_FP16: a table of fp16 results
		// indexed by the fp16 rounding of x.
		for i, v := range x {
			switch {
			case v <= -geluTableLimit:
				x[i] = 0
			case v >= geluTableLimit:
			default:
				x[i] = roundF16(geluF32(roundF16(v)))
			}
		}
	case geluErf:
		for i, v := range x {
			x[i] = 0.5 * v * (1 + float32(math.Erf(float64(v*sqrt2Inv))))
		}
	case geluQuick:
		for i, v := range x {
			x[i] = v * (1 / (1 + exp32(geluQuickCoef*v)))
		}
	case silu:
		for i, v := range x {
			x[i] = siluF32(v)
		}
	}
}

// attention computes non-causal multi-head attention of n positions: q, k
// and v hold n rows of nHead heads of hd values; the result has q's shape.
// Each head's scores and weighted sum are two MatMuls on the backend, the
// keys and values of the head serving as the weight.
func attention(b native.Backend, q, k, v []float32, n, nHead, hd int, scale float32) []float32 {
	width := nHead * hd
	out := make([]float32, n*width)
	qh := make([]float32, n*hd)
	kh := make([]float32, n*hd)
	vt := make([]float32, hd*n) // values of the head, transposed
	scores := make([]float32, n*n)
	oh := make([]float32, n*hd)
	for h := range nHead {
		for t := range n {
			copy(qh[t*hd:(t+1)*hd], q[t*width+h*hd:])
			copy(kh[t*hd:(t+1)*hd], k[t*width+h*hd:])
			for d := range hd {
				vt[d*n+t] = v[t*width+h*hd+d]
			}
		}
		// scores[t*n+s] = k_s · q_t
		b.MatMul(scores, f32Weight(kh, n, hd), qh, n)
		softmaxRows(b, scores, n, scale)
		// oh[t*hd+d] = Σ_s p[t,s] v[s,d]
		b.MatMul(oh, f32Weight(vt, hd, n), scores, n)
		for t := range n {
			copy(out[t*width+h*hd:t*width+(h+1)*hd], oh[t*hd:(t+1)*hd])
		}
	}
	return out
}

// softmaxRows replaces each n-wide row of x by softmax(scale·row), the
// rows shared among the backend's threads when there are many.
func softmaxRows(b native.Backend, x []float32, n int, scale float32) {
	rows := len(x) / n
	do := func(r0, r1 int) {
		for r := r0; r < r1; r++ {
			row := x[r*n : (r+1)*n]
			for i := range row {
				row[i] *= scale
			}
			b.Softmax(row)
		}
	}
	workers := min(b.Threads(), rows*n/minSoftmaxWork)
	if workers <= 1 {
		do(0, rows)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { do(w*rows/workers, (w+1)*rows/workers) })
	}
	wg.Wait()
}

// minSoftmaxWork is the number of scores below which a worker does not pay.
const minSoftmaxWork = 1 << 16

// exp32 is expf.
func exp32(v float32) float32 { return float32(math.Exp(float64(v))) }

// siluF32 is ggml_silu_f32: x·sigmoid(x).
func siluF32(v float32) float32 { return v / (1 + exp32(-v)) }

// activationType is ggml-cpu's vec_dot_type of each weight type whose
// activation type package ggml converts to (Q4_1 and Q5_1 take Q8_1,
// which it does not).
var activationType = map[ggml.DType]ggml.DType{
	ggml.F16: ggml.F16, ggml.BF16: ggml.BF16,
	ggml.Q4_0: ggml.Q8_0, ggml.Q5_0: ggml.Q8_0, ggml.Q8_0: ggml.Q8_0, ggml.IQ4_NL: ggml.Q8_0, ggml.MXFP4: ggml.Q8_0,
	ggml.Q2_K: ggml.Q8_K, ggml.Q3_K: ggml.Q8_K, ggml.Q4_K: ggml.Q8_K, ggml.Q5_K: ggml.Q8_K, ggml.Q6_K: ggml.Q8_K,
	ggml.IQ4_XS: ggml.Q8_K,
}

// roundTo returns a copy of x, rows of cols values, each row quantized to
// t and back.
func roundTo(t ggml.DType, x []float32, cols int) []float32 {
	rs, err := t.RowSize(cols)
	if err != nil {
		return x
	}
	out := make([]float32, len(x))
	buf := make([]byte, rs)
	for r := 0; r+cols <= len(x); r += cols {
		if ggml.Quantize(t, x[r:r+cols], buf) != nil || ggml.Dequantize(t, buf, out[r:r+cols]) != nil {
			return x
		}
	}
	return out
}
