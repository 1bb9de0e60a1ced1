package ggml

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Dot returns the dot product of a row of weights of type t, stored in row,
// with the float32 activations x. It is the pure-Go reference ("twin") for
// native kernels and what the pure-Go backend uses for matrix-vector
// products: it works block by block without allocating, and equals
// dequantizing the row and summing in float32 up to rounding.
//
// row must hold at least t.RowSize(len(x)) bytes (extra bytes are ignored).
// Dot returns NaN if t is unsupported, len(x) is not a multiple of t's block
// size or row is too short; CheckRow validates a shape once up front.
func Dot(t DType, row []byte, x []float32) float32 {
	need, err := rowBytes(t, len(x))
	if err != nil || len(row) < need {
		return float32(math.NaN())
	}
	row = row[:need]
	switch t {
	case F32:
		return dotF32(row, x)
	case F16:
		return dotF16(row, x)
	case BF16:
		return dotBF16(row, x)
	case Q4_0:
		return dotQ4_0(row, x)
	case Q4_1:
		return dotQ4_1(row, x)
	case Q5_0:
		return dotQ5_0(row, x)
	case Q5_1:
		return dotQ5_1(row, x)
	case Q8_0:
		return dotQ8_0(row, x)
	case Q8_1:
		return dotQ8_1(row, x)
	case Q2_K:
		return dotQ2_K(row, x)
	case Q3_K:
		return dotQ3_K(row, x)
	case Q4_K:
		return dotQ4_K(row, x)
	case Q5_K:
		return dotQ5_K(row, x)
	case Q6_K:
		return dotQ6_K(row, x)
	case Q8_K:
		return dotQ8_K(row, x)
	case IQ4_NL:
		return dotIQ4_NL(row, x)
	case IQ4_XS:
		return dotIQ4_XS(row, x)
	case MXFP4:
		return dotMXFP4(row, x)
	}
	return float32(math.NaN())
}

// MatVec computes out[r] = Dot(t, row r of w, x) for the rows of the
// row-major matrix w with len(out) rows of len(x) elements of type t. w must
// be exactly len(out)*t.RowSize(len(x)) bytes.
func MatVec(t DType, w []byte, x, out []float32) error {
	rs, err := rowBytes(t, len(x))
	if err != nil {
		return err
	}
	if len(w) != rs*len(out) {
		return fmt.Errorf("ggml: MatVec %s: %d rows of %d elements take %d bytes, got %d",
			t, len(out), len(x), rs*len(out), len(w))
	}
	for r := range out {
		out[r] = Dot(t, w[r*rs:(r+1)*rs], x)
	}
	return nil
}

