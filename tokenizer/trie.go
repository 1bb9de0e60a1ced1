package tokenizer

import (
	"fmt"
	"sort"
)

// byteTrie is a trie over bytes with one flat open-addressing table of
// edges: (node, byte) -> child, each edge packed in one word so that a step
// touches one cache line. Node 0 is the root, whose edges are also kept in
// a direct table. It is immutable after construction.
type byteTrie struct {
	slots []uint64 // (node<<8 | byte) + 1 in the high 32 bits, child in the low; 0: empty
	mask  uint64
	root  [256]int32
	value []int32 // node -> token id, or -1
	n     int     // edges
}

// maxTrieNodes bounds the nodes so that a key fits in 32 bits.
const maxTrieNodes = 1<<24 - 2

func newByteTrie() *byteTrie {
	t := &byteTrie{slots: make([]uint64, 1024), mask: 1023, value: []int32{-1}}
	for i := range t.root {
		t.root[i] = -1
	}
	return t
}

func edgeHash(k uint32) uint64 { return (uint64(k) * 0x9E3779B97F4A7C15) >> 20 }

// next returns the child of node along b, or -1.
func (t *byteTrie) next(node int32, b byte) int32 {
	if node == 0 {
		return t.root[b]
	}
	k := uint32(node)<<8 | uint32(b) + 1
	for j := edgeHash(k) & t.mask; ; j = (j + 1) & t.mask {
		v := t.slots[j]
		if uint32(v>>32) == k {
			return int32(uint32(v))
		}
		if v == 0 {
			return -1
		}
	}
}

func (t *byteTrie) put(k uint32, child int32) {
	j := edgeHash(k) & t.mask
	for t.slots[j] != 0 {
		j = (j + 1) & t.mask
	}
	t.slots[j] = uint64(k)<<32 | uint64(uint32(child))
}

func (t *byteTrie) grow() {
	old := t.slots
	t.slots = make([]uint64, 2*len(old))
	t.mask = uint64(len(t.slots) - 1)
	for _, v := range old {
		if v != 0 {
			t.put(uint32(v>>32), int32(uint32(v)))
		}
	}
}

// insert adds s with value id; a later insert of the same text wins, as in
// llama.cpp's naive_trie.
func (t *byteTrie) insert(s []byte, id int32) error {
	node := int32(0)
	for _, b := range s {
		c := t.next(node, b)
		if c < 0 {
			if len(t.value) >= maxTrieNodes {
				return fmt.Errorf("vocabulary too large for the token trie (%d nodes)", len(t.value))
			}
			c = int32(len(t.value))
			t.value = append(t.value, -1)
			if node == 0 {
				t.root[b] = c
			} else {
				if 2*(t.n+1) > len(t.slots) {
					t.grow()
				}
				t.put(uint32(node)<<8|uint32(b)+1, c)
				t.n++
			}
		}
		node = c
	}
	t.value[node] = id
	return nil
}

// trie is a byteTrie frozen for lookups. Nodes keep their insertion
// order: tokens inserted in id order (in Unigram vocabularies, roughly by
// frequency) put the nodes text uses most at the front, where they stay in
// cache, and a chain of nodes with one child each (most nodes) lies in
// consecutive records. A hash table spreading edges over the whole table
// allows neither.
type trie struct {
	nodes []trieNode
	edges []uint32     // child<<8 | byte, sorted by byte within a node
	dense [][256]int32 // children of the root and of nodes with many edges
}

// trieNode is a node's value, the score Unigram attaches to it, and its
// edges, by the low two bits of meta:
//
//	trieList:   edges[edge:edge+meta>>2]
//	trieSingle: one edge, to node edge along byte meta>>2
//	trieDense:  dense[meta>>2]
type trieNode struct {
	edge  uint32
	value int32
	score float32
	meta  uint32
}

const (
	trieList = iota
	trieSingle
	trieDense
)

// denseEdges is the number of edges from which a node gets a direct table
// (1 KiB) instead of a scan: in a Unigram vocabulary "▁" has thousands of
// children, and nearly every word passes through it.
const denseEdges = 24

