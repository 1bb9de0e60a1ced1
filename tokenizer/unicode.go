package tokenizer

import (
	"sort"
	"sync"
	"unicode"
)

// Code point flags, the same classification llama.cpp's unicode-data.cpp
// gives every code point: one general category (or undefined) plus the
// White_Space property.
const (
	fUndef      uint16 = 1 << 0 // unassigned (Cn)
	fNumber     uint16 = 1 << 1 // \p{N}
	fLetter     uint16 = 1 << 2 // \p{L}
	fSeparator  uint16 = 1 << 3 // \p{Z}
	fMark       uint16 = 1 << 4 // \p{M}
	fPunct      uint16 = 1 << 5 // \p{P}
	fSymbol     uint16 = 1 << 6 // \p{S}
	fControl    uint16 = 1 << 7 // \p{C}: Cc, Cf, Co, Cs
	fWhitespace uint16 = 1 << 8 // White_Space
)

// maxCodepoint is one past the largest Unicode code point.
const maxCodepoint = 0x110000

// cpTable is a two-level lookup table of code point flags.
type cpTable struct {
	index  [maxCodepoint >> 8]uint16
	blocks []uint16
}

// cpFlagsTable is built once, on first use, from llama.cpp's own tables
// (flags_table.go), so that code points classify as in the llama.cpp the
// tokenizer is checked against rather than as the Unicode version of the
// standard library. It is never modified afterwards.
var cpFlagsTable = sync.OnceValue(buildCPTable)

func buildCPTable() *cpTable {
	flat := make([]uint16, maxCodepoint)
	for i := range flat {
		flat[i] = fUndef
	}
	for i := 0; i+1 < len(llamaFlagRanges); i++ {
		f := uint16(llamaFlagRanges[i][1]) & 0xff
		for c := llamaFlagRanges[i][0]; c < llamaFlagRanges[i+1][0] && c < maxCodepoint; c++ {
			flat[c] = f
		}
	}
	for _, c := range llamaWhitespace {
		flat[c] |= fWhitespace
	}

	t := &cpTable{}
	seen := make(map[[256]uint16]uint16)
	for b := 0; b < maxCodepoint>>8; b++ {
		var blk [256]uint16
		copy(blk[:], flat[b<<8:(b+1)<<8])
		idx, ok := seen[blk]
		if !ok {
			idx = uint16(len(t.blocks) >> 8)
			t.blocks = append(t.blocks, blk[:]...)
			seen[blk] = idx
		}
		t.index[b] = idx
	}
	return t
}

// asciiFlags holds the flags of the 128 ASCII code points.
var asciiFlags = func() (a [128]uint16) {
	for c := 0; c < 128; c++ {
		switch {
		case c >= '0' && c <= '9':
			a[c] = fNumber
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
			a[c] = fLetter
		case c == ' ':
			a[c] = fSeparator
		case c < 0x20 || c == 0x7f:
			a[c] = fControl
		case unicode.IsPunct(rune(c)):
			a[c] = fPunct
		default:
			a[c] = fSymbol
		}
	}
	for _, c := range "\t\n\v\f\r " {
		a[c] |= fWhitespace
	}
	return a
}()

// flags returns the flags of code point c; out-of-range values are undefined.
func (t *cpTable) flags(c rune) uint16 {
	if c < 128 && c >= 0 {
		return asciiFlags[c]
	}
	if c < 0 || c >= maxCodepoint {
		return fUndef
	}
	return t.blocks[int(t.index[c>>8])<<8|int(c&0xff)]
}

// toLower maps a code point to its lowercase form as llama.cpp's
// unicode_tolower does (its simple case mapping table).
func toLower(c rune) rune {
	if c < 128 {
		if c >= 'A' && c <= 'Z' {
			return c + 32
		}
		return c
	}
	i := sort.Search(len(llamaLowercase), func(i int) bool { return llamaLowercase[i][0] >= c })
	if i < len(llamaLowercase) && llamaLowercase[i][0] == c {
		return llamaLowercase[i][1]
	}
	return c
}

// nfdFirst returns the first code point of the NFD decomposition of c, the
// one-to-one mapping llama.cpp's unicode_cpts_normalize_nfd applies.
func nfdFirst(c rune) rune {
	u := uint32(c)
	i := sort.Search(len(nfdRanges), func(i int) bool { return nfdRanges[i][0] > u }) - 1
	if i >= 0 && nfdRanges[i][0] <= u && u <= nfdRanges[i][1] {
		return rune(nfdRanges[i][2])
	}
	return c
}

// utf8Len is llama.cpp's unicode_len_utf8: the sequence length implied by a
// lead byte, without validation.
func utf8Len(b byte) int {
	return int(utf8LenTable[b>>4])
}

var utf8LenTable = [16]uint8{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4}

// decodeRune decodes one code point at s[i:] the way llama.cpp's
// unicode_cpt_from_utf8 does: structurally valid sequences are accepted even
// when overlong or surrogates; anything else yields U+FFFD and consumes one
// byte. Sequences decoding past U+10FFFF (which make llama.cpp throw) also
// yield U+FFFD and consume one byte.
func decodeRune[T string | []byte](s T, i int) (rune, int) {
	b0 := s[i]
	if b0 < 0x80 {
		return rune(b0), 1
	}
	n := len(s)
	switch {
	case b0&0x40 == 0:
		return 0xFFFD, 1
	case b0&0x20 == 0:
		if i+1 >= n || s[i+1]&0xc0 != 0x80 {
			return 0xFFFD, 1
		}
		return rune(b0&0x1f)<<6 | rune(s[i+1]&0x3f), 2
	case b0&0x10 == 0:
		if i+2 >= n || s[i+1]&0xc0 != 0x80 || s[i+2]&0xc0 != 0x80 {
			return 0xFFFD, 1
		}
		return rune(b0&0x0f)<<12 | rune(s[i+1]&0x3f)<<6 | rune(s[i+2]&0x3f), 3
	case b0&0x08 == 0:
		if i+3 >= n || s[i+1]&0xc0 != 0x80 || s[i+2]&0xc0 != 0x80 || s[i+3]&0xc0 != 0x80 {
			return 0xFFFD, 1
		}
		c := rune(b0&0x07)<<18 | rune(s[i+1]&0x3f)<<12 | rune(s[i+2]&0x3f)<<6 | rune(s[i+3]&0x3f)
		if c >= maxCodepoint {
			return 0xFFFD, 1
		}
		return c, 4
	}
	return 0xFFFD, 1
}

// appendRune encodes c as llama.cpp's unicode_cpt_to_utf8 does (surrogates
// are encoded like any other code point).
func appendRune(b []byte, c rune) []byte {
	switch {
	case c < 0x80:
		return append(b, byte(c))
	case c < 0x800:
		return append(b, 0xc0|byte(c>>6), 0x80|byte(c&0x3f))
	case c < 0x10000:
		return append(b, 0xe0|byte(c>>12), 0x80|byte(c>>6&0x3f), 0x80|byte(c&0x3f))
	default:
		return append(b, 0xf0|byte(c>>18), 0x80|byte(c>>12&0x3f), 0x80|byte(c>>6&0x3f), 0x80|byte(c&0x3f))
	}
}

// isCSpace reports whether b is whitespace for C's isspace in the "C" locale.
func isCSpace(b byte) bool {
	return b == ' ' || (b >= '\t' && b <= '\r')
}
