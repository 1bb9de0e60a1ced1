package main

import (
	"bytes"
	"log"
	"os"
	"unicode/utf8"

	"github.com/litert-go/litert-go/models/gguf"
)

// makeSmall writes ugm-small.gguf, the small UGM vocabulary the tests
// commit: nomic-embed-text-v2-moe's XLM-RoBERTa Unigram vocabulary
// (Apache-2.0; SentencePiece model MIT) cut to its first ugmKeep pieces
// plus every single-code-point piece, with its precompiled charsmap.
func makeSmall(nomic, out string) {
	const ugmKeep = 6000
	{
		f, err := gguf.Open(nomic)
		if err != nil {
			log.Fatal(err)
		}
		m := f.Model()
		toks, _ := f.Strings("tokenizer.ggml.tokens")
		scores, _ := f.Float32s("tokenizer.ggml.scores")
		types, _ := f.Ints("tokenizer.ggml.token_type")
		var nt []string
		var ns []float32
		var ny []int32
		for i, s := range toks {
			if i < ugmKeep || utf8.RuneCountInString(s) == 1 || s == "<mask>" {
				nt = append(nt, s)
				ns = append(ns, scores[i])
				ny = append(ny, int32(types[i]))
			}
		}
		m.Set("tokenizer.ggml.tokens", gguf.Strings(nt))
		m.Set("tokenizer.ggml.scores", gguf.Float32s(ns))
		m.Set("tokenizer.ggml.token_type", gguf.Int32s(ny))
		m.Set("tokenizer.ggml.mask_token_id", gguf.Uint32(uint32(len(nt)-1)))
		m.Set("general.name", gguf.String("ugm-small (from nomic-embed-text-v2-moe)"))
		writeModel(m, out+"/ugm-small.gguf")
		f.Close()
	}
}

func writeModel(m *gguf.Model, path string) {
	var b bytes.Buffer
	if err := gguf.Write(&b, m); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s (%d bytes)", path, b.Len())
}