// freeze returns the lookup form of t.
func (t *byteTrie) freeze() (*trie, error) {
	f := &trie{nodes: make([]trieNode, len(t.value)), dense: [][256]int32{t.root}}
	count := make([]uint32, len(t.value)+1)
	for _, v := range t.slots {
		if v != 0 {
			count[(uint32(v>>32)-1)>>8+1]++
		}
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	start := append([]uint32(nil), count...)
	all := make([]uint32, t.n)
	for _, v := range t.slots {
		if v == 0 {
			continue
		}
		k := uint32(v>>32) - 1
		node := k >> 8
		all[count[node]] = uint32(v)<<8 | k&0xff
		count[node]++
	}
	// Number the nodes breadth first, each level in insertion order, so
	// that the shallow nodes every walk passes through lie together.
	order := make([]int32, 0, len(t.value)) // new id -> old id
	newID := make([]int32, len(t.value))
	order = append(order, 0)
	for _, c := range t.root { // the root's edges are only in its table
		if c >= 0 {
			order = append(order, c)
		}
	}
	sort.Slice(order[1:], func(i, j int) bool { return order[1+i] < order[1+j] })
	for lo := 1; lo < len(order); {
		hi := len(order)
		for _, old := range order[lo:hi] {
			for _, x := range all[start[old]:start[old+1]] {
				order = append(order, int32(x>>8))
			}
		}
		level := order[hi:]
		sort.Slice(level, func(i, j int) bool { return level[i] < level[j] })
		lo = hi
	}
	if len(order) != len(t.value) { // insert only makes reachable nodes
		return nil, fmt.Errorf("token trie: %d of %d nodes reachable from the root", len(order), len(t.value))
	}
	for n, old := range order {
		newID[old] = int32(n)
	}
	for i := range all {
		all[i] = uint32(newID[all[i]>>8])<<8 | all[i]&0xff
	}
	for i := range f.dense[0] {
		if c := f.dense[0][i]; c >= 0 {
			f.dense[0][i] = newID[c]
		}
	}
	for n, old := range order {
		i := int(old)
		nd := &f.nodes[n]
		nd.value = t.value[i]
		e := all[start[i]:start[i+1]]
		switch {
		case n == 0:
			nd.meta = trieDense // the root's table is dense[0]
		case len(e) == 1:
			nd.edge, nd.meta = e[0]>>8, (e[0]&0xff)<<2|trieSingle
		case len(e) >= denseEdges:
			var d [256]int32
			for c := range d {
				d[c] = -1
			}
			for _, x := range e {
				d[byte(x)] = int32(x >> 8)
			}
			nd.meta = uint32(len(f.dense))<<2 | trieDense
			f.dense = append(f.dense, d)
		default:
			for j := 1; j < len(e); j++ { // insertion sort: these nodes have few edges
				for k := j; k > 0 && byte(e[k]) < byte(e[k-1]); k-- {
					e[k], e[k-1] = e[k-1], e[k]
				}
			}
			nd.edge, nd.meta = uint32(len(f.edges)), uint32(len(e))<<2|trieList
			f.edges = append(f.edges, e...)
		}
	}
	return f, nil
}

// next returns the child of node along b, or -1.
func (t *trie) next(node int32, b byte) int32 {
	nd := &t.nodes[node]
	switch nd.meta & 3 {
	case trieSingle:
		if byte(nd.meta>>2) == b {
			return int32(nd.edge)
		}
		return -1
	case trieDense:
		return t.dense[nd.meta>>2][b]
	}
	for _, x := range t.edges[nd.edge : nd.edge+nd.meta>>2] {
		if c := byte(x); c >= b {
			if c == b {
				return int32(x >> 8)
			}
			return -1
		}
	}
	return -1
}

// longestPrefix returns the length of the longest inserted text that is a
// prefix of s, and its value (0 and -1 when none).
func (t *trie) longestPrefix(s []byte) (int, int32) {
	node, n, id := int32(0), 0, int32(-1)
	for i, b := range s {
		if node = t.next(node, b); node < 0 {
			break
		}
		if v := t.nodes[node].value; v >= 0 {
			n, id = i+1, v
		}
	}
	return n, id
}

// longestPath returns the length of the longest prefix of s that is a path
// in the trie, whether or not a text ends there: llama.cpp's
// naive_trie::get_longest_prefix, which UGM uses for user-defined tokens.
func (t *trie) longestPath(s []byte) int {
	node := int32(0)
	for i, b := range s {
		if node = t.next(node, b); node < 0 {
			return i
		}
	}
	return len(s)
}
