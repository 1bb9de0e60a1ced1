package tokenizer

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// strIndex is an immutable set of strings stored in one arena, each with a
// dense id, with an open-addressing hash index from text to id. It avoids a
// per-token Go map of strings: memory is the arena plus 4 bytes per string
// plus 8 bytes per hash slot.
//
// A slot packs the id, the text's arena offset and length and a hash
// fingerprint, so a lookup touches only the slot and the text itself:
//
//	bits  0-20 id+1 (0: empty)
//	bits 21-45 arena offset (when the arena is smaller than 32 MiB)
//	bits 46-53 length (255: 255 or longer, read offs)
//	bits 54-63 fingerprint
type strIndex struct {
	arena   string   // all texts, concatenated
	offs    []uint32 // text i is arena[offs[i]:offs[i+1]]
	slots   []uint64
	mask    uint64
	compact bool // slots hold offsets
}

const (
	slotIDBits  = 21
	slotOffBits = 25
	maxSlotIDs  = 1<<slotIDBits - 2
)

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

func lenField(n int) uint64 {
	if n >= 255 {
		return 255
	}
	return uint64(n)
}

// newStrIndex builds the index over texts (at most maxSlotIDs of them). It
// returns the index of a duplicate and false when two texts are equal.
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
	x := &strIndex{arena: string(buf), offs: offs, compact: total < 1<<slotOffBits}
	size := 16
	for size < len(texts)+len(texts)/3+1 {
		size <<= 1
	}
	x.slots = make([]uint64, size)
	x.mask = uint64(size - 1)

	// Insert in parallel with compare-and-swap; lookups do not depend on
	// the order of insertion.
	var dup atomic.Int64
	dup.Store(-1)
	insert := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := texts[i]
			h := hashString(s)
			v := h>>54<<54 | lenField(len(s))<<46 | uint64(i+1)
			if x.compact {
				v |= uint64(offs[i]) << slotIDBits
			}
			j := h & x.mask
			for {
				old := atomic.LoadUint64(&x.slots[j])
				if old == 0 {
					if atomic.CompareAndSwapUint64(&x.slots[j], 0, v) {
						break
					}
					continue // lost a race: look at the slot again
				}
				if old>>46 == v>>46 && x.text(int32(old&(1<<slotIDBits-1))-1) == s {
					dup.Store(int64(i))
					return
				}
				j = (j + 1) & x.mask
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), 8)
	if workers < 2 || len(texts) < 8192 {
		insert(0, len(texts))
	} else {
		var wg sync.WaitGroup
		step := (len(texts) + workers - 1) / workers
		for lo := 0; lo < len(texts); lo += step {
			wg.Add(1)
			go func(lo, hi int) {
				defer wg.Done()
				insert(lo, hi)
			}(lo, min(lo+step, len(texts)))
		}
		wg.Wait()
	}
	if d := dup.Load(); d >= 0 {
		return nil, int(d), false
	}
	return x, 0, true
}

// len returns the number of strings.
func (x *strIndex) len() int { return len(x.offs) - 1 }

// text returns string id.
func (x *strIndex) text(id int32) string {
	return x.arena[x.offs[id]:x.offs[id+1]]
}

// slotText returns the text a slot refers to.
func (x *strIndex) slotText(v uint64) string {
	if n := v >> 46 & 0xff; x.compact && n < 255 {
		off := v >> slotIDBits & (1<<slotOffBits - 1)
		return x.arena[off : off+n]
	}
	return x.text(int32(v&(1<<slotIDBits-1)) - 1)
}

// find returns the id of s, or -1.
func (x *strIndex) find(s string) int32 {
	h := hashString(s)
	key := h>>54<<8 | lenField(len(s))
	j := h & x.mask
	for {
		v := x.slots[j]
		if v == 0 {
			return -1
		}
		if v>>46 == key && x.slotText(v) == s {
			return int32(v&(1<<slotIDBits-1)) - 1
		}
		j = (j + 1) & x.mask
	}
}

// findBytes returns the id of the text equal to b, or -1.
func (x *strIndex) findBytes(b []byte) int32 {
	h := hashString(b)
	key := h>>54<<8 | lenField(len(b))
	j := h & x.mask
	for {
		v := x.slots[j]
		if v == 0 {
			return -1
		}
		if v>>46 == key && x.slotText(v) == string(b) {
			return int32(v&(1<<slotIDBits-1)) - 1
		}
		j = (j + 1) & x.mask
	}
}
