package native

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterleaveRoundTrip: interleaving rewrites every byte of a group and
// RowMajorCopy and Embed read the original rows back exactly.
func TestInterleaveRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, typ := range ilTypes {
		w := randWeight(t, r, typ, 48, 512)
		orig := append([]byte(nil), w.Data...)
		il, err := Interleave16(w)
		require.NoError(t, err, typ)
		require.Equal(t, Interleaved16, il.Layout)
		require.NotEqual(t, orig, il.Data, "%s: the layout changed nothing", typ)
		require.NoError(t, il.Check())
		require.Equal(t, orig, RowMajorCopy(il).Data, typ)

		want := make([]float32, 3*w.Cols)
		got := make([]float32, 3*w.Cols)
		ids := []int32{0, 17, 47}
		NewGo(1).Embed(want, Weight{Type: typ, Rows: w.Rows, Cols: w.Cols, Data: orig}, ids)
		NewGo(1).Embed(got, il, ids)
		require.Equal(t, want, got, "%s: Embed of interleaved rows", typ)
	}
}

// ilTypes are the types Interleave16 takes.
var ilTypes = []ggml.DType{ggml.Q4_0, ggml.IQ4_NL, ggml.Q5_0, ggml.Q8_0, ggml.Q3_K, ggml.Q4_K, ggml.Q5_K, ggml.Q6_K, ggml.IQ4_XS, ggml.F16, ggml.BF16}

// TestInterleaveRefuses: only row-major weights of the types with a layout,
// of whole groups (and element pairs).
func TestInterleaveRefuses(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		w    Weight
		want string
	}{
		{randWeight(t, r, ggml.Q4_0, 40, 64), "40 rows are not whole groups of 16"},
		{randWeight(t, r, ggml.Q2_K, 16, 256), "no interleaved layout"},
		{randWeight(t, r, ggml.F32, 16, 64), "no interleaved layout"},
		{randWeight(t, r, ggml.F16, 16, 63), "63 columns are not whole units of 2 elements"}, // odd columns: no element pairs
		{Weight{Type: ggml.Q8_0, Rows: 16, Cols: 64, Data: make([]byte, 10)}, "bytes"},       // short data
	} {
		assert.False(t, CanInterleave(c.w))
		_, err := Interleave16(c.w)
		require.Error(t, err)
		assert.Contains(t, err.Error(), c.w.Type.String())
		assert.Contains(t, err.Error(), c.want)
	}
	w, err := Interleave16(randWeight(t, r, ggml.Q8_0, 16, 64))
	require.NoError(t, err)
	_, err = Interleave16(w)
	require.ErrorContains(t, err, "not row-major", "interleaving twice")
}

// TestInterleavedMatMul: every backend multiplies an interleaved weight as
// it multiplies the row-major one (its kernels for the layout where it has
// them, else the row-major copy), for decode, short and long batches and
// through the shared C activations; and the two layouts' results agree
// across backends.
func TestInterleavedMatMul(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	backends := []Backend{NewGo(1), NewGo(3)}
	if haveBF16Pairs && !bf16PairsPay { // the pair panels where they are not the default
		g := NewGo(2)
		g.pairsBF16 = true
		backends = append(backends, g)
	}
	if cpus := loadCPUsOrNil(t, 2); cpus != nil {
		for _, c := range cpus {
			backends = append(backends, c)
		}
	}
	for _, typ := range ilTypes {
		for _, shape := range [][2]int{{16, 32}, {16, 256}, {64, 576}, {208, 1536}, {128, 64}, {64, 128}, {512, 128}, {16, 2}, {32, 34}} {
			rows, cols := shape[0], shape[1]
			if ue, _ := ilUnit(typ); cols%ue != 0 {
				continue
			}
			w := randWeight(t, r, typ, rows, cols)
			il, err := Interleave16(Weight{Type: typ, Rows: rows, Cols: cols, Data: append([]byte(nil), w.Data...)})
			require.NoError(t, err)
			for _, nTok := range []int{1, 2, 3, 4, 5, 6, 7, 8, 40} {
				x := randFloats(r, nTok*cols, 1)
				for _, b := range backends {
					want := make([]float32, nTok*rows)
					got := make([]float32, nTok*rows)
					b.MatMul(want, w, x, nTok)
					b.MatMul(got, il, x, nTok)
					name := fmt.Sprintf("%s %s %dx%d by %d tokens", b.Name(), typ, rows, cols, nTok)
					if ib, ok := b.(Interleaver); ok && ib.Interleaves(typ) {
						name += " (interleaved kernels)"
					}
					require.True(t, finite(got), name)
					if b.Name() == "cpu-avx2" && (typ == ggml.Q3_K || typ == ggml.Q4_K || typ == ggml.Q5_K || typ == ggml.Q6_K || typ == ggml.IQ4_XS) && nTok >= 4 {
						// the AVX2 gemm rounds a batch's activations to
						// 32-element blocks, as the VNNI gemms do, where
						// the row-major panels take q8K's 256: its
						// reference is the weights' values times those
						// activations
						want = q8aProduct(t, w, x, nTok)
						name += " (against the q8a-rounded product)"
					}
					assert.Less(t, nmse(got, want), 1e-10, name)
				}
			}
		}
	}
}

// loadCPUsOrNil returns the CPU backends of every kernel set, or nil when
// the native library is not built (the Go backend is still tested); a
// library that is there but fails to load fails the test.
func loadCPUsOrNil(t testing.TB, threads int) []*CPU {
	c, err := LoadCPU(1)
	if errors.Is(err, ErrUnavailable) {
		t.Logf("native library not loaded, testing the Go backend only: %v", err)
		return nil
	}
	require.NoError(t, err)
	c.Close()
	return cpuKernelSets(t, threads)
}

// BenchmarkInterleave16 measures the load-time rewrite (bytes per second
// of weights), which a private load of a model pays once per weight.
func BenchmarkInterleave16(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, typ := range []ggml.DType{ggml.Q4_0, ggml.Q8_0, ggml.Q4_K, ggml.Q6_K, ggml.F16} {
		w := randWeight(b, r, typ, 1024, 2048)
		orig := append([]byte(nil), w.Data...)
		b.Run(typ.String(), func(b *testing.B) {
			b.SetBytes(int64(len(w.Data)))
			for b.Loop() {
				copy(w.Data, orig)
				if _, err := Interleave16(w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// q8aProduct is w·x in float64 over w's dequantized values and x rounded
// to 32-element 8-bit blocks (q8a), as a gemm kernel multiplies them.
func q8aProduct(t *testing.T, w Weight, x []float32, nTok int) []float32 {
	t.Helper()
	xr := make([]float32, len(x))
	roundQ8Rows(ggml.Q4_0, xr, x, w.Cols, 0, nTok)
	deq := make([]float32, w.Cols)
	out := make([]float32, nTok*w.Rows)
	for r := range w.Rows {
		require.NoError(t, ggml.DequantizeRow(w.Type, w.Data[r*w.RowBytes():(r+1)*w.RowBytes()], deq))
		for tk := range nTok {
			var sum float64
			for i, v := range deq {
				sum += float64(v) * float64(xr[tk*w.Cols+i])
			}
			out[tk*w.Rows+r] = float32(sum)
		}
	}
	return out
}
