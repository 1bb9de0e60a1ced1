package tokenizer

// encodeState is the scratch memory of one Encode call, reused via a pool.
type encodeState struct {
	split splitState
	tmp   []int32
	boff  []int32 // byte offset in norm of each code point (len = cps+1)
	norm  []byte  // the text re-encoded from its code points
	enc   []byte
	frags []fragment
	ids   []int32
	offs  []int32
	ranks []int32

	merged []int32
	next   []int32
	prev   []int32
	alive  []bool
	heap   []bigram
	cuts   []int
	text   []byte

	// per-call word cache: word -> (offset<<32 | count) into cacheIDs
	cache    map[string]uint64
	cacheIDs []int32

	spm spmState

	ugmBest []ugmBest

	plamoScores []int64
	plamoPath   []plamo2Path

	// pairs caches merge-table lookups. The table is a pure function of
	// the tokenizer, and a state belongs to one tokenizer's pool, so the
	// cache stays valid across calls.
	pairs *[pairCacheSize]pairEntry
}

const pairCacheSize = 1 << 12

type pairEntry struct{ key, val uint64 }

// cachedWord returns the tokens of word from the per-call word cache.
func (st *encodeState) cachedWord(word []byte) ([]int32, bool) {
	if st.cache == nil {
		return nil, false
	}
	v, ok := st.cache[string(word)]
	if !ok {
		return nil, false
	}
	return st.cacheIDs[v>>32 : v>>32+v&0xffffffff], true
}

// cacheWord records the tokens of a word of at most 64 bytes in the
// per-call word cache, if there is one.
func (st *encodeState) cacheWord(word []byte, ids []int32) {
	if st.cache == nil || len(word) > 64 {
		return
	}
	off := len(st.cacheIDs)
	st.cacheIDs = append(st.cacheIDs, ids...)
	st.cache[string(word)] = uint64(off)<<32 | uint64(len(ids))
}

// pair returns the merge rank and result of (l, r) through the cache.
func (t *Tokenizer) pair(st *encodeState, l, r int32) (int32, int32) {
	if l < 0 || r < 0 {
		return -1, -1
	}
	k := mergeKey(l, r)
	e := &st.pairs[((k^k>>29)*0x9E3779B97F4A7C15)>>52]
	if e.key != k {
		rank, m := t.merges.get(l, r)
		e.key, e.val = k, uint64(uint32(rank))<<32|uint64(uint32(m))
	}
	return int32(e.val >> 32), int32(uint32(e.val))
}

// cacheMinText is the text length from which Encode caches words.
const cacheMinText = 512

func (t *Tokenizer) getState(textLen int) *encodeState {
	st, _ := t.scratch.Get().(*encodeState)
	if st == nil {
		st = &encodeState{pairs: new([pairCacheSize]pairEntry)}
		for i := range st.pairs {
			st.pairs[i].key = emptyKey
		}
	}
	if textLen >= cacheMinText && !t.noWordCache {
		if st.cache == nil {
			st.cache = make(map[string]uint64, 1024)
		}
	} else {
		st.cache = nil
	}
	return st
}

func (t *Tokenizer) putState(st *encodeState) {
	if st.cache != nil {
		if len(st.cache) > 1<<16 {
			st.cache = nil
		} else {
			clear(st.cache)
		}
	}
	st.cacheIDs = st.cacheIDs[:0]
	if cap(st.norm) > 1<<22 || cap(st.split.cps) > 1<<22 {
		return // do not keep huge buffers alive
	}
	t.scratch.Put(st)
}

// decode fills the code points, their flags and byte offsets for text. The
// code points are decoded the way llama.cpp does; norm holds them
// re-encoded, which equals text unless text has invalid UTF-8.
func (st *encodeState) decode(text string) {
	tab := cpFlagsTable()
	cps := st.split.cps[:0]
	fl := st.split.fl[:0]
	boff := st.boff[:0]
	norm := st.norm[:0]
	for i := 0; i < len(text); {
		c := text[i]
		if c < 0x80 {
			cps = append(cps, rune(c))
			fl = append(fl, asciiFlags[c])
			boff = append(boff, int32(len(norm)))
			norm = append(norm, c)
			i++
			continue
		}
		r, n := decodeRune(text, i)
		cps = append(cps, r)
		fl = append(fl, tab.flags(r))
		boff = append(boff, int32(len(norm)))
		if r == 0xFFFD && n == 1 {
			norm = appendRune(norm, r)
		} else {
			norm = append(norm, text[i:i+n]...)
			if n == 2 && r < 0x80 || n == 3 && r < 0x800 || n == 4 && r < 0x10000 {
				// overlong form: llama.cpp re-encodes the code point
				norm = appendRune(norm[:len(norm)-n], r)
			}
		}
		i += n
	}
	boff = append(boff, int32(len(norm)))
	st.split.cps, st.split.fl, st.boff, st.norm = cps, fl, boff, norm
}
