package tokenizer

// strIndex is an immutable set of strings stored in one arena, each with a
// dense id, with an open-addressing hash index from text to id. It avoids a
// per-token Go map of strings: memory is the arena plus 4 bytes per string
// plus 8 bytes per hash slot.
type strIndex struct {
	arena string   // all texts, concatenated
	offs  []uint32 // text i is arena[offs[i]:offs[i+1]]
	slots []uint64 // hash<<32 | id+1; 0 when empty
	mask  uint64
}

// hashString is a fast 64-bit hash of s.
func hashString[T string | []byte](s T) uint64 {
	h := uint64(len(s)) ^ 0x9E3779B97F4A7C15
	i := 0
	for ; i+8 <= len(s); i += 8 {
		v := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		h = (h ^ v) * 0xbf58476d1ce4e5b9
		h ^= h >> 31
	}
	if i < len(s) {
		var v uint64
		for j := len(s) - 1; j >= i; j-- {
			v = v<<8 | uint64(s[j])
		}
		h = (h ^ v) * 0x94d049bb133111eb
		h ^= h >> 29
	}
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return h
}

// newStrIndex builds the index over texts. It returns the index of the first
// duplicate and false when two texts are equal.
func newStrIndex(texts []string) (*strIndex, int, bool) {
	total := 0
	for _, s := range texts {
		total += len(s)
	}
	buf := make([]byte, 0, total)
	offs := make([]uint32, len(texts)+1)
	for i, s := range texts {
		offs[i] = uint32(len(buf))
		buf = append(buf, s...)
	}
	offs[len(texts)] = uint32(len(buf))
	x := &strIndex{arena: string(buf), offs: offs}
	size := 16
	for size < len(texts)+len(texts)/3+1 {
		size <<= 1
	}
	x.slots = make([]uint64, size)
	x.mask = uint64(size - 1)
	for i, s := range texts {
		h := hashString(s)
		fp := h &^ 0xffffffff
		j := h & x.mask
		for {
			v := x.slots[j]
			if v == 0 {
				x.slots[j] = fp | uint64(i+1)
				break
			}
			if v&^0xffffffff == fp && x.text(int32(uint32(v)-1)) == s {
				return nil, i, false
			}
			j = (j + 1) & x.mask
		}
	}
	return x, 0, true
}

// len returns the number of strings.
func (x *strIndex) len() int { return len(x.offs) - 1 }

// text returns string id.
func (x *strIndex) text(id int32) string {
	return x.arena[x.offs[id]:x.offs[id+1]]
}

// find returns the id of s, or -1.
func (x *strIndex) find(s string) int32 {
	h := hashString(s)
	fp := h &^ 0xffffffff
	j := h & x.mask
	for {
		v := x.slots[j]
		if v == 0 {
			return -1
		}
		if v&^0xffffffff == fp {
			if id := int32(uint32(v) - 1); x.text(id) == s {
				return id
			}
		}
		j = (j + 1) & x.mask
	}
}

// findBytes returns the id of the text equal to b, or -1.
func (x *strIndex) findBytes(b []byte) int32 {
	h := hashString(b)
	fp := h &^ 0xffffffff
	j := h & x.mask
	for {
		v := x.slots[j]
		if v == 0 {
			return -1
		}
		if v&^0xffffffff == fp {
			if id := int32(uint32(v) - 1); x.text(id) == string(b) {
				return id
			}
		}
		j = (j + 1) & x.mask
	}
}
