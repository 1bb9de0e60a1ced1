// Package testvocab builds the synthetic vocabularies the tokenizer tests
// and their reference generator (tokenizer/testdata/gen) share, from the
// fixture vocabularies of ../shared/testdata/vocab: tests build them in
// memory, the generator writes them for llama.cpp, so no GGUF is committed.
package testvocab

import (
	"fmt"
	"strings"

	"github.com/litert-go/litert-go/models/gguf"
)

// GGUF token types (llama.cpp's llama_token_type).
const (
	typeNormal  = 1
	typeControl = 3
	typeUnused  = 5
	typeByte    = 6
)

// vocab is the tokenizer arrays of a model.
type vocab struct {
	noScores bool // the model has no tokenizer.ggml.scores
	tokens   []string
	scores   []float32
	types    []int32
}

func read(m *gguf.Model) (*vocab, error) {
	v := &vocab{}
	tv, ok := m.Get("tokenizer.ggml.tokens")
	if !ok {
		return nil, fmt.Errorf("tokenizer.ggml.tokens is missing")
	}
	toks, ok := tv.Data.([]string)
	if !ok {
		return nil, fmt.Errorf("tokenizer.ggml.tokens is %s, want an array of strings", tv.Type)
	}
	v.tokens = append([]string(nil), toks...)
	if sv, ok := m.Get("tokenizer.ggml.scores"); ok {
		sc, ok := sv.Data.([]float32)
		if !ok || len(sc) != len(toks) {
			return nil, fmt.Errorf("tokenizer.ggml.scores: want %d float32", len(toks))
		}
		v.scores = append([]float32(nil), sc...)
	} else {
		v.scores, v.noScores = make([]float32, len(toks)), true
	}
	yv, ok := m.Get("tokenizer.ggml.token_type")
	if !ok {
		return nil, fmt.Errorf("tokenizer.ggml.token_type is missing")
	}
	ty, ok := yv.Data.([]int32)
	if !ok || len(ty) != len(toks) {
		return nil, fmt.Errorf("tokenizer.ggml.token_type: want %d int32", len(toks))
	}
	v.types = append([]int32(nil), ty...)
	return v, nil
}

func (v *vocab) add(text string, score float32, typ int32) int {
	v.tokens = append(v.tokens, text)
	v.scores = append(v.scores, score)
	v.types = append(v.types, typ)
	return len(v.tokens) - 1
}

func (v *vocab) write(m *gguf.Model) {
	m.Set("tokenizer.ggml.tokens", gguf.Strings(v.tokens))
	if !v.noScores {
		m.Set("tokenizer.ggml.scores", gguf.Float32s(v.scores))
	}
	m.Set("tokenizer.ggml.token_type", gguf.Int32s(v.types))
}

func drop(m *gguf.Model, keys ...string) {
	kv := m.KV[:0]
	for _, e := range m.KV {
		found := false
		for _, k := range keys {
			found = found || e.Key == k
		}
		if !found {
			kv = append(kv, e)
		}
	}
	m.KV = kv
}

