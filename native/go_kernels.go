package native

import (
	"encoding/binary"
	"math"
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
	sizeQ4K  = 144
	sizeQ6K  = 210

	// kChunk is the number of K-quant super-blocks whose scales are
	// unpacked (on the stack) per assembly call.
	kChunk = 16
)

// dotF32s returns Σ a[i]*b[i] over len(a) elements.
func dotF32s(a, b []float32) float32 {
	n := len(a)
	b = b[:n]
	if !haveSIMD || n < 8 {
		return dot(a, b)
	}
	m := n &^ 7
	s := dotF32AVX2(&a[0], &b[0], m)
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
	s := dotF16AVX2((*byte)(unsafe.Pointer(&a[0])), &b[0], m)
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
			s := dotF32AVX2((*float32)(unsafe.Pointer(&row[0])), &x[0], m)
			if m < n {
				s += ggml.Dot(t, row[4*m:], x[m:])
			}
			return s
		}
	case ggml.F16:
		if n >= 8 && len(row) >= 2*n {
			m := n &^ 7
			s := dotF16AVX2(&row[0], &x[0], m)
			if m < n {
				s += ggml.Dot(t, row[2*m:], x[m:])
			}
			return s
		}
	case ggml.Q8_0:
		if n%qk == 0 && len(row) >= n/qk*sizeQ8_0 {
			return dotQ8_0AVX2(&row[0], &x[0], n/qk)
		}
	case ggml.Q4_0:
		if n%qk == 0 && len(row) >= n/qk*sizeQ4_0 {
			return dotQ4_0AVX2(&row[0], &x[0], n/qk)
		}
	case ggml.Q5_0:
		if n%qk == 0 && len(row) >= n/qk*sizeQ5_0 {
			return dotQ5_0AVX2(&row[0], &x[0], n/qk)
		}
	case ggml.Q4_K:
		if n%qkk == 0 && len(row) >= n/qkk*sizeQ4K {
			return dotQ4K(row, x)
		}
	case ggml.Q6_K:
		if n%qkk == 0 && len(row) >= n/qkk*sizeQ6K {
			return dotQ6K(row, x)
		}
	}
	return ggml.Dot(t, row, x)
}

// dotQ4K runs the Q4_K kernel kChunk super-blocks at a time, unpacking
// their 6-bit scales and mins to floats first.
func dotQ4K(row []byte, x []float32) float32 {
	var sm [kChunk * 16]float32
	nb := len(x) / qkk
	var sum float32
	for b0 := 0; b0 < nb; b0 += kChunk {
		n := min(kChunk, nb-b0)
		for i := range n {
			b := (*[sizeQ4K]byte)(row[(b0+i)*sizeQ4K:])
			d, dmin := f16At(b[0:]), f16At(b[2:])
			s := (*[16]float32)(sm[16*i:])
			for j := range 8 {
				sc, m := scaleMinK4(j, (*[12]byte)(b[4:]))
				s[j] = d * float32(sc)
				s[8+j] = dmin * float32(m)
			}
		}
		sum += dotQ4KAVX2(&row[b0*sizeQ4K], &x[b0*qkk], &sm[0], n)
	}
	return sum
}

// dotQ6K runs the Q6_K kernel kChunk super-blocks at a time, with each
// sub-block's scale multiplied by the super-block's d.
func dotQ6K(row []byte, x []float32) float32 {
	var sc [kChunk * 16]float32
	nb := len(x) / qkk
	var sum float32
	for b0 := 0; b0 < nb; b0 += kChunk {
		n := min(kChunk, nb-b0)
		for i := range n {
			b := (*[sizeQ6K]byte)(row[(b0+i)*sizeQ6K:])
			d := f16At(b[208:])
			s := (*[16]float32)(sc[16*i:])
			for j := range 16 {
				s[j] = d * float32(int8(b[192+j]))
			}
		}
		sum += dotQ6KAVX2(&row[b0*sizeQ6K], &x[b0*qkk], &sc[0], n)
	}
	return sum
}

// dequantRow converts the first len(dst) elements of a weight row of type
// t to float32, with the assembly kernels where they exist.
func dequantRow(t ggml.DType, row []byte, dst []float32) error {
	n := len(dst)
	if haveSIMD && n > 0 {
		switch t {
		case ggml.F16:
			if n >= 8 && len(row) >= 2*n {
				m := n &^ 7
				cvtF16AVX2(&dst[0], &row[0], m)
				if m == n {
					return nil
				}
				return ggml.DequantizeRow(t, row[2*m:], dst[m:])
			}
		case ggml.Q8_0:
			if n%qk == 0 && len(row) >= n/qk*sizeQ8_0 {
				deqQ8_0AVX2(&dst[0], &row[0], n/qk)
				return nil
			}
		case ggml.Q4_0:
			if n%qk == 0 && len(row) >= n/qk*sizeQ4_0 {
				deqQ4_0AVX2(&dst[0], &row[0], n/qk)
				return nil
			}
		case ggml.Q5_0:
			if n%qk == 0 && len(row) >= n/qk*sizeQ5_0 {
				deqQ5_0AVX2(&dst[0], &row[0], n/qk)
				return nil
			}
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
	dotF32x4AVX2(&w[0], &x[0], 4*stride, m, &out[0])
	for i := range out {
		xi := x[i*stride:]
		for k := m; k < n; k++ {
			out[i] += w[k] * xi[k]
		}
	}
}

// f16At reads the little-endian binary16 value at b[0:2] as float32.
func f16At(b []byte) float32 { return ggml.F16ToF32(binary.LittleEndian.Uint16(b)) }

// scaleMinK4 unpacks the 6-bit scale and min of sub-block j from the 12
// packed bytes of a Q4_K or Q5_K block (ggml's get_scale_min_k4).
func scaleMinK4(j int, q *[12]byte) (sc, m uint8) {
	if j < 4 {
		return q[j] & 63, q[j+4] & 63
	}
	return q[j+4]&0xF | (q[j-4]>>6)<<4, q[j+4]>>4 | (q[j]>>6)<<4
}

// float32At reads the little-endian float32 at b[0:4].
func float32At(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }
