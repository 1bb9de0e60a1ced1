package native

import (
	"unsafe"

	"github.com/litert-go/litert-go/models/ggml"
)

// Block geometry of the types with assembly kernels (ggml-common.h).
const (
	qk       = 32  // elements per legacy block
	qkk      = 256 // elements per K-quant super-block
	sizeQ8_0 = 34
	sizeQ4_0 = 18
	sizeQ5_0 = 22
	sizeQ4_1 = 20
	sizeQ5_1 = 24
	sizeQ4K  = 144
	sizeQ5K  = 176
	sizeQ6K  = 210
)

// dotF32s returns Σ a[i]*b[i] over len(a) elements.
func dotF32s(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	if !haveSIMD || n < 8 {
		return dot(a, b)
	}
	m := n &^ 7
	s := dotF32SIMD(&a[0], &b[0], m)
	for i := m; i < n; i++ {
		s += a[i] * b[i]
	}
	return s
}

// dotF16s returns Σ f16(a[i])*b[i] over len(a) elements.
func dotF16s(a []uint16, b []float32) float32 {
	n := len(a)
	b = b[:n]
	if !haveSIMD || n < 8 {
		return dotF16(a, b)
	}
	m := n &^ 7
	s := dotF16SIMD((*byte)(unsafe.Pointer(&a[0])), &b[0], m)
	for i := m; i < n; i++ {
		s += ggml.F16ToF32(a[i]) * b[i]
	}
	return s
}

// dotRow returns the dot product of a weight row of type t with the
// len(x) float32 activations x, like ggml.Dot (which it falls back to for
// the types and CPUs without a kernel), up to summation order. row holds
// at least t.RowSize(len(x)) bytes.
func dotRow(t ggml.DType, row []byte, x []float32) float32 {
	n := len(x)
	if !haveSIMD || n == 0 {
		return ggml.Dot(t, row, x)
	}
	switch t {
	case ggml.F32:
		if n >= 8 && len(row) >= 4*n {
			m := n &^ 7
			s := dotF32SIMD((*float32)(unsafe.Pointer(&row[0])), &x[0], m)
			if m < n {
				s += ggml.Dot(t, row[4*m:], x[m:])
			}
			return s
		}
	case ggml.F16:
		if n >= 8 && len(row) >= 2*n {
			m := n &^ 7
			s := dotF16SIMD(&row[0], &x[0], m)
			if m < n {
				s += ggml.Dot(t, row[2*m:], x[m:])
			}
			return s
		}
	case ggml.BF16:
		if n >= 8 && len(row) >= 2*n {
			m := n &^ 7
			s := dotBF16SIMD(&row[0], &x[0], m)
			if m < n {
				s += ggml.Dot(t, row[2*m:], x[m:])
			}
			return s
		}
	case ggml.Q8_0:
		if n%qk == 0 && len(row) >= n/qk*sizeQ8_0 {
			if haveAVX512 {
				return dotQ8_0AVX512(&row[0], &x[0], n/qk)
			}
			return dotQ8_0SIMD(&row[0], &x[0], n/qk)
		}
	case ggml.Q4_0:
		if n%qk == 0 && len(row) >= n/qk*sizeQ4_0 {
			if haveAVX512 {
				return dotQ4_0AVX512(&row[0], &x[0], n/qk)
			}
			return dotQ4_0SIMD(&row[0], &x[0], n/qk)
		}
	case ggml.Q5_0:
		if n%qk == 0 && len(row) >= n/qk*sizeQ5_0 {
			if haveAVX512 {
				return dotQ5_0AVX512(&row[0], &x[0], n/qk)
			}
			return dotQ5_0SIMD(&row[0], &x[0], n/qk)
		}
	case ggml.Q4_1:
		if n%qk == 0 && len(row) >= n/qk*sizeQ4_1 {
			return dotQ4_1SIMD(&row[0], &x[0], n/qk)
		}
	case ggml.Q5_1:
		if n%qk == 0 && len(row) >= n/qk*sizeQ5_1 {
			return dotQ5_1SIMD(&row[0], &x[0], n/qk)
		}
	case ggml.Q4_K:
		if n%qkk == 0 && len(row) >= n/qkk*sizeQ4K {
			return dotQ4KSIMD(&row[0], &x[0], n/qkk)
		}
	case ggml.Q5_K:
		if n%qkk == 0 && len(row) >= n/qkk*sizeQ5K {
			return dotQ5KSIMD(&row[0], &x[0], n/qkk)
		}
	case ggml.Q6_K:
		if n%qkk == 0 && len(row) >= n/qkk*sizeQ6K {
			return dotQ6KSIMD(&row[0], &x[0], n/qkk)
		}
	}
	return ggml.Dot(t, row, x)
}