func dotF32(row []byte, x []float32) float32 {
	var s0, s1, s2, s3 float32
	n := len(x)
	i := 0
	for ; i+4 <= n; i += 4 {
		b := (*[16]byte)(row[4*i:])
		xs := (*[4]float32)(x[i:])
		s0 += math.Float32frombits(binary.LittleEndian.Uint32(b[0:])) * xs[0]
		s1 += math.Float32frombits(binary.LittleEndian.Uint32(b[4:])) * xs[1]
		s2 += math.Float32frombits(binary.LittleEndian.Uint32(b[8:])) * xs[2]
		s3 += math.Float32frombits(binary.LittleEndian.Uint32(b[12:])) * xs[3]
	}
	for ; i < n; i++ {
		s0 += math.Float32frombits(binary.LittleEndian.Uint32(row[4*i:])) * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dotF16(row []byte, x []float32) float32 {
	var s0, s1, s2, s3 float32
	n := len(x)
	i := 0
	for ; i+4 <= n; i += 4 {
		b := (*[8]byte)(row[2*i:])
		xs := (*[4]float32)(x[i:])
		s0 += f16At(b[0:]) * xs[0]
		s1 += f16At(b[2:]) * xs[1]
		s2 += f16At(b[4:]) * xs[2]
		s3 += f16At(b[6:]) * xs[3]
	}
	for ; i < n; i++ {
		s0 += f16At(row[2*i:]) * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dotBF16(row []byte, x []float32) float32 {
	var s0, s1, s2, s3 float32
	n := len(x)
	i := 0
	bf := func(b []byte) float32 { return math.Float32frombits(uint32(b[0])<<16 | uint32(b[1])<<24) }
	for ; i+4 <= n; i += 4 {
		b := (*[8]byte)(row[2*i:])
		xs := (*[4]float32)(x[i:])
		s0 += bf(b[0:]) * xs[0]
		s1 += bf(b[2:]) * xs[1]
		s2 += bf(b[4:]) * xs[2]
		s3 += bf(b[6:]) * xs[3]
	}
	for ; i < n; i++ {
		s0 += bf(row[2*i:]) * x[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dotI8x32 returns sum q[j]*x[j] over 32 signed bytes.
func dotI8x32(q *[32]byte, x *[32]float32) float32 {
	var s0, s1, s2, s3 float32
	for j := 0; j < 32; j += 4 {
		s0 += float32(int8(q[j])) * x[j]
		s1 += float32(int8(q[j+1])) * x[j+1]
		s2 += float32(int8(q[j+2])) * x[j+2]
		s3 += float32(int8(q[j+3])) * x[j+3]
	}
	return (s0 + s1) + (s2 + s3)
}

// sum32 returns the sum of 32 floats.
func sum32(x *[32]float32) float32 {
	var s0, s1, s2, s3 float32
	for j := 0; j < 32; j += 4 {
		s0 += x[j]
		s1 += x[j+1]
		s2 += x[j+2]
		s3 += x[j+3]
	}
	return (s0 + s1) + (s2 + s3)
}

// dotNibbles returns (sum lo(q[j])*xl[j], sum hi(q[j])*xh[j]) over 32 bytes
// whose low nibbles pair with xl and high nibbles with xh.
func dotNibbles(q *[32]byte, xl, xh *[32]float32) (lo, hi float32) {
	var a0, a1, b0, b1 float32
	for j := 0; j < 32; j += 2 {
		v0, v1 := q[j], q[j+1]
		a0 += float32(v0&0xF) * xl[j]
		a1 += float32(v1&0xF) * xl[j+1]
		b0 += float32(v0>>4) * xh[j]
		b1 += float32(v1>>4) * xh[j+1]
	}
	return a0 + a1, b0 + b1
}

// dotNibbles16 is dotNibbles for 16 bytes: low nibbles with x[0:16], high
// nibbles with x[16:32] (the legacy 32-element block order).
func dotNibbles16(q *[16]byte, x *[32]float32) float32 {
	var a0, a1, b0, b1 float32
	for j := 0; j < 16; j += 2 {
		v0, v1 := q[j], q[j+1]
		a0 += float32(v0&0xF) * x[j]
		a1 += float32(v1&0xF) * x[j+1]
		b0 += float32(v0>>4) * x[j+16]
		b1 += float32(v1>>4) * x[j+17]
	}
	return (a0 + a1) + (b0 + b1)
}

func dotQ4_0(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QK; i++ {
		b := (*[sizeQ4_0]byte)(row[i*sizeQ4_0:])
		xb := (*[QK]float32)(x[i*QK:])
		// sum (q-8)*x = sum q*x - 8*sum x
		s := dotNibbles16((*[16]byte)(b[2:]), xb) - 8*sum32(xb)
		sum += f16At(b[0:]) * s
	}
	return sum
}

func dotQ4_1(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QK; i++ {
		b := (*[sizeQ4_1]byte)(row[i*sizeQ4_1:])
		xb := (*[QK]float32)(x[i*QK:])
		sum += f16At(b[0:])*dotNibbles16((*[16]byte)(b[4:]), xb) + f16At(b[2:])*sum32(xb)
	}
	return sum
}

// dotQ5 returns sum q*x for a 5-bit legacy block with 4 qh bytes and 16 qs.
func dotQ5(qh uint32, qs *[16]byte, x *[32]float32) float32 {
	var a0, a1 float32
	for j := 0; j < 16; j++ {
		v := qs[j]
		q0 := v&0xF | byte(qh>>j<<4)&0x10
		q1 := v>>4 | byte(qh>>(j+12))&0x10
		a0 += float32(q0) * x[j]
		a1 += float32(q1) * x[j+16]
	}
	return a0 + a1
}

func dotQ5_0(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QK; i++ {
		b := (*[sizeQ5_0]byte)(row[i*sizeQ5_0:])
		xb := (*[QK]float32)(x[i*QK:])
		s := dotQ5(binary.LittleEndian.Uint32(b[2:]), (*[16]byte)(b[6:]), xb) - 16*sum32(xb)
		sum += f16At(b[0:]) * s
	}
	return sum
}

func dotQ5_1(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QK; i++ {
		b := (*[sizeQ5_1]byte)(row[i*sizeQ5_1:])
		xb := (*[QK]float32)(x[i*QK:])
		s := dotQ5(binary.LittleEndian.Uint32(b[4:]), (*[16]byte)(b[8:]), xb)
		sum += f16At(b[0:])*s + f16At(b[2:])*sum32(xb)
	}
	return sum
}

func dotQ8_0(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QK; i++ {
		b := (*[sizeQ8_0]byte)(row[i*sizeQ8_0:])
		sum += f16At(b[0:]) * dotI8x32((*[32]byte)(b[2:]), (*[QK]float32)(x[i*QK:]))
	}
	return sum
}

func dotQ8_1(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QK; i++ {
		b := (*[sizeQ8_1]byte)(row[i*sizeQ8_1:])
		sum += f16At(b[0:]) * dotI8x32((*[32]byte)(b[4:]), (*[QK]float32)(x[i*QK:]))
	}
	return sum
}

func dotQ4_K(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QKK; i++ {
		b := (*[sizeQ4_K]byte)(row[i*sizeQ4_K:])
		xb := (*[QKK]float32)(x[i*QKK:])
		d, dmin := f16At(b[0:]), f16At(b[2:])
		scales := (*[kScaleSize]byte)(b[offQ4KScales:])
		var qs, ms float32
		for g := 0; g < 4; g++ {
			x1 := (*[32]float32)(xb[64*g:])
			x2 := (*[32]float32)(xb[64*g+32:])
			lo, hi := dotNibbles((*[32]byte)(b[offQ4KQs+32*g:]), x1, x2)
			sc1, m1 := ScaleMinK4(2*g, scales)
			sc2, m2 := ScaleMinK4(2*g+1, scales)
			qs += float32(sc1)*lo + float32(sc2)*hi
			ms += float32(m1)*sum32(x1) + float32(m2)*sum32(x2)
		}
		sum += d*qs - dmin*ms
	}
	return sum
}

func dotQ5_K(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QKK; i++ {
		b := (*[sizeQ5_K]byte)(row[i*sizeQ5_K:])
		xb := (*[QKK]float32)(x[i*QKK:])
		d, dmin := f16At(b[0:]), f16At(b[2:])
		scales := (*[kScaleSize]byte)(b[offQ5KScales:])
		qh := (*[32]byte)(b[offQ5KQh:])
		var qs, ms float32
		for g := 0; g < 4; g++ {
			x1 := (*[32]float32)(xb[64*g:])
			x2 := (*[32]float32)(xb[64*g+32:])
			ql := (*[32]byte)(b[offQ5KQs+32*g:])
			s1, s2 := uint(2*g), uint(2*g+1)
			var a0, a1, b0, b1 float32
			for l := 0; l < 32; l += 2 {
				v0, v1, h0, h1 := ql[l], ql[l+1], qh[l], qh[l+1]
				a0 += float32(v0&0xF|(h0>>s1&1)<<4) * x1[l]
				a1 += float32(v1&0xF|(h1>>s1&1)<<4) * x1[l+1]
				b0 += float32(v0>>4|(h0>>s2&1)<<4) * x2[l]
				b1 += float32(v1>>4|(h1>>s2&1)<<4) * x2[l+1]
			}
			sc1, m1 := ScaleMinK4(2*g, scales)
			sc2, m2 := ScaleMinK4(2*g+1, scales)
			qs += float32(sc1)*(a0+a1) + float32(sc2)*(b0+b1)
			ms += float32(m1)*sum32(x1) + float32(m2)*sum32(x2)
		}
		sum += d*qs - dmin*ms
	}
	return sum
}

func dotQ6_K(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QKK; i++ {
		b := (*[sizeQ6_K]byte)(row[i*sizeQ6_K:])
		xb := (*[QKK]float32)(x[i*QKK:])
		var acc float32
		for h := 0; h < 2; h++ {
			ql := (*[64]byte)(b[64*h:])
			qh := (*[32]byte)(b[offQ6KQh+32*h:])
			sc := (*[8]byte)(b[offQ6KScales+8*h:])
			xx := (*[128]float32)(xb[128*h:])
			// Two halves of 16 rows each share the scales is = 0 and 1.
			for is := 0; is < 2; is++ {
				var s1, s2, s3, s4 float32
				for l := 16 * is; l < 16*is+16; l++ {
					v, w, hb := ql[l], ql[l+32], qh[l]
					s1 += float32(int(v&0xF|(hb&3)<<4)-32) * xx[l]
					s2 += float32(int(w&0xF|(hb>>2&3)<<4)-32) * xx[l+32]
					s3 += float32(int(v>>4|(hb>>4&3)<<4)-32) * xx[l+64]
					s4 += float32(int(w>>4|(hb>>6&3)<<4)-32) * xx[l+96]
				}
				acc += float32(int8(sc[is]))*s1 + float32(int8(sc[is+2]))*s2 +
					float32(int8(sc[is+4]))*s3 + float32(int8(sc[is+6]))*s4
			}
		}
		sum += f16At(b[offQ6KD:]) * acc
	}
	return sum
}

func dotQ8_K(row []byte, x []float32) float32 {
	var sum float32
	for i := 0; i < len(x)/QKK; i++ {
		b := (*[sizeQ8_K]byte)(row[i*sizeQ8_K:])
		var acc float32
		for g := 0; g < QKK/32; g++ {
			acc += dotI8x32((*[32]byte)(b[offQ8KQs+32*g:]), (*[32]float32)(x[i*QKK+32*g:]))
		}
		sum += math.Float32frombits(binary.LittleEndian.Uint32(b[0:])) * acc
	}
	return sum
}
