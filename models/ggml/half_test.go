package ggml

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestF16KnownValues(t *testing.T) {
	cases := []struct {
		bits uint16
		f    float32
	}{
		{0x0000, 0},
		{0x3C00, 1},
		{0xBC00, -1},
		{0x4000, 2},
		{0x3555, 0.33325195},
		{0x7BFF, 65504},
		{0x0400, 0x1p-14},   // smallest normal
		{0x0001, 0x1p-24},   // smallest subnormal
		{0x03FF, 0x3FFp-24}, // largest subnormal
		{0x7C00, float32(math.Inf(1))},
		{0xFC00, float32(math.Inf(-1))},
	}
	for _, c := range cases {
		assert.Equal(t, c.f, F16ToF32(c.bits), "F16ToF32(%#04x)", c.bits)
		assert.Equal(t, c.bits, F32ToF16(c.f), "F32ToF16(%g)", c.f)
	}
	negZero := float32(math.Copysign(0, -1))
	assert.Equal(t, uint16(0x8000), F32ToF16(negZero))
	assert.True(t, math.Signbit(float64(F16ToF32(0x8000))))
}

func TestF16RoundTripAllValues(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := F16ToF32(uint16(h))
		if h&0x7C00 == 0x7C00 && h&0x03FF != 0 { // NaN
			require.True(t, math.IsNaN(float64(f)), "%#04x", h)
			require.Equal(t, uint16(h&0x8000|0x7E00), F32ToF16(f), "%#04x", h)
			continue
		}
		require.Equal(t, uint16(h), F32ToF16(f), "%#04x -> %g", h, f)
	}
}

// refF32ToF16 is an independent, slow round-to-nearest-even conversion: it
// binary-searches the ordered finite f16 magnitudes.
func refF32ToF16(f float32) uint16 {
	sign := uint16(0)
	if math.Signbit(float64(f)) {
		sign = 0x8000
	}
	a := math.Abs(float64(f))
	if math.IsNaN(a) {
		return sign | 0x7E00
	}
	// Values at or above 65520 (halfway to 2^16) round to infinity.
	if a >= 65520 {
		return sign | 0x7C00
	}
	lo, hi := 0, 0x7BFF // f16 magnitude bits, ordered like their values
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if float64(F16ToF32(uint16(mid))) <= a {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	below := float64(F16ToF32(uint16(lo)))
	if below == a || lo == 0x7BFF {
		return sign | uint16(lo)
	}
	above := float64(F16ToF32(uint16(lo + 1)))
	switch {
	case a-below < above-a:
		return sign | uint16(lo)
	case a-below > above-a:
		return sign | uint16(lo+1)
	case lo%2 == 0:
		return sign | uint16(lo)
	}
	return sign | uint16(lo+1)
}

func TestF32ToF16MatchesRoundToNearestEven(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(f float32) {
		require.Equal(t, refF32ToF16(f), F32ToF16(f), "F32ToF16(%g) bits %#08x", f, math.Float32bits(f))
	}
	// Exact ties between neighbouring f16 values, in the normal and
	// subnormal ranges, and just beside them.
	for h := 0; h < 0x7BFF; h++ {
		a, b := float64(F16ToF32(uint16(h))), float64(F16ToF32(uint16(h+1)))
		mid := float32((a + b) / 2)
		check(mid)
		check(-mid)
		check(math.Nextafter32(mid, 0))
		check(math.Nextafter32(mid, 1e9))
	}
	for i := 0; i < 200000; i++ {
		f := math.Float32frombits(rng.Uint32())
		if math.IsNaN(float64(f)) {
			continue
		}
		check(f)
	}
	for i := 0; i < 200000; i++ {
		check(float32(rng.NormFloat64()))
	}
	check(65519.99)
	check(65520)
	check(float32(math.Inf(1)))
	check(1e-30)
}

func TestBF16(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := BF16ToF32(uint16(h))
		if math.IsNaN(float64(f)) {
			require.True(t, math.IsNaN(float64(BF16ToF32(F32ToBF16(f)))))
			continue
		}
		require.Equal(t, uint16(h), F32ToBF16(f), "%#04x", h)
	}
	assert.Equal(t, float32(1), BF16ToF32(0x3F80))
	// Ties round to even: 1 + 2^-8 lies halfway between 1 and 1 + 2^-7.
	assert.Equal(t, uint16(0x3F80), F32ToBF16(1+0x1p-8))
	assert.Equal(t, uint16(0x3F82), F32ToBF16(1+3*0x1p-8))
	assert.Equal(t, uint16(0x3F81), F32ToBF16(1+0x1p-8+0x1p-20))
	// A signalling NaN becomes quiet.
	assert.Equal(t, uint16(0x7FC0), F32ToBF16(math.Float32frombits(0x7F800001)))
	// Subnormals are kept.
	assert.Equal(t, uint16(0x0001), F32ToBF16(math.Float32frombits(0x00010000)))
}
