package native

import (
	"encoding/binary"
	"math"

	"github.com/litert-go/litert-go/models/ggml"
)

// The batch products of quantized weights on AVX2 CPUs without VNNI: the
// gemmPacks of go_gemm.go, built in Go (the VNNI packers are AVX-512
// assembly; tests hold the two to the same bytes), multiplied by the AVX2
// gemm kernels (go_kernels_amd64.s). Packing costs about a tenth of a
// microsecond a block column of 16 rows, which every 4-token tile of a
// batch then reuses.

// avx2GemmKernel returns the AVX2 gemm kernel of type t (row-major, or
// interleaved Q4_0, Q5_0 and Q8_0), nil if there is none or the CPU has VNNI:
// one per bound on its packed quants (which sets how many int16 pair sums
// add before they widen) and kind (plain, bias, split, signed).
func avx2GemmKernel(t ggml.DType) gemmKernel {
	if !haveX86SIMD || haveVNNI {
		return nil
	}
	return avx2GemmOf(t).kernel
}

// avx2Gemm is the AVX2 batch path of a type: its gemm kernel and the
// assembly packer of 16 whole rows' quants (nil where packRowsScalar
// packs them; interleaved groups have avx2ILKernel's packers).
type avx2Gemm struct {
	kernel gemmKernel
	quants func(dst, w *byte, rs, nb int)
}

// avx2GemmOf is the one table of the AVX2 gemm's types, whatever the CPU
// (the tests hold the assembly packers to the scalar one on VNNI CPUs
// too).
func avx2GemmOf(t ggml.DType) avx2Gemm {
	var g avx2Gemm
	switch t {
	case ggml.Q4_0:
		g.kernel = gemmPlainAVX2
	case ggml.Q5_0:
		g.kernel = gemmPlain4AVX2
	case ggml.Q3_K:
		g = avx2Gemm{gemmSplit4AVX2, packQ3KQuantsAVX2}
	case ggml.Q4_K:
		g = avx2Gemm{gemmBias4AVX2, packQ4KQuantsAVX2}
	case ggml.Q5_K:
		g = avx2Gemm{gemmBias4AVX2, packQ5KQuantsAVX2}
	case ggml.Q6_K:
		g = avx2Gemm{gemmSplit2AVX2, packQ6KQuantsAVX2}
	case ggml.Q8_0:
		g.quants = packQ8_0QuantsAVX2
	case ggml.IQ4_NL:
		g.quants = packIQ4NLQuantsAVX2
	case ggml.IQ4_XS:
		g.quants = packIQ4XSQuantsAVX2
	}
	if signedQuants(t) {
		g.kernel = gemmSignedAVX2
	}
	return g
}

// signedQuants reports whether t's packed quants reach 128 in magnitude
// (Q8_0's, and IQ4_NL's and IQ4_XS's levels): the AVX2 gemm takes them
// signed, against activations as quantized (gemmSignedAVX2).
func signedQuants(t ggml.DType) bool {
	return t == ggml.Q8_0 || t == ggml.IQ4_NL || t == ggml.IQ4_XS
}

// signedGemm reports whether row-major weights of type t multiply in
// batches by a kernel whose activations are not flipped: gemmSignedAVX2,
// or any of arm64's (signed by signed).
func signedGemm(t ggml.DType) bool {
	return avx2GemmKernel(t) != nil && signedQuants(t) || sdotGemmKernel(t) != nil
}

// packRowsGo repacks the nr (at most gemmRows) rows at w, rs bytes apart,
// of type t into the gemmPacks p of their nb 32-element block columns, as
// packQ4_0, packQ5_0, packQ4K and packQ6K do: signed quants (u-8 for
// Q4_0, u-16 for Q5_0, u-32 for Q6_K, u for Q4_K), scale d (and d2 for
// Q6_K's second 16), bias b (the K-quants' -dmin·m), c and c2 -128 times
// the quant sums of each half; rows past nr are those of an all-zero
// block, as the VNNI packers' masked loads leave them (their sums are
// never stored). Q5_K's packs hold u-16 and b = 16·d - dmin·m, unlike
// packQ5K's u: quants of at most 16 let four chunk products add as int16
// (gemmBias4AVX2; 31 allowed two), as the C library's AVX2 gemm does. The
// quants move four to a 32-bit word, a block (a K-quant super-block: 8
// columns) of a row at a time.
func packRowsGo(t ggml.DType, p, w []byte, rs, nr, nb int) {
	if nr == gemmRows && haveX86SIMD && packAsm(t, p, w, rs, nb) {
		return
	}
	packRowsScalar(t, p, w, rs, nr, nb)
}

