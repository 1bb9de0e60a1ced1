package tokenizer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/tokenizer/internal/testvocab"
	"github.com/stretchr/testify/require"
)

// llamaModels is llama.cpp's models folder (from the node-llama-cpp bundle),
// whose vocabularies are not committed here.
const llamaModels = "../../llama.cpp/models"

// testOtherModel compares a vocabulary of another tokenizer model with
// llama.cpp's ids on the corpus.
func testOtherModel(t *testing.T, vocabPath, refPath, model string) *Tokenizer {
	if _, err := os.Stat(vocabPath); err != nil {
		t.Skipf("vocabulary %s absent (see tokenizer/testdata/gen): %v", vocabPath, err)
	}
	ref := readRef(t, refPath)
	f, err := gguf.Open(vocabPath)
	require.NoError(t, err)
	defer f.Close()
	tok, err := FromGGUF(f)
	require.NoError(t, err)
	require.Equal(t, model, tok.Model())
	pass, total := checkRef(t, tok, ref.Corpus, ref.Groups[0].IDs)
	t.Logf("%s: %d/%d cases identical", filepath.Base(vocabPath), pass, total)
	return tok
}

func TestUGMNomic(t *testing.T) {
	testOtherModel(t, filepath.Join(llamaModels, "ggml-vocab-nomic-bert-moe.gguf"), filepath.Join(refDir(), "nomic-bert-moe_ids.json"), "t5")
}

// TestUGMSmall runs the committed cut of the XLM-RoBERTa Unigram
// vocabulary (with its charsmap) against llama.cpp.
func TestUGMSmall(t *testing.T) {
	tok := testOtherModel(t, "testdata/ugm-small.gguf", filepath.Join(refDir(), "ugm-small_ids.json"), "t5")
	// Decoding gives the normalized text back (NFKC, ▁ as spaces, the
	// prefix space removed).
	ids := tok.Encode("Hello  wörld ｶﾀｶﾅ", EncodeOptions{})
	s, err := tok.Decode(ids)
	require.NoError(t, err)
	require.Equal(t, "Hello wörld カタカナ", s)
}

func TestRWKVSmall(t *testing.T) {
	tok := testBuilt(t, "rwkv-small", "rwkv", "ggml-vocab-qwen2.gguf", testvocab.RWKV)
	for _, s := range []string{"Hello world\n", "tabs\t\\ and \x00\xff bytes", "日本語"} {
		ids := tok.Encode(s, EncodeOptions{AddSpecial: true})
		got, err := tok.Decode(ids)
		require.NoError(t, err)
		require.Equal(t, s, got, "RWKV round-trips bytes")
	}
}

// TestFixtureVocabsCorpus runs the fixture vocabularies of
// ../shared/testdata/vocab (SPM, BPE, WPM) on the corpus against llama.cpp.
func TestFixtureVocabsCorpus(t *testing.T) {
	refs, err := filepath.Glob(filepath.Join(refDir(), "fixtures", "*_ids.json"))
	require.NoError(t, err)
	require.NotEmpty(t, refs)
	for _, r := range refs {
		name := strings.TrimSuffix(filepath.Base(r), "_ids.json")
		t.Run(name, func(t *testing.T) {
			tok := loadVocab(t, name)
			ref := readRef(t, r)
			pass, total := checkRef(t, tok, ref.Corpus, ref.Groups[0].IDs)
			t.Logf("%s (%s): %d/%d cases identical", name, tok.Model(), pass, total)
		})
	}
}
