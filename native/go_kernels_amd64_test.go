//go:build amd64 && !purego

package native

import (
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
)

// TestBlockKernelSets checks the AVX2 and the AVX-512 block kernels (which
// dotRow picks between by CPU) against ggml.Dot on misaligned rows.
func TestBlockKernelSets(t *testing.T) {
	if !haveSIMD {
		t.Skip("CPU without AVX2, FMA and F16C")
	}
	type kernel func(w *byte, x *float32, nb int) float32
	sets := map[string]map[ggml.DType]kernel{
		"avx2": {ggml.Q8_0: dotQ8_0SIMD, ggml.Q4_0: dotQ4_0SIMD, ggml.Q5_0: dotQ5_0SIMD, ggml.Q4_1: dotQ4_1SIMD,
			ggml.Q5_1: dotQ5_1SIMD, ggml.Q4_K: dotQ4KSIMD, ggml.Q5_K: dotQ5KSIMD, ggml.Q6_K: dotQ6KSIMD},
	}
	if haveAVX512 {
		sets["avx512"] = map[ggml.DType]kernel{ggml.Q8_0: dotQ8_0AVX512, ggml.Q4_0: dotQ4_0AVX512, ggml.Q5_0: dotQ5_0AVX512}
	} else {
		t.Log("CPU without AVX-512: its kernels are not tested")
	}
	r := rand.New(rand.NewPCG(10, 10))
	for name, set := range sets {
		for typ, k := range set {
			for _, nb := range []int{1, 2, 3, 4, 5, 18} {
				n := nb * typ.BlockSize()
				w := randWeight(t, r, typ, 1, n)
				x := misalignF(randFloats(r, n, 2))
				deq := make([]float32, n)
				require.NoError(t, ggml.DequantizeRow(typ, w.Data, deq))
				var mag float64
				for i := range x {
					mag += math.Abs(float64(deq[i]) * float64(x[i]))
				}
				data := misalign(w.Data, 3)
				require.InDelta(t, ggml.Dot(typ, w.Data, x), k(&data[0], &x[0], nb), 1e-6*mag+1e-7, "%s %s, %d blocks", name, typ, nb)
			}
		}
	}
}

// TestF16FromF32 checks the F16C rounding of F16 KV cache rows against
// ggml.F32ToF16 (ggml's fp16 rounding, nearest even) over every float32
// exponent, the halfway cases between binary16 neighbours, subnormals,
// overflow, infinities and zeros; a NaN stays a NaN.
func TestF16FromF32(t *testing.T) {
	if !haveSIMD {
		t.Skip("CPU without AVX2, FMA and F16C")
	}
	r := rand.New(rand.NewPCG(61, 62))
	var x []float32
	for range 1 << 16 { // every exponent, random mantissas and signs
		x = append(x, math.Float32frombits(r.Uint32()&^(0xFF<<23)|uint32(r.IntN(255))<<23))
	}
	for h := range uint32(0x7C00) { // each binary16 value and the point halfway to the next
		lo := ggml.F16ToF32(uint16(h))
		hi := ggml.F16ToF32(uint16(h + 1))
		x = append(x, lo, -lo, (lo+hi)/2, -(lo+hi)/2)
	}
	x = append(x, 65504, 65520, 65519.99, 1e9, float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)), 5.96e-8, 2.98e-8, 2.99e-8)
	for len(x)%8 != 0 {
		x = append(x, 1)
	}
	got := make([]uint16, len(x))
	f16FromF32SIMD(&got[0], &x[0], len(x))
	for i, v := range x {
		require.Equal(t, ggml.F32ToF16(v), got[i], "%g (bits %#08x)", v, math.Float32bits(v))
	}
	nan := []float32{float32(math.NaN()), float32(math.NaN()), 1, 2, 3, 4, 5, 6}
	h := make([]uint16, 8)
	f16FromF32SIMD(&h[0], &nan[0], 8)
	require.True(t, math.IsNaN(float64(ggml.F16ToF32(h[0]))), "NaN stays NaN")
}

// TestCPUVendor checks cpuIsAMD (which picks the BF16 batch kernels)
// against the kernel's /proc/cpuinfo.
func TestCPUVendor(t *testing.T) {
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skipf("no /proc/cpuinfo: %v", err)
	}
	amd := strings.Contains(string(info), "vendor_id\t: AuthenticAMD")
	intel := strings.Contains(string(info), "vendor_id\t: GenuineIntel")
	require.True(t, amd || intel, "a vendor_id line")
	require.Equal(t, amd, cpuIsAMD())
}

