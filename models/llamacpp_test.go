package models

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// llamaCppDir holds llama.cpp's logits for the synthetic models; its
// README.md says how they were made.
const llamaCppDir = "testdata/llamacpp"

// llamaCppTol is the largest |Δlogit| allowed against llama.cpp's own run,
// by weight type; the tiny models' logits lie within ±3. Measured maxima
// (README.md): F32 1e-6, except Gemma 3 at 3e-4 because ggml's GELU reads
// a float16 table; Q4_K_M 0.025, because llama.cpp rounds every activation
// row to 8 bits (Q8_0 or Q8_K) before its dot products while we multiply
// by the float32 activations.
//
// BF16 0.0042 (Gemma 3; 0.0065 with float activations: llama.cpp rounds
// the activations of BF16 weights to BF16, as our kernels do).
//
// The tolerances leave room for the 6 digits the files keep and another
// CPU's summation order, and stay well below the effect of a real bug: a
// sliding window one position off moves Gemma's logits by 0.2 to 0.35.
var llamaCppTol = map[string]float64{"f32": 1e-3, "bf16": 0.02, "q8_0": 0.06, "q4_k_m": 0.06,
	"q2_k": 0.06, "q3_k_m": 0.06, "iq4_xs": 0.06, "mxfp4": 0.06}

// llamaCppDequantTol applies to testdata/llamacpp/dequant: llama.cpp's
// runs of F32 models holding the dequantized Q4_K_M weights, which take
// its activation rounding away. The Go backend of native.NewGoFloat, which
// multiplies float32 activations, matches them to 1e-6 (Gemma 3: 3e-4, its
// GELU), so its quantized path is held to the F32 tolerance. The C kernels
// and NewGo's matrix-vector products round activations to 8 bits as ggml
// does (0.005 to 0.02 off), so they are not checked against these files.
const llamaCppDequantTol = 1e-3

// llamaCppCtx is the context size of llama.cpp's runs (n_ctx) and ours.
const llamaCppCtx = 512

// llamaCppRef is one reference file: llama.cpp's logits after the prompt,
// decoded as one batch, and after each fed token.
type llamaCppRef struct {
	Prompt []int32
	Feed   []int32
	NVocab int
	Stride int         // Steps[k][j] is the logit of token j·Stride
	Steps  [][]float32 // per step, ⌈NVocab/Stride⌉ logits
}

// readLlamaCppRef parses a file of JSON lines: the header
// {"prompt_tokens": [...], "feed": [...], "n_vocab": V, "stride": S}, then
// {"step": i, "argmax": id, "logits": [...]} for steps 0, 1, …, holding
// the logits of tokens 0, S, 2S, … (S is 1 when absent: every logit).
func readLlamaCppRef(path string) (llamaCppRef, error) {
	var ref llamaCppRef
	fd, err := os.Open(path)
	if err != nil {
		return ref, err
	}
	defer fd.Close()
	sc := bufio.NewScanner(fd)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		return ref, fmt.Errorf("%s: no header line", path)
	}
	var hdr struct {
		Prompt []int32 `json:"prompt_tokens"`
		Feed   []int32 `json:"feed"`
		NVocab int     `json:"n_vocab"`
		Stride int     `json:"stride"`
	}
	if err := json.Unmarshal(sc.Bytes(), &hdr); err != nil {
		return ref, fmt.Errorf("%s:1: %w", path, err)
	}
	ref.Prompt, ref.Feed, ref.NVocab, ref.Stride = hdr.Prompt, hdr.Feed, hdr.NVocab, max(hdr.Stride, 1)
	nLogits := (ref.NVocab + ref.Stride - 1) / ref.Stride
	for line := 2; sc.Scan(); line++ {
		var st struct {
			Step   int       `json:"step"`
			Logits []float32 `json:"logits"`
		}
		if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
			return ref, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if st.Step != len(ref.Steps) || len(st.Logits) != nLogits {
			return ref, fmt.Errorf("%s:%d: step %d with %d logits, want step %d with %d", path, line, st.Step, len(st.Logits), len(ref.Steps), nLogits)
		}
		ref.Steps = append(ref.Steps, st.Logits)
	}
	if err := sc.Err(); err != nil {
		return ref, fmt.Errorf("%s: %w", path, err)
	}
	if len(ref.Prompt) == 0 || len(ref.Steps) == 0 || len(ref.Feed) < len(ref.Steps)-1 {
		return ref, fmt.Errorf("%s: %d prompt tokens, %d fed, %d steps", path, len(ref.Prompt), len(ref.Feed), len(ref.Steps))
	}
	return ref, nil
}

// llamaCppBackend is a backend to check and whether it multiplies float32
// activations throughout (and so is held to the dequant/ files).
type llamaCppBackend struct {
	native.Backend
	float bool
}

// llamaCppBackends returns single-threaded backends to check, closed when
// t ends: the Go backend always (as NewGo makes it, and as NewGoFloat does,
// without the 8-bit activations of its matrix-vector products), the C
// kernels when their library is built.
func llamaCppBackends(t *testing.T) []llamaCppBackend {
	bs := []llamaCppBackend{{native.NewGo(1), false}, {native.NewGoFloat(1), true}}
	if c, err := native.LoadCPU(1); err == nil {
		bs = append(bs, llamaCppBackend{c, false})
	} else if !errors.Is(err, native.ErrUnavailable) {
		require.NoError(t, err)
	}
	t.Cleanup(func() {
		for _, b := range bs {
			b.Close()
		}
	})
	return bs
}

