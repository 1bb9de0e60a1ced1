package tokenizer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/litert-go/litert-go/models/gguf"
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
	testOtherModel(t, filepath.Join(llamaModels, "ggml-vocab-nomic-bert-moe.gguf"), "testdata/nomic-bert-moe_ids.json", "t5")
}
