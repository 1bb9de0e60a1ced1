package constrain

import (
	"bytes"
	"fmt"
	"slices"
)

// Vocab is a tokenizer vocabulary prepared for mask computation: the token
// byte strings laid out as a trie in depth-first order. It is immutable after
// NewVocab and safe for concurrent use by many matchers.
type Vocab struct {
	n     int
	toks  [][]byte
	isEOS []bool
	eos   []int32
	nodes []trieNode
	ids   []int32 // token ids referenced by trieNode.tokLo..tokHi
	bytes [256]bool
}

// trieNode is a trie node in depth-first order; its subtree is the range
// (index, skip).
type trieNode struct {
	b            byte
	depth        int32
	skip         int32
	tokLo, tokHi int32
}

// NewVocab builds a vocabulary from the exact bytes each token decodes to
// (tokens[id]). Empty or nil entries are never allowed (control tokens). The
// eos ids are allowed exactly when the constraint accepts the text so far.
func NewVocab(tokens [][]byte, eos []int32) (*Vocab, error) {
	if len(tokens) == 0 {
		return nil, fmt.Errorf("constrain: empty vocabulary")
	}
	if len(tokens) > 1<<30 {
		return nil, fmt.Errorf("constrain: vocabulary too large (%d tokens)", len(tokens))
	}
	v := &Vocab{n: len(tokens), toks: make([][]byte, len(tokens)), isEOS: make([]bool, len(tokens))}
	for _, id := range eos {
		if id < 0 || int(id) >= len(tokens) {
			return nil, fmt.Errorf("constrain: eos token id %d out of range [0, %d)", id, len(tokens))
		}
		if !v.isEOS[id] {
			v.isEOS[id] = true
			v.eos = append(v.eos, id)
		}
	}
	order := make([]int32, 0, len(tokens))
	for id, t := range tokens {
		v.toks[id] = bytes.Clone(t)
		if len(t) > 0 && !v.isEOS[id] {
			order = append(order, int32(id))
		}
	}
	slices.SortStableFunc(order, func(a, b int32) int { return bytes.Compare(v.toks[a], v.toks[b]) })
	v.nodes = append(v.nodes, trieNode{})
	path := []int32{0} // node index per depth
	var prev []byte
	for _, id := range order {
		t := v.toks[id]
		l := 0
		for l < len(prev) && l < len(t) && prev[l] == t[l] {
			l++
		}
		for len(path)-1 > l {
			v.nodes[path[len(path)-1]].skip = int32(len(v.nodes))
			path = path[:len(path)-1]
		}
		for d := l; d < len(t); d++ {
			idx := int32(len(v.nodes))
			v.nodes = append(v.nodes, trieNode{b: t[d], depth: int32(d + 1), tokLo: -1})
			path = append(path, idx)
		}
		nd := &v.nodes[path[len(path)-1]]
		if nd.tokLo < 0 || nd.tokHi != int32(len(v.ids)) {
			nd.tokLo = int32(len(v.ids))
		}
		v.ids = append(v.ids, id)
		nd.tokHi = int32(len(v.ids))
		if len(t) == 1 {
			v.bytes[t[0]] = true
		}
		prev = t
	}
	for _, idx := range path {
		v.nodes[idx].skip = int32(len(v.nodes))
	}
	for i := range v.nodes {
		if v.nodes[i].tokLo < 0 {
			v.nodes[i].tokLo, v.nodes[i].tokHi = 0, 0
		}
	}
	return v, nil
}

// Size returns the number of token ids.
func (v *Vocab) Size() int { return v.n }

// MaskWords returns the number of uint64 words a mask needs: (Size()+63)/64.
func (v *Vocab) MaskWords() int { return (v.n + 63) / 64 }

// TokenBytes returns the bytes of token id (nil for control tokens or out of
// range). The slice must not be modified.
func (v *Vocab) TokenBytes(id int32) []byte {
	if id < 0 || int(id) >= v.n {
		return nil
	}
	return v.toks[id]
}

// IsEOS reports whether id is one of the end-of-sequence tokens.
func (v *Vocab) IsEOS(id int32) bool { return id >= 0 && int(id) < v.n && v.isEOS[id] }

// CoversAllBytes reports whether every byte value is a single-byte token. If
// so, any text a constraint allows can be spelled with the vocabulary, so a
// matcher can never get stuck.
func (v *Vocab) CoversAllBytes() bool {
	for _, ok := range v.bytes {
		if !ok {
			return false
		}
	}
	return true
}