// PLaMo2 turns the llama-spm vocabulary (SentencePiece, 32000 tokens with
// the 256 <0xXX> byte tokens) into a "plamo2" one laid out as llama.cpp's
// converter (_set_vocab_plamo) writes it: real spaces instead of ▁, the
// <|plamo:…|> control tokens, scores scaled into the range PLaMo-2's
// integer scores take (SentencePiece's -1e9 for whitespace runs becomes
// -100), and [PADn] tokens of score -1000 (exactly the tokenizer's
// "unknown" score) at the end.
func PLaMo2(spm *gguf.Model) (*gguf.Model, error) {
	v, err := read(spm)
	if err != nil {
		return nil, fmt.Errorf("plamo2 from llama-spm: %w", err)
	}
	if len(v.tokens) < 3 {
		return nil, fmt.Errorf("plamo2 from llama-spm: %d tokens", len(v.tokens))
	}
	seen := map[string]bool{}
	for _, s := range v.tokens {
		seen[s] = true
	}
	for i, s := range v.tokens {
		if v.types[i] == typeByte {
			continue
		}
		if r := strings.ReplaceAll(s, "\u2581", " "); r != s && !seen[r] {
			seen[r] = true
			v.tokens[i] = r
		}
		switch sc := v.scores[i]; {
		case sc < -1e6:
			v.scores[i] = -100
		default:
			v.scores[i] = sc / 1000
		}
	}
	v.tokens[0], v.tokens[1], v.tokens[2] = "<|plamo:unk|>", "<|plamo:bos|>", "<|plamo:eos|>"
	pad := v.add("<|plamo:pad|>", 0, typeControl)
	eot := v.add("<|plamo:op|>", 0, typeControl)
	for i := 1; i <= 3; i++ {
		v.add(fmt.Sprintf("[PAD%d]", i), -1000, typeUnused)
	}
	m := &gguf.Model{Version: spm.Version}
	for _, e := range spm.KV {
		if strings.HasPrefix(e.Key, "general.") {
			m.KV = append(m.KV, e)
		}
	}
	m.Set("general.architecture", gguf.String("plamo2"))
	m.Set("general.name", gguf.String("plamo2-test (from llama-spm)"))
	m.Set("tokenizer.ggml.model", gguf.String("plamo2"))
	m.Set("tokenizer.ggml.pre", gguf.String("default"))
	v.write(m)
	m.Set("tokenizer.ggml.bos_token_id", gguf.Uint32(1))
	m.Set("tokenizer.ggml.eos_token_id", gguf.Uint32(2))
	m.Set("tokenizer.ggml.unknown_token_id", gguf.Uint32(0))
	m.Set("tokenizer.ggml.padding_token_id", gguf.Uint32(uint32(pad)))
	m.Set("tokenizer.ggml.eot_token_id", gguf.Uint32(uint32(eot)))
	m.Set("tokenizer.ggml.add_space_prefix", gguf.Bool(false))
	return m, nil
}

// DNAMarker is the suffix (U+E000) llama.cpp's converter puts on HybridDNA
// k-mer tokens to keep them apart from identical BPE tokens.
const DNAMarker = "\ue000"

// HybridDNA turns the qwen2 vocabulary (byte-level BPE) into a
// "hybriddna" one as llama.cpp's converter (_set_vocab_hybriddna) writes
// it: <dna>, </dna> and <oov> control tokens, then every 6-mer over ACGT
// with the marker suffix. Merges and the pre-tokenizer stay qwen2's.
func HybridDNA(qwen2 *gguf.Model) (*gguf.Model, error) {
	v, err := read(qwen2)
	if err != nil {
		return nil, fmt.Errorf("hybriddna from qwen2: %w", err)
	}
	v.add("<dna>", 0, typeControl)
	v.add("</dna>", 0, typeControl)
	v.add("<oov>", 0, typeControl)
	const bases = "ACGT"
	for i := 0; i < 1<<12; i++ {
		var k [6]byte
		for j := range k {
			k[j] = bases[i>>(2*(5-j))&3]
		}
		v.add(string(k[:])+DNAMarker, 0, typeNormal)
	}
	m := &gguf.Model{Version: qwen2.Version, KV: append([]gguf.KV(nil), qwen2.KV...)}
	drop(m, "tokenizer.chat_template")
	m.Set("general.name", gguf.String("hybriddna-test (from qwen2)"))
	m.Set("tokenizer.ggml.model", gguf.String("hybriddna"))
	v.write(m)
	return m, nil
}

