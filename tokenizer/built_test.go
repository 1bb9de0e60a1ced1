package tokenizer

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/tokenizer/internal/testvocab"
	"github.com/stretchr/testify/require"
)

// loadBuilt builds a testvocab vocabulary from a fixture, in memory, and
// loads it; it skips when the fixture is absent.
func loadBuilt(t testing.TB, base string, build func(*gguf.Model) (*gguf.Model, error)) *Tokenizer {
	t.Helper()
	path := filepath.Join(vocabDir, base)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("vocab fixture %s absent: %v", path, err)
	}
	f, err := gguf.Open(path)
	require.NoError(t, err)
	defer f.Close()
	m, err := build(f.Model())
	require.NoError(t, err)
	tok, err := FromGGUF(reparse(t, m))
	require.NoError(t, err)
	return tok
}

// testBuilt compares a testvocab vocabulary with llama.cpp's ids on the
// corpus and the model's own cases (testdata/<name>_ids.json, from gen).
func testBuilt(t *testing.T, name, model, base string, build func(*gguf.Model) (*gguf.Model, error)) *Tokenizer {
	tok := loadBuilt(t, base, build)
	require.Equal(t, model, tok.Model())
	ref := readRef(t, filepath.Join(refDir(), name+"_ids.json"))
	pass, total := checkRef(t, tok, ref.Corpus, ref.Groups[0].IDs)
	require.Positive(t, total)
	t.Logf("%s: %d/%d cases identical", name, pass, total)
	return tok
}

func TestPLaMo2(t *testing.T) {
	tok := testBuilt(t, "plamo2", "plamo2", "ggml-vocab-llama-spm.gguf", testvocab.PLaMo2)
	require.False(t, tok.AddBOS(), "llama.cpp's PLaMo-2 adds no BOS")
	require.Equal(t, "<|plamo:bos|>", tok.TokenText(tok.BOS()))
	// Decoding gives the text back: tokens are copied, byte tokens give
	// their byte, and a leading byte order mark is dropped.
	for _, s := range []string{"Hello  wörld\n\ttabs ꙁ𝔘 🦙 \U0010ffff", "\ufeffBOM"} {
		got, err := tok.Decode(tok.Encode(s, EncodeOptions{AddSpecial: true}))
		require.NoError(t, err)
		want := s
		if s[0] == 0xef {
			want = s[3:]
		}
		require.Equal(t, want, got)
	}
}

func TestPLaMo2Score(t *testing.T) {
	for _, c := range []struct {
		in   float32
		want int32
	}{
		{-1.23456, -12346}, {0.00006, 1}, {0.00005, 0}, {-1000, plamo2Unknown}, {-2000, plamo2Invalid},
		{float32(math.NaN()), plamo2Invalid}, {float32(math.Inf(-1)), plamo2Invalid}, {-1e9, math.MinInt32},
	} {
		require.Equal(t, c.want, plamo2Score(c.in), "score %v", c.in)
	}
}

func TestPLaMo2MissingByte(t *testing.T) {
	_, err := FromGGUF(rewrite(t, "llama-spm", func(m *gguf.Model) {
		p, err := testvocab.PLaMo2(m)
		require.NoError(t, err)
		v, _ := p.Get("tokenizer.ggml.token_type")
		v.Data.([]int32)[3+0x41] = 1 // <0x41> no longer a byte token
		*m = *p
	}))
	require.ErrorContains(t, err, "no byte token <0x41>")
}

func TestPLaMo2Limit(t *testing.T) {
	_, err := FromGGUF(rewrite(t, "llama-spm", func(m *gguf.Model) {
		p, err := testvocab.PLaMo2(m)
		require.NoError(t, err)
		v, _ := p.Get("tokenizer.ggml.tokens")
		v.Data.([]string)[1000] = strings.Repeat("ab", 1<<13)
		*m = *p
	}))
	require.ErrorContains(t, err, "plamo2 vocabulary too large to index: token 1000 has 16384 code points")
}

func TestHybridDNA(t *testing.T) {
	tok := testBuilt(t, "hybriddna", "hybriddna", "ggml-vocab-qwen2.gguf", testvocab.HybridDNA)
	// k-mers are found by their text with the marker, and shown without it.
	id := tok.Find("GATTAC" + testvocab.DNAMarker)
	require.Positive(t, id)
	require.Equal(t, "GATTAC", tok.TokenText(id))
	s, err := tok.Decode(tok.Encode("x <dna>gattacaCC</dna>", EncodeOptions{}))
	require.NoError(t, err)
	require.Equal(t, "x GATTACACCAAA", s, "k-mers decode to their bases (<dna> is a control token)")
}

// FuzzPLaMo2 checks PLaMo-2's losslessness on arbitrary input: every code
// point is a token or its bytes, so rendering the ids (control tokens as
// their text) gives the text back as llama.cpp decodes it to code points
// (invalid bytes as U+FFFD), less a leading byte order mark; and the
// HybridDNA k-mers stay in the vocabulary.
func FuzzPLaMo2(f *testing.F) {
	for _, s := range adversarial {
		f.Add(s)
	}
	f.Add("\ufeff<|plamo:bos|>[PAD1] x\xf4\x90\x80\x80\xff<dna>acgtN</dna>")
	plamo := loadBuilt(f, "ggml-vocab-llama-spm.gguf", testvocab.PLaMo2)
	dna := loadBuilt(f, "ggml-vocab-qwen2.gguf", testvocab.HybridDNA)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := plamo.DecodeSpecial(plamo.Encode(s, EncodeOptions{}))
		require.NoError(t, err)
		want, _ := plamo2Text(s)
		require.Equal(t, strings.TrimPrefix(want, "\ufeff"), got)
		for _, id := range dna.Encode(s, EncodeOptions{ParseSpecial: true}) {
			require.True(t, dna.valid(id), "id %d", id)
		}
	})
}
