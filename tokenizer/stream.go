package tokenizer

import "unicode/utf8"

// StreamDecoder turns a stream of token ids into text chunks that never
// split a multi-byte UTF-8 character. Bytes that can never form a valid
// character are passed through as they are, so the concatenation of all
// chunks and Flush equals the tokens' pieces byte for byte. It is not safe
// for concurrent use.
type StreamDecoder struct {
	t       *Tokenizer
	pending []byte
}

// NewStreamDecoder returns a decoder for a stream of ids.
func (t *Tokenizer) NewStreamDecoder() *StreamDecoder { return &StreamDecoder{t: t} }

// Add appends the piece of id and returns the text that is now complete.
func (d *StreamDecoder) Add(id int32) (string, error) {
	if !d.t.valid(id) {
		return "", &RangeError{ID: id, VocabSize: d.t.n}
	}
	d.pending = append(d.pending, d.t.pieces.text(id)...)
	cut := completePrefix(d.pending)
	if cut == 0 {
		return "", nil
	}
	s := string(d.pending[:cut])
	d.pending = append(d.pending[:0], d.pending[cut:]...)
	return s, nil
}

// Flush returns whatever is pending (possibly an incomplete sequence) and
// resets the decoder.
func (d *StreamDecoder) Flush() string {
	s := string(d.pending)
	d.pending = d.pending[:0]
	return s
}

// completePrefix returns the length of b without a trailing incomplete (but
// so far valid) UTF-8 sequence.
func completePrefix(b []byte) int {
	n := len(b)
	for k := 1; k <= 3 && k <= n; k++ {
		c := b[n-k]
		if c&0xc0 == 0x80 {
			continue // continuation byte: look further back
		}
		if c >= 0xc0 && !utf8.FullRune(b[n-k:]) {
			return n - k
		}
		return n
	}
	return n
}
