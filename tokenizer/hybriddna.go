package tokenizer

import "strings"

// dnaData is the HybridDNA tokenizer ("hybriddna"), as llama.cpp's
// llm_tokenizer_hybriddna_session: byte-level BPE, except that the text
// between <dna> and </dna> is cut into 6-mers, each the token of its text
// with dnaMarker appended (<oov> when there is none).
type dnaData struct {
	begin, end, oov int32
	// kmerFrom is the first id whose text may end in the marker: the ids
	// after <oov>. Their texts (TokenText, pieces) are shown without it.
	kmerFrom int32
}

const (
	dnaMarker = "\ue000"
	dnaOpen   = "<dna>"
	dnaClose  = "</dna>"
	dnaK      = 6
)

// initDNA finds the DNA tokens. Without all three of <dna>, </dna> and
// <oov>, llama.cpp tokenizes as plain BPE, and so does this.
func (t *Tokenizer) initDNA() {
	d := &dnaData{begin: t.Find(dnaOpen), end: t.Find(dnaClose), oov: t.Find("<oov>"), kmerFrom: int32(t.n)}
	if d.oov >= 0 {
		d.kmerFrom = d.oov + 1
	}
	t.dna = d
}

// text returns the text of id as llama.cpp's id_to_token holds it:
// HybridDNA k-mers lose their marker.
func (t *Tokenizer) text(id int32) string {
	s := t.vocab.text(id)
	if t.dna != nil && id >= t.dna.kmerFrom && len(s) > len(dnaMarker) {
		s = strings.TrimSuffix(s, dnaMarker)
	}
	return s
}

// encodeDNA tokenizes one raw-text fragment.
func (t *Tokenizer) encodeDNA(st *encodeState, text string, out []int32) []int32 {
	d := t.dna
	if d.begin < 0 || d.end < 0 || d.oov < 0 {
		return t.encodeBPE(st, text, out)
	}
	for len(text) > 0 {
		start := strings.Index(text, dnaOpen)
		if start < 0 {
			return t.encodeBPE(st, text, out)
		}
		if start > 0 {
			out = t.encodeBPE(st, text[:start], out)
		}
		out = append(out, d.begin)
		text = text[start+len(dnaOpen):]
		end := strings.Index(text, dnaClose)
		seq := text
		if end >= 0 {
			seq = text[:end]
		}
		out = t.dnaKmers(st, seq, out)
		if end < 0 {
			break
		}
		out = append(out, d.end)
		text = text[end+len(dnaClose):]
	}
	return out
}

// dnaKmers appends the 6-mer tokens of seq (ASCII letters upper-cased, the
// last k-mer padded with A); k-mers are cut by bytes, as llama.cpp does.
func (t *Tokenizer) dnaKmers(st *encodeState, seq string, out []int32) []int32 {
	for i := 0; i < len(seq); i += dnaK {
		k := st.enc[:0]
		for j := i; j < min(i+dnaK, len(seq)); j++ {
			c := seq[j]
			if c >= 'a' && c <= 'z' {
				c -= 'a' - 'A'
			}
			k = append(k, c)
		}
		for len(k) < dnaK {
			k = append(k, 'A')
		}
		k = append(k, dnaMarker...)
		st.enc = k
		id := t.vocab.findBytes(k)
		if id < 0 || id >= int32(t.n) {
			id = t.dna.oov
		}
		out = append(out, id)
	}
	return out
}
