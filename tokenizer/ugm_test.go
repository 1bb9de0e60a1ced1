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

// TestUGMFromSPM runs a Unigram vocabulary built in memory from the
// llama-spm fixture (testvocab.UGM, no charsmap) against llama.cpp; the
// charsmap normalization is checked by TestUGMNomic when llama.cpp's
// nomic-bert-moe vocabulary is present.
func TestUGMFromSPM(t *testing.T) {
	tok := testBuilt(t, "ugm-spm", "t5", "ggml-vocab-llama-spm.gguf", testvocab.UGM)
	// Decoding gives the text back with runs of spaces folded, as
	// remove_extra_whitespaces says, and the prefix space removed.
	s, err := tok.Decode(tok.Encode("Hello   world  again", EncodeOptions{}))
	require.NoError(t, err)
	require.Equal(t, "Hello world again", s)
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
