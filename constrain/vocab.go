package constrain

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
)

// Vocab is a tokenizer vocabulary prepared for mask computation: the token
// byte strings laid out as a trie in depth-first order. It is immutable after
// NewVocab (apart from an internal, synchronized cache of compiled grammars'
// automata) and safe for concurrent use by many matchers.
type Vocab struct {
	n      int
	toks   [][]byte
	isEOS  []bool
	eos    []int32
	nodes  []trieNode        // depth-first order
	extra  map[int32][]int32 // node index -> further tokens with the same bytes
	none   int32             // token id used by nodes without a token: a spare mask bit
	bytes  [256]bool
	maxLen int

	mu      sync.Mutex
	engines map[[32]byte]*engine // shared caches by grammar fingerprint
	order   [][32]byte           // insertion order, for eviction
}

// maxSharedEngines bounds the grammars whose caches a Vocab keeps for reuse.
const maxSharedEngines = 32

// sharedEngine returns the cache for the grammar with fingerprint key,
// creating it from n if needed.
func (v *Vocab) sharedEngine(key [32]byte, n *nfa) *engine {
	v.mu.Lock()
	defer v.mu.Unlock()
	if e, ok := v.engines[key]; ok {
		if !e.oversized() {
			return e
		}
		// Start over: matchers still using the old cache keep it alive.
		delete(v.engines, key)
		v.order = slices.DeleteFunc(v.order, func(k [32]byte) bool { return k == key })
	}
	e := newEngine(n, v)
	if v.engines == nil {
		v.engines = map[[32]byte]*engine{}
	}
	if len(v.order) >= maxSharedEngines {
		delete(v.engines, v.order[0])
		v.order = v.order[1:]
	}
	v.engines[key] = e
	v.order = append(v.order, key)
	return e
}

// trieNode is a trie node in depth-first order; its subtree is the index
// range (i, skip). tok is the token ending at the node (Vocab.none if none);
// dup marks nodes with more tokens in Vocab.extra.
type trieNode struct {
	skip  int32
	tok   int32
	depth uint16
	b     byte
	dup   bool
}

// maxTokenLen bounds the byte length of a token.
const maxTokenLen = 1<<16 - 1

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
	v := &Vocab{n: len(tokens), toks: make([][]byte, len(tokens)), isEOS: make([]bool, len(tokens)), extra: map[int32][]int32{}}
	v.none = int32(v.MaskWords() * 64) // lands in the scratch word after the mask
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
		if len(t) > maxTokenLen {
			return nil, fmt.Errorf("constrain: token %d is %d bytes long (at most %d supported)", id, len(t), maxTokenLen)
		}
		v.maxLen = max(v.maxLen, len(t))
		v.toks[id] = bytes.Clone(t)
		if len(t) > 0 && !v.isEOS[id] {
			order = append(order, int32(id))
		}
	}
	slices.SortStableFunc(order, func(a, b int32) int { return bytes.Compare(v.toks[a], v.toks[b]) })
	v.nodes = append(v.nodes, trieNode{tok: v.none})
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
			v.nodes = append(v.nodes, trieNode{b: t[d], depth: uint16(d + 1), tok: v.none})
			path = append(path, idx)
		}
		last := path[len(path)-1]
		if nd := &v.nodes[last]; nd.tok == v.none {
			nd.tok = id
		} else {
			nd.dup = true
			v.extra[last] = append(v.extra[last], id)
		}
		if len(t) == 1 {
			v.bytes[t[0]] = true
		}
		prev = t
	}
	for _, idx := range path {
		v.nodes[idx].skip = int32(len(v.nodes))
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
