package tokenizer

import "fmt"

// spmState is scratch memory for SentencePiece merging.
type spmState struct {
	start, size []int32 // symbol byte ranges in the chunk
	next, prev  []int32
	pairID      []int32
	heap        []spmBigram
}

type spmBigram struct {
	score       float32
	left, right int32
	size        int32
}

func spmLess(a, b *spmBigram) bool { // a before b
	return a.score > b.score || (a.score == b.score && a.left < b.left)
}

// initSPM prepares byte fallback and chunking.
func (t *Tokenizer) initSPM() {
	t.bpe = &bpeData{}
	for c := 0; c < 256; c++ {
		t.bpe.hexTok[c] = t.Find(fmt.Sprintf("<0x%02X>", c))
		t.bpe.singleTok[c] = t.Find(string([]byte{byte(c)}))
	}
	t.initChunking()
}

// encodeSPM tokenizes one fragment that already has ▁ for spaces.
func (t *Tokenizer) encodeSPM(st *encodeState, text []byte, out []int32) []int32 {
	if !t.chunkable {
		return t.spmCached(st, text, out)
	}
	start := 0
	for _, cut := range t.chunkCuts(text, st) {
		out = t.spmCached(st, text[start:cut], out)
		start = cut
	}
	return t.spmCached(st, text[start:], out)
}

func (t *Tokenizer) spmCached(st *encodeState, word []byte, out []int32) []int32 {
	if len(word) == 0 {
		return out
	}
	if ids, ok := st.cachedWord(word); ok {
		return append(out, ids...)
	}
	n0 := len(out)
	out = t.spmWord(&st.spm, word, out)
	st.cacheWord(word, out[n0:])
	return out
}

// spmWord merges the highest-scoring adjacent pair that forms a token until
// none is left, then resegments, like llm_tokenizer_spm_session.
func (t *Tokenizer) spmWord(s *spmState, text []byte, out []int32) []int32 {
	start, size := s.start[:0], s.size[:0]
	for i := 0; i < len(text); {
		l := utf8Len(text[i])
		if i+l > len(text) {
			l = len(text) - i
		}
		start = append(start, int32(i))
		size = append(size, int32(l))
		i += l
	}
	n := len(start)
	if n <= 48 {
		n = t.spmSmall(s, text, start, size)
	} else {
		n = t.spmHeap(s, text, start, size)
	}
	for i := 0; i < n; i++ {
		piece := text[start[i] : start[i]+size[i]]
		if id := t.vocab.findBytes(piece); id >= 0 {
			out = append(out, id)
			continue
		}
		for _, c := range piece {
			switch {
			case t.bpe.hexTok[c] >= 0:
				out = append(out, t.bpe.hexTok[c])
			case t.bpe.singleTok[c] >= 0:
				out = append(out, t.bpe.singleTok[c])
			case t.unk >= 0:
				out = append(out, t.unk)
			}
		}
	}
	s.start, s.size = start, size
	return out
}

// spmSmall merges in place over arrays; returns the symbol count.
func (t *Tokenizer) spmSmall(s *spmState, text []byte, start, size []int32) int {
	n := len(start)
	pair := s.pairID[:0]
	for i := 0; i+1 < n; i++ {
		pair = append(pair, t.vocab.findBytes(text[start[i]:start[i+1]+size[i+1]]))
	}
	for n > 1 {
		best := -1
		var bs float32
		for i := 0; i+1 < n; i++ {
			if id := pair[i]; id >= 0 && (best < 0 || t.scores[id] > bs) {
				best, bs = i, t.scores[id]
			}
		}
		if best < 0 {
			break
		}
		size[best] += size[best+1]
		copy(start[best+1:], start[best+2:n])
		copy(size[best+1:], size[best+2:n])
		copy(pair[best:], pair[best+1:n-1])
		n--
		if best > 0 {
			pair[best-1] = t.vocab.findBytes(text[start[best-1] : start[best]+size[best]])
		}
		if best+1 < n {
			pair[best] = t.vocab.findBytes(text[start[best] : start[best+1]+size[best+1]])
		}
	}
	s.pairID = pair
	return n
}

// spmHeap merges with a priority queue; returns the symbol count after
// compacting start/size in order.
func (t *Tokenizer) spmHeap(s *spmState, text []byte, start, size []int32) int {
	n := len(start)
	next, prev := s.next[:0], s.prev[:0]
	for i := 0; i < n; i++ {
		next = append(next, int32(i+1))
		prev = append(prev, int32(i-1))
	}
	next[n-1] = -1
	h := s.heap[:0]
	push := func(l, r int32) {
		if l < 0 || r < 0 {
			return
		}
		id := t.vocab.findBytes(text[start[l] : start[r]+size[r]])
		if id < 0 {
			return
		}
		h = append(h, spmBigram{score: t.scores[id], left: l, right: r, size: size[l] + size[r]})
		i := len(h) - 1
		for i > 0 {
			p := (i - 1) / 2
			if !spmLess(&h[i], &h[p]) {
				break
			}
			h[i], h[p] = h[p], h[i]
			i = p
		}
	}
	pop := func() spmBigram {
		top := h[0]
		last := len(h) - 1
		h[0] = h[last]
		h = h[:last]
		i := 0
		for {
			l := 2*i + 1
			if l >= len(h) {
				break
			}
			m := l
			if r := l + 1; r < len(h) && spmLess(&h[r], &h[l]) {
				m = r
			}
			if !spmLess(&h[m], &h[i]) {
				break
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
		return top
	}
	for i := 1; i < n; i++ {
		push(int32(i-1), int32(i))
	}
	for len(h) > 0 {
		b := pop()
		if size[b.left] == 0 || size[b.right] == 0 || size[b.left]+size[b.right] != b.size {
			continue
		}
		size[b.left] += size[b.right]
		size[b.right] = 0
		next[b.left] = next[b.right]
		if nr := next[b.right]; nr >= 0 {
			prev[nr] = b.left
		}
		push(prev[b.left], b.left)
		push(b.left, next[b.left])
	}
	k := 0
	for i := int32(0); i >= 0; i = next[i] {
		start[k], size[k] = start[i], size[i]
		k++
	}
	s.next, s.prev, s.heap = next, prev, h[:0]
	return k
}
