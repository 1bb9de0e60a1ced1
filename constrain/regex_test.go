package constrain

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegexAcceptsAndRejects(t *testing.T) {
	v := testVocab(t)
	cases := []struct {
		re       string
		good     []string
		bad      []string
		prefixes []string // accepted as prefix but not complete
	}{
		{`abc`, []string{"abc"}, []string{"ab", "abcd", "x"}, []string{"ab"}},
		{`a+b*`, []string{"a", "aaab", "abbb"}, []string{"b", "aba"}, nil},
		{`[0-9]{2,4}`, []string{"12", "1234"}, []string{"1", "12345"}, []string{"1"}},
		{`(?i)hello`, []string{"HeLLo", "hello"}, []string{"helo"}, nil},
		{`[^a]é.`, []string{"béz", "bé中"}, []string{"aéz"}, nil},
		{`^\d+$`, []string{"0", "42"}, []string{"", "4a"}, nil},
		{`x|yz|`, []string{"", "x", "yz"}, []string{"y"}, []string{"y"}},
		{`\p{Han}+`, []string{"中文"}, []string{"abc"}, nil},
	}
	for _, c := range cases {
		g, err := Regex(c.re)
		require.NoError(t, err, c.re)
		for _, s := range c.good {
			m := g.NewMatcher(v)
			require.NoError(t, m.AcceptBytes([]byte(s)), "%s: %q", c.re, s)
			assert.True(t, m.Accepting(), "%s: %q should be complete", c.re, s)
		}
		for _, s := range c.bad {
			m := g.NewMatcher(v)
			err := m.AcceptBytes([]byte(s))
			assert.False(t, err == nil && m.Accepting(), "%s: %q should be rejected", c.re, s)
		}
		for _, s := range c.prefixes {
			m := g.NewMatcher(v)
			require.NoError(t, m.AcceptBytes([]byte(s)))
			assert.False(t, m.Accepting())
		}
	}
}

func TestRegexErrors(t *testing.T) {
	_, err := Regex("a(b")
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrSyntax))
	var ce *CompileError
	require.True(t, errors.As(err, &ce))
	assert.Equal(t, 1, ce.Line)
	_, err = Regex(`\bfoo`)
	assert.True(t, errors.Is(err, ErrUnsupported))
	_, err = Regex(`[^\x00-\x{10FFFF}]`)
	assert.True(t, errors.Is(err, ErrInvalid))
}

func TestRegexMaskAndTokens(t *testing.T) {
	v := testVocab(t)
	g, err := Regex(`(true|false)`)
	require.NoError(t, err)
	m := g.NewMatcher(v)
	mask := make([]uint64, v.MaskWords())
	m.FillMask(mask)
	var allowed []string
	for id := int32(0); id < int32(v.Size()); id++ {
		if mask[id>>6]&(1<<(uint(id)&63)) != 0 {
			allowed = append(allowed, string(v.TokenBytes(id)))
		}
	}
	// "true" and "false" appear twice in the vocabulary (duplicate tokens).
	assert.ElementsMatch(t, []string{"t", "f", "true", "false", "true", "false", "tr", "fal"}, allowed)
	// Token rejection leaves the state unchanged.
	id := tokenID(t, v, "x")
	err = m.Accept(id)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrTokenRejected))
	require.NoError(t, m.Accept(tokenID(t, v, "tr")))
	assert.False(t, m.Accepting())
	require.Error(t, m.Accept(v.eos[0]), "EOS before completion")
	require.NoError(t, m.Accept(tokenID(t, v, "ue")))
	assert.True(t, m.Accepting())
	assert.True(t, m.Done())
	c := m.Clone()
	require.NoError(t, c.Accept(v.eos[0]))
	assert.True(t, c.Done())
	m.FillMask(mask)
	assert.NotZero(t, mask[v.eos[0]>>6]&(1<<(uint(v.eos[0])&63)), "EOS allowed when accepting")
}

func tokenID(t testing.TB, v *Vocab, s string) int32 {
	t.Helper()
	for id := int32(0); id < int32(v.Size()); id++ {
		if string(v.TokenBytes(id)) == s && !v.IsEOS(id) {
			return id
		}
	}
	t.Fatalf("token %q not in vocab", s)
	return -1
}

func TestRegexRandomGenerationsMatch(t *testing.T) {
	v := testVocab(t)
	exprs := []string{
		`[a-z]{1,8}( [a-z]{1,8}){0,5}\.`,
		`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`,
		`(\d{3}-){2}\d{4}`,
		`"([^"\\]|\\.)*"`,
		`[\p{L}\p{N} ]{0,20}!`,
		`(ab|a)*c`,
		`(?s).{0,12}end`,
		`[😀-🙏]{1,3}|中文+`,
		`(foo|bar|baz)+`,
	}
	for _, src := range exprs {
		g, err := Regex(src)
		require.NoError(t, err, src)
		re := regexp.MustCompile(`^(?:` + src + `)$`)
		ended := 0
		for seed := uint64(0); seed < 60; seed++ {
			rng := rand.New(rand.NewPCG(seed, 7))
			gen := sampleRandom(t, g, v, rng, 3000, 0.5)
			if gen.eos || gen.steps < 3000 {
				ended++
				assert.True(t, re.Match(gen.text), "%s: generated %q", src, gen.text)
			}
		}
		assert.Equal(t, 60, ended, "%s: every generation ends", src)
	}
}
