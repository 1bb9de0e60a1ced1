// Command gen writes the llama.cpp reference ids the tokenizer tests compare
// against. It needs tokdump (tokdump/build.sh) and the fixture vocabularies:
//
//	sh tokenizer/testdata/gen/tokdump/build.sh /tmp/tokdump
//	go run ./tokenizer/testdata/gen -tokdump /tmp/tokdump
//
// For every tokenizer.ggml.pre name llama.cpp accepts it relabels the qwen2
// vocabulary (only tokenizer.ggml.pre changes), runs llama.cpp on the corpus
// and groups the names whose ids agree; it does the same for llama.cpp's
// nomic-bert-moe vocabulary, the fixtures, and the vocabularies of the other
// tokenizer models that tokenizer/internal/testvocab builds (built.go).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/litert-go/litert-go/models/gguf"
)

// Case is one corpus entry.
type Case struct {
	Text  string `json:"text"`
	Add   bool   `json:"add_special,omitempty"`
	Parse bool   `json:"parse_special,omitempty"`
}

// Group is a set of names that give the same ids on every case.
type Group struct {
	Names []string  `json:"names"`
	IDs   [][]int32 `json:"ids"`
}

// Reference is the file the tests read.
type Reference struct {
	Source string  `json:"source"`
	Vocab  string  `json:"vocab"`
	Key    string  `json:"key"`
	Corpus []Case  `json:"corpus"`
	Groups []Group `json:"groups"`
}

// preNames are the tokenizer.ggml.pre values of llama.cpp's
// llama_vocab::impl::load (src/llama-vocab.cpp), as of the bundled release.
var preNames = []string{
	"default", "minicpm5", "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2",
	"jina-v5-nano", "deepseek-llm", "deepseek-coder", "deepseek-v3", "spark2_5", "youtu", "falcon", "mpt", "starcoder",
	"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum", "modern-bert",
	"jais-2", "gemma4", "granite-embed-multi-311m", "sarvam-moe", "jina-v1-en", "jina-v2-code", "roberta-bpe",
	"whitespace", "refact", "command-r", "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "qwen35", "stablelm2", "olmo",
	"dbrx", "smaug-bpe", "poro-chat", "glm4", "chatglm-bpe", "viking", "jais", "tekken", "smollm", "codeshell", "bloom",
	"gpt3-finnish", "exaone", "exaone4", "exaone-moe", "chameleon", "minerva-7b", "megrez", "gpt-4o", "llama4", "kanana2",
	"talkie", "granite-embed-multi-97m", "tiny_aya", "cohere2moe", "superbpe", "trillion", "granite-docling",
	"bailingmoe", "bailingmoe2", "llada-moe", "seed-coder", "hunyuan", "hunyuan-dense", "hy_v4", "joyai-llm", "kimi-k2",
	"ufakzeka", "grok-2", "afmoe", "laguna", "minimax-m2", "solar-open", "mellum2",
}

