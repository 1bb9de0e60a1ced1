package tokenizer

import (
	"fmt"
	"math"
	"sort"
	"unicode/utf8"
)

// plamo2Data is the PLaMo-2 tokenizer ("plamo2"), as llama.cpp's
// llm_tokenizer_plamo2: a Viterbi search over code points by integer score
// (score·10⁴, rounded), matched through a table of every suffix of every
// token, with byte tokens (<0xXX>) for code points no token covers.
//
// The table has, for each suffix S of a token (and the empty suffix), one
// row per prefix of S that is a token or a suffix of one, longest first,
// then a sentinel row. Walking the text backwards, the state is the row
// where the longest such string starting at the current code point begins.
type plamo2Data struct {
	bytes    [256]int32
	table    []plamo2Row
	toSuffix suffixTable // code point<<32 | suffix row -> row of c+suffix
}

// suffixTable is an open-addressing hash table from uint64 keys to rows,
// which are never 0 (row 0 is the empty suffix, no key's target): a Go map
// lookup was most of the encoding time.
type suffixTable struct {
	slots []suffixSlot
	mask  uint64
}

type suffixSlot struct {
	key uint64
	row int32 // 0: empty
}

func newSuffixTable(n int) suffixTable {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	return suffixTable{slots: make([]suffixSlot, size), mask: uint64(size - 1)}
}

func suffixHash(k uint64) uint64 { return (k * 0x9E3779B97F4A7C15) >> 32 }

func (t *suffixTable) put(k uint64, row int32) {
	j := suffixHash(k) & t.mask
	for t.slots[j].row != 0 && t.slots[j].key != k {
		j = (j + 1) & t.mask
	}
	t.slots[j] = suffixSlot{k, row}
}

// get returns the row of k, or 0.
func (t *suffixTable) get(k uint64) int32 {
	for j := suffixHash(k) & t.mask; ; j = (j + 1) & t.mask {
		s := &t.slots[j]
		if s.key == k || s.row == 0 {
			return s.row
		}
	}
}

type plamo2Row struct {
	length  int32 // code points
	id      int32 // token, or -1
	score   int32 // plamo2Invalid: not a token; plamo2Unknown: sentinel
	pieceID int32 // row where the piece's own suffix rows begin
}

const (
	plamo2Invalid = -20000000
	plamo2Unknown = -10000000
)

// plamo2Score is llama.cpp's static_cast<int32_t>(std::round(score * 1e4))
// for finite scores; a value outside int32 becomes math.MinInt32 as the
// x86 conversion gives it (llama.cpp's cast is undefined there).
func plamo2Score(s float32) int32 {
	if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
		return plamo2Invalid
	}
	v := math.Round(float64(s) * 1e4)
	if v < math.MinInt32 || v > math.MaxInt32 {
		return math.MinInt32
	}
	return int32(v)
}

// plamo2Text re-encodes s through its code points as llama.cpp's
// unicode_cpts_from_utf8 and unicode_cpt_to_utf8 do (invalid bytes become
// U+FFFD), returning the text and the byte offset of each code point plus
// the end.
func plamo2Text(s string) (string, []int) {
	var b []byte
	offs := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		r, n := plamo2Rune(s, i)
		offs = append(offs, len(b))
		b = appendRune(b, r)
		i += n
	}
	offs = append(offs, len(b))
	return string(b), offs
}

// maxPLaMo2Work bounds the table construction, which for a token of n code
// points looks at n(n+1)/2 prefixes of its suffixes: real vocabularies need
// a few million, a crafted one with very long tokens would hang the load.
const maxPLaMo2Work = 1 << 27

