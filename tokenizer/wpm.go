package tokenizer

// encodeWPM tokenizes a fragment with WordPiece, like llm_tokenizer_wpm.
func (t *Tokenizer) encodeWPM(st *encodeState, text string, out []int32) []int32 {
	tab := cpFlagsTable()
	word := st.text[:0]
	flush := func() {
		if len(word) > 0 {
			out = t.wpmWord(st, word, out)
			word = word[:0]
		}
	}
	for i := 0; i < len(text); {
		c, n := decodeRune(text, i)
		i += n
		if t.stripAccents {
			c = nfdFirst(c)
		}
		f := tab.flags(c)
		if f&fWhitespace != 0 {
			flush()
			continue
		}
		if c == 0 || c == 0xFFFD || f&fControl != 0 {
			continue
		}
		if t.stripAccents && f&fMark != 0 {
			continue
		}
		lc := c
		if t.lowercase {
			lc = toLower(c)
		}
		if f&fPunct != 0 || (c < 0x7F && f&fSymbol != 0) || isChineseChar(c) {
			flush()
			word = appendRune(word, lc)
			flush()
			continue
		}
		word = appendRune(word, lc)
	}
	flush()
	st.text = word
	return out
}

// wpmWord finds the longest vocabulary pieces of "▁"+word, or [UNK].
func (t *Tokenizer) wpmWord(st *encodeState, word []byte, out []int32) []int32 {
	w := append(append(st.enc[:0], spaceMark...), word...)
	st.enc = w
	n := len(w)
	n0 := len(out)
	for i := 0; i < n; i++ {
		match := false
		j := i + t.maxTokenLen + 1
		if j > n {
			j = n
		}
		for ; j > i; j-- {
			if id := t.vocab.findBytes(w[i:j]); id >= 0 {
				out = append(out, id)
				match = true
				i = j - 1
				break
			}
		}
		if !match {
			out = out[:n0]
			break
		}
	}
	if len(out) == n0 {
		out = append(out, t.unk)
	}
	return out
}

func isChineseChar(c rune) bool {
	return (c >= 0x04E00 && c <= 0x09FFF) ||
		(c >= 0x03400 && c <= 0x04DBF) ||
		(c >= 0x20000 && c <= 0x2A6DF) ||
		(c >= 0x2A700 && c <= 0x2B73F) ||
		(c >= 0x2B740 && c <= 0x2B81F) ||
		(c >= 0x2B920 && c <= 0x2CEAF) ||
		(c >= 0x0F900 && c <= 0x0FAFF) ||
		(c >= 0x2F800 && c <= 0x2FA1F)
}