// corpus covers code, whitespace runs, digits, contractions, CJK, emoji,
// mixed scripts, case changes and special tokens.
var corpus = []Case{
	{Text: "Hello world"},
	{Text: " Hello World! How are you doing today?"},
	{Text: "I'm sure they'll say it's fine, but we've seen what you'd do. DON'T, WON'T, I'LL, she'S"},
	{Text: "func main() {\n\tfmt.Println(\"hi\")\n\tx := map[string]int{\"a\": 1}\n}\n"},
	{Text: "def f(x):\r\n    return x**2 + 3.14159  # comment\r\n\r\n\r\nclass A: pass"},
	{Text: "   leading and trailing spaces   "},
	{Text: "tabs\t\tand\n\n\nnewlines \n \n  \t \n"},
	{Text: "a" + strings.Repeat(" ", 40) + "b" + strings.Repeat(" ", 600) + "c" + strings.Repeat("\n", 5)},
	{Text: "1 12 123 1234 12345 123456 1234567 12345678901234567890"},
	{Text: "Prices: $1,234.56, €99, ¥1000, 3.5%, 2024-01-15, 10:30am, v1.2.3, ١٢٣٤ ५६७"},
	{Text: "我想在苹果公司工作，因为他们的产品非常好。今天天气很好！"},
	{Text: "日本語のテキスト、カタカナとひらがな。東京タワー。ｶﾀｶﾅ"},
	{Text: "한국어 문장도 포함합니다. 서울은 아름다운 도시입니다. ㄱㄴㄷ"},
	{Text: "Emoji: 🦙🚀😶‍🌫️ ✅ 👩‍👩‍👧 ❤️ 🇫🇷 and more🎉🎉"},
	{Text: "Mixed: naïve café résumé Größe Ärger Ελληνικά Русский текст עברית العربية हिन्दी ภาษาไทย"},
	{Text: "combining: e\u0301 a\u0308 n\u0303 ก\u0e34 क\u093f\u0902 \u0301start"},
	{Text: "CamelCaseWord camelCase HTTPServer XMLHttpRequest iPhone McDonald's ALLCAPS"},
	{Text: "unicode spaces:\u00a0nbsp\u2003em\u3000ideographic\u2028line\u0085nel\u200bzwsp"},
	{Text: "punctuation!!! ??? ... --- *** ((nested)) [[x]] {{y}} <<z>> \"quoted\" 'single' `tick`"},
	{Text: "full-width：！？（），、。「」『』 and … — – ‘’ “”"},
	{Text: "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n", Parse: true},
	{Text: "<|im_start|>user\nHello<|im_end|> not parsed"},
	{Text: "Hello world", Add: true},
	{Text: "<|endoftext|>text after", Add: true, Parse: true},
	{Text: "<sentinel:12> IMGIMGABCZ x  y    z\t\n"},
	{Text: "mañana São Paulo Zürich İstanbul ǅemal ǈ Ǆ"},
	{Text: "https://example.com/path?q=1&r=2#frag user@mail.org C:\\Users\\x /usr/bin/env"},
	{Text: "SELECT id, name FROM users WHERE age > 21 AND name LIKE '%smith%';"},
	{Text: "x=1;y=2;z=x+y*3/4-5%6^7|8&9~0"},
	{Text: "\n"},
	{Text: " "},
	{Text: "a"},
	{Text: "'s 's 'S' 'll'LL 've 're 'd 'm 't 'x"},
	{Text: "Türkiye'nin başkenti Ankara'dır. O'nun evi."},
	{Text: "数字123和English混合mixed文本text。"},
	{Text: "ℕ ℤ ℝ ∑ ∫ √ ∞ ≠ ≤ ≥ → ⇒ ∀ ∃ ° ± × ÷ ½ ² ³"},
	{Text: "\u00a0\u00a0 x \u3000\u3000y"},
	{Text: "end with spaces and newline  \n  "},
	{Text: "noncharacters \uffff a\uffffb \ufffe \U0010ffff tag\U000e0001 unassigned \u0378 soft\u00adhyphen zw\u200dj"},
	{Text: "ＡＢＣ ａｂｃ ①②③ ﬁ ﬂ ㎏ ™ Ⅻ ｶﾞ"},
}