// dequantRow converts the first len(dst) elements of a weight row of type
// t to float32, with the assembly kernels where they exist.
func dequantRow(t ggml.DType, row []byte, dst []float32) error {
	n := len(dst)
	if haveSIMD && n > 0 {
		switch t {
		case ggml.F16, ggml.BF16:
			if n >= 8 && len(row) >= 2*n {
				m := n &^ 7
				if t == ggml.F16 {
					cvtF16SIMD(&dst[0], &row[0], m)
				} else {
					cvtBF16SIMD(&dst[0], &row[0], m)
				}
				if m == n {
					return nil
				}
				return ggml.DequantizeRow(t, row[2*m:], dst[m:])
			}
		case ggml.Q8_0:
			if n%qk == 0 && len(row) >= n/qk*sizeQ8_0 {
				deqQ8_0SIMD(&dst[0], &row[0], n/qk)
				return nil
			}
		case ggml.Q4_0:
			if n%qk == 0 && len(row) >= n/qk*sizeQ4_0 {
				deqQ4_0SIMD(&dst[0], &row[0], n/qk)
				return nil
			}
		case ggml.Q5_0:
			if n%qk == 0 && len(row) >= n/qk*sizeQ5_0 {
				deqQ5_0SIMD(&dst[0], &row[0], n/qk)
				return nil
			}
		case ggml.Q4_1:
			if n%qk == 0 && len(row) >= n/qk*sizeQ4_1 {
				deqQ4_1SIMD(&dst[0], &row[0], n/qk)
				return nil
			}
		case ggml.Q5_1:
			if n%qk == 0 && len(row) >= n/qk*sizeQ5_1 {
				deqQ5_1SIMD(&dst[0], &row[0], n/qk)
				return nil
			}
		case ggml.Q4_K:
			if n%qkk == 0 && len(row) >= n/qkk*sizeQ4K {
				deqQ4KSIMD(&dst[0], &row[0], n/qkk)
				return nil
			}
		case ggml.Q5_K:
			if n%qkk == 0 && len(row) >= n/qkk*sizeQ5K {
				deqQ5KSIMD(&dst[0], &row[0], n/qkk)
				return nil
			}
		case ggml.Q6_K:
			if n%qkk == 0 && len(row) >= n/qkk*sizeQ6K {
				deqQ6KSIMD(&dst[0], &row[0], n/qkk)
				return nil
			}
		}
	}
	if haveX86SIMD && n > 0 {
		if deq := lowBitDequant(t); deq != nil && n%t.BlockSize() == 0 && len(row) >= n/t.BlockSize()*t.TypeSize() {
			deq(&dst[0], &row[0], n/t.BlockSize())
			return nil
		}
	}
	return ggml.DequantizeRow(t, row, dst)
}

// dotF32x4 sets out[i] = Σ w[k]*x[i*stride+k] over len(w) elements for
// the 4 activation rows of x starting stride floats apart.
func dotF32x4(w, x []float32, stride int, out *[4]float32) {
	n := len(w)
	_ = x[3*stride+n-1]
	if !haveSIMD || n < 8 {
		for i := range out {
			out[i] = dot(w, x[i*stride:i*stride+n])
		}
		return
	}
	m := n &^ 7
	dotF32x4SIMD(&w[0], &x[0], 4*stride, m, &out[0])
	for i := range out {
		xi := x[i*stride:]
		for k := m; k < n; k++ {
			out[i] += w[k] * xi[k]
		}
	}
}

// dotF32r2x4 sets out[4*r+t] = Σ w[r*stride+k]*x[t*stride+k] over n
// elements for the 2 weight rows of w and the 4 activation rows of x, both
// stride floats apart.
func dotF32r2x4(w, x []float32, n, stride int, out *[8]float32) {
	_ = w[stride+n-1]
	_ = x[3*stride+n-1]
	if !haveSIMD || n < 8 {
		for r := range 2 {
			for t := range 4 {
				out[4*r+t] = dot(w[r*stride:r*stride+n], x[t*stride:t*stride+n])
			}
		}
		return
	}
	m := n &^ 7
	dotF32r2x4SIMD(&w[0], 4*stride, &x[0], 4*stride, m, &out[0])
	addTileTail(out[:], w, stride, x, stride, m, n)
}

// addTileTail adds to out[4*r+t], for the len(out)/4 weight rows and 4
// activation rows of a tile, the products of elements [m, n) the assembly
// tile left (its vector width does not divide n).
func addTileTail(out []float32, w []float32, wstride int, x []float32, xstride, m, n int) {
	for r := range len(out) / 4 {
		wr := w[r*wstride:]
		for t := range 4 {
			xt := x[t*xstride:]
			for k := m; k < n; k++ {
				out[4*r+t] += wr[k] * xt[k]
			}
		}
	}
}

// dotF32r4x4 sets out[4*r+t] = Σ w[r*wstride+k]*x[t*xstride+k] over n
// elements for 4 weight rows wstride floats apart (0 repeats one row) and
// the 4 activation rows of x: the AVX-512 tile (haveAVX512 must hold).
// Each sum depends only on its row and token, not on the tile's other
// rows, so results are the same however rows are grouped.
func dotF32r4x4(w []float32, wstride int, x []float32, xstride, n int, out *[16]float32) {
	_ = w[3*wstride+n-1]
	_ = x[3*xstride+n-1]
	m := n &^ 15
	if m > 0 {
		dotF32r4x4AVX512(&w[0], 4*wstride, &x[0], 4*xstride, m, &out[0])
	} else {
		*out = [16]float32{}
	}
	addTileTail(out[:], w, wstride, x, xstride, m, n)
}

// lowBitDequant returns the assembly dequantizer of the lookup or low-bit
// type t (haveX86SIMD); nil if there is none.
func lowBitDequant(t ggml.DType) func(dst *float32, w *byte, nb int) {
	switch t {
	case ggml.IQ4_NL:
		return deqIQ4NLSIMD
	case ggml.IQ4_XS:
		return deqIQ4XSSIMD
	case ggml.Q2_K:
		return deqQ2KSIMD
	case ggml.Q3_K:
		return deqQ3KSIMD
	}
	return nil
}
