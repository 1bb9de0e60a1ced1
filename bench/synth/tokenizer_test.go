package synth

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/tokenizer"
)

// TestTokenizerLoads checks the synthetic vocabularies with the project's
// tokenizer: text round-trips, ids stay below n_vocab, special tokens of
// the chat template are single tokens.
func TestTokenizerLoads(t *testing.T) {
	const text = "Hello world, this is a synthetic vocabulary test: 123 ünïcödé ✓"
	for _, shape := range tinyShapes() {
		t.Run(shape, func(t *testing.T) {
			f := writeOpen(t, shape, Options{})
			tok, err := tokenizer.FromGGUF(f)
			require.NoError(t, err)
			require.Equal(t, 512, tok.VocabSize())
			ids := tok.Encode(text, tokenizer.EncodeOptions{})
			require.NotEmpty(t, ids)
			assert.Less(t, len(ids), len(text), "merges shorten the text")
			for _, id := range ids {
				require.GreaterOrEqual(t, id, int32(0))
				require.Less(t, id, int32(512))
			}
			got, err := tok.Decode(ids)
			require.NoError(t, err)
			assert.Equal(t, text, got)
			assert.True(t, tok.IsControl(tok.EOS()))
			for _, special := range []string{"<|im_end|>", "<|eot_id|>", "<end_of_turn>"} {
				if id := tok.Find(special); id >= 0 {
					ids := tok.Encode("a"+special+"b", tokenizer.EncodeOptions{ParseSpecial: true})
					assert.Contains(t, ids, id, special)
				}
			}
		})
	}
}
