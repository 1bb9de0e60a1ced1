package tokenizer

// bigram is a candidate merge in the priority queue.
type bigram struct {
	rank        int32
	left, right int32 // symbol indices
	lid, rid    int32 // symbol ids when queued (stale entries are skipped)
	merged      int32
}

func bigramLess(a, b *bigram) bool {
	return a.rank < b.rank || (a.rank == b.rank && a.left < b.left)
}

type bigramHeap []bigram

func (h *bigramHeap) push(b bigram) {
	*h = append(*h, b)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !bigramLess(&s[i], &s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *bigramHeap) pop() bigram {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		m := l
		if r := l + 1; r < len(s) && bigramLess(&s[r], &s[l]) {
			m = r
		}
		if !bigramLess(&s[m], &s[i]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// mergeHeap applies merges with a priority queue over a linked list of
// symbols, as llama.cpp's llm_tokenizer_bpe_session does. It gives the same
// result as mergeSmall in O(n log n).
func (t *Tokenizer) mergeHeap(st *encodeState, ids, offs []int32) ([]int32, []int32) {
	n := len(ids)
	next := st.next[:0]
	prev := st.prev[:0]
	for i := 0; i < n; i++ {
		next = append(next, int32(i+1))
		prev = append(prev, int32(i-1))
	}
	next[n-1] = -1
	alive := st.alive[:0]
	for i := 0; i < n; i++ {
		alive = append(alive, true)
	}
	h := bigramHeap(st.heap[:0])
	add := func(l, r int32) {
		if l < 0 || r < 0 {
			return
		}
		rank, m := t.pair(st, ids[l], ids[r])
		if rank < 0 {
			return
		}
		h.push(bigram{rank: rank, left: l, right: r, lid: ids[l], rid: ids[r], merged: m})
	}
	for i := 1; i < n; i++ {
		add(int32(i-1), int32(i))
	}
	for len(h) > 0 {
		b := h.pop()
		if !alive[b.left] || !alive[b.right] || ids[b.left] != b.lid || ids[b.right] != b.rid || next[b.left] != b.right {
			continue
		}
		ids[b.left] = b.merged
		alive[b.right] = false
		next[b.left] = next[b.right]
		if nr := next[b.right]; nr >= 0 {
			prev[nr] = b.left
		}
		add(prev[b.left], b.left)
		add(b.left, next[b.left])
	}
	// Compact the surviving symbols in order.
	k := 0
	for i := int32(0); i >= 0; i = next[i] {
		ids[k] = ids[i]
		offs[k] = offs[i]
		k++
	}
	offs[k] = offs[n]
	st.next, st.prev, st.alive, st.heap = next, prev, alive, h[:0]
	return ids[:k], offs[:k+1]
}
