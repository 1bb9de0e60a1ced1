package tokenizer

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/litert-go/litert-go/models/gguf"
)

// bpeData is the BPE-specific state of a Tokenizer.
type bpeData struct {
	extras    []string         // merge parts and results missing from the vocabulary
	extraIdx  map[string]int32 // text -> id (n + index)
	byteSym   [256]int32       // initial symbol of each byte (byte-level), or -1
	singleTok [256]int32       // token whose text is that single byte, or -1
	hexTok    [256]int32       // <0xXX> token, or -1
	encStr    [256]string      // UTF-8 of byteEnc[b]
}

func (t *Tokenizer) initBPE(f *gguf.File) error {
	var merges []string
	var err error
	if f.Has(keyMerges) {
		if merges, err = f.Strings(keyMerges); err != nil {
			return err
		}
	}
	if t.preTok, err = newPreTokenizer(t.pre); err != nil {
		return err
	}
	b := &bpeData{}
	t.bpe = b
	lookup := func(s string) int32 {
		if id := t.vocab.find(s); id >= 0 {
			return id
		}
		if id, ok := b.extraIdx[s]; ok {
			return id
		}
		if b.extraIdx == nil {
			b.extraIdx = map[string]int32{}
		}
		id := int32(t.n + len(b.extras))
		b.extras = append(b.extras, s)
		b.extraIdx[s] = id
		return id
	}
	res := t.resolveMerges(merges)
	t.merges = newMergeTable(len(merges))
	for i, r := range res {
		lid, rid, mid := r[0], r[1], r[2]
		if lid == unresolved {
			continue // malformed merge: llama.cpp records an empty pair that never matches
		}
		if lid < 0 {
			lid = lookup(merges[i][:r[3]])
		}
		if rid < 0 {
			rid = lookup(merges[i][r[3]+1:])
		}
		if mid < 0 {
			mid = lookup(merges[i][:r[3]] + merges[i][r[3]+1:])
		}
		t.merges.put(lid, rid, int32(i), mid)
	}
	for c := 0; c < 256; c++ {
		enc := string(appendRune(nil, byteEnc[c]))
		b.encStr[c] = enc
		b.byteSym[c] = t.symID(enc)
		b.singleTok[c] = t.Find(string([]byte{byte(c)}))
		b.hexTok[c] = t.Find(fmt.Sprintf("<0x%02X>", c))
	}
	if !t.preTok.byteEncode {
		t.initChunking()
	}
	return nil
}

const unresolved = -2

