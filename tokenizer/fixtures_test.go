package tokenizer

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/stretchr/testify/require"
)

const vocabDir = "../../shared/testdata/vocab"

// loadedVocabs caches fixture tokenizers across tests (a Tokenizer is
// immutable and safe to share): name → *Tokenizer.
var loadedVocabs sync.Map

// loadVocab opens a fixture vocabulary, skipping the test when absent.
func loadVocab(t testing.TB, name string) *Tokenizer {
	t.Helper()
	if tok, ok := loadedVocabs.Load(name); ok {
		return tok.(*Tokenizer)
	}
	path := filepath.Join(vocabDir, "ggml-vocab-"+name+".gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("vocab fixture %s absent: %v", path, err)
	}
	f, err := gguf.Open(path)
	require.NoError(t, err)
	defer f.Close()
	tok, err := FromGGUF(f)
	require.NoError(t, err, path)
	loadedVocabs.Store(name, tok)
	return tok
}

type fixtureCase struct {
	text string
	ids  []int32
}

// readFixture reads the .inp/.out pair as llama.cpp's test-tokenizer-0 does.
func readFixture(t testing.TB, name string) []fixtureCase {
	t.Helper()
	base := filepath.Join(vocabDir, "ggml-vocab-"+name+".gguf")
	inp, err := os.ReadFile(base + ".inp")
	require.NoError(t, err)
	out, err := os.ReadFile(base + ".out")
	require.NoError(t, err)
	sep := []byte("\n__ggml_vocab_test__\n")
	var texts []string
	for pos := 0; pos < len(inp); {
		i := bytes.Index(inp[pos:], sep)
		if i < 0 {
			texts = append(texts, string(inp[pos:]))
			break
		}
		texts = append(texts, string(inp[pos:pos+i]))
		pos += i + len(sep)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	require.Len(t, lines, len(texts), "%s: .out lines vs .inp cases", name)
	cases := make([]fixtureCase, len(texts))
	for i, line := range lines {
		cases[i].text = texts[i]
		for _, f := range strings.Fields(line) {
			v, err := strconv.Atoi(f)
			require.NoError(t, err, "%s.out line %d", name, i+1)
			cases[i].ids = append(cases[i].ids, int32(v))
		}
	}
	return cases
}

var fixtureVocabs = []string{
	"llama-spm", "qwen2", "llama-bpe", "gpt-2", "phi-3", "qwen35", "mpt", "starcoder", "refact",
	"command-r", "falcon", "deepseek-llm", "deepseek-coder", "gemma-4", "bert-bge",
}

func TestFixtures(t *testing.T) {
	for _, name := range fixtureVocabs {
		t.Run(name, func(t *testing.T) {
			tok := loadVocab(t, name)
			cases := readFixture(t, name)
			pass := 0
			for i, c := range cases {
				got := tok.Encode(c.text, EncodeOptions{})
				if len(got) == 0 && len(c.ids) == 0 || equalIDs(got, c.ids) {
					pass++
					continue
				}
				t.Errorf("case %d %q:\n got  %v\n want %v", i, c.text, got, c.ids)
			}
			t.Logf("%s: %d/%d cases identical", name, pass, len(cases))
		})
	}
}

func equalIDs(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLoadAllVocabs loads every vocabulary fixture, including the two
// without .inp/.out pairs, and checks basic invariants.
func TestLoadAllVocabs(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(vocabDir, "ggml-vocab-*.gguf"))
	require.NoError(t, err)
	if len(paths) == 0 {
		t.Skipf("no vocab fixtures in %s", vocabDir)
	}
	for _, p := range paths {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "ggml-vocab-"), ".gguf")
		t.Run(name, func(t *testing.T) {
			tok := loadVocab(t, name)
			require.Greater(t, tok.VocabSize(), 0)
			for _, id := range tok.EndOfGeneration() {
				require.True(t, tok.valid(id))
			}
			ids := tok.Encode("Hello world, 123 héllo 世界 🦙\n", EncodeOptions{AddSpecial: true})
			require.NotEmpty(t, ids)
			_, err := tok.Decode(ids)
			require.NoError(t, err)
		})
	}
}
