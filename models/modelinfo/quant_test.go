package modelinfo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/models/quantize"
)

// TestQuantLabel: the label is general.file_type's name as llama.cpp's
// llama-quantize wrote it, not the most common tensor type.
func TestQuantLabel(t *testing.T) {
	for file, want := range map[string]string{
		"stories260K.gguf":      "F32", // no general.file_type: the weights' type
		"stories260K-F16.gguf":  "F16",
		"stories260K-Q8_0.gguf": "Q8_0",
		"stories260K-Q4_0.gguf": "Q4_0",
	} {
		path := filepath.Join(testdata, "models", file)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("fixture absent: %s", path)
		}
		info, err := Load(path)
		require.NoError(t, err)
		assert.Equal(t, want, info.Quant, file)
	}

	// A Q4_K_M mix of a model whose rows (64, 172 wide) are not multiples
	// of the 256-wide K blocks: every tensor falls back, as in llama.cpp,
	// and still the file is a Q4_K_M file.
	in := filepath.Join(testdata, "models", "stories260K.gguf")
	out := filepath.Join(t.TempDir(), "q4km.gguf")
	rep, err := quantize.File(context.Background(), in, out, quantize.Options{Type: quantize.MostlyQ4_K_M})
	require.NoError(t, err)
	require.Positive(t, rep.Fallbacks)
	info, err := Load(out)
	require.NoError(t, err)
	assert.Equal(t, int64(15), info.FileType)
	assert.Equal(t, "Q4_K_M", info.Quant)
	assert.NotContains(t, info.TensorTypes, "Q4_K", "no tensor is Q4_K")
	assert.Regexp(t, `^Q4_K_M \((Q5_0|Q8_0|Q4_0|Q5_1|Q4_1|F16|F32) \d+%(, [A-Z0-9_]+ \d+%)*\)$`, info.QuantDetail())
}

// TestFileTypeNames checks the names against llama.cpp's enum
// llama_ftype numbering (include/llama.h) and the mixes quantize writes.
func TestFileTypeNames(t *testing.T) {
	for ft, want := range map[int64]string{0: "F32", 1: "F16", 2: "Q4_0", 7: "Q8_0", 10: "Q2_K", 12: "Q3_K_M", 15: "Q4_K_M", 17: "Q5_K_M", 18: "Q6_K", 30: "IQ4_XS", 32: "BF16", 38: "MXFP4_MOE", 4: "", 33: "", 99: ""} {
		assert.Equal(t, want, FileTypeName(ft), "file type %d", ft)
	}
	for _, name := range quantize.FileTypeNames() {
		ft, err := quantize.ParseFileType(name)
		require.NoError(t, err)
		assert.Equal(t, strings.ToUpper(name), FileTypeName(int64(ft)), "quantize's %s", name)
	}
}
