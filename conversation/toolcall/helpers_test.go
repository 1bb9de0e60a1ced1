package toolcall

// Test helpers shared by all families: the test vocabularies and the
// random walk over a grammar.

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/template"
	"github.com/litert-go/litert-go/tokenizer"
)

const (
	// testVocabDir holds the real vocabularies of the shared test data.
	testVocabDir = "../../../shared/testdata/vocab"
	// testTemplateDir holds the real chat templates and templates.json.
	testTemplateDir = "../../../shared/testdata/templates"
)

// testTemplate is one chat template of the test data with its tokens.
type testTemplate struct {
	Name     string  `json:"template"`
	BOS      *string `json:"bos_token"`
	EOS      *string `json:"eos_token"`
	Parses   bool    `json:"parses"`
	Family   string  `json:"family"`
	template *template.Template
}

// readTemplateList reads templates.json of the test data.
func readTemplateList() ([]testTemplate, error) {
	raw, err := os.ReadFile(filepath.Join(testTemplateDir, "templates.json"))
	if err != nil {
		return nil, err
	}
	var list []testTemplate
	err = json.Unmarshal(raw, &list)
	return list, err
}

// readTemplate parses the test data's template file (name and .jinja)
// and gives it its entry of templates.json (the last that names it). An
// absent file or list gives an error that is os.ErrNotExist.
func readTemplate(file string) (testTemplate, error) {
	tt := testTemplate{Name: file}
	src, err := os.ReadFile(filepath.Join(testTemplateDir, file))
	if err != nil {
		return tt, err
	}
	list, err := readTemplateList()
	if err != nil {
		return tt, err
	}
	for _, e := range list {
		if e.Name == file {
			tt = e
		}
	}
	tt.template, err = template.Parse(string(src))
	return tt, err
}

// loadTemplate is readTemplate for tests: it skips the test when the test
// data is absent.
func loadTemplate(t testing.TB, file string) testTemplate {
	t.Helper()
	tt, err := readTemplate(file)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("chat template %s not available (%v): the shared test data is missing", file, err)
	}
	require.NoError(t, err, "template %s", file)
	return tt
}

// loadTokenizer reads a real vocabulary of the test data; the test is
// skipped when it is absent.
func loadTokenizer(t testing.TB, name string) *tokenizer.Tokenizer {
	t.Helper()
	path := filepath.Join(testVocabDir, name)
	f, err := gguf.Open(path)
	if err != nil {
		t.Skipf("vocabulary absent: %s (%v)", path, err)
	}
	t.Cleanup(func() { f.Close() })
	tok, err := tokenizer.FromGGUF(f)
	require.NoError(t, err)
	return tok
}

var (
	qwen2TokensOnce sync.Once
	qwen2TokensVal  [][]byte
	qwen2TokensErr  error
)

// qwen2Tokens returns the bytes of every token of the qwen2 vocabulary
// (all byte tokens included), read once; the test is skipped when the
// vocabulary is absent. The caller must not change the slices.
func qwen2Tokens(t testing.TB) [][]byte {
	t.Helper()
	path := filepath.Join(testVocabDir, "ggml-vocab-qwen2.gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("vocabulary %s not available (%v): the shared test data is missing", path, err)
	}
	qwen2TokensOnce.Do(func() {
		f, err := gguf.Open(path)
		if err != nil {
			qwen2TokensErr = err
			return
		}
		defer f.Close()
		tok, err := tokenizer.FromGGUF(f)
		if err != nil {
			qwen2TokensErr = err
			return
		}
		for id := 0; id < tok.VocabSize(); id++ {
			qwen2TokensVal = append(qwen2TokensVal, tok.TokenBytes(int32(id)))
		}
	})
	require.NoError(t, qwen2TokensErr)
	return qwen2TokensVal
}

// byteTokens returns the 256 single bytes as tokens.
func byteTokens() [][]byte {
	toks := make([][]byte, 256)
	for b := range toks {
		toks[b] = []byte{byte(b)}
	}
	return toks
}

// walkStep is where a random walk stands: its step and the mask of the
// allowed tokens.
type walkStep struct {
	step    int
	eos     bool    // an EOS token is allowed
	eosIDs  []int32 // the vocabulary's EOS tokens
	mask    []uint64
	allowed []int32 // list's cache
	listed  bool
}

// has reports whether token id is allowed.
func (s *walkStep) has(id int32) bool { return s.mask[id/64]&(1<<(uint(id)%64)) != 0 }

