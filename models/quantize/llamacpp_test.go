package quantize_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/models/quantize"
)

// TestMixesMatchLlamaQuantize quantizes synthetic tiny models with the mixes
// llama-quantize makes without an importance matrix and requires llama.cpp's
// tensor types and the very same file (its SHA-256). testdata/gen/gen.sh ran
// llama_model_quantize on the same synth files to write the references.
func TestMixesMatchLlamaQuantize(t *testing.T) {
	for _, shape := range []string{"tiny-gemma3-270m", "tiny-qwen3-0.6b"} {
		src := filepath.Join(t.TempDir(), shape+".gguf")
		require.NoError(t, synth.WriteFile(src, shape, synth.Options{Seed: 1, Type: ggml.F32}))
		for _, mix := range []string{"q2_k", "q3_k_s", "q3_k_m", "q3_k_l", "iq4_nl", "iq4_xs"} {
			t.Run(shape+"/"+mix, func(t *testing.T) {
				wantSum, wantTypes := readReference(t, filepath.Join("testdata", "llamacpp", shape+"-"+mix+".txt"))
				ft, err := quantize.ParseFileType(mix)
				require.NoError(t, err)
				out := filepath.Join(t.TempDir(), "out.gguf")
				_, err = quantize.File(context.Background(), src, out, quantize.Options{Type: ft})
				require.NoError(t, err)
				f, err := gguf.Open(out)
				require.NoError(t, err)
				defer f.Close()
				require.Len(t, f.Tensors, len(wantTypes))
				for i, ti := range f.Tensors {
					assert.Equal(t, wantTypes[i], ti.Name+" "+strings.ToLower(ti.Type.String()), "tensor %d", i)
				}
				b, err := os.ReadFile(out)
				require.NoError(t, err)
				sum := sha256.Sum256(b)
				assert.Equal(t, wantSum, hex.EncodeToString(sum[:]), "the file is byte-identical to llama-quantize's")
			})
		}
	}
}

// readReference reads a gen.sh reference: "sha256 HEX" then "name type"
// lines.
func readReference(t *testing.T, path string) (string, []string) {
	t.Helper()
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	require.True(t, sc.Scan(), "%s is empty", path)
	sum, ok := strings.CutPrefix(sc.Text(), "sha256 ")
	require.True(t, ok, "%s: first line %q", path, sc.Text())
	var types []string
	for sc.Scan() {
		types = append(types, strings.ToLower(sc.Text()))
	}
	require.NoError(t, sc.Err())
	return sum, types
}
