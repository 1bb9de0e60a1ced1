package constrain

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
)

// Vocab is a tokenizer vocabulary prepared for mask computation. It is
// immutable after NewVocab (apart from an internal, synchronized cache of
// compiled grammars' automata) and safe for concurrent use by many matchers.
//
// The tokens are laid out as two tries in depth-first order. The first holds
// the string-text tokens: valid UTF-8 of at most maxStrRunes characters, none
// of them a control character, '"', backslash or DEL (the text of a JSON string
// without escapes, llguidance's "slice"). For them strCum[n] is the bitset of
// those of at most n characters, so a state that allows every such text of n
// characters and none of n+1 (inside a JSON string, with or without
// maxLength) takes them from one bitset instead of a walk. The second trie
// holds every other token.
type Vocab struct {
	n       int
	toks    [][]byte
	isEOS   []bool
	eos     []int32
	str     trie                 // string-text tokens
	rest    trie                 // all other tokens with text
	strCum  [][]uint64           // strCum[n]: string-text tokens of at most n characters (n ≥ 1)
	strMax  int                  // most characters of a string-text token
	strEnd  [u8States][256]uint8 // strEnd[u][b]: the last byte of the run from b with the same strNext(u, ·)
	strLead [4]uint64            // the first bytes of string-text characters
	none    int32                // token id used by nodes without a token: a spare mask bit
	bytes   [256]bool
	maxLen  int

	mu      sync.Mutex
	engines map[[32]byte]*engine // shared caches by grammar fingerprint
	order   [][32]byte           // insertion order, for eviction
}

// maxStrRunes is the most characters of a string-text token (longer ones go
// to the rest trie): few tokens are longer, and the states a mask explores
// to classify a string state grow with it.
const maxStrRunes = 32

// trie is a token trie in depth-first order; extra holds further tokens
// with the same bytes as a node's (node index -> token ids).
type trie struct {
	nodes []trieNode
	extra map[int32][]int32
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
// range (i, skip). tok is the token ending at the node (Vocab.none if none).
// The low bits of info (infoRunes) are, in the string-text trie, the most
// characters of a token in the subtree (infoRunes in the rest trie); its
// high bit (infoDup) marks nodes with more tokens in trie.extra.
type trieNode struct {
	skip  int32
	tok   int32
	depth uint16
	b     byte
	info  uint8
}

const (
	infoRunes = 0x7F
	infoDup   = 0x80
)

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
	v := &Vocab{n: len(tokens), toks: make([][]byte, len(tokens)), isEOS: make([]bool, len(tokens))}
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
	var strToks, restToks []int32
	var perLen [maxStrRunes + 1][]int32
	for id, t := range tokens {
		if len(t) > maxTokenLen {
			return nil, fmt.Errorf("constrain: token %d is %d bytes long (at most %d supported)", id, len(t), maxTokenLen)
		}
		v.maxLen = max(v.maxLen, len(t))
		v.toks[id] = bytes.Clone(t)
		if len(t) == 0 || v.isEOS[id] {
			continue
		}
		if len(t) == 1 {
			v.bytes[t[0]] = true
		}
		if n := strRunes(t); n > 0 && n <= maxStrRunes {
			strToks = append(strToks, int32(id))
			perLen[n] = append(perLen[n], int32(id))
			v.strMax = max(v.strMax, n)
		} else {
			restToks = append(restToks, int32(id))
		}
	}
	for b := range 256 {
		if strNext(u8Boundary, byte(b)) >= 0 {
			v.strLead[b>>6] |= 1 << (b & 63)
		}
	}
	for u := range u8States {
		end := 255
		for b := 255; b >= 0; b-- {
			if b < 255 && strNext(u, byte(b)) != strNext(u, byte(b+1)) {
				end = b
			}
			v.strEnd[u][b] = uint8(end)
		}
	}
	v.str = v.buildTrie(strToks, true)
	v.rest = v.buildTrie(restToks, false)
	v.strCum = make([][]uint64, v.strMax+1)
	for n := 1; n <= v.strMax; n++ {
		m := make([]uint64, v.MaskWords())
		if n > 1 {
			copy(m, v.strCum[n-1])
		}
		for _, id := range perLen[n] {
			m[id>>6] |= 1 << (uint(id) & 63)
		}
		v.strCum[n] = m
	}
	return v, nil
}

// strRunes returns the number of characters of t if it is string text (see
// Vocab), else -1.
func strRunes(t []byte) int {
	n, u := 0, u8Boundary
	for _, c := range t {
		if u = strNext(u, c); u < 0 {
			return -1
		}
		if u == u8Boundary {
			n++
		}
	}
	if u != u8Boundary {
		return -1
	}
	return n
}

// strNext is the UTF-8 decoder step (utf8Next) restricted to string text:
// between characters, the ASCII bytes allowed are 0x20-0x7E except '"' and
// backslash.
func strNext(u int, c byte) int {
	if u == u8Boundary && c < 0x80 && (c < 0x20 || c == '"' || c == '\\' || c == 0x7F) {
		return -1
	}
	return utf8Next(u, c)
}

// strSpan returns strNext(u, b) and the last byte of the run of bytes from
// b on that strNext takes to the same state.
func (v *Vocab) strSpan(u int, b byte) (int, int) {
	return strNext(u, b), int(v.strEnd[u][b])
}

// buildTrie lays out the tokens ids as a trie in depth-first order; str
// tells whether they are string text (for trieNode.info).
func (v *Vocab) buildTrie(ids []int32, str bool) trie {
	slices.SortStableFunc(ids, func(a, b int32) int { return bytes.Compare(v.toks[a], v.toks[b]) })
	tr := trie{nodes: []trieNode{{tok: v.none}}, extra: map[int32][]int32{}}
	path := []int32{0} // node index per depth
	var prev []byte
	for _, id := range ids {
		t := v.toks[id]
		l := 0
		for l < len(prev) && l < len(t) && prev[l] == t[l] {
			l++
		}
		for len(path)-1 > l {
			tr.nodes[path[len(path)-1]].skip = int32(len(tr.nodes))
			path = path[:len(path)-1]
		}
		for d := l; d < len(t); d++ {
			idx := int32(len(tr.nodes))
			tr.nodes = append(tr.nodes, trieNode{b: t[d], depth: uint16(d + 1), tok: v.none})
			path = append(path, idx)
		}
		runes := uint8(infoRunes)
		if str {
			runes = uint8(strRunes(t))
		}
		for _, idx := range path[1:] {
			if nd := &tr.nodes[idx]; nd.info&infoRunes < runes {
				nd.info = nd.info&infoDup | runes
			}
		}
		last := path[len(path)-1]
		if nd := &tr.nodes[last]; nd.tok == v.none {
			nd.tok = id
		} else {
			nd.info |= infoDup
			tr.extra[last] = append(tr.extra[last], id)
		}
		prev = t
	}
	for _, idx := range path {
		tr.nodes[idx].skip = int32(len(tr.nodes))
	}
	return tr
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