// word returns mask word i without the EOS tokens.
func (s *walkStep) word(i int) uint64 {
	w := s.mask[i]
	for _, id := range s.eosIDs {
		if int(id)/64 == i {
			w &^= 1 << (uint(id) % 64)
		}
	}
	return w
}

// count is the number of allowed tokens, EOS left out.
func (s *walkStep) count() int {
	n := 0
	for i := range s.mask {
		n += bits.OnesCount64(s.word(i))
	}
	return n
}

// nth is the k-th allowed token (from 0, in increasing order), EOS left
// out.
func (s *walkStep) nth(k int) int32 {
	for i := range s.mask {
		w := s.word(i)
		if c := bits.OnesCount64(w); k >= c {
			k -= c
			continue
		}
		for ; k > 0; k-- {
			w &= w - 1
		}
		return int32(i*64 + bits.TrailingZeros64(w))
	}
	panic("walkStep.nth: k out of range")
}

// list returns the allowed tokens in increasing order, EOS left out.
func (s *walkStep) list() []int32 {
	if !s.listed {
		s.allowed, s.listed = s.allowed[:0], true
		for i := range s.mask {
			for w := s.word(i); w != 0; w &= w - 1 {
				s.allowed = append(s.allowed, int32(i*64+bits.TrailingZeros64(w)))
			}
		}
	}
	return s.allowed
}

// walkChooser picks the next token of a random walk, or stops it with EOS.
type walkChooser func(s *walkStep) (tok int32, stop bool)

// walkGrammar walks g with the tokens that choose picks until EOS or the
// grammar is done (at most maxTokens). It returns the text and whether
// the walk finished.
func walkGrammar(t testing.TB, g *constrain.Grammar, v *constrain.Vocab, maxTokens int, choose walkChooser) (string, bool) {
	t.Helper()
	m := g.NewMatcher(v)
	s := &walkStep{mask: make([]uint64, v.MaskWords())}
	for id := int32(0); id < int32(v.Size()); id++ {
		if v.IsEOS(id) {
			s.eosIDs = append(s.eosIDs, id)
		}
	}
	var out []byte
	for step := 0; step < maxTokens; step++ {
		if m.Done() {
			return string(out), true
		}
		m.FillMask(s.mask)
		s.step, s.listed, s.eos = step, false, false
		eos := int32(-1)
		for _, id := range s.eosIDs {
			if s.has(id) {
				s.eos, eos = true, id
				break
			}
		}
		require.True(t, s.eos || s.count() > 0, "dead end after %q", out)
		tok, stop := choose(s)
		if stop {
			require.True(t, s.eos, "EOS not allowed after %q", out)
			require.NoError(t, m.Accept(eos))
			return string(out), true
		}
		require.NoError(t, m.Accept(tok), "token %q after %q", v.TokenBytes(tok), out)
		out = append(out, v.TokenBytes(tok)...)
	}
	return string(out), false
}

// checkStreaming feeds f every prefix of reply and checks the streaming
// invariants against the whole reply's parse: content and reasoning only
// grow and are prefixes of the final ones, valid UTF-8 without any of
// markers; the calls only grow and are the final ones; a pending call is
// the start of the next final one; the whole reply shows all of it. It
// returns the whole reply's Partial.
func checkStreaming(t testing.TB, f Format, reply string, markers []string) Partial {
	t.Helper()
	final, err := f.Parse(reply)
	require.NoError(t, err, "%s: parse %q", f.Name(), reply)
	for _, m := range markers {
		assert.NotContains(t, final.Content, m, "final content of %q", reply)
		assert.NotContains(t, final.Reasoning, m, "final reasoning of %q", reply)
	}
	var prev Partial
	for n := 0; n <= len(reply); n++ {
		prefix := reply[:n]
		p := f.ParsePartial(prefix)
		at := func() string { return fmt.Sprintf("%s: prefix %d %q", f.Name(), n, prefix) }
		require.True(t, strings.HasPrefix(final.Content, p.Content), "%s: content %q is not a prefix of %q", at(), p.Content, final.Content)
		require.True(t, strings.HasPrefix(final.Reasoning, p.Reasoning), "%s: reasoning %q is not a prefix of %q", at(), p.Reasoning, final.Reasoning)
		require.True(t, strings.HasPrefix(p.Content, prev.Content), "%s: content shrank from %q to %q", at(), prev.Content, p.Content)
		require.True(t, strings.HasPrefix(p.Reasoning, prev.Reasoning), "%s: reasoning shrank from %q to %q", at(), prev.Reasoning, p.Reasoning)
		require.True(t, utf8.ValidString(p.Content), "%s: content %q", at(), p.Content)
		for _, m := range markers {
			require.NotContains(t, p.Content, m, "%s: content", at())
			require.NotContains(t, p.Reasoning, m, "%s: reasoning", at())
		}
		require.LessOrEqual(t, len(p.Calls), len(final.Calls), at())
		require.GreaterOrEqual(t, len(p.Calls), len(prev.Calls), "%s: calls shrank", at())
		for k, c := range p.Calls {
			require.Equal(t, final.Calls[k], c, "%s: call %d", at(), k)
		}
		if p.Pending != nil {
			k := len(p.Calls)
			require.Less(t, k, len(final.Calls), "%s: pending call beyond the final calls", at())
			if p.Pending.Name != "" {
				require.Equal(t, final.Calls[k].Name, p.Pending.Name, "%s: pending name", at())
			}
			require.True(t, strings.HasPrefix(string(final.Calls[k].Arguments), string(p.Pending.Arguments)),
				"%s: pending arguments %q are not a prefix of %q", at(), p.Pending.Arguments, final.Calls[k].Arguments)
		}
		prev = p
	}
	// The whole reply shows every call, complete or pending.
	n := len(prev.Calls)
	if prev.Pending != nil {
		n++
	}
	require.Equal(t, len(final.Calls), n, "%s: calls of the whole reply", f.Name())
	return prev
}