// packRowsScalar is packRowsGo a word at a time, for every type and row
// count.
func packRowsScalar(t ggml.DType, p, w []byte, rs, nr, nb int) {
	var cols [8]blockCol
	var zero [256]byte // a block (a super-block) of zero bytes
	per, signed := t.BlockSize()/qk, signedQuants(t)
	var pairs iq4Pairs
	if t == ggml.IQ4_NL || t == ggml.IQ4_XS {
		pairs = makeIQ4Pairs()
	}
	for r := range gemmRows {
		for i0 := 0; i0 < nb; i0 += per {
			blk := zero[:t.TypeSize()]
			if r < nr {
				blk = w[r*rs+i0/per*t.TypeSize():][:t.TypeSize()]
			}
			k := blockWords(t, blk, &cols, &pairs)
			for j := range cols[:per] {
				pk := (*[gemmPackSize]byte)(p[(i0+j)*gemmPackSize:])
				if signed {
					putSignedRow(pk, r, &cols[j])
				} else {
					putPackRow(pk, r, &cols[j], k)
				}
			}
		}
	}
}

// putPackRow writes row r of the gemmPack pk from its column c, whose
// quants the pack holds plus k.
func putPackRow(pk *[gemmPackSize]byte, r int, c *blockCol, k int) {
	le := binary.LittleEndian
	o := 4 * (r & (gemmRows - 1))
	// each byte plus k (-32..0) without borrows between bytes: the quants
	// are at most 63, so four words also add bytewise (at most 252)
	kk := uint32(byte(-k)) * 0x01010101
	var lo, hi uint32
	for g := range 4 {
		v, w := c.u[g], c.u[g+4]
		le.PutUint32(pk[64*g+o:], ((v|0x80808080)-kk)^0x80808080)
		le.PutUint32(pk[256+64*g+o:], ((w|0x80808080)-kk)^0x80808080)
		lo += v
		hi += w
	}
	le.PutUint32(pk[512+o:], math.Float32bits(c.d))
	le.PutUint32(pk[576+o:], math.Float32bits(c.d2))
	le.PutUint32(pk[640+o:], math.Float32bits(c.b))
	le.PutUint32(pk[704+o:], uint32(-128*(byteSum(lo)+16*int32(k))))
	le.PutUint32(pk[768+o:], uint32(-128*(byteSum(hi)+16*int32(k))))
}

// packAsm packs 16 whole rows of t as packRowsGo does for the types with
// AVX2 assembly packers (avx2GemmOf): their quants (and, for the unsigned
// ones, corrections) in assembly, 8 rows
// transposed at a time, and their scales and biases (blockScales) here;
// false for the other types.
func packAsm(t ggml.DType, p, w []byte, rs, nb int) bool {
	quants := avx2GemmOf(t).quants
	if quants == nil {
		return false
	}
	bs, per := t.TypeSize(), t.BlockSize()/qk
	_ = p[nb*gemmPackSize-1]
	_ = w[(gemmRows-1)*rs+nb/per*bs-1]
	quants(&p[0], &w[0], rs, nb/per)
	for r := range gemmRows {
		for i := 0; i < nb/per; i++ {
			putScales(t, p[i*per*gemmPackSize:], w[r*rs+i*bs:][:bs], r)
		}
	}
	return true
}

// putScales writes row r's scales and biases (blockScales of its block
// blk) into the packs of the block's columns at p (the signed kernel
// reads d alone).
func putScales(t ggml.DType, p, blk []byte, r int) {
	le, o := binary.LittleEndian, 4*r
	var cols [8]blockCol
	blockScales(t, blk, &cols)
	for j := range t.BlockSize() / qk {
		pk, c := (*[gemmPackSize]byte)(p[j*gemmPackSize:]), &cols[j]
		le.PutUint32(pk[512+o:], math.Float32bits(c.d))
		if !signedQuants(t) {
			le.PutUint32(pk[576+o:], math.Float32bits(c.d2))
			le.PutUint32(pk[640+o:], math.Float32bits(c.b))
		}
	}
}

