package modelinfo

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/litert-go/litert-go/models/gguf"
)

// FuzzDescribe checks that any file gguf.Parse accepts can be described
// without a panic.
func FuzzDescribe(f *testing.F) {
	for _, name := range []string{"models/stories260K-Q4_0.gguf"} {
		if b, err := os.ReadFile(filepath.Join(testdata, name)); err == nil {
			f.Add(b)
		}
	}
	var buf bytes.Buffer
	m := &gguf.Model{KV: []gguf.KV{
		{Key: "general.architecture", Value: gguf.String("qwen3")},
		{Key: "qwen3.attention.head_count", Value: gguf.Int32s([]int32{4, 4})},
		{Key: "qwen3.attention.key_length", Value: gguf.Uint32(0)},
		{Key: "tokenizer.ggml.bos_token_id", Value: gguf.Float32(1)},
	}}
	if err := gguf.Write(&buf, m); err == nil {
		f.Add(buf.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		gf, err := gguf.Parse(data)
		if err != nil {
			return
		}
		info, err := Describe(gf)
		if err == nil {
			_ = info.SortedTypes()
		}
	})
}
