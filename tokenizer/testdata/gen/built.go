package main

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/tokenizer/internal/testvocab"
)

// builtVocab is a vocabulary testvocab makes from a fixture.
type builtVocab struct {
	name  string
	base  string // fixture it is made from
	build func(*gguf.Model) (*gguf.Model, error)
	extra []Case // cases for this model on top of the corpus
	// pieces, when set, are what -random draws this model's own random
	// cases from (on top of the corpus's).
	pieces []string
}

var built = []builtVocab{
	{name: "ugm-spm", base: "ggml-vocab-llama-spm.gguf", build: testvocab.UGM, extra: []Case{
		{Text: "  leading, doubled   and trailing spaces  "},
		{Text: "Hello world", Add: true},
		{Text: "<s>control</s> as text"},
		{Text: "<s>control</s> parsed", Add: true, Parse: true},
		{Text: "ꙁ𝔘 rare 🦙 code points become <unk>"},
	}},
	{name: "rwkv-small", base: "ggml-vocab-qwen2.gguf", build: testvocab.RWKV},
	{name: "plamo2", base: "ggml-vocab-llama-spm.gguf", build: testvocab.PLaMo2, extra: []Case{
		{Text: "\ufeffHello with a byte order mark"},
		{Text: "mid\ufeffdle \ufeff"},
		{Text: "<|plamo:bos|>control<|plamo:eos|> as text [PAD1] [PAD2]x"},
		{Text: "<|plamo:bos|>control<|plamo:op|> parsed", Add: true, Parse: true},
		{Text: "[PAD1][PAD3] pads parsed", Parse: true},
		{Text: "Hello world", Add: true},
		{Text: "ꙁ𝔘 rare 🦙 code points \U0010ffff fall back to bytes"},
		{Text: "            twelve spaces, then\t\ttabs"},
	}},
	{name: "hybriddna", base: "ggml-vocab-qwen2.gguf", build: testvocab.HybridDNA, extra: []Case{
		{Text: "<dna>ACGTACGTAC</dna>"},
		{Text: "before <dna>acgtnnACGTtt</dna> after <dna>GATTACA</dna>."},
		{Text: "<dna>ACGTAC"},
		{Text: "<dna></dna><dna>A</dna><dna>CCCCCCGGGGGG</dna> CCCCCC"},
		{Text: "</dna> reversed <dna>"},
		{Text: "<dna>AC GT\nÄCGTACGTT</dna>x"},
		{Text: "<dna>ACGTACGT</dna> parsed as control tokens", Parse: true},
		{Text: "<|im_start|>user\n<dna>TTTTTT</dna><|im_end|>", Add: true, Parse: true},
		{Text: "<dna><dna>ACGTAC</dna></dna>", Add: true},
	}, pieces: []string{"<dna>", "</dna>", "<dna", "dna>", "A", "C", "G", "T", "ACGT", "acgt", "N", "n", "u", " ", "\n", "é", "🦙",
		"x", "CCCCCC", "<|im_start|>", "<oov>"}},
}

func writeBuilt(b builtVocab, vocabs, dst string) error {
	f, err := gguf.Open(filepath.Join(vocabs, b.base))
	if err != nil {
		return err
	}
	defer f.Close()
	m, err := b.build(f.Model())
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := gguf.Write(&buf, m); err != nil {
		return err
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}
