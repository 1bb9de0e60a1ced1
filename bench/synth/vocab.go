package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/litert-go/litert-go/models/gguf"
)

// Token types of tokenizer.ggml.token_type, as llama.cpp numbers them.
const (
	tokNormal  int32 = 1
	tokUnknown int32 = 2
	tokControl int32 = 3
	tokByte    int32 = 6
)

// vocabSeed seeds the synthetic vocabularies; they do not depend on
// Options.Seed, so every model of a shape shares its tokenizer.
const vocabSeed = 0x70c3b

// maxPieceRunes bounds the length of synthetic merged tokens.
const maxPieceRunes = 12

// synthVocab returns the tokenizer metadata of a synthetic vocabulary of n
// tokens for style v: a byte-level BPE ("gpt2") or a SentencePiece ("llama")
// vocabulary, with the family's special tokens and chat template.
func synthVocab(v vocabStyle, name string, n int) ([]gguf.KV, error) {
	switch v {
	case vocabGemma:
		return spmVocab(n)
	case vocabLlama3:
		specials := []string{"<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"}
		return bpeVocab(n, "llama-bpe", specials, 0, 4, true, llama3Template)
	default:
		pre := "qwen2"
		if strings.HasPrefix(strings.TrimPrefix(name, "tiny-"), "smollm") {
			pre = "smollm"
		}
		specials := []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"}
		return bpeVocab(n, pre, specials, 0, 2, false, chatMLTemplate)
	}
}

// gpt2Bytes returns GPT-2's byte-to-unicode table: printable bytes stand for
// themselves, the others for code points from 256 up.
func gpt2Bytes() [256]string {
	var t [256]string
	next := rune(256)
	for b := range 256 {
		if ('!' <= b && b <= '~') || (0xA1 <= b && b <= 0xAC) || (0xAE <= b && b <= 0xFF) {
			t[b] = string(rune(b))
		} else {
			t[b] = string(next)
			next++
		}
	}
	return t
}

// bpeVocab builds a byte-level BPE vocabulary: the 256 byte tokens, merges
// of letters into word-like pieces until n tokens, and the special tokens at
// the end. bos and eos index specials.
func bpeVocab(n int, pre string, specials []string, bos, eos int, addBOS bool, template string) ([]gguf.KV, error) {
	nMerges := n - 256 - len(specials)
	if nMerges < 0 {
		return nil, fmt.Errorf("synth: vocabulary of %d tokens is smaller than 256 bytes + %d special tokens", n, len(specials))
	}
	bytes := gpt2Bytes()
	tokens := make([]string, 0, n)
	types := make([]int32, 0, n)
	for _, b := range bytes {
		tokens = append(tokens, b)
		types = append(types, tokNormal)
	}
	// Word pieces are built from letters; a leading Ġ (space) marks a word start.
	var letters []string
	for c := 'a'; c <= 'z'; c++ {
		letters = append(letters, string(c))
	}
	for c := 'A'; c <= 'Z'; c++ {
		letters = append(letters, string(c))
	}
	space := bytes[' ']
	pieces := append([]string{space}, letters...) // candidates for the left side
	merges := make([]string, 0, nMerges)
	have := make(map[string]bool, n)
	for _, t := range tokens {
		have[t] = true
	}
	rng := rand.New(rand.NewPCG(vocabSeed, uint64(n)))
	for len(merges) < nMerges {
		left := pieces[rng.IntN(len(pieces))]
		var right string
		if rng.IntN(4) == 0 && len(pieces) > 64 {
			right = pieces[rng.IntN(len(pieces))]
			if strings.HasPrefix(right, space) {
				continue
			}
		} else {
			right = letters[rng.IntN(26)] // lowercase mostly
		}
		tok := left + right
		if have[tok] || len([]rune(tok)) > maxPieceRunes {
			continue
		}
		have[tok] = true
		tokens = append(tokens, tok)
		types = append(types, tokNormal)
		merges = append(merges, left+" "+right)
		pieces = append(pieces, tok)
	}
	first := len(tokens)
	for _, s := range specials {
		tokens = append(tokens, s)
		types = append(types, tokControl)
	}
	return []gguf.KV{
		{Key: "tokenizer.ggml.model", Value: gguf.String("gpt2")},
		{Key: "tokenizer.ggml.pre", Value: gguf.String(pre)},
		{Key: "tokenizer.ggml.tokens", Value: gguf.Strings(tokens)},
		{Key: "tokenizer.ggml.token_type", Value: gguf.Int32s(types)},
		{Key: "tokenizer.ggml.merges", Value: gguf.Strings(merges)},
		{Key: "tokenizer.ggml.bos_token_id", Value: gguf.Uint32(uint32(first + bos))},
		{Key: "tokenizer.ggml.eos_token_id", Value: gguf.Uint32(uint32(first + eos))},
		{Key: "tokenizer.ggml.padding_token_id", Value: gguf.Uint32(uint32(first))},
		{Key: "tokenizer.ggml.add_bos_token", Value: gguf.Bool(addBOS)},
		{Key: "tokenizer.chat_template", Value: gguf.String(template)},
	}, nil
}