// resolveMerges finds, for every merge "left right", the token ids of left,
// right and left+right (-1 when not a token, unresolved for a malformed
// merge) and the split position, using all CPUs: the lookups are read-only.
func (t *Tokenizer) resolveMerges(merges []string) [][4]int32 {
	res := make([][4]int32, len(merges))
	work := func(lo, hi int) {
		guess := int32(-1)
		for i := lo; i < hi; i++ {
			m := merges[i]
			p := -1
			if len(m) > 1 {
				if q := strings.IndexByte(m[1:], ' '); q >= 0 {
					p = q + 1
				}
			}
			if p < 0 || p+1 >= len(m) {
				res[i] = [4]int32{unresolved, unresolved, unresolved, 0}
				continue
			}
			left, right := m[:p], m[p+1:]
			r := [4]int32{t.vocab.find(left), t.vocab.find(right), -1, int32(p)}
			// Vocabularies usually list merge results in merge order.
			if g := guess + 1; g > 0 && int(g) < t.n {
				if x := t.vocab.text(g); len(x) == len(left)+len(right) && x[:len(left)] == left && x[len(left):] == right {
					r[2] = g
				}
			}
			if r[2] < 0 {
				var buf [64]byte
				if len(left)+len(right) <= len(buf) {
					b := append(append(buf[:0], left...), right...)
					r[2] = t.vocab.findBytes(b)
				} else {
					r[2] = t.vocab.find(left + right)
				}
			}
			guess = r[2]
			res[i] = r
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if workers > 8 {
		workers = 8
	}
	if workers < 2 || len(merges) < 4096 {
		work(0, len(merges))
		return res
	}
	var wg sync.WaitGroup
	step := (len(merges) + workers - 1) / workers
	for lo := 0; lo < len(merges); lo += step {
		hi := min(lo+step, len(merges))
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(lo, hi)
		}()
	}
	wg.Wait()
	return res
}

// symID returns the id of a BPE symbol text: a token, an extra, or -1.
func (t *Tokenizer) symID(s string) int32 {
	if id := t.vocab.find(s); id >= 0 {
		return id
	}
	if id, ok := t.bpe.extraIdx[s]; ok {
		return id
	}
	return -1
}

func (t *Tokenizer) symIDBytes(s []byte) int32 {
	if id := t.vocab.findBytes(s); id >= 0 {
		return id
	}
	if len(t.bpe.extraIdx) > 0 {
		if id, ok := t.bpe.extraIdx[string(s)]; ok {
			return id
		}
	}
	return -1
}

// encodeBPE tokenizes one raw-text fragment.
func (t *Tokenizer) encodeBPE(st *encodeState, text string, out []int32) []int32 {
	if t.escapeWS {
		text = strings.ReplaceAll(text, " ", "\u2581")
	}
	st.decode(text)
	ends := t.preTok.run(&st.split, &st.tmp)
	norm := st.norm
	start := 0
	for _, e := range ends {
		word := norm[st.boff[start]:st.boff[e]]
		start = int(e)
		if t.preTok.byteEncode {
			out = t.bpeCached(st, word, out)
		} else {
			out = t.bpeChunked(st, word, out)
		}
	}
	return out
}

// bpeChunked runs BPE on a raw-UTF-8 (gemma4) word, cut into independent
// chunks where no merge can cross.
func (t *Tokenizer) bpeChunked(st *encodeState, word []byte, out []int32) []int32 {
	allNL := len(word) > 0
	for _, c := range word {
		if c != '\n' {
			allNL = false
			break
		}
	}
	if allNL {
		if id := t.vocab.findBytes(word); id >= 0 {
			return append(out, id)
		}
	}
	if !t.chunkable {
		return t.bpeCached(st, word, out)
	}
	start := 0
	for _, cut := range t.chunkCuts(word, st) {
		out = t.bpeCached(st, word[start:cut], out)
		start = cut
	}
	return t.bpeCached(st, word[start:], out)
}

// bpeCached runs BPE on one word through the per-call word cache.
func (t *Tokenizer) bpeCached(st *encodeState, word []byte, out []int32) []int32 {
	if len(word) == 0 {
		return out
	}
	if ids, ok := st.cachedWord(word); ok {
		return append(out, ids...)
	}
	n0 := len(out)
	out = t.bpeWord(st, word, out)
	st.cacheWord(word, out[n0:])
	return out
}

// bpeWord merges one word by rank and appends its tokens.
func (t *Tokenizer) bpeWord(st *encodeState, word []byte, out []int32) []int32 {
	b := t.bpe
	ids := st.ids[:0]
	offs := st.offs[:0]
	if t.preTok.byteEncode {
		if t.ignoreMerges {
			enc := st.enc[:0]
			for _, c := range word {
				enc = append(enc, b.encStr[c]...)
			}
			st.enc = enc
			if id := t.vocab.findBytes(enc); id >= 0 {
				return append(out, id)
			}
		}
		for i, c := range word {
			ids = append(ids, b.byteSym[c])
			offs = append(offs, int32(i))
		}
	} else {
		for i := 0; i < len(word); {
			l := utf8Len(word[i])
			if i+l > len(word) {
				l = len(word) - i
			}
			ids = append(ids, t.symIDBytes(word[i:i+l]))
			offs = append(offs, int32(i))
			i += l
		}
	}
	offs = append(offs, int32(len(word)))
	if len(ids) <= 48 {
		ids, offs = t.mergeSmall(st, ids, offs)
	} else {
		ids, offs = t.mergeHeap(st, ids, offs)
	}
	for i, id := range ids {
		if id >= 0 && int(id) < t.n {
			out = append(out, id)
			continue
		}
		// Not a token: fall back to one token per byte of its text.
		seg := word[offs[i]:offs[i+1]]
		if t.preTok.byteEncode {
			for _, c := range seg {
				for _, e := range []byte(b.encStr[c]) {
					if tok := b.singleTok[e]; tok >= 0 {
						out = append(out, tok)
					}
				}
			}
		} else {
			for _, c := range seg {
				if tok := b.hexTok[c]; tok >= 0 {
					out = append(out, tok)
				}
			}
		}
	}
	st.ids, st.offs = ids[:0], offs[:0]
	return out
}

// mergeSmall applies merges to a short symbol list: repeatedly the pair of
// lowest rank, leftmost first (the order llama.cpp's priority queue gives).
func (t *Tokenizer) mergeSmall(st *encodeState, ids, offs []int32) ([]int32, []int32) {
	n := len(ids)
	ranks := st.ranks[:0]
	merged := st.merged[:0]
	for i := 0; i+1 < n; i++ {
		r, m := t.pair(st, ids[i], ids[i+1])
		ranks = append(ranks, r)
		merged = append(merged, m)
	}
	for n > 1 {
		best := -1
		var br int32
		for i := 0; i+1 < n; i++ {
			if r := ranks[i]; r >= 0 && (best < 0 || r < br) {
				best, br = i, r
			}
		}
		if best < 0 {
			break
		}
		ids[best] = merged[best]
		copy(ids[best+1:], ids[best+2:n])
		copy(offs[best+1:], offs[best+2:n+1])
		copy(ranks[best:], ranks[best+1:n-1])
		copy(merged[best:], merged[best+1:n-1])
		n--
		if best > 0 {
			ranks[best-1], merged[best-1] = t.pair(st, ids[best-1], ids[best])
		}
		if best+1 < n {
			ranks[best], merged[best] = t.pair(st, ids[best], ids[best+1])
		}
	}
	st.ranks, st.merged = ranks, merged
	return ids[:n], offs[:n+1]
}

// encodeWhitespace is llama.cpp's llm_tokenizer_whitespace_session: the
// text between whitespace code points (lowercased when the normalizer says
// so) is tokenized by BPE, the whitespace dropped.
func (t *Tokenizer) encodeWhitespace(st *encodeState, text string, out []int32) []int32 {
	tab := cpFlagsTable()
	var seg []byte
	flush := func() {
		if len(seg) > 0 {
			out = t.encodeBPE(st, string(seg), out)
			seg = seg[:0]
		}
	}
	for i := 0; i < len(text); {
		c, n := decodeRune(text, i)
		i += n
		if tab.flags(c)&fWhitespace != 0 {
			flush()
			continue
		}
		if t.lowercase {
			c = toLower(c)
		}
		seg = appendRune(seg, c)
	}
	flush()
	return out
}
