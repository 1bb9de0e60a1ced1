package stbjpeg

// This file is not from Go: it is stb_image's stbi__idct_block (v2.30,
// "derived from jidctint -- DCT_ISLOW"), which its SSE2 and NEON versions
// reproduce bit for bit.

type block [blockSize]int32

const blockSize = 8 * 8

// f2f is stbi__f2f: ((int)((x)*4096 + 0.5)) for a float constant.
func f2f(x float32) int32 { return int32(float64(x*4096) + 0.5) }

var (
	c0541 = f2f(0.5411961)
	c1847 = f2f(-1.847759065)
	c0765 = f2f(0.765366865)
	c1175 = f2f(1.175875602)
	c0298 = f2f(0.298631336)
	c2053 = f2f(2.053119869)
	c3072 = f2f(3.072711026)
	c1501 = f2f(1.501321110)
	c0899 = f2f(-0.899976223)
	c2562 = f2f(-2.562915447)
	c1961 = f2f(-1.961570560)
	c0390 = f2f(-0.390180644)
)

// idct1D is STBI__IDCT_1D: it returns the four even (x0..x3) and four odd
// (t0..t3) partial results.
func idct1D(s0, s1, s2, s3, s4, s5, s6, s7 int32) (x0, x1, x2, x3, t0, t1, t2, t3 int32) {
	p2, p3 := s2, s6
	p1 := (p2 + p3) * c0541
	t2 = p1 + p3*c1847
	t3 = p1 + p2*c0765
	p2, p3 = s0, s4
	t0 = (p2 + p3) * 4096
	t1 = (p2 - p3) * 4096
	x0, x3 = t0+t3, t0-t3
	x1, x2 = t1+t2, t1-t2
	t0, t1, t2, t3 = s7, s5, s3, s1
	p3 = t0 + t2
	p4 := t1 + t3
	p1 = t0 + t3
	p2 = t1 + t2
	p5 := (p3 + p4) * c1175
	t0 *= c0298
	t1 *= c2053
	t2 *= c3072
	t3 *= c1501
	p1 = p5 + p1*c0899
	p2 = p5 + p2*c2562
	p3 *= c1961
	p4 *= c0390
	t3 += p1 + p4
	t2 += p2 + p3
	t1 += p2 + p4
	t0 += p1 + p3
	return
}

func clamp(x int32) uint8 {
	if uint32(x) > 255 {
		if x < 0 {
			return 0
		}
		return 255
	}
	return uint8(x)
}

// stbIDCT transforms one block of dequantized coefficients (natural order)
// into pixels, level-shifted and clamped: stbi__idct_block. stb keeps the
// dequantized coefficients in 16 bits, so they are truncated to int16 first.
func stbIDCT(out *[blockSize]uint8, b *block) {
	var d [blockSize]int32
	for i, v := range b {
		d[i] = int32(int16(v))
	}
	var v [blockSize]int32
	for i := 0; i < 8; i++ {
		if d[8+i] == 0 && d[16+i] == 0 && d[24+i] == 0 && d[32+i] == 0 && d[40+i] == 0 && d[48+i] == 0 && d[56+i] == 0 {
			dc := d[i] * 4
			for r := 0; r < 8; r++ {
				v[8*r+i] = dc
			}
			continue
		}
		x0, x1, x2, x3, t0, t1, t2, t3 := idct1D(d[i], d[8+i], d[16+i], d[24+i], d[32+i], d[40+i], d[48+i], d[56+i])
		x0 += 512
		x1 += 512
		x2 += 512
		x3 += 512
		v[i] = (x0 + t3) >> 10
		v[56+i] = (x0 - t3) >> 10
		v[8+i] = (x1 + t2) >> 10
		v[48+i] = (x1 - t2) >> 10
		v[16+i] = (x2 + t1) >> 10
		v[40+i] = (x2 - t1) >> 10
		v[24+i] = (x3 + t0) >> 10
		v[32+i] = (x3 - t0) >> 10
	}
	for r := 0; r < 8; r++ {
		w := v[8*r:]
		x0, x1, x2, x3, t0, t1, t2, t3 := idct1D(w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7])
		const bias = 65536 + 128<<17
		x0 += bias
		x1 += bias
		x2 += bias
		x3 += bias
		o := out[8*r:]
		o[0] = clamp((x0 + t3) >> 17)
		o[7] = clamp((x0 - t3) >> 17)
		o[1] = clamp((x1 + t2) >> 17)
		o[6] = clamp((x1 - t2) >> 17)
		o[2] = clamp((x2 + t1) >> 17)
		o[5] = clamp((x2 - t1) >> 17)
		o[3] = clamp((x3 + t0) >> 17)
		o[4] = clamp((x3 - t0) >> 17)
	}
}