// RWKV turns the qwen2 vocabulary into an RWKV-style one ("rwkv": escaped
// byte strings, no merges): the 256 bytes, then the decoded texts of the
// first 12000 qwen2 tokens, each once.
func RWKV(qwen2 *gguf.Model) (*gguf.Model, error) {
	const keep = 12000
	v, err := read(qwen2)
	if err != nil {
		return nil, fmt.Errorf("rwkv from qwen2: %w", err)
	}
	if len(v.tokens) < keep {
		return nil, fmt.Errorf("rwkv from qwen2: %d tokens, want at least %d", len(v.tokens), keep)
	}
	seen := map[string]bool{}
	var nt []string
	add := func(b []byte) {
		e := escapeRWKV(b)
		if !seen[e] && len(b) > 0 {
			seen[e] = true
			nt = append(nt, e)
		}
	}
	for c := 0; c < 256; c++ {
		add([]byte{byte(c)})
	}
	dec := byteDecoder()
	for _, s := range v.tokens[:keep] {
		var b []byte
		ok := true
		for _, r := range s {
			x, in := dec[r]
			if !in {
				ok = false
				break
			}
			b = append(b, x)
		}
		if ok {
			add(b)
		}
	}
	ty := make([]int32, len(nt))
	for i := range ty {
		ty[i] = typeNormal
	}
	m := &gguf.Model{Version: qwen2.Version, KV: append([]gguf.KV(nil), qwen2.KV...)}
	drop(m, "tokenizer.ggml.merges", "tokenizer.ggml.pre", "tokenizer.chat_template",
		"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id", "tokenizer.ggml.padding_token_id")
	m.Set("tokenizer.ggml.model", gguf.String("rwkv"))
	m.Set("tokenizer.ggml.tokens", gguf.Strings(nt))
	m.Set("tokenizer.ggml.token_type", gguf.Int32s(ty))
	m.Set("general.name", gguf.String("rwkv-small (synthetic)"))
	return m, nil
}

// escapeRWKV writes b the way RWKV vocabularies in GGUF escape bytes.
func escapeRWKV(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		switch {
		case c == '\\':
			s.WriteString(`\\`)
		case c == '\n':
			s.WriteString(`\n`)
		case c == '\t':
			s.WriteString(`\t`)
		case c == '\r':
			s.WriteString(`\r`)
		case c >= 0x20 && c < 0x7f:
			s.WriteByte(c)
		default:
			fmt.Fprintf(&s, `\x%02x`, c)
		}
	}
	return s.String()
}

// byteDecoder is GPT-2's unicode-to-byte map.
func byteDecoder() map[rune]byte {
	m := map[rune]byte{}
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			m[rune(b)] = byte(b)
		} else {
			m[rune(256+n)] = byte(b)
			n++
		}
	}
	return m
}

// UGM turns the llama-spm vocabulary (SentencePiece, with scores) into a
// "t5" (Unigram) one: the same pieces and scores, byte tokens dropped to
// unused (Unigram maps what no piece covers to <unk>), no precompiled
// charsmap (llama.cpp then normalizes only spaces). The charsmap path is
// checked on llama.cpp's nomic-bert-moe vocabulary when it is present.
func UGM(spm *gguf.Model) (*gguf.Model, error) {
	v, err := read(spm)
	if err != nil {
		return nil, fmt.Errorf("ugm from llama-spm: %w", err)
	}
	if len(v.tokens) < 3 || v.noScores {
		return nil, fmt.Errorf("ugm from llama-spm: %d tokens, scores %t", len(v.tokens), !v.noScores)
	}
	for i := range v.types {
		if v.types[i] == typeByte {
			v.types[i] = typeUnused
		}
	}
	m := &gguf.Model{Version: spm.Version}
	for _, e := range spm.KV {
		if strings.HasPrefix(e.Key, "general.") {
			m.KV = append(m.KV, e)
		}
	}
	m.Set("general.architecture", gguf.String("t5"))
	m.Set("general.name", gguf.String("ugm-spm (from llama-spm)"))
	m.Set("tokenizer.ggml.model", gguf.String("t5"))
	m.Set("tokenizer.ggml.pre", gguf.String("default"))
	v.write(m)
	m.Set("tokenizer.ggml.unknown_token_id", gguf.Uint32(0))
	m.Set("tokenizer.ggml.bos_token_id", gguf.Uint32(1))
	m.Set("tokenizer.ggml.eos_token_id", gguf.Uint32(2))
	m.Set("tokenizer.ggml.add_space_prefix", gguf.Bool(true))
	m.Set("tokenizer.ggml.remove_extra_whitespaces", gguf.Bool(true))
	return m, nil
}
