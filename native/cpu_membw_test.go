package native

import (
	"math"
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
