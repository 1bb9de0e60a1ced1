package tokenizer

// byteTrie is a trie over bytes with one flat open-addressing table of
// edges: (node, byte) -> child. Node 0 is the root. It is immutable after
// construction.
type byteTrie struct {
	keys  []uint64 // node<<8 | byte, +1 (0: empty slot)
	child []int32
	mask  uint64
	value []int32 // node -> token id, or -1
	n     int     // edges
}

func newByteTrie() *byteTrie {
	return &byteTrie{keys: make([]uint64, 1024), child: make([]int32, 1024), mask: 1023, value: []int32{-1}}
}

func edgeHash(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> 20 }

// next returns the child of node along b, or -1.
func (t *byteTrie) next(node int32, b byte) int32 {
	k := uint64(node)<<8 | uint64(b) + 1
	for j := edgeHash(k) & t.mask; ; j = (j + 1) & t.mask {
		switch t.keys[j] {
		case k:
			return t.child[j]
		case 0:
			return -1
		}
	}
}

func (t *byteTrie) grow() {
	keys, child := t.keys, t.child
	t.keys = make([]uint64, 2*len(keys))
	t.child = make([]int32, 2*len(keys))
	t.mask = uint64(len(t.keys) - 1)
	for i, k := range keys {
		if k != 0 {
			j := edgeHash(k) & t.mask
			for t.keys[j] != 0 {
				j = (j + 1) & t.mask
			}
			t.keys[j], t.child[j] = k, child[i]
		}
	}
}

// insert adds s with value id; a later insert of the same text wins, as in
// llama.cpp's naive_trie.
func (t *byteTrie) insert(s []byte, id int32) {
	node := int32(0)
	for _, b := range s {
		c := t.next(node, b)
		if c < 0 {
			if 2*(t.n+1) > len(t.keys) {
				t.grow()
			}
			c = int32(len(t.value))
			t.value = append(t.value, -1)
			k := uint64(node)<<8 | uint64(b) + 1
			j := edgeHash(k) & t.mask
			for t.keys[j] != 0 {
				j = (j + 1) & t.mask
			}
			t.keys[j], t.child[j] = k, c
			t.n++
		}
		node = c
	}
	t.value[node] = id
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
