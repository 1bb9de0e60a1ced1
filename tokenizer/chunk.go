package tokenizer

// Chunking: SentencePiece-style texts (▁ for spaces) are merged as one long
// symbol sequence by llama.cpp. Merges never cross a position that no token
// (or BPE merge result) spans, so the text can be cut there and the pieces
// merged independently with identical results. Symbols are the byte groups
// llama.cpp forms (utf8Len of each lead byte). We cut before a ▁ symbol
// whose preceding symbol c is not ▁ and never appears as "c▁" inside any
// token.

const spaceMark = "\u2581"

// forSymbols calls fn with the start of every symbol of s whose text is ▁,
// and the start of the symbol before it (-1 if none).
func forSymbols[T string | []byte](s T, fn func(prev, p int)) {
	prev := -1
	for i := 0; i < len(s); {
		l := utf8Len(s[i])
		if i+l > len(s) {
			l = len(s) - i
		}
		if l == 3 && s[i] == 0xe2 && s[i+1] == 0x96 && s[i+2] == 0x81 {
			fn(prev, i)
		}
		prev = i
		i += l
	}
}

func (t *Tokenizer) initChunking() {
	set := map[string]struct{}{}
	scan := func(s string) {
		forSymbols(s, func(prev, p int) {
			if prev >= 0 && s[prev:p] != spaceMark {
				set[s[prev:p]] = struct{}{}
			}
		})
	}
	for id := 0; id < t.vocab.len(); id++ {
		scan(t.vocab.text(int32(id)))
	}
	if t.bpe != nil {
		for _, s := range t.bpe.extras {
			scan(s)
		}
	}
	t.noSplitPre = set
	t.chunkable = true
}

// chunkCuts returns the byte positions at which word may be cut.
func (t *Tokenizer) chunkCuts(word []byte, st *encodeState) []int {
	cuts := st.cuts[:0]
	forSymbols(word, func(prev, p int) {
		if prev < 0 || string(word[prev:p]) == spaceMark {
			return
		}
		if _, blocked := t.noSplitPre[string(word[prev:p])]; !blocked {
			cuts = append(cuts, p)
		}
	})
	st.cuts = cuts
	return cuts
}
