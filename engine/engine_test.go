package engine

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
	"github.com/litert-go/litert-go/tokenizer"
)

const stories = "../../shared/testdata/models/stories260K-Q8_0.gguf"

func TestOpenInfo(t *testing.T) {
	if _, err := os.Stat(stories); err != nil {
		t.Skip("stories260K fixture absent at " + stories)
	}
	eng, err := Open(context.Background(), stories, Settings{KVType: ggml.F16, Threads: 2})
	require.NoError(t, err)
	defer eng.Close()
	info := eng.Info()
	assert.Equal(t, "llama", info.Arch)
	assert.Equal(t, "Q8_0", info.Quant)
	assert.Equal(t, 512, info.VocabSize)
	assert.Equal(t, 2048, info.ContextLength, "the model's context, under the default cap")
	assert.Equal(t, int32(1), info.BOS)
	assert.Equal(t, int32(2), info.EOS)
	assert.Contains(t, info.EOG, int32(2))
	assert.True(t, info.AddBOS)
	if info.Backend == "go" {
		assert.NotEmpty(t, info.BackendNote, "Auto says why it runs the Go kernels")
		assert.Equal(t, 2, info.Threads)
	}
	assert.Equal(t, 64, info.Params.Dim)
	assert.Equal(t, 4, info.Params.NKVHeads)
	st, err := eng.NewState(8)
	require.NoError(t, err)
	assert.Equal(t, ggml.F16, st.KVType())
	assert.Equal(t, []int32{1, 403, 407, 261, 378}, eng.Tokenizer().Encode("Once upon a time", tokenizer.EncodeOptions{AddSpecial: true}))
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	_, err := Open(ctx, stories, Settings{Backend: GPU})
	require.ErrorIs(t, err, native.ErrUnavailable)
	require.ErrorContains(t, err, "gpu")
	_, err = Open(ctx, stories, Settings{KVType: ggml.Q4_K})
	require.ErrorContains(t, err, "KV cache type Q4_K is not supported")
	// stories260K's heads of 8 elements are not whole blocks
	_, err = Open(ctx, stories, Settings{KVType: ggml.Q8_0})
	require.ErrorContains(t, err, "stories260K-Q8_0.gguf: native: a Q8_0 KV cache needs heads of a multiple of 32 elements, not 8")
	_, err = Open(ctx, "does-not-exist.gguf", Settings{})
	require.ErrorIs(t, err, os.ErrNotExist)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = Open(cancelled, stories, Settings{})
	require.ErrorIs(t, err, context.Canceled)
}

// TestCPUKernels opens the cpu backend on each kernel set the library
// offers and on one it does not.
func TestCPUKernels(t *testing.T) {
	if _, err := os.Stat(stories); err != nil {
		t.Skip("stories260K fixture absent at " + stories)
	}
	c, err := native.LoadCPU(1)
	if err != nil {
		t.Skipf("native library not built: %v", err)
	}
	isas := c.ISAs()
	c.Close()
	for _, isa := range isas {
		for _, b := range []Backend{CPU, Auto} {
			eng, err := Open(context.Background(), stories, Settings{Backend: b, CPUKernels: isa, Threads: 1})
			require.NoError(t, err, isa)
			assert.Equal(t, "cpu-"+isa, eng.Info().Backend)
			eng.Close()
		}
	}
	_, err = Open(context.Background(), stories, Settings{Backend: CPUGo, CPUKernels: isas[0]})
	require.ErrorContains(t, err, "for backend cpu")
	for _, b := range []Backend{CPU, Auto} {
		_, err = Open(context.Background(), stories, Settings{Backend: b, CPUKernels: "sse9"})
		require.ErrorIs(t, err, native.ErrUnavailable, "%v", b)
		require.ErrorContains(t, err, "sse9", "%v", b)
	}
}

func TestParseBackend(t *testing.T) {
	for _, b := range []Backend{Auto, CPU, CPUGo, GPU} {
		got, err := ParseBackend(b.String())
		require.NoError(t, err)
		assert.Equal(t, b, got)
	}
	_, err := ParseBackend("tpu")
	require.ErrorContains(t, err, `"tpu"`)
	assert.Positive(t, physicalCores())
}

// TestLoadModes opens stories260K mapped and read into private memory, on
// both CPU backends: Info says which mode ran, and the logits of a prompt
// are the same bytes either way.
func TestLoadModes(t *testing.T) {
	if _, err := os.Stat(stories); err != nil {
		t.Skip("stories260K fixture absent at " + stories)
	}
	logits := func(t *testing.T, s Settings) ([]float32, Info) {
		eng, err := Open(context.Background(), stories, s)
		require.NoError(t, err)
		defer eng.Close()
		st, err := eng.NewState(8)
		require.NoError(t, err)
		out := make([]float32, eng.Info().VocabSize)
		eng.Model().Forward(st, models.Tokens([]int32{1, 403, 407, 261, 378}), out)
		return out, eng.Info()
	}
	for _, b := range []Backend{Auto, CPUGo} {
		mapped, info := logits(t, Settings{Backend: b, Threads: 1, Load: LoadMmap})
		assert.Equal(t, LoadMmap, info.Load)
		read, info := logits(t, Settings{Backend: b, Threads: 1, Load: LoadRead})
		assert.Equal(t, LoadRead, info.Load)
		// the same weights either way; read ones may be interleaved for
		// the backend's kernels (AVX-512 VNNI), which sum in another order
		require.Len(t, read, len(mapped))
		for i := range mapped {
			require.InDelta(t, mapped[i], read[i], 1e-4, "%v: logit %d", b, i)
		}
		// a 1 MB file on a machine with memory to spare is read
		_, info = logits(t, Settings{Backend: b, Threads: 1})
		if avail, ok := availableMemory(); ok && runtime.GOOS == "linux" {
			assert.Positive(t, avail)
			assert.Equal(t, LoadRead, info.Load, "auto")
		} else {
			assert.Equal(t, LoadMmap, info.Load, "auto without /proc/meminfo")
		}
	}
	for _, l := range []Load{LoadAuto, LoadMmap, LoadRead} {
		got, err := ParseLoad(l.String())
		require.NoError(t, err)
		assert.Equal(t, l, got)
	}
	_, err := ParseLoad("mlock")
	require.ErrorContains(t, err, `"mlock"`)
}

// TestLoadOutOfMemory runs a private read that runs out of memory: auto
// maps the file instead, an explicit read says how to.
func TestLoadOutOfMemory(t *testing.T) {
	if _, err := os.Stat(stories); err != nil {
		t.Skip("stories260K fixture absent at " + stories)
	}
	if avail, ok := availableMemory(); !ok || avail <= 0 || runtime.GOOS != "linux" {
		t.Skip("auto reads only on Linux with /proc/meminfo")
	}
	reads := 0
	noMemory := func(context.Context, string) (*gguf.File, error) {
		reads++
		return nil, fmt.Errorf("gguf: reading %s: %w", stories, syscall.ENOMEM)
	}
	f, mode, err := openWith(context.Background(), stories, LoadAuto, CPUGo, noMemory)
	require.NoError(t, err)
	defer f.Close()
	assert.Equal(t, 1, reads, "auto tried the read first")
	assert.Equal(t, LoadMmap, mode)
	assert.NotEmpty(t, f.Tensors)

	_, mode, err = openWith(context.Background(), stories, LoadRead, CPUGo, noMemory)
	require.ErrorIs(t, err, syscall.ENOMEM)
	assert.ErrorContains(t, err, "--load mmap")
	assert.Equal(t, LoadRead, mode)
}
