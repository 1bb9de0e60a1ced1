package tokenizer

import (
	"testing"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMergeStrategiesAgree checks that the quadratic merge used for short
// words and the priority-queue merge give identical results.
func TestMergeStrategiesAgree(t *testing.T) {
	corpus := makeCorpus(16 << 10)
	words := []string{}
	for i := 0; i+1 < len(corpus); i += 7 {
		words = append(words, corpus[i:min(len(corpus), i+1+i%45)])
	}
	words = append(words, adversarial...)

	bpe := loadVocab(t, "qwen2")
	st := bpe.getState(0)
	for _, w := range words {
		var ids, offs []int32
		for i := 0; i < len(w); i++ {
			ids = append(ids, bpe.bpe.byteSym[w[i]])
			offs = append(offs, int32(i))
		}
		if len(ids) == 0 {
			continue
		}
		offs = append(offs, int32(len(w)))
		a, ao := bpe.mergeSmall(st, append([]int32(nil), ids...), append([]int32(nil), offs...))
		a, ao = append([]int32(nil), a...), append([]int32(nil), ao...)
		b, bo := bpe.mergeHeap(st, append([]int32(nil), ids...), append([]int32(nil), offs...))
		require.Equal(t, a, b, "BPE merges of %q", w)
		require.Equal(t, ao, bo, "BPE offsets of %q", w)
	}

	spm := loadVocab(t, "llama-spm")
	for _, w := range words {
		text := appendEscaped([]byte(spaceMark), w)
		var start, size []int32
		for i := 0; i < len(text); {
			l := min(utf8Len(text[i]), len(text)-i)
			start = append(start, int32(i))
			size = append(size, int32(l))
			i += l
		}
		s1, z1 := append([]int32(nil), start...), append([]int32(nil), size...)
		n1 := spm.spmSmall(&st.spm, text, s1, z1)
		s2, z2 := append([]int32(nil), start...), append([]int32(nil), size...)
		n2 := spm.spmHeap(&st.spm, text, s2, z2)
		require.Equal(t, s1[:n1], s2[:n2], "SPM merges of %q", w)
		require.Equal(t, z1[:n1], z2[:n2], "SPM sizes of %q", w)
	}
}

// TestMergeResultMissingFromVocab follows llama.cpp when a merge produces a
// text that is not a token: the symbol still takes part in later merges,
// and if it survives, it falls back to one token per byte of its text
// (bytes without a single-byte token are dropped).
func TestMergeResultMissingFromVocab(t *testing.T) {
	orig := loadVocab(t, "gpt-2")
	the := orig.Find("Ġthe")
	require.GreaterOrEqual(t, the, int32(0))
	there := orig.Encode(" there", EncodeOptions{})
	require.Len(t, there, 1)

	f := rewrite(t, "gpt-2", func(m *gguf.Model) {
		v, _ := m.Get(keyTokens)
		toks := append([]string(nil), v.Data.([]string)...)
		toks[the] = "<renamed Ġthe>"
		m.Set(keyTokens, gguf.Strings(toks))
	})
	tok, err := FromGGUF(f)
	require.NoError(t, err)
	require.NotEmpty(t, tok.bpe.extras)
	assert.Equal(t, there, tok.Encode(" there", EncodeOptions{}), "merges through the missing text still apply")
	want := []int32{tok.Find("t"), tok.Find("h"), tok.Find("e")}
	assert.Equal(t, want, tok.Encode(" the", EncodeOptions{}))
}
