package main

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"unicode/utf8"

	"github.com/litert-go/litert-go/models/gguf"
)

// makeSmall writes the small UGM and RWKV vocabularies the tests commit:
//
//   - ugm-small.gguf: nomic-embed-text-v2-moe's XLM-RoBERTa Unigram
//     vocabulary (Apache-2.0; SentencePiece model MIT) cut to its first
//     ugmKeep pieces plus every single-code-point piece, with its
//     precompiled charsmap;
//   - rwkv-small.gguf: an RWKV-style vocabulary (escaped byte strings)
//     made of the 256 bytes and the decoded texts of the first rwkvKeep
//     qwen2 tokens, longest-match order being the tokenizer's own.
func makeSmall(nomic, qwen2, out string) {
	const ugmKeep, rwkvKeep = 6000, 12000
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
	{
		f, err := gguf.Open(qwen2)
		if err != nil {
			log.Fatal(err)
		}
		m := f.Model()
		toks, _ := f.Strings("tokenizer.ggml.tokens")
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
		for _, s := range toks[:rwkvKeep] {
			var b []byte
			ok := true
			for _, r := range s {
				v, in := dec[r]
				if !in {
					ok = false
					break
				}
				b = append(b, v)
			}
			if ok {
				add(b)
			}
		}
		ty := make([]int32, len(nt))
		for i := range ty {
			ty[i] = 1
		}
		var kv []gguf.KV
		for _, e := range m.KV {
			switch e.Key {
			case "tokenizer.ggml.merges", "tokenizer.ggml.pre", "tokenizer.chat_template",
				"tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id", "tokenizer.ggml.padding_token_id":
				continue
			}
			kv = append(kv, e)
		}
		m.KV = kv
		m.Set("tokenizer.ggml.model", gguf.String("rwkv"))
		m.Set("tokenizer.ggml.tokens", gguf.Strings(nt))
		m.Set("tokenizer.ggml.token_type", gguf.Int32s(ty))
		m.Set("general.name", gguf.String("rwkv-small (synthetic)"))
		writeModel(m, out+"/rwkv-small.gguf")
		f.Close()
	}
}

// escapeRWKV writes b the way RWKV vocabularies in GGUF escape bytes.
func escapeRWKV(b []byte) string {
	var s bytes.Buffer
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
