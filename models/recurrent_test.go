package models

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/native"
)

// runningSum is a test-only architecture with the three kinds of layer
// state, each updated by an exact function of small integers, so that any
// difference between a rewound or cloned run and a fresh one is a bug of
// the State and not float noise:
//
//   - layer 0, a causal convolution of width 4 with weights 1, 2, 3, 4 over
//     the embeddings: its conv state is the last 3 input rows;
//   - layer 1, a recurrent running sum of layer 0's output: its recurrent
//     state is the sum;
//   - layer 2, attention with all scores 0 over a KV cache of layer 1's
//     outputs: the mean of the outputs so far.
//
// The logits are a fixed linear map of layer 2's output.
type runningSum struct {
	p Params
	b native.Backend
}

const (
	rsDim    = 4
	rsVocab  = 16
	rsWidth  = 4                     // convolution width
	rsConv   = (rsWidth - 1) * rsDim // conv state: the last 3 rows
	rsBufOut = 100                   // Buffer id of layer outputs
)

func newRunningSum(b native.Backend) *runningSum {
	return &runningSum{b: b, p: Params{Arch: "running-sum", VocabSize: rsVocab, Dim: rsDim, NLayers: 3,
		NHeads: 1, NKVHeads: 1, HeadDim: rsDim}}
}

func (m *runningSum) Params() Params          { return m.p }
func (m *runningSum) Backend() native.Backend { return m.b }

func (m *runningSum) Caches() []LayerCache {
	return []LayerCache{{Conv: rsConv, SharedKV: -1}, {Recurrent: rsDim, SharedKV: -1}, {KVWidth: rsDim, SharedKV: -1}}
}

// embedding is token id's row: small integers.
func (m *runningSum) embedding(id int32) []float32 {
	e := make([]float32, rsDim)
	for j := range e {
		e[j] = float32((int(id)*(j+3)+j)%7 - 3)
	}
	return e
}

func (m *runningSum) Forward(s *State, in Input, logits []float32) {
	s.begin(m.p, in)
	n, pos0 := in.Len(), s.Len()
	x := s.Buffer(rsBufOut, n*rsDim)
	if in.Tokens != nil {
		for t, id := range in.Tokens {
			copy(x[t*rsDim:], m.embedding(id))
		}
	} else {
		copy(x, in.Embeddings)
	}
	conv, sum := s.Conv(0), s.Recurrent(1)
	y := s.Buffer(rsBufOut+1, n*rsDim)
	for t := range n {
		row := x[t*rsDim : (t+1)*rsDim]
		// layer 0: y = 1·x(t-3) + 2·x(t-2) + 3·x(t-1) + 4·x(t), then shift
		out := y[t*rsDim : (t+1)*rsDim]
		for j := range out {
			out[j] = 4 * row[j]
			for k := range rsWidth - 1 {
				out[j] += float32(k+1) * conv[k*rsDim+j]
			}
		}
		copy(conv, conv[rsDim:])
		copy(conv[rsConv-rsDim:], row)
		// layer 1: running sum
		m.b.Add(sum, out)
		copy(out, sum)
	}
	// layer 2: mean of the outputs at positions ≤ pos
	att := s.Buffer(rsBufOut+2, n*rsDim)
	m.b.StoreKV(s.KV(2), pos0, y, y, n)
	m.b.Attend(att, y, s.KV(2), pos0, n, native.Attention{NHeads: 1, NKVHeads: 1, HeadDim: rsDim})
	s.advance(n)
	if logits != nil {
		last := att[(n-1)*rsDim:]
		for v := range logits[:rsVocab] {
			logits[v] = 0
			for j, a := range last {
				logits[v] += a * float32((v+j)%5-2)
			}
		}
	}
}

// fresh runs ids through a new State in one batch and returns the logits.
func (m *runningSum) fresh(t *testing.T, ids []int32) []float32 {
	st, err := NewState(m, 64, 64, ggml.F32)
	require.NoError(t, err)
	return run(m, st, ids, 64)
}

func TestCheckpointRewind(t *testing.T) {
	for _, b := range llamaCppBackends(t) {
		t.Run(b.Name(), func(t *testing.T) { testCheckpointRewind(t, newRunningSum(b)) })
	}
}

