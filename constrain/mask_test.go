package constrain

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowMask is the specification of FillMask: token i is allowed iff it is
// an EOS token and the text so far is complete, or it has text and every
// byte of it steps the automaton to a live state. It steps e, an engine of
// its own, byte by byte, so it shares neither the trie walk, the
// string-text bitsets nor the cached states of the matcher's engine.
func slowMask(e *engine, v *Vocab, text []byte) []uint64 {
	s := int32(0)
	for _, c := range text {
		if s = e.step(s, c); s < 0 {
			return make([]uint64, v.MaskWords())
		}
	}
	m := make([]uint64, v.MaskWords())
	for id := int32(0); id < int32(v.Size()); id++ {
		ok := false
		if v.IsEOS(id) {
			ok = e.states[s].accepting
		} else if b := v.TokenBytes(id); len(b) > 0 {
			t := s
			for _, c := range b {
				if t = e.step(t, c); t < 0 {
					break
				}
			}
			ok = t >= 0
		}
		if ok {
			m[id>>6] |= 1 << (uint(id) & 63)
		}
	}
	return m
}

// maskGrammars are constraints of every kind whose states cover the cases
// of the mask computation: JSON strings with and without maxLength (the
// string-text bitsets), patterns and enums (a partial walk), numbers,
// keys, free text and UTF-8 classes.
var maskGrammars = []struct {
	name    string
	compile func() (*Grammar, error)
}{
	{"schema/walk", func() (*Grammar, error) { return JSONSchema([]byte(walkSchema)) }},
	{"schema/person", func() (*Grammar, error) { return JSONSchema([]byte(testSchemas["person"])) }},
	{"schema/mixed", func() (*Grammar, error) { return JSONSchema([]byte(testSchemas["mixed"])) }},
	{"regex/sentence", func() (*Grammar, error) { return Regex(`[A-Z][a-z]{2,10}( [a-z]{1,10}){3,12}\. (Yes|No)\.`) }},
	{"regex/any", func() (*Grammar, error) { return Regex(`(?s).{0,40}`) }},
	{"regex/quoted", func() (*Grammar, error) { return Regex(`"([^"\\]|\\.){0,6}"( "[^"]*")?`) }},
	{"regex/han", func() (*Grammar, error) { return Regex(`[\p{Han}a-z ]{2,9}[。!]`) }},
	{"gbnf/json", func() (*Grammar, error) { return GBNF(jsonGBNF) }},
	{"lark/calc", func() (*Grammar, error) { return Lark(calcLark) }},
}

// TestMaskMatchesSlowPath compares FillMask with slowMask at every step of
// random generations, on the small test vocabulary and on the real qwen2
// vocabulary (151,936 tokens).
func TestMaskMatchesSlowPath(t *testing.T) {
	vocabs := []struct {
		name     string
		v        func(testing.TB) *Vocab
		seeds    uint64
		steps    int
		grammars int // the first ones of maskGrammars
	}{{"test", testVocab, 4, 40, len(maskGrammars)}, {"qwen2", qwenVocab, 1, 8, 5}}
	if testing.Short() {
		vocabs = vocabs[:1]
	} else if raceEnabled {
		vocabs[1].steps, vocabs[1].grammars = 5, 3
	}
	for _, vc := range vocabs {
		v := vc.v(t)
		for _, mg := range maskGrammars[:vc.grammars] {
			g, err := mg.compile()
			require.NoError(t, err, mg.name)
			mask := make([]uint64, v.MaskWords())
			ref := newEngine(g.nfa, v)
			for seed := uint64(0); seed < vc.seeds; seed++ {
				rng := rand.New(rand.NewPCG(seed, 11))
				m := g.NewMatcher(v)
				var text []byte
				for step := 0; step < vc.steps && !m.Done(); step++ {
					m.FillMask(mask)
					require.Equal(t, slowMask(ref, v, text), mask, "%s/%s: mask after %q", vc.name, mg.name, text)
					// Half the steps pick a token that is not string text
					// (a quote, an escape, a newline, partial UTF-8), so
					// the generations leave strings as often as they stay.
					var allowed, other []int32
					for id := int32(0); id < int32(v.Size()); id++ {
						if mask[id>>6]&(1<<(uint(id)&63)) != 0 && !v.IsEOS(id) {
							allowed = append(allowed, id)
							if strRunes(v.TokenBytes(id)) < 0 {
								other = append(other, id)
							}
						}
					}
					if len(allowed) == 0 {
						break
					}
					if len(other) > 0 && rng.IntN(2) == 0 {
						allowed = other
					}
					tok := allowed[rng.IntN(len(allowed))]
					require.NoError(t, m.Accept(tok))
					text = append(text, v.TokenBytes(tok)...)
				}
			}
		}
	}
}

// TestStrLevel checks how states are classified for the string-text
// tokens, on the cases the bitsets serve: strings with and without
// maxLength, states with a partial walk, states with no string text.
func TestStrLevel(t *testing.T) {
	v := testVocab(t)
	top := v.strMax
	require.Greater(t, top, 5)
	cases := []struct {
		name     string
		compile  func() (*Grammar, error)
		prefix   string
		lvl, all int
	}{
		{"free string", func() (*Grammar, error) { return JSONSchema([]byte(`{"type":"string"}`)) }, `"`, top, 0},
		{"free string, later", func() (*Grammar, error) { return JSONSchema([]byte(`{"type":"string"}`)) }, `"ab\"é`, top, 0},
		{"minLength", func() (*Grammar, error) { return JSONSchema([]byte(`{"type":"string","minLength":3}`)) }, `"`, top, 0},
		{"maxLength", func() (*Grammar, error) { return JSONSchema([]byte(`{"type":"string","maxLength":5}`)) }, `"`, 5, 0},
		{"maxLength, 2 used", func() (*Grammar, error) { return JSONSchema([]byte(`{"type":"string","maxLength":5}`)) }, `"a中`, 3, 0},
		{"maxLength, all used", func() (*Grammar, error) { return JSONSchema([]byte(`{"type":"string","maxLength":2}`)) }, `"ab`, 0, 0},
		{"letters", func() (*Grammar, error) { return Regex(`[a-z]+`) }, ``, -1, 0},
		{"no string text", func() (*Grammar, error) { return Regex(`\n+`) }, ``, 0, 0},
		{"any two, then letters", func() (*Grammar, error) { return Regex(`(?s).{2}[a-z]*`) }, ``, -1, 2},
		{"object start", func() (*Grammar, error) { return JSONSchema([]byte(testSchemas["weather"])) }, `{`, -1, 0},
	}
	for _, c := range cases {
		g, err := c.compile()
		require.NoError(t, err, c.name)
		m := g.NewMatcher(v)
		require.NoError(t, m.AcceptBytes([]byte(c.prefix)), c.name)
		lvl, all := m.e.strLevel(m.state)
		assert.Equal(t, []int{c.lvl, c.all}, []int{lvl, all}, c.name)
	}
}
