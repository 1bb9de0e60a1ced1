package tokenizer

import (
	"fmt"
	"sync"
)

// kind is the tokenizer algorithm.
type kind int

const (
	kindSPM    kind = iota // SentencePiece BPE by scores ("llama")
	kindBPE                // BPE by merge rank ("gpt2", "gemma4")
	kindWPM                // WordPiece ("bert")
	kindUGM                // Unigram ("t5")
	kindRWKV               // greedy trie ("rwkv")
	kindPLaMo2             // Viterbi over code points with byte fallback ("plamo2")
)

// EncodeOptions controls Encode.
type EncodeOptions struct {
	// AddSpecial adds BOS/EOS (CLS/SEP for BERT) as the model's metadata
	// says, like llama.cpp's add_special.
	AddSpecial bool
	// ParseSpecial matches control tokens written in the text (such as
	// "<|im_start|>") as single tokens. Leave it false for untrusted text.
	ParseSpecial bool
}

// Tokenizer encodes text to token ids and decodes ids to text. It is
// immutable after construction and safe for concurrent use.
type Tokenizer struct {
	kind  kind
	model string // tokenizer.ggml.model
	pre   string // tokenizer.ggml.pre as resolved

	vocab  *strIndex // token texts (and, for BPE, merge parts not in the vocabulary)
	n      int       // vocabulary size
	scores []float32
	attrs  []uint16

	bos, eos, eot, eom, unk, sep, pad int32
	eog                               []int32 // sorted
	eogSet                            map[int32]struct{}

	addBOS, addEOS, addSep bool
	addSpacePrefix         bool
	cleanSpaces            bool
	escapeWS               bool
	ignoreMerges           bool
	whitespaceModel        bool // tokenizer.ggml.model "whitespace": words between whitespace, optionally lowercased

	specials *specialMatcher
	escaper  lazyReplacer // special-token text → placeholder, for EscapeSpecial

	// BPE
	bpe        *bpeData
	merges     mergeTable
	preTok     *preTokenizer
	noSplitPre map[string]struct{}
	chunkable  bool // SPM/gemma4 text may be cut before ▁ (see chunk.go)

	ugm    *ugmData
	rwkv   *rwkvData
	plamo2 *plamo2Data
	dna    *dnaData // tokenizer.ggml.model "hybriddna"

	// WPM
	lowercase, stripAccents bool
	maxTokenLen             int

	// decoding
	pieces *strIndex // piece of each token (special=false); not hashed

	scratch     sync.Pool // *encodeState
	noWordCache bool      // tests and benchmarks: disable the per-call word cache
}

// VocabSize returns the number of tokens.
func (t *Tokenizer) VocabSize() int { return t.n }

// BOS returns the beginning-of-sequence token, or -1.
func (t *Tokenizer) BOS() int32 { return t.bos }

// EOS returns the end-of-sequence token, or -1.
func (t *Tokenizer) EOS() int32 { return t.eos }

// TemplateTokens returns the texts of the BOS and EOS tokens as chat
// templates take them (bos_token, eos_token), nil where the vocabulary has
// no such token.
func (t *Tokenizer) TemplateTokens() (bos, eos *string) {
	text := func(id int32) *string {
		if id < 0 {
			return nil
		}
		s := t.TokenText(id)
		return &s
	}
	return text(t.bos), text(t.eos)
}

// EOT returns the end-of-turn token, or -1.
func (t *Tokenizer) EOT() int32 { return t.eot }

// Model returns the tokenizer.ggml.model value.
func (t *Tokenizer) Model() string { return t.model }

// AddBOS reports whether AddSpecial adds a BOS token.
func (t *Tokenizer) AddBOS() bool { return t.addBOS }

// AddEOS reports whether AddSpecial adds an EOS token.
func (t *Tokenizer) AddEOS() bool { return t.addEOS }

// EndOfGeneration returns the ids that end generation (llama.cpp's EOG set),
// sorted. The caller must not modify the slice.
func (t *Tokenizer) EndOfGeneration() []int32 { return t.eog }

// IsEndOfGeneration reports whether id ends generation.
func (t *Tokenizer) IsEndOfGeneration(id int32) bool {
	_, ok := t.eogSet[id]
	return ok
}

// valid reports whether id is a token.
func (t *Tokenizer) valid(id int32) bool { return id >= 0 && int(id) < t.n }

// IsControl reports whether id is a control token (false when out of range).
func (t *Tokenizer) IsControl(id int32) bool {
	return t.valid(id) && t.attrs[id]&attrControl != 0
}

// TokenText returns the raw vocabulary string of id ("" when out of range).
func (t *Tokenizer) TokenText(id int32) string {
	if !t.valid(id) {
		return ""
	}
	return t.text(id)
}

// TokenPiece returns the text id decodes to: byte-fallback tokens give their
// byte, byte-level BPE tokens their decoded bytes, ▁ becomes a space, and
// control and unknown tokens give "". It is "" when id is out of range.
func (t *Tokenizer) TokenPiece(id int32) string {
	if !t.valid(id) {
		return ""
	}
	return t.pieces.text(id)
}

// TokenBytes returns a copy of the bytes id decodes to (see TokenPiece); nil
// for control tokens and ids out of range.
func (t *Tokenizer) TokenBytes(id int32) []byte {
	p := t.TokenPiece(id)
	if p == "" {
		return nil
	}
	return []byte(p)
}

// TokenScore returns the score of id (0 when out of range).
func (t *Tokenizer) TokenScore(id int32) float32 {
	if !t.valid(id) {
		return 0
	}
	return t.scores[id]
}

// Find returns the id of the token whose vocabulary text is s, or -1.
func (t *Tokenizer) Find(s string) int32 {
	id := t.vocab.find(s)
	if id >= int32(t.n) {
		return -1
	}
	return id
}

// RangeError reports a token id outside the vocabulary.
type RangeError struct {
	ID        int32
	Index     int // position in the input
	VocabSize int
}

// Error implements error.
func (e *RangeError) Error() string {
	return fmt.Sprintf("tokenizer: token id %d at position %d out of range [0, %d)", e.ID, e.Index, e.VocabSize)
}