// requireCalls checks that got are the calls want: the same names, and
// arguments that are valid JSON objects equal to want's.
func requireCalls(t testing.TB, want, got []Call, msgAndArgs ...any) {
	t.Helper()
	require.Len(t, got, len(want), msgAndArgs...)
	for i := range want {
		require.Equal(t, want[i].Name, got[i].Name, msgAndArgs...)
		require.True(t, json.Valid(got[i].Arguments), "arguments %s", got[i].Arguments)
		require.JSONEq(t, string(want[i].Arguments), string(got[i].Arguments), msgAndArgs...)
		require.True(t, strings.HasPrefix(strings.TrimSpace(string(got[i].Arguments)), "{"), "arguments are an object: %s", got[i].Arguments)
	}
}

// checkMalformed checks that reply holds a malformed call: Parse gives a
// *ToolCallError of f at off (-1: anywhere in reply) and the content
// before the call; streaming never panics on it. It returns the parse and
// the error.
func checkMalformed(t testing.TB, f Format, reply, content string, off int) (Parsed, *ToolCallError) {
	t.Helper()
	p, err := f.Parse(reply)
	var tce *ToolCallError
	require.True(t, errors.As(err, &tce), "%s: %q: want a *ToolCallError, got %T %v", f.Name(), reply, err, err)
	assert.Equal(t, f.Name(), tce.Format)
	if off >= 0 {
		assert.Equal(t, off, tce.Offset, "%s: offset for %q (%v)", f.Name(), reply, err)
	}
	require.True(t, tce.Offset >= 0 && tce.Offset <= len(reply), "offset %d in range for %q", tce.Offset, reply)
	assert.Equal(t, content, p.Content, "%s: content before the call in %q", f.Name(), reply)
	assert.NotEmpty(t, tce.Error())
	for n := 0; n <= len(reply); n++ {
		f.ParsePartial(reply[:n])
	}
	return p, tce
}

// toolSchemas compiles the JSON schema of each tool's parameters.
func toolSchemas(t testing.TB, tools []Tool) map[string]*constrain.Grammar {
	t.Helper()
	schemas := map[string]*constrain.Grammar{}
	for _, tool := range tools {
		g, err := constrain.JSONSchema(tool.Parameters)
		require.NoError(t, err)
		schemas[tool.Name] = g
	}
	return schemas
}

// requireValidArgs checks that c names one of the tools of schemas and
// that its arguments validate against the tool's schema; text is the
// sample c comes from.
func requireValidArgs(t testing.TB, schemas map[string]*constrain.Grammar, v *constrain.Vocab, c Call, text string) {
	t.Helper()
	g, ok := schemas[c.Name]
	require.True(t, ok, "unknown tool %q in %q", c.Name, text)
	m := g.NewMatcher(v)
	require.NoError(t, m.AcceptBytes(c.Arguments), "arguments %s of %q", c.Arguments, text)
	require.True(t, m.Accepting(), "arguments %s of %q", c.Arguments, text)
}

// walkSeeds is how many random walks a grammar test makes: n, or half of
// it under the race detector (the walks check grammars, not concurrency).
func walkSeeds(n uint64) uint64 {
	if taggedRace {
		return n / 2
	}
	return n
}
