package tokenizer

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEncodeDecode encodes arbitrary input with byte-level BPE and
// SentencePiece vocabularies: no panic, ids in range, and the round trip
// holds wherever llama.cpp's does.
func FuzzEncodeDecode(f *testing.F) {
	for _, s := range adversarial {
		f.Add(s, false)
	}
	f.Add("Hello, y'all! How are you 😁 ?我想在apple工作1314151天～", true)
	toks := []*Tokenizer{loadVocab(f, "qwen2"), loadVocab(f, "llama-spm"), loadVocab(f, "gemma-4")}
	f.Fuzz(func(t *testing.T, s string, parseSpecial bool) {
		for _, tok := range toks {
			ids := tok.Encode(s, EncodeOptions{ParseSpecial: parseSpecial})
			for _, id := range ids {
				if id < 0 || int(id) >= tok.VocabSize() {
					t.Fatalf("id %d out of range", id)
				}
			}
			got, err := tok.Decode(ids)
			if err != nil {
				t.Fatal(err)
			}
			if parseSpecial {
				continue
			}
			switch {
			case tok.kind == kindSPM && spmRoundTrips(s):
				if got != s {
					t.Fatalf("SPM round trip %q -> %q", s, got)
				}
			case tok.kind == kindBPE && utf8.ValidString(s) && !(tok.escapeWS && strings.Contains(s, spaceMark)):
				if want, _ := roundTripWant(tok, s); got != want {
					t.Fatalf("BPE round trip %q -> %q", s, got)
				}
			}
		}
	})
}

// spmRoundTrips reports whether SentencePiece's byte-level round trip holds
// for s in llama.cpp: s has no ▁ of its own, does not start with a space,
// and no invalid lead byte swallows part of the ▁ a space becomes.
func spmRoundTrips(s string) bool {
	if strings.Contains(s, spaceMark) || strings.HasPrefix(s, " ") {
		return false
	}
	esc := appendEscaped([]byte(spaceMark), s)
	marks := 0
	forSymbols(esc, func(_, _ int) { marks++ })
	return marks == strings.Count(s, " ")+1
}

// FuzzPreTokenizers runs every pre-tokenizer type on arbitrary text: the
// fragments must be in order and cover the text exactly.
func FuzzPreTokenizers(f *testing.F) {
	for _, s := range adversarial {
		f.Add(s)
	}
	f.Add("Hello, y'all! CamelCase 12345 \u3000 我想 ١٢٣ e\u0301\r\n\r\n  ")
	var pts []*preTokenizer
	for kind := range preRegexes {
		p, err := newPreTokenizer(kind)
		if err != nil {
			f.Fatal(err)
		}
		pts = append(pts, p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st := &encodeState{}
		st.decode(s)
		for _, p := range pts {
			var tmp []int32
			ends := p.run(&st.split, &tmp)
			prev := int32(0)
			for _, e := range ends {
				if e < prev {
					t.Fatalf("%s: fragment ends out of order on %q: %v", p.name, s, ends)
				}
				prev = e
			}
			if len(st.split.cps) > 0 && prev != int32(len(st.split.cps)) {
				t.Fatalf("%s: fragments end at %d of %d code points on %q", p.name, prev, len(st.split.cps), s)
			}
		}
	})
}
