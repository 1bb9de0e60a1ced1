package quantize

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
)

const modelDir = "../../../shared/testdata/models"

func fixture(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(modelDir, name)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("test model %s absent (%v); it lives in shared/testdata/models", path, err)
	}
	return path
}

func open(t *testing.T, path string) *gguf.File {
	t.Helper()
	f, err := gguf.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return f
}

// TestMatchesLlamaQuantize quantizes the F32 stories260K with each mix that
// llama.cpp also produced and requires the same file content: metadata,
// tensor order, types, shapes and identical bytes for every tensor.
func TestMatchesLlamaQuantize(t *testing.T) {
	src := fixture(t, "stories260K.gguf")
	for _, c := range []struct {
		ft        FileType
		want      string
		fallbacks int
	}{
		// The five 172-column ffn_down tensors fall back to F16; for Q4_0
		// output.weight also steps from Q6_K (64 columns) to Q8_0.
		{MostlyQ8_0, "stories260K-Q8_0.gguf", 5},
		{MostlyQ4_0, "stories260K-Q4_0.gguf", 6},
		{MostlyF16, "stories260K-F16.gguf", 0},
	} {
		t.Run(c.ft.String(), func(t *testing.T) {
			want := open(t, fixture(t, c.want))
			out := filepath.Join(t.TempDir(), "out.gguf")
			rep, err := File(context.Background(), src, out, Options{Type: c.ft})
			require.NoError(t, err)
			got := open(t, out)

			require.Equal(t, len(want.KV), len(got.KV))
			for i := range want.KV {
				assert.Equal(t, want.KV[i].Key, got.KV[i].Key, "key %d", i)
				assert.Equal(t, want.KV[i].Value, got.KV[i].Value, "value of %s", want.KV[i].Key)
			}
			require.Len(t, got.Tensors, len(want.Tensors))
			for i, wt := range want.Tensors {
				gt := got.Tensors[i]
				require.Equal(t, wt.Name, gt.Name, "tensor %d", i)
				require.Equal(t, wt.Type, gt.Type, "type of %s", wt.Name)
				require.Equal(t, wt.Dims, gt.Dims, "dims of %s", wt.Name)
				require.Equal(t, want.TensorData(wt), got.TensorData(gt), "bytes of %s (%s)", wt.Name, wt.Type)
			}
			wantFile, err := os.ReadFile(fixture(t, c.want))
			require.NoError(t, err)
			gotFile, err := os.ReadFile(out)
			require.NoError(t, err)
			assert.Equal(t, len(wantFile), len(gotFile), "file size")
			assert.True(t, string(wantFile) == string(gotFile), "the whole file is byte-identical to llama.cpp's")
			assert.Equal(t, c.fallbacks, rep.Fallbacks, "tensors with a fallback type")
		})
	}
}

// TestPlanQ4KMStories checks the Q4_K_M mix on stories260K, where every
// K-quant needs a fallback: 64-column rows take Q5_0 (Q4_K) or Q8_0 (Q6_K),
// 172-column rows F16.
func TestPlanQ4KMStories(t *testing.T) {
	f := open(t, fixture(t, "stories260K.gguf"))
	plans, err := Plan(f, MostlyQ4_K_M)
	require.NoError(t, err)
	got := map[string]ggml.DType{}
	for _, p := range plans {
		got[p.Name] = p.To
	}
	assert.Equal(t, ggml.Q8_0, got["output.weight"])
	assert.Equal(t, ggml.Q5_0, got["token_embd.weight"])
	assert.Equal(t, ggml.F32, got["output_norm.weight"])
	for l := 0; l < 5; l++ {
		name := func(s string) string { return "blk." + string(rune('0'+l)) + "." + s + ".weight" }
		more := l == 2 || l == 4 // use_more_bits for 5 layers
		assert.Equal(t, ggml.Q5_0, got[name("attn_q")], "layer %d", l)
		assert.Equal(t, ggml.Q5_0, got[name("ffn_up")], "layer %d", l)
		assert.Equal(t, ggml.F32, got[name("attn_norm")], "layer %d", l)
		assert.Equal(t, ggml.F16, got[name("ffn_down")], "layer %d", l)
		if more {
			assert.Equal(t, ggml.Q8_0, got[name("attn_v")], "layer %d", l)
		} else {
			assert.Equal(t, ggml.Q5_0, got[name("attn_v")], "layer %d", l)
		}
	}
}

