package tokenizer

import (
	"fmt"
	"strings"
)

// buildPieces computes every token's piece (llama.cpp's token_to_piece with
// special=false) into one arena.
func (t *Tokenizer) buildPieces() *strIndex {
	var b strings.Builder
	offs := make([]uint32, t.n+1)
	grow := 0
	for i := 0; i < t.n; i++ {
		grow += len(t.vocab.text(int32(i)))
	}
	b.Grow(grow)
	var tmp []byte
	for i := 0; i < t.n; i++ {
		offs[i] = uint32(b.Len())
		tmp = t.piece(int32(i), false, tmp[:0])
		b.Write(tmp)
	}
	offs[t.n] = uint32(b.Len())
	return &strIndex{arena: b.String(), offs: offs}
}

// piece appends the text of one token to b, as llama.cpp's token_to_piece.
func (t *Tokenizer) piece(id int32, special bool, b []byte) []byte {
	a := t.attrs[id]
	text := t.text(id)
	if !special && a&(attrUnknown|attrControl) != 0 {
		return b
	}
	switch t.kind {
	case kindRWKV:
		return unescapeRWKV(b, text)
	case kindPLaMo2: // byte tokens give their byte, every other token its text
		if v, ok := byteTokenValue(text); ok && a&attrByte != 0 {
			return append(b, v)
		}
		return append(b, text...)
	}
	switch {
	case a&(attrUnknown|attrControl|attrUserDefined) != 0:
		return append(b, text...)
	case a&attrNormal != 0:
		if t.kind != kindBPE || t.escapeWS {
			return appendUnescaped(b, text)
		}
		return appendByteDecoded(b, text)
	case a&attrByte != 0:
		if v, ok := byteTokenValue(text); ok {
			return append(b, v)
		}
	}
	return b
}

// appendUnescaped appends s with ▁ replaced by a space.
func appendUnescaped(b []byte, s string) []byte {
	for {
		i := strings.Index(s, spaceMark)
		if i < 0 {
			return append(b, s...)
		}
		b = append(append(b, s[:i]...), ' ')
		s = s[i+len(spaceMark):]
	}
}

// appendByteDecoded maps byte-level BPE text back to bytes (llama.cpp's
// llama_decode_text, including its marker for code points outside the
// byte alphabet).
func appendByteDecoded(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x21 && c <= 0x7e {
			b = append(b, c) // printable ASCII stands for itself
			i++
			continue
		}
		c, n := decodeRune(s, i)
		i += n
		if v, ok := byteDec(c); ok {
			b = append(b, v)
			continue
		}
		b = append(b, "[UNK_BYTE_0x"...)
		for _, x := range appendRune(nil, c) {
			b = append(b, fmt.Sprintf("%02x", x)...)
		}
		b = append(b, s...)
		b = append(b, ']')
	}
	return b
}

// Decode returns the text of ids as llama.cpp's llama_detokenize does with
// remove_special=false and unparse_special=false: control tokens give no
// text, the space prefix SentencePiece adds is removed from the first token,
// and the model's clean_up_tokenization_spaces rule is applied. It fails on
// an id out of range.
func (t *Tokenizer) Decode(ids []int32) (string, error) {
	return t.detokenize(ids, false)
}

// DecodeSpecial is Decode, but control tokens are rendered as their text.
func (t *Tokenizer) DecodeSpecial(ids []int32) (string, error) {
	return t.detokenize(ids, true)
}

func (t *Tokenizer) detokenize(ids []int32, special bool) (string, error) {
	var buf []byte
	for i, id := range ids {
		if !t.valid(id) {
			return "", &RangeError{ID: id, Index: i, VocabSize: t.n}
		}
		n0 := len(buf)
		if special {
			buf = t.piece(id, true, buf)
		} else {
			buf = append(buf, t.pieces.text(id)...)
		}
		if i == 0 && t.addSpacePrefix && len(buf) > n0 && buf[n0] == ' ' {
			buf = append(buf[:n0], buf[n0+1:]...)
		}
	}
	if t.cleanSpaces {
		buf = cleanSpaces(buf)
	}
	return string(buf), nil
}

// cleanSpaces is llama.cpp's clean_spaces post-processing, pass by pass.
func cleanSpaces(text []byte) []byte {
	// " ?", " !", " .", " ,"
	total1 := len(text)
	total := min(total1, 1)
	for i := 1; i < total1; i++ {
		x := text[i]
		if text[i-1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',') {
			total--
		}
		text[total] = x
		total++
	}
	// " ' "
	total2 := total
	total = min(total2, 1)
	for i := 1; i < total2; i++ {
		x := text[i]
		if x == '\'' && i+1 < total2 && text[i-1] == ' ' && text[i+1] == ' ' {
			total--
			i++
			text[i] = 0
		}
		text[total] = x
		total++
	}
	// " 's", " 'm", " 're", " 've"
	total3 := total
	total = min(total3, 1)
	for i := 1; i < total3; i++ {
		x := text[i]
		if text[i-1] == ' ' && x == '\'' && i+1 < total3 {
			x1 := text[i+1]
			if x1 == 's' || x1 == 'm' {
				total--
			} else if i+2 < total3 {
				x2 := text[i+2]
				if (x1 == 'r' && x2 == 'e') || (x1 == 'v' && x2 == 'e') {
					total--
				}
			}
		}
		text[total] = x
		total++
	}
	return text[:total]
}
