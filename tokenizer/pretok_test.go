package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/stretchr/testify/require"
)

// refCase and refFile mirror testdata/gen's output.
type refCase struct {
	Text  string `json:"text"`
	Add   bool   `json:"add_special"`
	Parse bool   `json:"parse_special"`
}

type refFile struct {
	Source string    `json:"source"`
	Vocab  string    `json:"vocab"`
	Corpus []refCase `json:"corpus"`
	Groups []struct {
		Names []string  `json:"names"`
		IDs   [][]int32 `json:"ids"`
	} `json:"groups"`
}

// refDir is where the llama.cpp reference ids are read from.
func refDir() string {
	if d := os.Getenv("TOKENIZER_REF_DIR"); d != "" {
		return d
	}
	return "testdata"
}

func readRef(t testing.TB, path string) *refFile {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var r refFile
	require.NoError(t, json.Unmarshal(b, &r), path)
	for _, g := range r.Groups {
		require.Len(t, g.IDs, len(r.Corpus), "%s: group %v", path, g.Names)
	}
	return &r
}

// checkRef encodes every case and compares with llama.cpp; it returns the
// number of identical cases and of cases with a reference.
func checkRef(t *testing.T, tok *Tokenizer, corpus []refCase, want [][]int32) (pass, total int) {
	t.Helper()
	for i, c := range corpus {
		got := tok.Encode(c.Text, EncodeOptions{AddSpecial: c.Add, ParseSpecial: c.Parse})
		if want[i] == nil {
			continue // llama.cpp aborts on this case (GGML_ASSERT); only no panic is required
		}
		total++
		if equalIDs(got, want[i]) {
			pass++
			continue
		}
		t.Errorf("case %d %q (add=%v parse=%v):\n got  %v\n want %v", i, c.Text, c.Add, c.Parse, got, want[i])
	}
	return pass, total
}

// TestPreTokenizerNames relabels the qwen2 vocabulary with every
// tokenizer.ggml.pre name llama.cpp accepts and compares with llama.cpp's
// ids on the corpus (testdata/pretok_ids.json, from testdata/gen).
//
// TOKENIZER_REF_DIR=dir reads dir/pretok_ids.json and dir/fixtures instead:
// a held-out check (go run ./tokenizer/testdata/gen -random 300 -out dir).
func TestPreTokenizerNames(t *testing.T) {
	ref := readRef(t, filepath.Join(refDir(), "pretok_ids.json"))
	f := openVocabFile(t, "qwen2")
	defer f.Close()
	seen := map[string]bool{}
	// Names with the same settings build the same tokenizer: build each
	// once (a load takes 0.2 s), check every name against its own ids.
	built := map[preSettings]*Tokenizer{}
	for _, g := range ref.Groups {
		for _, name := range g.Names {
			seen[name] = true
			t.Run(name, func(t *testing.T) {
				model, pre := "", name
				if m, ok := strings.CutPrefix(name, "model:"); ok {
					model, pre = m, m
				}
				ps, err := preTypeOf(pre)
				require.NoError(t, err)
				tok := built[ps]
				if tok == nil || model != "" {
					tok, err = load(f, model, pre)
					require.NoError(t, err)
					if model == "" {
						built[ps] = tok
					}
				}
				pass, total := checkRef(t, tok, ref.Corpus, g.IDs)
				t.Logf("%s (%s): %d/%d cases identical", name, tok.pre, pass, total)
			})
		}
	}
	for _, name := range PreTokenizers() {
		require.True(t, seen[name], "pre-tokenizer %q has no llama.cpp reference", name)
	}
}

// splitWith runs one step over text and returns the fragment ends.
func splitWith(step splitStep, text string) []int32 {
	st := &encodeState{}
	st.decode(text)
	p := &preTokenizer{steps: []splitStep{step}}
	var tmp []int32
	return append([]int32(nil), p.run(&st.split, &tmp)...)
}