// blockScales sets, for the columns of the block (a K-quant or IQ4_XS
// super-block: 8) blk of type t, the scale d (of a K-quant or IQ4_XS
// sub-block), the second half's scale d2 (Q6_K; else 0) and the bias b
// (the K-quants' -dmin·m; Q5_K's also 16·d, its quants being packed less
// 16) of their gemmPacks.
func blockScales(t ggml.DType, blk []byte, cols *[8]blockCol) {
	le := binary.LittleEndian
	d := ggml.F16ToF32(le.Uint16(blk))
	switch t {
	case ggml.Q4_0, ggml.Q5_0, ggml.Q8_0, ggml.IQ4_NL:
		cols[0].d, cols[0].d2, cols[0].b = d, 0, 0
	case ggml.IQ4_XS: // d, scales_h, scales_l[4]: 6-bit scales less 32
		sh := le.Uint16(blk[2:])
		for j := range 8 {
			ls := int(blk[4+j/2]>>(4*(j%2))&0xf) | int(sh>>(2*j)&3)<<4
			cols[j].d, cols[j].d2, cols[j].b = d*float32(ls-32), 0, 0
		}
	case ggml.Q3_K: // hmask[32], qs[64], scales[12] at 96, d at 108; 16-element groups
		d = ggml.F16ToF32(le.Uint16(blk[108:]))
		sc := ggml.ScalesQ3K((*[12]byte)(blk[96:108]))
		for j := range 8 {
			cols[j].d, cols[j].d2, cols[j].b = d*float32(sc[2*j]), d*float32(sc[2*j+1]), 0
		}
	case ggml.Q6_K: // scales[16] at 192, d at 208
		d = ggml.F16ToF32(le.Uint16(blk[208:]))
		for j := range 8 {
			cols[j].d, cols[j].d2, cols[j].b = d*float32(int8(blk[192+2*j])), d*float32(int8(blk[192+2*j+1])), 0
		}
	case ggml.Q4_K, ggml.Q5_K: // d, dmin, scales[12]
		dmin, scales := ggml.F16ToF32(le.Uint16(blk[2:])), (*[12]byte)(blk[4:16])
		for j := range 8 {
			sc, m := ggml.ScaleMinK4(j, scales)
			c := &cols[j]
			c.d, c.d2 = d*float32(sc), 0
			c.b = 0 - dmin*float32(m) // (0 - x: +0 for a zero min, as the VNNI packers)
			if t == ggml.Q5_K {
				c.b = 16*c.d - dmin*float32(m)
			}
		}
	default:
		panic("native: blockScales: no packs for " + t.String())
	}
}

// putSignedRow writes row r of the gemmPack pk from its column c of
// signed quants (gemmSignedAVX2's): the quants as they are and the scale
// d, which is all that kernel reads.
func putSignedRow(pk *[gemmPackSize]byte, r int, c *blockCol) {
	le := binary.LittleEndian
	o := 4 * (r & (gemmRows - 1))
	for g := range 4 {
		le.PutUint32(pk[64*g+o:], c.u[g])
		le.PutUint32(pk[256+64*g+o:], c.u[g+4])
	}
	le.PutUint32(pk[512+o:], math.Float32bits(c.d))
}

// byteSum returns the sum of the four bytes of x.
func byteSum(x uint32) int32 {
	x = x&0x00ff00ff + x>>8&0x00ff00ff
	return int32(x&0xffff + x>>16)
}

// blockCol is one 32-element column of a block: u[g] its unsigned quants
// 4g..4g+3, a byte each; its scale d, the second half's d2 (Q6_K; else
// 0) and its bias b.
type blockCol struct {
	u        [8]uint32
	d, d2, b float32
}

// iq4Pairs maps a byte of IQ4 nibbles to the levels they index: the low
// nibble's in the low byte, the high one's in the high byte.
type iq4Pairs [256]uint16

// makeIQ4Pairs returns the pairs of ggml's IQ4 levels.
func makeIQ4Pairs() iq4Pairs {
	levels := ggml.IQ4NLLevels()
	var t iq4Pairs
	for b := range t {
		t[b] = uint16(uint8(levels[b&0xf])) | uint16(uint8(levels[b>>4]))<<8
	}
	return t
}

// levelWords sets u to the 32 IQ4 levels the nibbles of qs index, four
// to a word: low nibbles elements 0..15, high ones 16..31.
func (t *iq4Pairs) levelWords(qs []byte, u *[8]uint32) {
	qs = qs[:16]
	for g := range 4 {
		p0, p1, p2, p3 := uint32(t[qs[4*g]]), uint32(t[qs[4*g+1]]), uint32(t[qs[4*g+2]]), uint32(t[qs[4*g+3]])
		u[g] = p0&0xff | p1&0xff<<8 | p2&0xff<<16 | p3&0xff<<24
		u[g+4] = p0>>8 | p1>>8<<8 | p2>>8<<16 | p3>>8<<24
	}
}