// TestRoundBF16 checks the AVX2 rounding of activations to BF16
// (roundBF16SIMD, and toBF16SIMD's words) against ggml.F32ToBF16 bit for
// bit: every exponent, the halfway cases between
// BF16 neighbours (ties to even), infinities, zeros and NaNs (made quiet).
func TestRoundBF16(t *testing.T) {
	if !haveSIMD {
		t.Skip("CPU without AVX2, FMA and F16C")
	}
	r := rand.New(rand.NewPCG(63, 64))
	var x []float32
	for range 1 << 16 {
		x = append(x, math.Float32frombits(r.Uint32()))
	}
	for range 1 << 12 { // halfway: the low 16 bits 0x8000, either parity
		x = append(x, math.Float32frombits(r.Uint32()&^0xffff|0x8000))
	}
	x = append(x, float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1)),
		math.Float32frombits(0x7f800001), math.Float32frombits(0xffc00000), math.Float32frombits(0x7f7fffff))
	for len(x)%8 != 0 {
		x = append(x, 1)
	}
	got := make([]float32, len(x))
	roundBF16SIMD(&got[0], &x[0], len(x))
	words := make([]uint16, len(x))
	toBF16SIMD(&words[0], &x[0], len(x))
	for i, v := range x {
		want := ggml.F32ToBF16(v)
		require.Equal(t, math.Float32bits(ggml.BF16ToF32(want)), math.Float32bits(got[i]), "%g (bits %#08x)", v, math.Float32bits(v))
		require.Equal(t, want, words[i], "toBF16SIMD: %g (bits %#08x)", v, math.Float32bits(v))
	}
}

// TestRMSNormKernels checks sumSquaresSIMD against the float64 sum of the
// float32 squares taken in order (to float64 rounding: the sums' order
// differs), scaleMulSIMD bit for bit against x*scale*w, and rmsNormRows
// with them against the scalar rule, over row lengths with and without an
// 8-element tail.
func TestRMSNormKernels(t *testing.T) {
	if !haveX86SIMD {
		t.Skip("CPU without AVX2, FMA and F16C")
	}
	r := rand.New(rand.NewPCG(71, 72))
	for _, n := range []int{8, 24, 64, 576, 580, 2051} {
		x, w := randFloats(r, 3*n, 30), randFloats(r, n, 2)
		k := n &^ 7
		var want float64
		for _, v := range x[:k] {
			want += float64(v * v)
		}
		require.InEpsilon(t, want, sumSquaresSIMD(&x[0], k), 1e-14, "n=%d: sum of squares", n)
		got := make([]float32, k)
		scaleMulSIMD(&got[0], &x[0], &w[0], k, 0.37)
		for i := range got {
			require.Equal(t, x[i]*0.37*w[i], got[i], "n=%d: scaleMul %d", n, i)
		}
		out := make([]float32, 3*n)
		rmsNormRows(out, x, w, n, 1e-6)
		for row := range 3 {
			xs := x[row*n : (row+1)*n]
			var sum float64
			for _, v := range xs {
				sum += float64(v * v)
			}
			scale := float32(1 / math.Sqrt(float64(float32(sum/float64(n))+1e-6)))
			for i, v := range xs {
				require.InEpsilon(t, v*scale*w[i], out[row*n+i], 2e-7, "n=%d row %d: element %d", n, row, i)
			}
		}
	}
}

// TestRoPEKernels checks the AVX2 rotations (ropePairsSIMD,
// ropeHalvesSIMD) through ropeRows bit for bit against the rotation's
// operations rounded one at a time (float32 products, then their sum or
// difference), both pairings, over head sizes whose rotated part is and is
// not a multiple of the kernels' steps (the scalar loop takes the latter).
func TestRoPEKernels(t *testing.T) {
	if !haveX86SIMD {
		t.Skip("CPU without AVX2, FMA and F16C")
	}
	r := rand.New(rand.NewPCG(75, 76))
	for _, neox := range []bool{false, true} {
		for _, dims := range [][2]int{{64, 64}, {128, 128}, {32, 64}, {24, 24}, {8, 16}} {
			dim, hd := dims[0], dims[1]
			rope := NewRoPE(dim, 10000, 1, nil, neox)
			const heads, n, pos0 = 3, 5, 37
			x := randFloats(r, n*heads*hd, 3)
			got := append([]float32(nil), x...)
			ropeRows(got, heads, hd, pos0, 0, n, rope)
			half := dim / 2
			for tk := range n {
				for h := range heads {
					v := x[(tk*heads+h)*hd:][:hd]
					g := got[(tk*heads+h)*hd:][:hd]
					for i := range half {
						s, c := math.Sincos(float64(pos0+tk) * float64(rope.InvFreq[i]))
						cs, sn := float32(c), float32(s)
						a, b := 2*i, 2*i+1
						if neox {
							a, b = i, i+half
						}
						wa := float32(v[a]*cs) - float32(v[b]*sn)
						wb := float32(v[a]*sn) + float32(v[b]*cs)
						require.Equal(t, wa, g[a], "neox %v dim %d: token %d head %d pair %d", neox, dim, tk, h, i)
						require.Equal(t, wb, g[b], "neox %v dim %d: token %d head %d pair %d", neox, dim, tk, h, i)
					}
					require.Equal(t, v[dim:], g[dim:], "the elements past the rotated ones")
				}
			}
		}
	}
}