// writeSynthetic writes a llama-shaped model with K-quant-friendly widths
// (rows of 256) and returns its path and the tensors' values.
func writeSynthetic(t *testing.T, layers int) (string, map[string][]float32) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	const embd, rows, vocab = 256, 16, 32 // rows of 256 fit every K-quant
	m := &gguf.Model{KV: []gguf.KV{
		{Key: "general.architecture", Value: gguf.String("llama")},
		{Key: "llama.block_count", Value: gguf.Uint32(uint32(layers))},
		{Key: "llama.embedding_length", Value: gguf.Uint32(embd)},
		{Key: "llama.attention.head_count", Value: gguf.Uint32(4)},
		{Key: "llama.attention.head_count_kv", Value: gguf.Uint32(4)},
	}}
	vals := map[string][]float32{}
	add := func(name string, dims ...uint64) {
		n := 1
		for _, d := range dims {
			n *= int(d)
		}
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(rng.NormFloat64() * 0.05)
		}
		data := make([]byte, 4*n)
		require.NoError(t, ggml.Quantize(ggml.F32, x, data))
		vals[name] = x
		m.Tensors = append(m.Tensors, gguf.Tensor{Info: gguf.TensorInfo{Name: name, Dims: dims, Type: ggml.F32}, Data: data})
	}
	add("token_embd.weight", embd, vocab)
	add("output_norm.weight", embd)
	for l := 0; l < layers; l++ {
		p := "blk." + itoa(l) + "."
		add(p+"attn_norm.weight", embd)
		add(p+"attn_q.weight", embd, rows)
		add(p+"attn_k.weight", embd, rows)
		add(p+"attn_v.weight", embd, rows)
		add(p+"attn_output.weight", embd, rows)
		add(p+"ffn_norm.weight", embd)
		add(p+"ffn_gate.weight", embd, rows)
		add(p+"ffn_up.weight", embd, rows)
		add(p+"ffn_down.weight", embd, rows)
	}
	path := filepath.Join(t.TempDir(), "synthetic-f32.gguf")
	w, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, gguf.Write(w, m))
	require.NoError(t, w.Close())
	return path, vals
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// TestKQuantMixes quantizes a 256-wide synthetic model with each K mix and
// checks the chosen types against llama.cpp's rules and the values against
// the originals.
func TestKQuantMixes(t *testing.T) {
	const layers = 8 // use_more_bits: layers 0, 3, 6, 7
	src, vals := writeSynthetic(t, layers)
	more := map[int]bool{0: true, 3: true, 6: true, 7: true}
	for _, c := range []struct {
		ft               FileType
		base, up, relErr float64
	}{
		{ft: MostlyQ4_K_M, relErr: 0.09},
		{ft: MostlyQ5_K_M, relErr: 0.045},
		{ft: MostlyQ6_K, relErr: 0.025},
		{ft: MostlyQ8_0, relErr: 0.01},
		{ft: MostlyBF16, relErr: 0.005},
	} {
		t.Run(c.ft.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.gguf")
			var calls []Progress
			rep, err := File(context.Background(), src, out, Options{Type: c.ft, Threads: 3,
				Progress: func(p Progress) { calls = append(calls, p) }})
			require.NoError(t, err)
			require.Len(t, calls, len(rep.Tensors))
			last := calls[len(calls)-1]
			assert.Equal(t, last.Total, last.Done)
			assert.Equal(t, len(rep.Tensors), last.Tensor)
			assert.Zero(t, rep.Fallbacks)

			f := open(t, out)
			ftv, err := f.Int("general.file_type")
			require.NoError(t, err)
			assert.Equal(t, int64(c.ft), ftv)
			def, err := c.ft.DefaultType()
			require.NoError(t, err)
			for _, ti := range f.Tensors {
				want := def
				l := layerOf(ti.Name)
				switch cat := tensorCategory(ti.Name); {
				case len(ti.Dims) == 1:
					want = ggml.F32
				case !ggml.IsQuantized(def):
				case cat == catTokenEmbd: // the model has no output.weight: tied
					want = ggml.Q6_K
					if def == ggml.Q8_0 {
						want = ggml.Q8_0
					}
				case (cat == catAttnV || cat == catFFNDown) && more[l] &&
					(c.ft == MostlyQ4_K_M || c.ft == MostlyQ5_K_M):
					want = ggml.Q6_K
				}
				assert.Equal(t, want, ti.Type, "%s %s", c.ft, ti.Name)
				got := make([]float32, ti.Elements())
				require.NoError(t, ggml.Dequantize(ti.Type, f.TensorData(ti), got))
				orig := vals[ti.Name]
				var se, sx float64
				for i := range got {
					e := float64(got[i] - orig[i])
					se += e * e
					sx += float64(orig[i]) * float64(orig[i])
				}
				assert.Less(t, math.Sqrt(se/sx), c.relErr, "%s %s relative RMS error", c.ft, ti.Name)
			}
		})
	}
}

