package models

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/native"
)

// TestDecodeAllocations bounds the heap allocations of one decode step.
// Activation buffers live in the State; what remains is the Go backend's
// bookkeeping of a parallel loop (its closure and wait group, a few dozen
// bytes, at most 2 per operation), independent of the model's size.
// The mixture of experts and the hybrids (routing, recurrent and
// convolution state) are held to the same bound.
func TestDecodeAllocations(t *testing.T) {
	if raceEnabled {
		// make test runs it again without the race detector
		t.Skip("the race detector's sync.Pool drops pooled buffers at random")
	}
	for _, shape := range []string{"tiny-qwen3-0.6b", "tiny-qwen3moe-30b-a3b", "tiny-lfm2-350m", "tiny-qwen3.5-0.8b"} {
		t.Run(shape, func(t *testing.T) {
			path := writeTiny(t, shape, ggml.Q8_0)
			b := native.NewGo(2)
			defer b.Close()
			m := openModel(t, path, b)
			st := mustState(t, m, 256)
			logits := make([]float32, m.Params().VocabSize)
			m.Forward(st, Tokens([]int32{1, 2, 3}), logits)
			allocs := testing.AllocsPerRun(50, func() {
				m.Forward(st, Tokens([]int32{argmax(logits)}), logits)
			})
			t.Logf("%.0f allocations per decoded token", allocs)
			assert.LessOrEqual(t, allocs, float64(16*m.Params().NLayers+4))
		})
	}
}
