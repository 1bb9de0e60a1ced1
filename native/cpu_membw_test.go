package native

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMeasureReadBandwidth(t *testing.T) {
	g := NewGo(2)
	defer g.Close()
	bw, err := MeasureReadBandwidth(g, 32<<20, 2)
	require.NoError(t, err)
	// Speed is the benchmark's business; here only the result's sanity.
	assert.True(t, bw > 0 && !math.IsInf(bw, 0), "bandwidth %g", bw)
	t.Logf("pure Go: %.1f GB/s", bw/1e9)
	for _, c := range cpuKernelSets(t, 2)[:1] {
		bw, err := MeasureReadBandwidth(c, 32<<20, 2)
		require.NoError(t, err)
		assert.True(t, bw > 0 && !math.IsInf(bw, 0), "bandwidth %g", bw)
		t.Logf("%s: %.1f GB/s", c.Name(), bw/1e9)
	}
	_, err = MeasureReadBandwidth(g, 10, 1)
	require.Error(t, err)
}

// TestXorWords checks the probe's read loop (vector loads where the SIMD
// kernels run) against a plain loop over the words, for lengths around
// its 128-byte step and with a trailing partial word.
func TestXorWords(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	buf := make([]byte, 4096+5)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	for _, n := range []int{0, 7, 8, 127, 128, 136, 255, 256, 1000, 4096, 4101} {
		var want uint64
		for i := 0; i+8 <= n; i += 8 {
			want ^= binary.LittleEndian.Uint64(buf[i:])
		}
		assert.Equal(t, want, xorWords(buf[:n]), "%d bytes", n)
	}
	// the goroutines' chunks cover the buffer once
	big := make([]byte, 3<<20+64)
	for i := range big {
		big[i] = byte(r.Uint32())
	}
	assert.Equal(t, xorWords(big), readGo(big, 3))
}