func testCheckpointRewind(t *testing.T, m *runningSum) {
	ids := testTokens(40, rsVocab)
	want := m.fresh(t, ids)
	require.Equal(t, want, run(m, mustState(t, m, 64), ids, 1), "token at a time equals one batch")
	require.Equal(t, want, run(m, mustState(t, m, 64), ids, 7), "batches of 7 equal one batch")

	st := mustState(t, m, 64)
	st.CheckpointEvery, st.MaxCheckpoints = 8, 3
	run(m, st, ids[:30], 7) // ends at 7, 14, 21, 28, 30
	require.Equal(t, []int{14, 21, 28}, st.Checkpoints(), "one per multiple of 8 passed, three kept")
	require.Equal(t, 3*st.CheckpointBytes()+st.CheckpointBytes()+2*4*64*rsDim, st.Bytes())

	// rewind to 25: resume at 21 and re-feed 21..25
	resume, err := st.Truncate(25)
	require.NoError(t, err)
	require.Equal(t, 21, resume)
	require.Equal(t, 21, st.Len())
	require.Equal(t, []int{14, 21}, st.Checkpoints())
	run(m, st, testTokens(4, 5), 4) // feed something else first: it must not leak
	resume, err = st.Truncate(21)
	require.NoError(t, err)
	require.Equal(t, 21, resume)
	run(m, st, ids[21:25], 64)
	require.Equal(t, want, run(m, st, ids[25:], 3))

	// rewind before every checkpoint: resume at 0, the zero state
	resume, err = st.Truncate(10)
	require.NoError(t, err)
	require.Equal(t, 0, resume)
	require.Empty(t, st.Checkpoints())
	require.Equal(t, want, run(m, st, ids, 9))

	// a marked position
	st = mustState(t, m, 64)
	st.CheckpointEvery = 0
	run(m, st, ids[:12], 64)
	st.Checkpoint()
	run(m, st, ids[12:20], 64)
	require.Equal(t, []int{12}, st.Checkpoints())
	resume, err = st.Truncate(13)
	require.NoError(t, err)
	require.Equal(t, 12, resume)
	run(m, st, ids[12:13], 64)
	require.Equal(t, want, run(m, st, ids[13:], 64))
	// truncating to the current length keeps the state as it is
	resume, err = st.Truncate(st.Len())
	require.NoError(t, err)
	require.Equal(t, 40, resume)
	_, err = st.Truncate(41)
	require.Error(t, err)
}

func TestCheckpointClone(t *testing.T) {
	for _, b := range llamaCppBackends(t) {
		t.Run(b.Name(), func(t *testing.T) { testCheckpointClone(t, newRunningSum(b)) })
	}
}

func testCheckpointClone(t *testing.T, m *runningSum) {
	ids := testTokens(40, rsVocab)
	other := testTokens(10, 11)
	st := mustState(t, m, 64)
	st.CheckpointEvery = 8
	run(m, st, ids[:30], 5)
	c, err := st.Clone()
	require.NoError(t, err)
	require.Equal(t, []int{10, 20, 25}, c.Checkpoints(), "batch ends past 8, 16 and 24, copied")
	// diverge: each continues as a fresh run of its own tokens would
	got := run(m, st, other, 4)
	require.Equal(t, m.fresh(t, append(append([]int32(nil), ids[:30]...), other...)), got)
	require.Equal(t, m.fresh(t, ids), run(m, c, ids[30:], 64))
	// the clone's checkpoints are its own: rewinding it does not touch st's
	resume, err := c.Truncate(17)
	require.NoError(t, err)
	require.Equal(t, 10, resume)
	run(m, c, ids[10:17], 64)
	require.Equal(t, m.fresh(t, ids), run(m, c, ids[17:], 64))
	require.Equal(t, m.fresh(t, append(append(append([]int32(nil), ids[:30]...), other...), 3)), run(m, st, []int32{3}, 1))
}

// TestForwardCheckedStateful checks that a non-finite result on a model
// with recurrent state sets the state back to a checkpoint at or before
// the failed call, from which re-feeding gives a fresh run's logits.
func TestForwardCheckedStateful(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	m := newRunningSum(b)
	ids := testTokens(20, rsVocab)
	st := mustState(t, m, 64)
	st.CheckpointEvery = 8
	logits := make([]float32, rsVocab)
	require.NoError(t, ForwardChecked(m, st, Tokens(ids[:12]), logits))
	bad := make([]float32, 5*rsDim) // to 17: past 16, where a checkpoint is taken
	bad[5] = float32(math.NaN())
	err := ForwardChecked(m, st, Embeds(bad, rsDim), logits)
	var nf *NonFiniteError
	require.ErrorAs(t, err, &nf)
	require.Equal(t, "output", nf.Stage)
	require.Equal(t, 16, nf.Pos)
	require.Equal(t, []int{12}, st.Checkpoints(), "the one taken after the failed call's 16 is dropped")
	require.Equal(t, 12, st.Len(), "back at the checkpoint the first call took at its end")
	require.Equal(t, m.fresh(t, ids), run(m, st, ids[12:], 64))
}

