package tokenizer

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/litert-go/litert-go/models/gguf"
)

const keyCharsmap = "tokenizer.ggml.precompiled_charsmap"

// ugmData is the Unigram ("t5") tokenizer: SentencePiece's normalizer
// (the precompiled charsmap, a XOR-compressed double array of replacement
// rules) and a Viterbi search over the vocabulary by score, as llama.cpp's
// llm_tokenizer_ugm.
type ugmData struct {
	xcda        []uint32 // double-array entries
	repl        []byte   // NUL-terminated replacement strings
	tokens      *trie    // node scores: the token's, 0 for user-defined tokens
	userDefined *trie
	unkScore    float32

	escapeWS, addPrefix, mergeSpaces bool

	// plain[c]: no user-defined token and no charsmap rule starts with
	// byte c, so normalizePrefix would return an ASCII c unchanged.
	plain [256]bool
}

const keyRemoveExtraWS = "tokenizer.ggml.remove_extra_whitespaces"

func (t *Tokenizer) initUGM(f *gguf.File) error {
	u := &ugmData{escapeWS: true, addPrefix: t.addSpacePrefix}
	if f.Has(keyRemoveExtraWS) {
		b, err := f.Bool(keyRemoveExtraWS)
		if err != nil {
			return err
		}
		u.mergeSpaces = b
	}
	if v, ok := f.Lookup(keyCharsmap); ok {
		raw, ok := v.Data.([]byte)
		if !ok {
			if i8, ok8 := v.Data.([]int8); ok8 {
				raw = make([]byte, len(i8))
				for i, x := range i8 {
					raw[i] = byte(x)
				}
			} else {
				return fmt.Errorf("%s is %s, want an array of uint8 or int8", keyCharsmap, v.Type)
			}
		}
		if len(raw) < 4 {
			return fmt.Errorf("%s has %d bytes, too small for its header", keyCharsmap, len(raw))
		}
		size := binary.LittleEndian.Uint32(raw)
		if uint64(size)+4 >= uint64(len(raw)) || size%4 != 0 {
			return fmt.Errorf("%s: double array of %d bytes does not fit in %d bytes", keyCharsmap, size, len(raw))
		}
		u.xcda = make([]uint32, size/4)
		for i := range u.xcda {
			u.xcda[i] = binary.LittleEndian.Uint32(raw[4+4*i:])
		}
		u.repl = raw[4+size:]
	}
	tokens, userDefined := newByteTrie(), newByteTrie()
	minScore, maxScore := float32(math.MaxFloat32), float32(-math.MaxFloat32)
	for id := 0; id < t.n; id++ {
		a := t.attrs[id]
		if a&attrNormal != 0 {
			minScore = min(minScore, t.scores[id])
			maxScore = max(maxScore, t.scores[id])
		}
		if a&(attrNormal|attrUserDefined|attrUnused) != 0 {
			if err := tokens.insert([]byte(t.vocab.text(int32(id))), int32(id)); err != nil {
				return err
			}
		}
		if a&attrUserDefined != 0 {
			if err := userDefined.insert([]byte(t.vocab.text(int32(id))), int32(id)); err != nil {
				return err
			}
		}
	}
	u.unkScore = minScore - 10
	var err error
	if u.tokens, err = tokens.freeze(); err != nil {
		return err
	}
	if u.userDefined, err = userDefined.freeze(); err != nil {
		return err
	}
	for c := range u.plain {
		rule := c == 0 || u.userDefined.next(0, byte(c)) >= 0
		if len(u.xcda) > 0 && c != 0 {
			e, ok := u.xcdaNode(xcdaBase(u.xcda[0]) ^ uint32(c))
			rule = rule || ok && e&(1<<31|0xff) == uint32(c)
		}
		u.plain[c] = !rule
	}
	for i := range u.tokens.nodes {
		if id := u.tokens.nodes[i].value; id >= 0 && t.attrs[id]&attrUserDefined == 0 {
			u.tokens.nodes[i].score = t.scores[id]
		}
	}
	t.ugm = u
	return nil
}

// xcdaNode returns entry i, or false when i is outside the array (llama.cpp
// throws there; the match stops instead).
func (u *ugmData) xcdaNode(i uint32) (uint32, bool) {
	if int(i) >= len(u.xcda) {
		return 0, false
	}
	return u.xcda[i], true
}