// spread4 returns the 4 bits of x as bit 4 of 4 bytes (16 where set): the
// product places bit k at 9k, no two copies of x overlapping.
func spread4(x uint32) uint32 { return (x * 0x00204081 & 0x01010101) << 4 }

// blockWords sets cols to the columns of the block (a K-quant or IQ4_XS
// super-block: 8) blk of type t, their quants four to a word (IQ4_NL's and
// IQ4_XS's levels through pairs) and their scales and bias
// (blockScales), and returns the offset k the packs add to the quants
// (0 for the signed ones).
func blockWords(t ggml.DType, blk []byte, cols *[8]blockCol, pairs *iq4Pairs) (k int) {
	le := binary.LittleEndian
	blockScales(t, blk, cols)
	c := &cols[0]
	switch t {
	case ggml.Q4_0: // d, qs[16]: low nibbles elements 0..15, high ones 16..31
		for g := range 4 {
			v := le.Uint32(blk[2+4*g:])
			c.u[g], c.u[g+4] = v&0x0f0f0f0f, v>>4&0x0f0f0f0f
		}
		return -8
	case ggml.Q5_0: // d, qh (bit e: element e's fifth), qs[16]
		qh := le.Uint32(blk[2:])
		for g := range 4 {
			v := le.Uint32(blk[6+4*g:])
			c.u[g] = v&0x0f0f0f0f | spread4(qh>>(4*g)&15)
			c.u[g+4] = v>>4&0x0f0f0f0f | spread4(qh>>(16+4*g)&15)
		}
		return -16
	case ggml.Q4_K, ggml.Q5_K: // d, dmin, scales[12], (Q5_K: qh[32],) qs[128]
		qs := 16
		if t == ggml.Q5_K {
			qs = 48
		}
		for j := 0; j < 8; j += 2 { // a pair of columns shares its bytes: low, high nibbles
			c0, c1 := &cols[j], &cols[j+1]
			q := blk[qs+32*(j/2):][:32]
			for g := range 8 {
				v := le.Uint32(q[4*g:])
				c0.u[g], c1.u[g] = v&0x0f0f0f0f, v>>4&0x0f0f0f0f
			}
			if t == ggml.Q5_K { // bit j of qh[e]
				qh := blk[16:48]
				for g := range 8 {
					h := le.Uint32(qh[4*g:])
					c0.u[g] |= h >> j & 0x01010101 << 4
					c1.u[g] |= h >> (j + 1) & 0x01010101 << 4
				}
			}
		}
		if t == ggml.Q5_K {
			return -16
		}
		return 0
	case ggml.Q8_0: // d, qs[32]: signed quants
		for g := range 8 {
			c.u[g] = le.Uint32(blk[2+4*g:])
		}
		return 0
	case ggml.IQ4_NL: // d, qs[16]: nibbles index the levels, low ones elements 0..15
		pairs.levelWords(blk[2:18], &c.u)
		return 0
	case ggml.IQ4_XS: // d, scales_h, scales_l[4], qs[128]: sub-block j's nibbles at qs[16j..]
		for j := range 8 {
			pairs.levelWords(blk[8+16*j:][:16], &cols[j].u)
		}
		return 0
	case ggml.Q3_K: // hmask[32], qs[64]; column j = 4h+p: qs[32h+l] bits 2p, hmask[l] bit 4h+p (u = q+4)
		for h := range 2 {
			for p := range 4 {
				c := &cols[4*h+p]
				for g := range 8 {
					q, m := le.Uint32(blk[32+32*h+4*g:]), le.Uint32(blk[4*g:])
					c.u[g] = q>>(2*p)&0x03030303 | (m>>(4*h+p)&0x01010101)<<2
				}
			}
		}
		return -4
	case ggml.Q6_K: // ql[128], qh[64], scales[16], d; column j = 4h+q
		b := (*[210]byte)(blk)
		for h := range 2 {
			for g := range 8 {
				l0, l1 := le.Uint32(b[64*h+4*g:]), le.Uint32(b[64*h+32+4*g:])
				hb := le.Uint32(b[128+32*h+4*g:])
				cols[4*h].u[g] = l0&0x0f0f0f0f | (hb&0x03030303)<<4
				cols[4*h+1].u[g] = l1&0x0f0f0f0f | (hb>>2&0x03030303)<<4
				cols[4*h+2].u[g] = l0>>4&0x0f0f0f0f | (hb>>4&0x03030303)<<4
				cols[4*h+3].u[g] = l1>>4&0x0f0f0f0f | (hb>>6&0x03030303)<<4
			}
		}
		return -32
	}
	panic("native: blockWords: no packs for " + t.String())
}