// TestCheckpointsBounded checks that checkpoints are dropped oldest first
// and reuse their memory.
func TestCheckpointsBounded(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	m := newRunningSum(b)
	st := mustState(t, m, 64)
	st.CheckpointEvery, st.MaxCheckpoints = 1, 4
	ids := testTokens(30, rsVocab)
	run(m, st, ids, 1)
	require.Equal(t, []int{27, 28, 29, 30}, st.Checkpoints())
	kv := st.Bytes() - 5*st.CheckpointBytes()
	st.MaxCheckpoints = 2
	run(m, st, ids[:1], 1)
	require.Equal(t, []int{30, 31}, st.Checkpoints(), "a lower bound applies at the next checkpoint")
	require.Equal(t, kv+5*st.CheckpointBytes(), st.Bytes(), "the memory of the dropped ones is kept for reuse")
	st.MaxCheckpoints = 4
	_, err := st.Truncate(30)
	require.NoError(t, err)
	if raceEnabled {
		return // the race detector's sync.Pool drops pooled buffers at random
	}
	allocs := testing.AllocsPerRun(10, func() { run(m, st, ids[:1], 1); _, _ = st.Truncate(30) })
	require.LessOrEqual(t, allocs, 1.0, "a checkpoint reuses the memory of the one dropped (only run's logits are new)")
}

// qwen35Caches is the layer state of Qwen3.5-0.8B (config.json; llama.cpp
// n_embd_r and n_embd_s): 18 gated-DeltaNet layers, each with a conv state
// of (conv kernel 4 − 1) × (2·16·128 key + 16·128 value channels) and 16
// recurrent 128×128 matrices, and every fourth layer attention with 2 KV
// heads of 256.
func qwen35Caches() (Params, []LayerCache) {
	p := Params{Arch: "qwen35", VocabSize: 248320, Dim: 1024, NLayers: 24, NHeads: 8, NKVHeads: 2, HeadDim: 256, HiddenDim: 3584}
	cs := make([]LayerCache, p.NLayers)
	for i := range cs {
		if i%4 == 3 {
			cs[i] = LayerCache{KVWidth: 2 * 256, SharedKV: -1}
			continue
		}
		cs[i] = LayerCache{Conv: 3 * (2*16*128 + 16*128), Recurrent: 16 * 128 * 128, SharedKV: -1}
	}
	return p, cs
}

// BenchmarkCheckpoint measures what checkpointing a Qwen3.5-0.8B-sized
// state costs: taking one (a copy of every conv and recurrent state), and
// restoring one by Truncate. The bytes per operation are
// State.CheckpointBytes.
func BenchmarkCheckpoint(b *testing.B) {
	g := native.NewGo(1)
	defer g.Close()
	p, cs := qwen35Caches()
	st, err := NewState(cachedModel{shapeModel{b: g, p: p, caches: cs}}, 4096, 1, ggml.F16)
	require.NoError(b, err)
	b.Logf("checkpoint %.1f MiB; KV cache %.1f MiB for 4096 F16 positions", float64(st.CheckpointBytes())/(1<<20),
		float64(st.Bytes()-st.CheckpointBytes())/(1<<20))
	st.CheckpointEvery, st.MaxCheckpoints = 0, 2
	b.Run("take", func(b *testing.B) {
		b.SetBytes(int64(st.CheckpointBytes()))
		for i := range b.N {
			st.n = 1 + i%2 // a new position each time, so Checkpoint copies
			st.Checkpoint()
		}
	})
	b.Run("restore", func(b *testing.B) {
		b.SetBytes(int64(st.CheckpointBytes()))
		st.n = 1
		st.Checkpoint()
		for range b.N {
			st.n = 2
			if _, err := st.Truncate(1); err != nil {
				b.Fatal(err)
			}
		}
	})
}