// checkEmulated reports the first emulated step that splits text unlike
// the regex engine running its pattern.
func checkEmulated(t testing.TB, steps map[string]splitStep, engines map[string]*regexStep, text string) {
	for expr, fast := range steps {
		want := splitWith(engines[expr], text)
		got := splitWith(fast, text)
		if !equalIDs(got, want) {
			t.Fatalf("pattern %q on %q: hand-written %v, regex engine %v", expr, text, got, want)
		}
	}
}

func emulatedEngines(t testing.TB) (map[string]splitStep, map[string]*regexStep) {
	steps := emulatedSteps()
	engines := map[string]*regexStep{}
	for expr := range steps {
		r, err := newRegexStep(expr)
		require.NoError(t, err, expr)
		engines[expr] = r
	}
	return steps, engines
}

// TestEmulatedStepsMatchRegex checks every hand-written stand-in for a
// std::regex pattern against the regex engine on the corpus.
func TestEmulatedStepsMatchRegex(t *testing.T) {
	steps, engines := emulatedEngines(t)
	ref := readRef(t, "testdata/pretok_ids.json")
	for _, c := range ref.Corpus {
		checkEmulated(t, steps, engines, c.Text)
	}
	for _, s := range corpusSnippets {
		checkEmulated(t, steps, engines, s)
	}
}

func FuzzEmulatedSteps(f *testing.F) {
	for _, s := range corpusSnippets {
		f.Add(s)
	}
	f.Add(" \u00a0\u3000x 12a\r\n\r\n!!  ")
	steps, engines := emulatedEngines(f)
	f.Fuzz(func(t *testing.T, s string) {
		checkEmulated(t, steps, engines, s)
	})
}

// TestRegexEngine checks the engine against std::regex behaviour on
// patterns whose matches are known from libstdc++ (regex_iterator over the
// whole subject).
func TestRegexEngine(t *testing.T) {
	cases := []struct {
		pattern, text string
		want          []int32 // fragment ends
	}{
		// empty matches: regex_iterator retries at the same place without
		// an empty match, then moves one character on (superbpe)
		{"(?=(\\d{3})+(?!\\d))", "1234567", []int32{1, 1, 4, 4, 7}},
		{"a|ab", "abab", []int32{1, 2, 3, 4}},      // ordered alternation, not longest
		{"\\s+(?!\\S)", "a   b", []int32{1, 3, 5}}, // backtracking into the lookahead
		{"x{2,3}", "xxxxxxx", []int32{3, 6, 7}},    // counted repeat, greedy
		{"[^(\\s|.,)]+", "ab(c d.e", []int32{2, 3, 4, 5, 6, 7, 8}},
		{"\\s+$", "a  \n", []int32{1, 4}},
		{"(IMGIMG)((A|B|C){1,4})Z", "xIMGIMGABZy", []int32{1, 10, 11}},
	}
	for _, c := range cases {
		r, err := newRegexStep(c.pattern)
		require.NoError(t, err, c.pattern)
		require.Equal(t, c.want, splitWith(r, c.text), "%q on %q", c.pattern, c.text)
	}
	for _, bad := range []string{"(", "[a", "a{3,1}", "x**?", "(?<=a)", "\\p{Han}", "(a*)*", strings.Repeat("(", 100) + "a" + strings.Repeat(")", 100)} {
		_, err := newRegexStep(bad)
		require.Error(t, err, bad)
	}
}

// TestKimiK2WithoutMerges: llama.cpp loads a kimi-k2 vocabulary that has no
// merges (and only that pre-tokenizer); nothing merges then, so every byte
// is its own token (the ids are llama.cpp's).
func TestKimiK2WithoutMerges(t *testing.T) {
	f := rewrite(t, "qwen2", func(m *gguf.Model) {
		drop(m, keyMerges)
		m.Set(keyPre, gguf.String("kimi-k2"))
	})
	tok, err := FromGGUF(f)
	require.NoError(t, err)
	require.Equal(t, []int32{39, 68, 75, 75, 78, 220, 86, 78, 81, 75, 67}, tok.Encode("Hello world", EncodeOptions{}))
	f = rewrite(t, "qwen2", func(m *gguf.Model) { drop(m, keyMerges) })
	_, err = FromGGUF(f)
	require.ErrorContains(t, err, "cannot find tokenizer merges")
}
