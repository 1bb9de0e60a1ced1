package tokenizer

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

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
func TestPreTokenizerNames(t *testing.T) {
	ref := readRef(t, "testdata/pretok_ids.json")
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