func main() {
	tokdump := flag.String("tokdump", "/tmp/tokdump", "the tokdump binary (tokdump/build.sh)")
	vocabs := flag.String("vocabs", "../shared/testdata/vocab", "fixture vocabularies, relative to the repository root")
	out := flag.String("out", "tokenizer/testdata", "output folder")
	llamaModels := flag.String("llama-models", "/work/llama.cpp/models", "llama.cpp's models folder (ggml-vocab-*.gguf)")
	only := flag.String("only", "", "only this vocabulary (skip the pre-tokenizer names)")
	keep := flag.String("keep", "", "also write the vocabularies built from the fixtures to this folder (for tokdump --time)")
	random := flag.Int("random", 0, "add this many random cases (for a held-out check; write them outside testdata with -out)")
	flag.Parse()
	if *random > 0 {
		corpus = append(corpus, randomCases(*random)...)
	}

	dir, err := os.MkdirTemp("", "pretok")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	cases := filepath.Join(dir, "cases")
	writeCases(cases, corpus)

	base := filepath.Join(*vocabs, "ggml-vocab-qwen2.gguf")
	ref := Reference{
		Source: "llama.cpp (node-llama-cpp " + llamaVersion() + ") via tokenizer/testdata/gen/tokdump.cpp",
		Vocab:  "ggml-vocab-qwen2.gguf", Key: "tokenizer.ggml.pre", Corpus: corpus,
	}
	byIDs := map[string]int{}
	for _, name := range preNames {
		if *only != "" {
			break
		}
		path := filepath.Join(dir, name+".gguf")
		relabel(base, path, map[string]string{"tokenizer.ggml.pre": name})
		ids := run(*tokdump, path, cases, corpus)
		key := fmt.Sprint(ids)
		if g, ok := byIDs[key]; ok {
			ref.Groups[g].Names = append(ref.Groups[g].Names, name)
			continue
		}
		byIDs[key] = len(ref.Groups)
		ref.Groups = append(ref.Groups, Group{Names: []string{name}, IDs: ids})
	}
	if *only == "" {
		// tokenizer.ggml.model "whitespace" (BPE over whitespace-separated words).
		path := filepath.Join(dir, "model-whitespace.gguf")
		relabel(base, path, map[string]string{"tokenizer.ggml.model": "whitespace", "tokenizer.ggml.pre": "whitespace"})
		ref.Groups = append(ref.Groups, Group{Names: []string{"model:whitespace"}, IDs: run(*tokdump, path, cases, corpus)})
		write(filepath.Join(*out, "pretok_ids.json"), ref)
		log.Printf("%d names in %d groups", len(preNames), len(ref.Groups))
	}

	// Vocabularies of other tokenizer models: llama.cpp's nomic-bert-moe
	// (UGM with a charsmap, 6.8 MB, not committed).
	// The fixture vocabularies of ../shared/testdata/vocab get the corpus
	// too (their .inp/.out are llama.cpp's own cases).
	others := []string{"nomic-bert-moe"}
	fixtures, _ := filepath.Glob(filepath.Join(*vocabs, "ggml-vocab-*.gguf"))
	for _, p := range fixtures {
		others = append(others, "fixture:"+strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "ggml-vocab-"), ".gguf"))
	}
	for _, v := range others {
		path := filepath.Join(*llamaModels, "ggml-vocab-"+v+".gguf")
		dst := filepath.Join(*out, v+"_ids.json")
		if name, ok := strings.CutPrefix(v, "fixture:"); ok {
			v = name
			path = filepath.Join(*vocabs, "ggml-vocab-"+name+".gguf")
			dst = filepath.Join(*out, "fixtures", name+"_ids.json")
			os.MkdirAll(filepath.Dir(dst), 0o755)
		}
		if *only != "" && *only != v {
			continue
		}
		if _, err := os.Stat(path); err != nil {
			log.Printf("skip %s: %v", v, err)
			continue
		}
		r := Reference{Source: ref.Source, Vocab: v + ".gguf", Corpus: corpus,
			Groups: []Group{{Names: []string{v}, IDs: run(*tokdump, path, cases, corpus)}}}
		write(dst, r)
	}

	// Vocabularies built by tokenizer/internal/testvocab from the fixtures
	// (the tests build the same ones in memory), each with the corpus and
	// cases of its own.
	for _, b := range built {
		if *only != "" && *only != b.name {
			continue
		}
		path := filepath.Join(dir, b.name+".gguf")
		if *keep != "" {
			path = filepath.Join(*keep, b.name+".gguf")
		}
		if err := writeBuilt(b, *vocabs, path); err != nil {
			log.Printf("skip %s: %v", b.name, err)
			continue
		}
		cs := append(append([]Case(nil), corpus...), b.extra...)
		if *random > 0 && b.pieces != nil {
			cs = append(cs, randomFrom(b.pieces, *random)...)
		}
		bc := filepath.Join(dir, b.name+".cases")
		writeCases(bc, cs)
		r := Reference{Source: ref.Source, Vocab: b.name + " (tokenizer/internal/testvocab from " + b.base + ")", Corpus: cs,
			Groups: []Group{{Names: []string{b.name}, IDs: run(*tokdump, path, bc, cs)}}}
		write(filepath.Join(*out, b.name+"_ids.json"), r)
	}
}