// spmVocab builds a Gemma-style SentencePiece vocabulary: special tokens
// first (pad 0, eos 1, bos 2, unk 3), the 256 <0xXX> byte tokens, then
// pieces with decreasing scores, each the concatenation of two earlier ones.
func spmVocab(n int) ([]gguf.KV, error) {
	specials := []string{"<pad>", "<eos>", "<bos>", "<unk>", "<mask>", "<start_of_turn>", "<end_of_turn>"}
	if n < len(specials)+256+27 {
		return nil, fmt.Errorf("synth: vocabulary of %d tokens is too small for SentencePiece (need %d)", n, len(specials)+256+27)
	}
	tokens := make([]string, 0, n)
	types := make([]int32, 0, n)
	scores := make([]float32, 0, n)
	for i, s := range specials {
		tokens = append(tokens, s)
		t := tokControl
		if i == 3 {
			t = tokUnknown
		}
		types = append(types, t)
		scores = append(scores, 0)
	}
	for b := range 256 {
		tokens = append(tokens, fmt.Sprintf("<0x%02X>", b))
		types = append(types, tokByte)
		scores = append(scores, 0)
	}
	have := make(map[string]bool, n)
	addPiece := func(p string) {
		have[p] = true
		tokens = append(tokens, p)
		types = append(types, tokNormal)
		scores = append(scores, -float32(len(scores)))
	}
	const space = "▁"
	var letters []string
	addPiece(space)
	for c := 'a'; c <= 'z'; c++ {
		letters = append(letters, string(c))
		addPiece(string(c))
	}
	pieces := append([]string{space}, letters...)
	rng := rand.New(rand.NewPCG(vocabSeed, uint64(n)))
	for len(tokens) < n {
		left := pieces[rng.IntN(len(pieces))]
		right := letters[rng.IntN(len(letters))]
		if rng.IntN(4) == 0 {
			if r := pieces[rng.IntN(len(pieces))]; !strings.HasPrefix(r, space) {
				right = r
			}
		}
		p := left + right
		if have[p] || len([]rune(p)) > maxPieceRunes {
			continue
		}
		addPiece(p)
		pieces = append(pieces, p)
	}
	return []gguf.KV{
		{Key: "tokenizer.ggml.model", Value: gguf.String("llama")},
		{Key: "tokenizer.ggml.pre", Value: gguf.String("default")},
		{Key: "tokenizer.ggml.tokens", Value: gguf.Strings(tokens)},
		{Key: "tokenizer.ggml.scores", Value: gguf.Float32s(scores)},
		{Key: "tokenizer.ggml.token_type", Value: gguf.Int32s(types)},
		{Key: "tokenizer.ggml.bos_token_id", Value: gguf.Uint32(2)},
		{Key: "tokenizer.ggml.eos_token_id", Value: gguf.Uint32(1)},
		{Key: "tokenizer.ggml.unknown_token_id", Value: gguf.Uint32(3)},
		{Key: "tokenizer.ggml.padding_token_id", Value: gguf.Uint32(0)},
		{Key: "tokenizer.ggml.add_bos_token", Value: gguf.Bool(true)},
		{Key: "tokenizer.ggml.add_eos_token", Value: gguf.Bool(false)},
		{Key: "tokenizer.ggml.add_space_prefix", Value: gguf.Bool(false)},
		{Key: "tokenizer.chat_template", Value: gguf.String(gemmaTemplate)},
	}, nil
}

// vocabFrom copies every tokenizer.* key of the GGUF file at path and
// returns them with the vocabulary size.
func vocabFrom(path string) ([]gguf.KV, int, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("synth: vocab: %w", err)
	}
	defer f.Close()
	tokens, err := f.Strings("tokenizer.ggml.tokens")
	if err != nil {
		return nil, 0, fmt.Errorf("synth: vocab %s: %w", path, err)
	}
	if len(tokens) == 0 {
		return nil, 0, fmt.Errorf("synth: vocab %s: tokenizer.ggml.tokens is empty", path)
	}
	var kvs []gguf.KV
	for _, kv := range f.KV {
		if strings.HasPrefix(kv.Key, "tokenizer.") {
			kvs = append(kvs, kv) // decoded values do not refer to the mapping
		}
	}
	return kvs, len(tokens), nil
}