// TestLlamaCpp regenerates the synthetic model of each reference file
// (<shape>-<type>.jsonl, seed 1), prefills the prompt as one batch, feeds
// the listed tokens one at a time and checks every logit of every step
// against llama.cpp's run (testdata/llamacpp/README.md) and, for the Go
// backend, against its run on the dequantized weights (dequant/, when
// present). The prompts are longer than tiny Gemma 3's sliding window of
// 16, so its local layers slide during both prefill and decode.
func TestLlamaCpp(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(llamaCppDir, "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no reference files in %s", llamaCppDir)
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkLlamaCpp(t, name)
		})
	}
}

// checkLlamaCpp checks the model of reference file name.
func checkLlamaCpp(t *testing.T, name string) {
	cut := strings.LastIndexByte(name, '-')
	require.Positive(t, cut, "file name %s.jsonl is not <shape>-<type>.jsonl", name)
	shape, typeName := name[:cut], name[cut+1:]
	tol, ok := llamaCppTol[typeName]
	require.True(t, ok, "%s.jsonl: no tolerance for type %q", name, typeName)
	typ, mix, err := synth.ParseType(typeName)
	require.NoError(t, err)
	ref, err := readLlamaCppRef(filepath.Join(llamaCppDir, name+".jsonl"))
	require.NoError(t, err)
	var deq *llamaCppRef
	if path := filepath.Join(llamaCppDir, "dequant", name+".jsonl"); !errors.Is(statErr(path), os.ErrNotExist) {
		r, err := readLlamaCppRef(path)
		require.NoError(t, err)
		require.Equal(t, ref.Prompt, r.Prompt, path)
		require.Equal(t, ref.Feed, r.Feed, path)
		require.Len(t, r.Steps, len(ref.Steps), path)
		deq = &r
	}

	model := filepath.Join(t.TempDir(), "m.gguf")
	require.NoError(t, synth.WriteFile(model, shape, synth.Options{Seed: 1, Type: typ, Mix: mix}))
	type run struct {
		llamaCppBackend
		interleaved bool // the file read privately: weights interleaved where b has the kernels
	}
	var runs []run
	for _, lb := range llamaCppBackends(t) {
		runs = append(runs, run{lb, false})
		if ib, ok := lb.Backend.(native.Interleaver); ok && !lb.float && ib.Interleaves(ggml.Q8_0) && typ != ggml.F32 && typ != ggml.BF16 {
			runs = append(runs, run{lb, true})
		}
	}
	for _, r := range runs {
		b, isFloat := r.Backend, r.float
		name := b.Name()
		if isFloat {
			name += " (float activations)"
		}
		open := gguf.Open
		if r.interleaved {
			name += " (interleaved)"
			open = readPrivate
		}
		m := openModelWith(t, model, b, open)
		p := m.Params()
		require.Equal(t, ref.NVocab, p.VocabSize)
		// 512 positions, as llama.cpp's n_ctx: Phi-3 picks its RoPE factors by it.
		st, err := NewState(m, llamaCppCtx, len(ref.Prompt), ggml.F32)
		require.NoError(t, err)
		logits := make([]float32, p.VocabSize)
		worst, worstDeq := 0.0, 0.0
		for step, want := range ref.Steps {
			if step == 0 {
				m.Forward(st, Tokens(ref.Prompt), logits)
			} else {
				m.Forward(st, Tokens(ref.Feed[step-1:step]), logits)
			}
			worst = max(worst, requireLogits(t, logits, want, ref.Stride, tol, "%s backend, step %d", name, step))
			if deq != nil && isFloat {
				worstDeq = max(worstDeq, requireLogits(t, logits, deq.Steps[step], deq.Stride, llamaCppDequantTol,
					"%s backend, step %d, against dequant/", name, step))
			}
		}
		t.Logf("%s backend: max |Δlogit| %.2g over %d steps (tolerance %g)", name, worst, len(ref.Steps), tol)
		if deq != nil && isFloat {
			t.Logf("%s backend: max |Δlogit| %.2g against dequant/ (tolerance %g)", name, worstDeq, llamaCppDequantTol)
		}
	}
}

// requireLogits fails t unless every logit of token j·stride is within tol
// of want[j], naming the worst one; it returns the largest difference.
func requireLogits(t *testing.T, got, want []float32, stride int, tol float64, format string, args ...any) float64 {
	t.Helper()
	d, at := 0.0, 0
	for j, w := range want {
		if e := math.Abs(float64(got[j*stride] - w)); !(e <= d) {
			d, at = e, j
		}
	}
	require.LessOrEqual(t, d, tol, "%s: logit %d is %g, llama.cpp %g", fmt.Sprintf(format, args...), at*stride, got[at*stride], want[at])
	return d
}

// statErr returns os.Stat's error for path.
func statErr(path string) error {
	_, err := os.Stat(path)
	return err
}
