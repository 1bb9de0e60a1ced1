package tokenizer

import "sort"

// specialMatcher finds special tokens (control, user-defined and unknown)
// in text and partitions the text the way llama.cpp's
// tokenizer_st_partition does: tokens are taken longest first, each one
// splitting every remaining raw-text fragment at its occurrences, left to
// right.
type specialMatcher struct {
	ids   []int32         // special tokens in priority order (longest first)
	rank  map[int32]int32 // id -> index in ids
	first [256]bool       // bytes that start some special token
	trie  map[uint64]int32
	term  []int32 // trie node -> token id, or -1
	maxN  int
}

func newSpecialMatcher(t *Tokenizer) *specialMatcher {
	m := &specialMatcher{rank: map[int32]int32{}, trie: map[uint64]int32{}, term: []int32{-1}}
	for id, a := range t.attrs {
		if a&(attrControl|attrUserDefined|attrUnknown) != 0 {
			m.ids = append(m.ids, int32(id))
		}
	}
	sort.SliceStable(m.ids, func(i, j int) bool {
		return len(t.vocab.text(m.ids[i])) > len(t.vocab.text(m.ids[j]))
	})
	for i, id := range m.ids {
		m.rank[id] = int32(i)
		s := t.vocab.text(id)
		if len(s) > m.maxN {
			m.maxN = len(s)
		}
		m.first[s[0]] = true
		node := int32(0)
		for j := 0; j < len(s); j++ {
			key := uint64(node)<<8 | uint64(s[j])
			next, ok := m.trie[key]
			if !ok {
				next = int32(len(m.term))
				m.term = append(m.term, -1)
				m.trie[key] = next
			}
			node = next
		}
		m.term[node] = id
	}
	return m
}

// fragment is a piece of the input: raw text [start, end) or a token.
type fragment struct {
	start, end int
	tok        int32 // -1 for raw text
}

type occurrence struct {
	pos  int
	rank int32
}

// partition splits text into raw fragments and special tokens.
func (t *Tokenizer) partition(text string, parseSpecial bool, out []fragment) []fragment {
	out = out[:0]
	if text == "" {
		return out
	}
	m := t.specials
	eligible := func(id int32) bool {
		return parseSpecial || t.attrs[id]&(attrControl|attrUnknown) == 0
	}
	var occ []occurrence
	if len(m.ids) > 0 {
		for i := 0; i < len(text); i++ {
			if !m.first[text[i]] {
				continue
			}
			node := int32(0)
			for j := i; j < len(text); j++ {
				next, ok := m.trie[uint64(node)<<8|uint64(text[j])]
				if !ok {
					break
				}
				node = next
				if id := m.term[node]; id >= 0 && eligible(id) {
					occ = append(occ, occurrence{i, m.rank[id]})
				}
			}
		}
	}
	out = append(out, fragment{0, len(text), -1})
	if len(occ) == 0 {
		return out
	}
	sort.Slice(occ, func(i, j int) bool {
		if occ[i].rank != occ[j].rank {
			return occ[i].rank < occ[j].rank
		}
		return occ[i].pos < occ[j].pos
	})
	var next []fragment
	for i := 0; i < len(occ); {
		j := i
		for j < len(occ) && occ[j].rank == occ[i].rank {
			j++
		}
		id := m.ids[occ[i].rank]
		next = t.splitAt(text, out, occ[i:j], id, next[:0])
		out, next = next, out
		i = j
	}
	return out
}

// splitAt splits the raw fragments of frags at the occurrences of token id
// (sorted by position), greedily left to right within each fragment.
func (t *Tokenizer) splitAt(text string, frags []fragment, occ []occurrence, id int32, out []fragment) []fragment {
	n := len(t.vocab.text(id))
	a := t.attrs[id]
	k := 0
	for _, fr := range frags {
		if fr.tok >= 0 {
			out = append(out, fr)
			continue
		}
		cur := fr.start
		for k < len(occ) && occ[k].pos < fr.start {
			k++
		}
		for ; k < len(occ) && occ[k].pos+n <= fr.end; k++ {
			p := occ[k].pos
			if p < cur {
				continue
			}
			left := p
			if a&attrLstrip != 0 {
				for left > cur && isCSpace(text[left-1]) {
					left--
				}
			}
			if left > cur {
				out = append(out, fragment{cur, left, -1})
			}
			out = append(out, fragment{p, p + n, id})
			cur = p + n
			if a&attrRstrip != 0 {
				for cur < fr.end && isCSpace(text[cur]) {
					cur++
				}
			}
		}
		if cur < fr.end {
			out = append(out, fragment{cur, fr.end, -1})
		}
	}
	return out
}