func xcdaBase(n uint32) uint32 { return (n >> 10) << ((n & (1 << 9)) >> 6) }

// normalizePrefix returns the normalized form of the text at s[off:] and
// how many bytes of s it consumes.
func (u *ugmData) normalizePrefix(s []byte, off int) ([]byte, int) {
	if n := u.userDefined.longestPath(s[off:]); n > 0 {
		return s[off : off+n], n
	}
	longest, replOff := 0, uint32(0)
	if len(u.xcda) > 0 {
		root, _ := u.xcdaNode(0)
		node := xcdaBase(root)
		for p := off; p < len(s); p++ {
			c := uint32(s[p])
			if c == 0 {
				break
			}
			node ^= c
			e, ok := u.xcdaNode(node)
			if !ok || e&(1<<31|0xff) != c {
				break
			}
			leaf := e>>8&1 != 0
			node ^= xcdaBase(e)
			if leaf {
				v, ok := u.xcdaNode(node)
				if !ok {
					break
				}
				longest, replOff = p-off+1, v&(1<<31-1)
			}
		}
	}
	if longest > 0 && int(replOff) < len(u.repl) {
		r := u.repl[replOff:]
		for i, c := range r {
			if c == 0 {
				return r[:i], longest
			}
		}
	}
	if c, n := decodeRune(s, off); c != 0xFFFD || n != 1 || s[off] < 0x80 {
		return s[off : off+n], n
	}
	return []byte(replacementChar), 1
}

// normalize is llm_tokenizer_ugm_session::normalize.
func (u *ugmData) normalize(text []byte, out []byte) []byte {
	space := " "
	if u.escapeWS {
		space = spaceMark
	}
	prepended, inWord := false, false
	var one [1]byte
	for off := 0; off < len(text); {
		var norm []byte
		n := 1
		if c := text[off]; c < 0x80 && u.plain[c] {
			one[0] = c // no rule starts with c: it is its own normal form
			norm = one[:]
		} else {
			norm, n = u.normalizePrefix(text, off)
		}
		for _, c := range norm {
			if c != ' ' {
				if !inWord {
					inWord = true
					if (u.addPrefix && !prepended) || u.mergeSpaces {
						out = append(out, space...)
						prepended = true
					}
				}
				out = append(out, c)
			} else {
				inWord = false
				if !u.mergeSpaces {
					out = append(out, space...)
				}
			}
		}
		off += n
	}
	return out
}

const replacementChar = "\uFFFD"

type ugmBest struct {
	id    int32
	from  int32
	score float64
}

// encodeUGM tokenizes one raw-text fragment.
func (t *Tokenizer) encodeUGM(st *encodeState, text string, out []int32) []int32 {
	u := t.ugm
	st.enc = append(st.enc[:0], text...)
	st.text = u.normalize(st.enc, st.text[:0])
	s := st.text
	n := len(s)
	if n == 0 {
		return out
	}
	best := st.ugmBest[:0]
	for i := 0; i <= n; i++ {
		best = append(best, ugmBest{id: t.unk, score: -math.MaxFloat64})
	}
	best[0].score = 0
	for off := 0; off < n; {
		cl := min(utf8Len(s[off]), n-off)
		cur := best[off].score
		single := false
		node := int32(0)
		for p := off; p < n; p++ {
			if node = u.tokens.next(node, s[p]); node < 0 {
				break
			}
			nd := &u.tokens.nodes[node]
			id := nd.value
			if id < 0 {
				continue
			}
			if p+1-off == cl {
				single = true
			}
			if c := cur + float64(nd.score); c > best[p+1].score {
				best[p+1] = ugmBest{id: id, from: int32(off), score: c}
			}
		}
		if !single {
			if c := cur + float64(u.unkScore); c > best[off+cl].score {
				best[off+cl] = ugmBest{id: t.unk, from: int32(off), score: c}
			}
		}
		off += cl
	}
	n0 := len(out)
	prevUnk := false
	for i := n; ; {
		b := best[i]
		isUnk := b.id == t.unk
		if !(prevUnk && isUnk) {
			out = append(out, b.id)
		}
		if b.from == 0 {
			break
		}
		prevUnk = isUnk
		i = int(b.from)
	}
	for i, j := n0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	st.ugmBest = best[:0]
	return out
}