func TestCancelLeavesNoFile(t *testing.T) {
	src, _ := writeSynthetic(t, 2)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.gguf")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := File(ctx, src, out, Options{Type: MostlyQ4_K_M})
	require.ErrorIs(t, err, context.Canceled)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)

	// Cancelling mid-way through, from the progress callback.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	_, err = File(ctx, src, out, Options{Type: MostlyQ4_K_M, Progress: func(p Progress) {
		if p.Tensor == 3 {
			cancel()
		}
	}})
	require.ErrorIs(t, err, context.Canceled)
	entries, err = os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestErrors(t *testing.T) {
	_, err := ParseFileType("q3_x")
	require.ErrorContains(t, err, `unknown type "q3_x"`)
	ft, err := ParseFileType("Q4_K_M")
	require.NoError(t, err)
	assert.Equal(t, MostlyQ4_K_M, ft)

	q8 := fixture(t, "stories260K-Q8_0.gguf")
	out := filepath.Join(t.TempDir(), "out.gguf")
	_, err = File(context.Background(), q8, out, Options{Type: MostlyQ4_0})
	require.ErrorContains(t, err, "is already Q8_0; requantizing is disabled")
	rep, err := File(context.Background(), q8, out, Options{Type: MostlyQ4_0, AllowRequantize: true})
	require.NoError(t, err)
	assert.NotZero(t, rep.OutBytes)

	_, err = File(context.Background(), filepath.Join(t.TempDir(), "missing.gguf"), out, Options{Type: MostlyQ4_0})
	require.ErrorContains(t, err, "missing.gguf")
}

func TestUseMoreBits(t *testing.T) {
	var got []int
	for i := 0; i < 32; i++ {
		if useMoreBits(i, 32) {
			got = append(got, i)
		}
	}
	assert.Equal(t, []int{0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31}, got)
}

// TestHugeAlignmentRefused quantizes a file whose general.alignment is
// 2^30: the header of stories260K without its tensors (the reader once
// accepted it, since no tensor offset contradicted it, and the writer then
// padded the output to a gigabyte). It must fail naming the key and leave
// no file.
func TestHugeAlignmentRefused(t *testing.T) {
	src := open(t, fixture(t, "stories260K.gguf"))
	m := src.Model()
	m.Tensors = nil
	m.Set("general.alignment", gguf.Uint32(64))
	var buf bytes.Buffer
	require.NoError(t, gguf.Write(&buf, m))
	// Patch the value in place: the writer refuses to write 2^30 itself.
	key := binary.LittleEndian.AppendUint64(nil, uint64(len("general.alignment")))
	key = append(key, "general.alignment"...)
	key = binary.LittleEndian.AppendUint32(key, uint32(gguf.TypeUint32))
	data := buf.Bytes()
	i := bytes.Index(data, key)
	require.Positive(t, i)
	binary.LittleEndian.PutUint32(data[i+len(key):], 1<<30)

	dir := t.TempDir()
	in := filepath.Join(dir, "hostile.gguf")
	require.NoError(t, os.WriteFile(in, data, 0o644))
	out := filepath.Join(dir, "out.gguf")
	_, err := File(context.Background(), in, out, Options{Type: MostlyQ8_0})
	require.ErrorContains(t, err, `key "general.alignment" is 1073741824: want a power of two no larger than 1048576`)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only the input is left")
}
