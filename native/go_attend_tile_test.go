package native

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
)

// TestAttendTiles runs prefill batches through the tiles (the Go
// backend's with the AVX-512 and the AVX2 kernel, or NEON's on arm64, the C backend's on every
// kernel set with panels) and through the Go backend's attendRow
// (noTiles), for every cache type,
// GQA groups that fill a tile's 48 query heads and groups that leave
// padding (5, 7), one query head a group, head sizes that take a half
// panel pair (16, 80), windows that start the tile's keys past the
// batch's first, a soft cap, sinks, a non-causal batch, batches not a
// multiple of the tile rows and batches deep in the context; they must
// agree within float rounding, and with an F32 cache match the float64
// attention.
func TestAttendTiles(t *testing.T) {
	tiles, tiles2, rows := NewGo(2), NewGo(2), NewGo(2)
	defer tiles.Close()
	defer tiles2.Close()
	defer rows.Close()
	rows.noTiles = true
	tiles2.noPanels512 = true // the AVX2 kernel's tiles
	var bs []Backend
	_, haveTiles := tileKernelFor(tiles)
	if haveTiles {
		bs = append(bs, tiles)
	}
	if havePanels512 {
		bs = append(bs, tiles2)
	}
	for _, c := range loadCPUsOrNil(t, 2) { // every kernel set
		bs = append(bs, c)
	}
	if len(bs) == 0 {
		t.Skip("no tiles here: the Go ones need AVX2 or arm64, the C ones the native library")
	}
	for i, a := range []Attention{
		{NHeads: 9, NKVHeads: 3, HeadDim: 64, Scale: 0.125},
		{NHeads: 32, NKVHeads: 8, HeadDim: 64, Scale: 0.125},
		{NHeads: 10, NKVHeads: 2, HeadDim: 80, Scale: 0.1, SoftCap: 5},
		{NHeads: 7, NKVHeads: 1, HeadDim: 128, Scale: 0.09, Window: 40},
		{NHeads: 4, NKVHeads: 4, HeadDim: 16, Scale: 0.25, Sinks: []float32{-1, 0.5, 3, 12}},
		{NHeads: 6, NKVHeads: 2, HeadDim: 32, Scale: 0.2, NonCausal: true, Window: 30},
	} {
		for _, b := range [][2]int{{0, 16}, {0, 77}, {45, 50}, {300, 33}} {
			pos0, n := b[0], b[1]
			for _, kv := range KVTypes {
				if CheckKVType(kv, a.HeadDim) != nil {
					continue // heads of whole blocks only
				}
				t.Run(fmt.Sprintf("%d/%s/pos%d+%d", i, kv, pos0, n), func(t *testing.T) {
					r := rand.New(rand.NewPCG(51, uint64(i)))
					kvw := a.NKVHeads * a.HeadDim
					c, err := NewKVCache(kv, pos0+n+5, kvw)
					require.NoError(t, err)
					k, v := randVec(r, (pos0+n)*kvw), randVec(r, (pos0+n)*kvw)
					rows.StoreKV(c, 0, k, v, pos0+n)
					q := randVec(r, n*a.NHeads*a.HeadDim)
					at := attendTask{g: tiles, c: c, pos0: pos0, n: n, a: a}
					require.Equal(t, haveTiles, at.tiled(), "the batch takes tiles where the CPU has them")
					want := make([]float32, len(q))
					rows.Attend(want, q, c, pos0, n, a)
					for j, b := range bs {
						got := make([]float32, len(q))
						b.Attend(got, q, c, pos0, n, a)
						name := fmt.Sprintf("%s (backend %d)", b.Name(), j)
						assertClose(t, want, got, 2e-5, name+": tiles against rows")
						if kv == ggml.F32 {
							assertClose(t, naiveAttention(q, k, v, pos0, n, a), got, 1e-5, name+": tiles against float64")
						}
					}
				})
			}
		}
	}
	// a decode row, a short batch and heads that are not whole 16s keep
	// to attendRow
	for _, tc := range []struct {
		a Attention
		n int
	}{
		{Attention{NHeads: 9, NKVHeads: 3, HeadDim: 64}, 1},
		{Attention{NHeads: 9, NKVHeads: 3, HeadDim: 64}, tileMinRows - 1},
		{Attention{NHeads: 8, NKVHeads: 4, HeadDim: 8}, 64},
	} {
		c, err := NewKVCache(ggml.F16, 100, tc.a.NKVHeads*tc.a.HeadDim)
		require.NoError(t, err)
		at := attendTask{g: tiles, c: c, n: tc.n, a: tc.a}
		assert.False(t, at.tiled(), "%d rows of heads of %d", tc.n, tc.a.HeadDim)
	}
}