// randomCases draws texts from pieces that stress the pre-tokenizers:
// case changes, contractions, digits of several scripts, every kind of
// space, marks, CJK and punctuation.
func randomCases(n int) []Case {
	return randomFrom([]string{"a", "Z", "é", "e\u0301", "ß", "İ", "ǅ", "ς", "1", "٣", "²", "½", " ", "  ", "   ", "\t", "\n", "\r\n",
		"\n\n", "\u00a0", "\u3000", "\u2028", "\u0085", "'", "'s", "'LL", "'ve", "’", "!", "...", "—", "$", "+", "<", ">", "^", "`",
		"|", "~", "(", "[", "{", "}", "我", "の", "カ", "ｶ", "한", "ㄱ", "ㅏ", "ก", "ि", "ं", "🦙", "👩\u200d👩", "\ufe0f", "_", "-",
		"/", "\\", "@", "#", "%", "&", "*", "=", "?", "。", "，", "！", "：", "A", "HTTP", "Camel", "camel", "x", "123", "4567",
		"0", "𝔘", "ꙁ", "Ω", "K", "ﬁ", "ʰ", "ǈ", "ab", "the", " the", "IMGIMG", "<sentinel:", "\u200b", "\uffff", "ا", "ب"}, n)
}

// randomFrom draws n texts of 1 to 40 pieces.
func randomFrom(pieces []string, n int) []Case {
	x := uint64(88172645463325252)
	rnd := func(k int) int {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(k))
	}
	out := make([]Case, n)
	for i := range out {
		var b strings.Builder
		for k := 1 + rnd(40); k > 0; k-- {
			b.WriteString(pieces[rnd(len(pieces))])
		}
		out[i] = Case{Text: b.String(), Add: rnd(4) == 0}
	}
	return out
}

func llamaVersion() string {
	if v := os.Getenv("NLC_VERSION"); v != "" {
		return v
	}
	return "3.22.1"
}

func writeCases(path string, cs []Case) {
	var b bytes.Buffer
	for _, c := range cs {
		flags := []byte("--")
		if c.Add {
			flags[0] = 'a'
		}
		if c.Parse {
			flags[1] = 'p'
		}
		fmt.Fprintf(&b, "F %s %d\n%s\n", flags, len(c.Text), c.Text)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

func relabel(src, dst string, set map[string]string) {
	f, err := gguf.Open(src)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	m := f.Model()
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m.Set(k, gguf.String(set[k]))
	}
	var b bytes.Buffer
	if err := gguf.Write(&b, m); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(dst, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// run returns llama.cpp's ids for every case. When llama.cpp aborts (a
// GGML_ASSERT: raw-byte pre-tokenizers over a byte-level vocabulary hand
// words with spaces to its merge lookup), the cases are run one by one and
// an aborting case gets null ids.
func run(tokdump, vocab, cases string, corpus []Case) [][]int32 {
	out, err := exec.Command(tokdump, vocab, cases).Output()
	if err == nil {
		return parse(vocab, string(out), len(corpus))
	}
	ids := make([][]int32, len(corpus))
	if len(corpus) > 100 {
		log.Printf("%s: %v; no reference (too many cases to run one by one)", filepath.Base(vocab), err)
		return ids
	}
	log.Printf("%s: %v; running case by case", filepath.Base(vocab), err)
	one := cases + ".one"
	for i, c := range corpus {
		writeCases(one, []Case{c})
		out, err := exec.Command(tokdump, vocab, one).Output()
		if err != nil {
			continue // llama.cpp aborts on this case: no reference
		}
		ids[i] = parse(vocab, string(out), 1)[0]
	}
	return ids
}

func parse(vocab, out string, n int) [][]int32 {
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != n {
		log.Fatalf("%s: %d lines for %d cases", vocab, len(lines), n)
	}
	ids := make([][]int32, len(lines))
	for i, l := range lines {
		ids[i] = []int32{}
		for _, f := range strings.Fields(l) {
			v, err := strconv.Atoi(f)
			if err != nil {
				log.Fatal(err)
			}
			ids[i] = append(ids[i], int32(v))
		}
	}
	return ids
}

func write(path string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		log.Fatal(err)
	}
	// one group per line keeps diffs readable
	b = bytes.ReplaceAll(b, []byte(`{"names"`), []byte("\n{\"names\""))
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}