func (t *Tokenizer) initPLaMo2() error {
	work := 0
	for id := 0; id < t.n; id++ {
		n := utf8.RuneCountInString(t.vocab.text(int32(id)))
		if work += n * (n + 1) / 2; work > maxPLaMo2Work {
			return fmt.Errorf("plamo2 vocabulary too large to index: token %d has %d code points, and its tokens' suffixes exceed %d prefixes in all", id, n, maxPLaMo2Work)
		}
	}
	p := &plamo2Data{}
	var haveByte [256]bool
	score := map[string]float32{} // token texts and their suffixes (NaN: not a token)
	ids := map[string]int32{}
	nan := float32(math.NaN())
	for id := 0; id < t.n; id++ {
		text := t.vocab.text(int32(id))
		if t.attrs[id]&attrByte != 0 {
			if v, ok := byteTokenValue(text); ok {
				p.bytes[v], haveByte[v] = int32(id), true
			}
			continue
		}
		ids[text] = int32(id)
		score[text] = t.scores[id]
		re, offs := plamo2Text(text)
		for i := 1; i < len(offs)-1; i++ {
			if _, ok := score[re[offs[i]:]]; !ok {
				score[re[offs[i]:]] = nan
			}
		}
	}
	for b, ok := range haveByte {
		if !ok {
			return fmt.Errorf("plamo2 vocabulary has no byte token <0x%02X> (every byte needs one)", b)
		}
	}
	suffixes := make([]string, 0, len(score)+1)
	suffixes = append(suffixes, "")
	for s := range score {
		suffixes = append(suffixes, s)
	}
	sort.Strings(suffixes) // any order with "" first: row 0 is the empty suffix
	// Rows of each suffix: its prefixes in score, longest first, then the sentinel.
	rowOf := make(map[string]int32, len(suffixes))
	type prefix struct {
		s      string
		length int32
	}
	var prefixes [][]prefix
	rows := 0
	for _, s := range suffixes {
		rowOf[s] = int32(rows)
		var ps []prefix
		if s != "" {
			re, offs := plamo2Text(s)
			for k := len(offs) - 1; k > 0; k-- {
				if _, ok := score[re[:offs[k]]]; ok {
					ps = append(ps, prefix{re[:offs[k]], int32(k)})
				}
			}
		}
		prefixes = append(prefixes, ps)
		rows += len(ps) + 1
	}
	p.table = make([]plamo2Row, 0, rows)
	p.toSuffix = newSuffixTable(len(suffixes))
	for i, s := range suffixes {
		if s != "" {
			re, offs := plamo2Text(s)
			c, _ := decodeRune(re, 0)
			p.toSuffix.put(uint64(uint32(c))<<32|uint64(uint32(rowOf[re[offs[1]:]])), rowOf[s])
		}
		for _, pr := range prefixes[i] {
			id, ok := ids[pr.s]
			if !ok {
				id = -1
			}
			p.table = append(p.table, plamo2Row{length: pr.length, id: id, score: plamo2Score(score[pr.s]), pieceID: rowOf[pr.s]})
		}
		p.table = append(p.table, plamo2Row{length: 1, id: -1, score: plamo2Unknown})
	}
	t.plamo2 = p
	return nil
}

// plamo2Rune is decodeRune, except that a four-byte sequence decoding past
// U+10FFFF gives its value: llama.cpp's unicode_cpts_from_utf8 accepts it,
// and PLaMo-2 then falls back to its bytes.
func plamo2Rune(s string, i int) (rune, int) {
	r, n := decodeRune(s, i)
	if r == 0xFFFD && n == 1 && s[i]&0xf8 == 0xf0 && i+3 < len(s) &&
		s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 && s[i+3]&0xc0 == 0x80 {
		return rune(s[i]&0x07)<<18 | rune(s[i+1]&0x3f)<<12 | rune(s[i+2]&0x3f)<<6 | rune(s[i+3]&0x3f), 4
	}
	return r, n
}

// byteTokenValue parses a byte token's text, <0xXX>.
func byteTokenValue(s string) (byte, bool) {
	if len(s) != 6 || s[:3] != "<0x" || s[5] != '>' {
		return 0, false
	}
	var v byte
	for _, c := range []byte(s[3:5]) {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= c - '0'
		case c >= 'a' && c <= 'f':
			v |= c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v |= c - 'A' + 10
		default:
			return 0, false
		}
	}
	return v, true
}

type plamo2Path struct {
	length, id int32
}

// encodePLaMo2 tokenizes one raw-text fragment as llm_tokenizer_plamo2::encode.
func (t *Tokenizer) encodePLaMo2(st *encodeState, text string, out []int32) []int32 {
	p := t.plamo2
	cps := st.split.cps[:0]
	for i := 0; i < len(text); {
		r, n := plamo2Rune(text, i)
		cps = append(cps, r)
		i += n
	}
	st.split.cps = cps
	if len(cps) > 0 && cps[0] == 0xFEFF {
		cps = cps[1:] // a leading byte order mark is dropped
	}
	n := len(cps)
	if n == 0 {
		return out
	}
	scores := st.plamoScores[:0]
	path := st.plamoPath[:0]
	for i := 0; i <= n; i++ {
		scores = append(scores, 1<<60)
		path = append(path, plamo2Path{})
	}
	scores[n] = 0
	suffix := int32(0)
	for i := n - 1; i >= 0; i-- {
		c := uint64(uint32(cps[i])) << 32
		for r := int(suffix); r < len(p.table); r++ {
			suffix = p.toSuffix.get(c | uint64(uint32(p.table[r].pieceID)))
			if suffix > 0 || p.table[r].score == plamo2Unknown {
				break
			}
		}
		for r := int(suffix); r < len(p.table); r++ {
			row := &p.table[r]
			if row.score > plamo2Invalid {
				if s := scores[i+int(row.length)] - int64(row.score); s < scores[i] {
					scores[i] = s
					path[i] = plamo2Path{length: row.length, id: row.id}
				}
			}
			if row.score == plamo2Unknown {
				break
			}
		}
	}
	for pos := 0; pos < n; pos += int(path[pos].length) {
		if id := path[pos].id; id >= 0 {
			out = append(out, id)
			continue
		}
		var buf [4]byte
		for _, b := range appendRune(buf[:0], cps[pos]) {
			out = append(out, p.bytes[b])
		}
	}
	st.plamoScores, st.plamoPath = scores[:0], path[:0]
	return out
}
