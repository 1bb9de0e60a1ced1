package tokenizer

// mergeTable maps a pair of symbol ids to the merge's rank and the id of the
// merged symbol, in one open-addressing table.
type mergeTable struct {
	keys  []uint64 // left<<32 | right; emptyKey when free
	vals  []uint64 // rank<<32 | merged
	mask  uint64
	shift uint
}

const emptyKey = ^uint64(0)

func newMergeTable(n int) mergeTable {
	size, bits := 16, uint(4)
	for size < n+n/2+1 {
		size <<= 1
		bits++
	}
	m := mergeTable{keys: make([]uint64, size), vals: make([]uint64, size), mask: uint64(size - 1), shift: 64 - bits}
	for i := range m.keys {
		m.keys[i] = emptyKey
	}
	return m
}

func mergeKey(l, r int32) uint64 { return uint64(uint32(l))<<32 | uint64(uint32(r)) }

func (m *mergeTable) slot(k uint64) uint64 {
	return ((k ^ k>>29) * 0x9E3779B97F4A7C15) >> m.shift
}

// put adds the pair unless present (the first, lowest rank wins).
func (m *mergeTable) put(l, r, rank, merged int32) {
	k := mergeKey(l, r)
	i := m.slot(k)
	for {
		switch m.keys[i] {
		case emptyKey:
			m.keys[i] = k
			m.vals[i] = uint64(uint32(rank))<<32 | uint64(uint32(merged))
			return
		case k:
			return
		}
		i = (i + 1) & m.mask
	}
}

// get returns the rank and merged id of the pair, or rank -1.
func (m *mergeTable) get(l, r int32) (rank, merged int32) {
	if len(m.keys) == 0 || l < 0 || r < 0 {
		return -1, -1
	}
	k := mergeKey(l, r)
	i := m.slot(k)
	for {
		switch m.keys[i] {
		case emptyKey:
			return -1, -1
		case k:
			v := m.vals[i]
			return int32(v >> 32), int32(uint32(v))
		}
		i = (i + 1) & m.mask
	}
}
