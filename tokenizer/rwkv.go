package tokenizer

// rwkvData is the RWKV tokenizer: greedy longest match over the token
// texts unescaped (llama.cpp's llama_unescape_rwkv_token), byte by byte.
type rwkvData struct {
	tokens *trie
}

// unescapeRWKV decodes \t, \n, \r, \xHH and \<c> escapes as
// llama_unescape_rwkv_token does (hex digits are read without validation).
func unescapeRWKV(b []byte, s string) []byte {
	escaping := false
	hexLeft, acc := 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case hexLeft > 0:
			v := c - '0'
			if c >= 'a' {
				v = c - 'a' + 10
			}
			acc = acc<<4 + v
			if hexLeft--; hexLeft == 0 {
				b = append(b, acc)
				acc = 0
			}
		case escaping:
			switch c {
			case 't':
				b = append(b, '\t')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 'x':
				hexLeft = 2
			default:
				b = append(b, c)
			}
			escaping = false
		case c == '\\':
			escaping = true
		default:
			b = append(b, c)
		}
	}
	return b
}

func (t *Tokenizer) initRWKV() error {
	tr := newByteTrie()
	var buf []byte
	for id := 0; id < t.n; id++ {
		buf = unescapeRWKV(buf[:0], t.vocab.text(int32(id)))
		if err := tr.insert(buf, int32(id)); err != nil {
			return err
		}
	}
	frozen, err := tr.freeze()
	if err != nil {
		return err
	}
	t.rwkv = &rwkvData{tokens: frozen}
	return nil
}

// encodeRWKV tokenizes one raw-text fragment as llm_tokenizer_rwkv_session:
// the longest token at each position; a byte no token starts with gives
// the unknown token (nothing when there is none). Where a byte starts
// tokens but no token is a prefix of the text, llama.cpp loops forever;
// here it is treated as a byte no token starts with.
func (t *Tokenizer) encodeRWKV(text string, out []int32) []int32 {
	s := []byte(text)
	for pos := 0; pos < len(s); {
		n, id := t.rwkv.tokens.longestPrefix(s[pos:])
		if n == 0 {
			if t.unk >= 0 {
				out = append(out, t.unk)
			}
			pos++
			continue
		}
		out = append(out, id)
		pos += n
	}
	return out
}
