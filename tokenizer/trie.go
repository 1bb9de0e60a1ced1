package tokenizer

import "fmt"

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

// longestPrefix returns the length of the longest inserted text that is a
// prefix of s, and its value (0 and -1 when none).
func (t *byteTrie) longestPrefix(s []byte) (int, int32) {
	node, n, id := int32(0), 0, int32(-1)
	for i, b := range s {
		if node = t.next(node, b); node < 0 {
			break
		}
		if v := t.value[node]; v >= 0 {
			n, id = i+1, v
		}
	}
	return n, id
}

// longestPath returns the length of the longest prefix of s that is a path
// in the trie, whether or not a text ends there: llama.cpp's
// naive_trie::get_longest_prefix, which UGM uses for user-defined tokens.
func (t *byteTrie) longestPath(s []byte) int {
	node := int32(0)
	for i, b := range s {
		if node = t.next(node, b); node < 0 {
			return i
		}
	}
	return len(s)
}
