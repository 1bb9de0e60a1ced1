package tokenizer

import (
	"strconv"
	"strings"
	"sync"
)

// Placeholders mark escaped special-token text: U+E000, the token id in
// decimal, U+E001. They are private-use characters, so real text does not
// contain them, and chat templates pass them through unchanged.
const (
	escapeOpen  = "\uE000"
	escapeClose = "\uE001"
)

type lazyReplacer struct {
	once sync.Once
	r    *strings.Replacer
}

// EscapeSpecial returns s with the text of every special token (control,
// user-defined) replaced by a placeholder, so that s can be embedded in a
// chat template whose output is then encoded with EncodeEscaped: the
// template's own special tokens become tokens, while the same text coming
// from s (user input, tool results) is tokenized as plain text. This keeps
// user text from injecting control tokens such as "<|im_start|>system".
func (t *Tokenizer) EscapeSpecial(s string) string {
	if t.specials == nil || len(t.specials.ids) == 0 || !t.mayContainSpecial(s) {
		return s
	}
	t.escaper.once.Do(func() {
		pairs := make([]string, 0, 2*len(t.specials.ids))
		for _, id := range t.specials.ids { // longest first, as partition matches
			pairs = append(pairs, t.vocab.text(id), escapeOpen+strconv.Itoa(int(id))+escapeClose)
		}
		t.escaper.r = strings.NewReplacer(pairs...)
	})
	return t.escaper.r.Replace(s)
}

// mayContainSpecial is a fast check that s holds a byte that starts some
// special token.
func (t *Tokenizer) mayContainSpecial(s string) bool {
	for i := 0; i < len(s); i++ {
		if t.specials.first[s[i]] {
			return true
		}
	}
	return false
}

// EncodeEscaped encodes template output whose embedded text went through
// EscapeSpecial: special-token text is parsed into special tokens, and each
// placeholder becomes its token's text tokenized as plain text. BOS/EOS are
// not added.
func (t *Tokenizer) EncodeEscaped(text string) []int32 {
	var out []int32
	for {
		i := strings.Index(text, escapeOpen)
		if i < 0 {
			break
		}
		rest := text[i+len(escapeOpen):]
		j := strings.Index(rest, escapeClose)
		id, err := strconv.Atoi(rest[:max(j, 0)])
		if j < 0 || err != nil || !t.valid(int32(id)) {
			// Not a placeholder of ours: keep the character as text.
			out = append(out, t.Encode(text[:i+len(escapeOpen)], EncodeOptions{ParseSpecial: true})...)
			text = rest
			continue
		}
		out = append(out, t.Encode(text[:i], EncodeOptions{ParseSpecial: true})...)
		out = append(out, t.Encode(t.vocab.text(int32(id)), EncodeOptions{})...)
		text = rest[j+len(escapeClose):]
	}
	return append(out, t.Encode(text, EncodeOptions{ParseSpecial: true})...)
}
