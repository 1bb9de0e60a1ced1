package native

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/require"
)

// cpuKernelSets loads one CPU backend per kernel set this machine runs
// (best first), each with threads threads, or skips the test when the
// native library is not built. They are closed when the test ends.
func cpuKernelSets(t testing.TB, threads int) []*CPU {
	t.Helper()
	best, err := LoadCPU(threads)
	if errors.Is(err, ErrUnavailable) {
		t.Skipf("native library not built (run `make native` or set %s): %v", LibEnv, err)
	}
	require.NoError(t, err)
	t.Cleanup(func() { best.Close() })
	out := []*CPU{best}
	for _, isa := range best.ISAs()[1:] {
		c, err := LoadCPUWith(CPUOptions{Path: best.Path(), Threads: threads, ISA: isa})
		require.NoError(t, err, isa)
		t.Cleanup(func() { c.Close() })
		out = append(out, c)
	}
	return out
}

// nmse is the normalized mean squared error of got against want, the
// measure of llama.cpp's test-backend-ops (max_nmse_err).
func nmse(got, want []float32) float64 {
	var num, den float64
	for i := range want {
		d := float64(got[i]) - float64(want[i])
		num += d * d
		den += float64(want[i]) * float64(want[i])
	}
	if den == 0 {
		return num
	}
	return num / den
}

func randFloats(r *rand.Rand, n int, scale float32) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = (2*r.Float32() - 1) * scale
	}
	return x
}

// misalign returns a copy of b starting off bytes into a fresh buffer, so
// kernels see unaligned weight rows.
func misalign(b []byte, off int) []byte {
	buf := make([]byte, len(b)+off)
	copy(buf[off:], b)
	return buf[off : off+len(b)]
}

// misalignF returns a copy of x starting one float into a fresh buffer.
func misalignF(x []float32) []float32 {
	buf := make([]float32, len(x)+1)
	copy(buf[1:], x)
	return buf[1:]
}

// randWeight quantizes a rows×cols matrix of values in [-1, 1] (with a few
// larger outliers, as real weights have) to type t.
func randWeight(t testing.TB, r *rand.Rand, typ ggml.DType, rows, cols int) Weight {
	t.Helper()
	src := randFloats(r, rows*cols, 1)
	for i := 0; i < len(src); i += 97 {
		src[i] *= 4
	}
	rs, err := typ.RowSize(cols)
	require.NoError(t, err)
	data := make([]byte, rs*rows)
	for i := range rows {
		require.NoError(t, ggml.Quantize(typ, src[i*cols:(i+1)*cols], data[i*rs:(i+1)*rs]))
	}
	return Weight{Type: typ, Rows: rows, Cols: cols, Data: data}
}

// finite reports whether every element of x is a finite number.
func finite(x []float32) bool {
	for _, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return false
		}
	}
	return true
}

// TestYieldDue checks the gate of the C backend's periodic yield: nothing
// before yieldPeriod has passed, one yield when it has, then nothing until
// the next period, and of concurrent callers at a due time exactly one.
func TestYieldDue(t *testing.T) {
	c := &CPU{epoch: time.Now()}
	period := int64(yieldPeriod)
	require.False(t, c.yieldAt(period/2), "yielded before a period passed")
	require.True(t, c.yieldAt(period))
	require.False(t, c.yieldAt(period+1), "yielded twice in one period")
	require.False(t, c.yieldAt(2*period-1), "yielded twice in one period")
	require.True(t, c.yieldAt(2*period+5))
	require.Equal(t, 2*period+5, c.yielded.Load())

	var wg sync.WaitGroup
	var took atomic.Int32
	for range 8 {
		wg.Go(func() {
			if c.yieldAt(4 * period) {
				took.Add(1)
			}
		})
	}
	wg.Wait()
	require.Equal(t, int32(1), took.Load(), "concurrent callers took one due yield")

	c.epoch = time.Now().Add(-10 * yieldPeriod)
	c.yieldDue() // due: yields through the scheduler and records the time
	require.GreaterOrEqual(t, c.yielded.Load(), 10*period)
}
