package constrain

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testVocab builds a small vocabulary: all 256 single bytes, a few hundred
// multi-byte tokens (words, JSON fragments, partial UTF-8), two control
// tokens and an EOS token (the last id).
func testVocab(t testing.TB) *Vocab {
	t.Helper()
	var toks [][]byte
	for b := 0; b < 256; b++ {
		toks = append(toks, []byte{byte(b)})
	}
	words := strings.Fields(`the of and to in is you that it he was for on are as with his they at be this have from
		or one had by word but not what all were we when your can said there use an each which she do how their if will
		up other about out many then them these so some her would make like him into time has look two more write go see
		number no way could people my than first water been call who oil its now find long down day did get come made may part
		name arguments parameters location city unit celsius fahrenheit true false null get_weather search query`)
	for _, w := range words {
		toks = append(toks, []byte(w), []byte(" "+w), []byte(strings.ToUpper(w[:1])+w[1:]))
	}
	frags := []string{`{"`, `"}`, `":`, `": `, `", "`, `",`, `"`, `{`, `}`, `[`, `]`, `[{`, `}]`, `},`, `}}`, `]}`, `{}`, `[]`,
		`0`, `00`, `000`, `12`, `123`, `1.`, `.5`, `e+`, `-1`, `\n`, `\"`, `\\`, `\u`, `\u00`, "  ", "    ", "\n", "\n  ", "\n\n",
		`<tool_call>`, `</tool_call>`, "<tool", "_call>", "\n<tool_call>\n", `{"name": "`, `", "arguments": `, `"parameters"`,
		"é", "中", "文", "😀", "\xf0\x9f", "\x98\x80", "\xe4\xb8", "ab\xc3", "\xa9x", `2024-`, `-01-`, `T12:`, `:00Z`, `@example.com`,
		"true", "false", "null", ", ", ": ", "nul", "tr", "fal", "se", "ue", "ll",
	}
	for _, f := range frags {
		toks = append(toks, []byte(f))
	}
	toks = append(toks, nil, []byte{}) // control tokens
	toks = append(toks, []byte("<|endoftext|>"))
	v, err := NewVocab(toks, []int32{int32(len(toks) - 1)})
	require.NoError(t, err)
	return v
}

// generation is the outcome of a random constrained generation.
type generation struct {
	text  []byte
	eos   bool
	steps int
}

// sampleRandom samples random allowed tokens until EOS or Done, at most
// maxTokens. With probability pEOS it picks EOS when allowed. It checks the
// matcher invariants on the way.
func sampleRandom(t testing.TB, g *Grammar, v *Vocab, rng *rand.Rand, maxTokens int, pEOS float64) generation {
	t.Helper()
	m := g.NewMatcher(v)
	mask := make([]uint64, v.MaskWords())
	var out generation
	var allowed []int32
	for out.steps = 0; out.steps < maxTokens; out.steps++ {
		if m.Done() {
			require.True(t, m.Accepting())
			return out
		}
		m.FillMask(mask)
		allowed = allowed[:0]
		eosAllowed := false
		for w, bits := range mask {
			for bits != 0 {
				i := int32(w*64 + trailingZeros(bits))
				bits &= bits - 1
				if v.IsEOS(i) {
					eosAllowed = true
					continue
				}
				allowed = append(allowed, i)
			}
		}
		require.Equal(t, m.Accepting(), eosAllowed, "EOS allowed iff accepting (text %q)", out.text)
		require.True(t, eosAllowed || len(allowed) > 0, "dead end after %q", out.text)
		if eosAllowed && (len(allowed) == 0 || rng.Float64() < pEOS) {
			require.NoError(t, m.Accept(v.eos[0]))
			out.eos = true
			require.True(t, m.Done())
			return out
		}
		tok := allowed[rng.IntN(len(allowed))]
		require.NoError(t, m.Accept(tok), "token %q after %q", v.TokenBytes(tok), out.text)
		out.text = append(out.text, v.TokenBytes(tok)...)
	}
	return out
}

func trailingZeros(x uint64) int { return bits.TrailingZeros64(x) }

// qwenVocab loads the qwen2 vocabulary from the shared test data, or skips.
func qwenVocab(t testing.TB) *Vocab {
	t.Helper()
	toks, eos, err := readGGUFVocab("../../shared/testdata/vocab/ggml-vocab-qwen2.gguf")
	if os.IsNotExist(err) {
		t.Skip("qwen2 vocabulary absent: ../../shared/testdata/vocab/ggml-vocab-qwen2.gguf")
	}
	require.NoError(t, err)
	v, err := NewVocab(toks, eos)
	require.NoError(t, err)
	return v
}

