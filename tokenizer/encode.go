package tokenizer

import "strings"

// Encode tokenizes text exactly as llama.cpp's llama_tokenize does with the
// given add_special and parse_special settings. Invalid UTF-8 never panics;
// see the package documentation for how it is treated.
func (t *Tokenizer) Encode(text string, opts EncodeOptions) []int32 {
	st := t.getState(len(text))
	defer t.putState(st)
	st.frags = t.partition(text, opts.ParseSpecial, st.frags)
	out := make([]int32, 0, len(text)/4+4)
	switch t.kind {
	case kindSPM:
		if opts.AddSpecial && t.addBOS {
			out = append(out, t.bos)
		}
		prevSpecial := true
		for _, fr := range st.frags {
			if fr.tok >= 0 {
				out = append(out, fr.tok)
				prevSpecial = true
				continue
			}
			buf := st.text[:0]
			if t.addSpacePrefix && prevSpecial {
				buf = append(buf, spaceMark...)
			}
			buf = appendEscaped(buf, text[fr.start:fr.end])
			st.text = buf
			out = t.encodeSPM(st, buf, out)
			prevSpecial = false
		}
		if opts.AddSpecial && t.addEOS {
			out = append(out, t.eos)
		}
	case kindBPE:
		if opts.AddSpecial && t.addBOS {
			out = append(out, t.bos)
		}
		for _, fr := range st.frags {
			if fr.tok >= 0 {
				out = append(out, fr.tok)
				continue
			}
			switch {
			case t.whitespaceModel:
				out = t.encodeWhitespace(st, text[fr.start:fr.end], out)
			case t.dna != nil:
				out = t.encodeDNA(st, text[fr.start:fr.end], out)
			default:
				out = t.encodeBPE(st, text[fr.start:fr.end], out)
			}
		}
		if opts.AddSpecial && t.addEOS {
			out = append(out, t.eos)
		}
	case kindUGM, kindRWKV: // llama.cpp adds no BOS/EOS for RWKV
		ugm := t.kind == kindUGM
		if opts.AddSpecial && ugm && t.addBOS {
			out = append(out, t.bos)
		}
		for _, fr := range st.frags {
			switch {
			case fr.tok >= 0:
				out = append(out, fr.tok)
			case ugm:
				out = t.encodeUGM(st, text[fr.start:fr.end], out)
			default:
				out = t.encodeRWKV(text[fr.start:fr.end], out)
			}
		}
		if opts.AddSpecial && ugm && t.addEOS {
			out = append(out, t.eos)
		}
	case kindPLaMo2: // llama.cpp adds no BOS/EOS for PLaMo-2
		for _, fr := range st.frags {
			if fr.tok >= 0 {
				out = append(out, fr.tok)
				continue
			}
			out = t.encodePLaMo2(st, text[fr.start:fr.end], out)
		}
	case kindWPM:
		if opts.AddSpecial {
			out = append(out, t.bos)
		}
		for _, fr := range st.frags {
			if fr.tok >= 0 {
				out = append(out, fr.tok)
				continue
			}
			out = t.encodeWPM(st, text[fr.start:fr.end], out)
		}
		if opts.AddSpecial {
			out = append(out, t.sep)
		}
	}
	return out
}

// appendEscaped appends s with every ' ' replaced by ▁.
func appendEscaped(b []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			return append(b, s...)
		}
		b = append(append(b, s[:i]...), spaceMark...)
		s = s[i+1:]
	}
}