// qwenToolVocab is the qwen2 vocabulary with ids 151657/151658 set to the
// added tokens "<tool_call>"/"</tool_call>" as in Qwen2.5 (the llama.cpp
// test vocabulary predates them and has padding there).
func qwenToolVocab(t testing.TB) *Vocab {
	t.Helper()
	toks, eos, err := readGGUFVocab("../../shared/testdata/vocab/ggml-vocab-qwen2.gguf")
	if os.IsNotExist(err) {
		t.Skip("qwen2 vocabulary absent: ../../shared/testdata/vocab/ggml-vocab-qwen2.gguf")
	}
	require.NoError(t, err)
	require.Greater(t, len(toks), 151658)
	toks[151657], toks[151658] = []byte("<tool_call>"), []byte("</tool_call>")
	v, err := NewVocab(toks, eos)
	require.NoError(t, err)
	return v
}

// readGGUFVocab reads tokenizer.ggml.tokens/token_type/eos_token_id from a
// GGUF file and decodes GPT-2 byte-level token strings to bytes.
func readGGUFVocab(path string) ([][]byte, []int32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var hdr struct {
		Magic   [4]byte
		Version uint32
		Tensors uint64
		KVs     uint64
	}
	if err := binary.Read(r, binary.LittleEndian, &hdr); err != nil {
		return nil, nil, err
	}
	if string(hdr.Magic[:]) != "GGUF" {
		return nil, nil, fmt.Errorf("%s: not a GGUF file", path)
	}
	readStr := func() (string, error) {
		var n uint64
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
			return "", err
		}
		b := make([]byte, n)
		_, err := io.ReadFull(r, b)
		return string(b), err
	}
	sizes := map[uint32]int{0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
	var tokens []string
	var types []int32
	eos := int64(-1)
	var readVal func(typ uint32, key string) error
	readVal = func(typ uint32, key string) error {
		switch typ {
		case 8:
			_, err := readStr()
			return err
		case 9:
			var et uint32
			var n uint64
			if err := binary.Read(r, binary.LittleEndian, &et); err != nil {
				return err
			}
			if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
				return err
			}
			for i := uint64(0); i < n; i++ {
				switch {
				case key == "tokenizer.ggml.tokens" && et == 8:
					s, err := readStr()
					if err != nil {
						return err
					}
					tokens = append(tokens, s)
				case key == "tokenizer.ggml.token_type" && et == 5:
					var x int32
					if err := binary.Read(r, binary.LittleEndian, &x); err != nil {
						return err
					}
					types = append(types, x)
				default:
					if err := readVal(et, ""); err != nil {
						return err
					}
				}
			}
			return nil
		default:
			sz, ok := sizes[typ]
			if !ok {
				return fmt.Errorf("unknown gguf type %d", typ)
			}
			b := make([]byte, sz)
			if _, err := io.ReadFull(r, b); err != nil {
				return err
			}
			if key == "tokenizer.ggml.eos_token_id" {
				for i := sz - 1; i >= 0; i-- {
					eos = eos<<8 | int64(b[i])
				}
				eos = eos & (1<<(8*sz) - 1)
			}
			return nil
		}
	}
	for i := uint64(0); i < hdr.KVs; i++ {
		key, err := readStr()
		if err != nil {
			return nil, nil, err
		}
		var typ uint32
		if err := binary.Read(r, binary.LittleEndian, &typ); err != nil {
			return nil, nil, err
		}
		if err := readVal(typ, key); err != nil {
			return nil, nil, fmt.Errorf("%s: key %s: %w", path, key, err)
		}
	}
	// GPT-2 byte-to-unicode table, inverted.
	dec := map[rune]byte{}
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			dec[rune(b)] = byte(b)
		} else {
			dec[rune(256+n)] = byte(b)
			n++
		}
	}
	out := make([][]byte, len(tokens))
	for i, s := range tokens {
		typ := int32(1)
		if i < len(types) {
			typ = types[i]
		}
		switch typ {
		case 3, 5: // control, unused
			continue
		case 4: // user defined: raw text
			out[i] = []byte(s)
			continue
		}
		var b []byte
		for _, c := range s {
			x, ok := dec[c]
			if !ok {
				b = append(b, string(c)...)
				continue
			}
			b = append(b, x)
		}
		out[i] = b
	}
	var eosIDs []int32
	if eos >= 0 {
		eosIDs = append(eosIDs, int32(eos))
	}
	return out, eosIDs, nil
}
