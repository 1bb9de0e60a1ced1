package tokenizer

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/tokenizer/internal/testvocab"
	"github.com/stretchr/testify/require"
)

// corpusSnippets mix prose, code and several scripts.
var corpusSnippets = []string{
	"Once upon a time, in a quiet village by the sea, there lived an old fisherman who told stories to anyone who would listen. ",
	"The committee's report, published on 12 March 2024, found that 37.5% of respondents didn't trust the figures they'd been given.\n",
	"func (s *Server) handle(w http.ResponseWriter, r *http.Request) {\n\tif err := s.check(r.Context()); err != nil {\n\t\thttp.Error(w, err.Error(), 500)\n\t\treturn\n\t}\n}\n",
	"def fib(n: int) -> int:\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\nprint([fib(i) for i in range(20)])\n",
	"Der schnelle braune Fuchs springt über den faulen Hund. Größe, Übermut und Ärger sind häufige Wörter. ",
	"Le cœur a ses raisons que la raison ne connaît point. Ça va très bien, merci ! ",
	"Быстрая коричневая лиса прыгает через ленивую собаку. Съешь же ещё этих мягких французских булок. ",
	"我想在苹果公司工作，因为他们的产品非常好。今天天气很好，我们去公园散步吧。",
	"日本語のテキストも含めます。東京は大きな都市です。",
	"한국어 문장도 포함합니다. 서울은 아름다운 도시입니다. ",
	"مرحبا بالعالم، هذه جملة باللغة العربية. ",
	"Emoji: 🦙🚀😶‍🌫️ ✅ 👩‍👩‍👧 and numbers 3.14159 1234567890 0xDEADBEEF.\n",
	"<div class=\"container\">\n  <p>Hello, &amp; welcome!</p>\n</div>\n",
	"SELECT id, name FROM users WHERE created_at > '2024-01-01' ORDER BY name;\n",
}

// makeCorpus deterministically builds about size bytes of mixed text.
func makeCorpus(size int) string {
	var b strings.Builder
	x := uint32(12345)
	for b.Len() < size {
		x = x*1664525 + 1013904223
		b.WriteString(corpusSnippets[int(x>>16)%len(corpusSnippets)])
		if x&0x300 == 0 {
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

func openVocabFile(b testing.TB, name string) *gguf.File {
	path := filepath.Join(vocabDir, "ggml-vocab-"+name+".gguf")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("vocab fixture %s absent: %v", path, err)
	}
	f, err := gguf.Open(path)
	require.NoError(b, err)
	return f
}

func BenchmarkEncode(b *testing.B) {
	corpus := makeCorpus(1 << 20)
	for _, name := range []string{"qwen2", "llama-bpe", "llama-spm", "gemma-4", "qwen2/nocache", "llama-bpe/nocache", "llama-spm/nocache", "gemma-4/nocache"} {
		b.Run(name, func(b *testing.B) {
			vocab, noCache := strings.CutSuffix(name, "/nocache")
			tok := loadVocab(b, vocab)
			tok.noWordCache = noCache
			b.SetBytes(int64(len(corpus)))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tok.Encode(corpus, EncodeOptions{})
			}
		})
	}
}

func BenchmarkLoad(b *testing.B) {
	f := openVocabFile(b, "qwen2")
	defer f.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Collect the previous tokenizer outside the timed region, so the
		// measurement is the build itself.
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		if _, err := FromGGUF(f); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLoadMemory checks that the tokenizer retains at most about twice the
// memory its vocabulary takes in the GGUF metadata.
func TestLoadMemory(t *testing.T) {
	f := openVocabFile(t, "qwen2")
	defer f.Close()
	toks, err := f.Strings(keyTokens)
	require.NoError(t, err)
	merges, err := f.Strings(keyMerges)
	require.NoError(t, err)
	vocabBytes := 4 * len(toks) // token types
	for _, s := range toks {
		vocabBytes += len(s) + 16
	}
	for _, s := range merges {
		vocabBytes += len(s) + 16
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tok, err := FromGGUF(f)
	require.NoError(t, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	retained := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("vocabulary %d bytes, tokenizer retains %d bytes (%.2fx)", vocabBytes, retained, float64(retained)/float64(vocabBytes))
	require.Less(t, retained, int64(2*vocabBytes))
	runtime.KeepAlive(tok)
}

// BenchmarkEncodeModels covers every tokenizer algorithm on the mixed
// corpus: WordPiece, Unigram, RWKV, and byte-level BPE with the
// pre-tokenizers the regex engine runs (the qwen2 vocabulary relabelled).
// TOKENIZER_BENCH_CORPUS=path writes the corpus for timing llama.cpp on the
// same text (tokenizer/testdata/gen/tokdump --time).
func BenchmarkEncodeModels(b *testing.B) {
	corpus := makeCorpus(1 << 20)
	if p := os.Getenv("TOKENIZER_BENCH_CORPUS"); p != "" {
		require.NoError(b, os.WriteFile(p, []byte(corpus), 0o644))
	}
	open := func(b *testing.B, path, pre string) *Tokenizer {
		if _, err := os.Stat(path); err != nil {
			b.Skipf("%s absent: %v", path, err)
		}
		f, err := gguf.Open(path)
		require.NoError(b, err)
		defer f.Close()
		tok, err := load(f, "", pre)
		require.NoError(b, err)
		return tok
	}
	type benchCase struct {
		name string
		load func(b *testing.B) *Tokenizer
	}
	file := func(name, path, pre string) benchCase {
		return benchCase{name, func(b *testing.B) *Tokenizer { return open(b, path, pre) }}
	}
	built := func(name, base string, build func(*gguf.Model) (*gguf.Model, error)) benchCase {
		return benchCase{name, func(b *testing.B) *Tokenizer { return loadBuilt(b, base, build) }}
	}
	cases := []benchCase{
		file("wpm/bert-bge", filepath.Join(vocabDir, "ggml-vocab-bert-bge.gguf"), ""),
		file("ugm/nomic-bert-moe", filepath.Join(llamaModels, "ggml-vocab-nomic-bert-moe.gguf"), ""),
		built("ugm/ugm-spm", "ggml-vocab-llama-spm.gguf", testvocab.UGM),
		built("rwkv/rwkv-small", "ggml-vocab-qwen2.gguf", testvocab.RWKV),
		built("plamo2/plamo2", "ggml-vocab-llama-spm.gguf", testvocab.PLaMo2),
		built("hybriddna/hybriddna", "ggml-vocab-qwen2.gguf", testvocab.HybridDNA),
	}
	for _, pre := range []string{"tekken", "gpt-4o", "deepseek-v3", "exaone-moe", "poro-chat", "youtu", "chameleon",
		"kimi-k2", "superbpe", "afmoe", "tiny_aya", "bailingmoe", "seed-coder", "jais-2", "deepseek-llm"} {
		cases = append(cases, file("bpe/"+pre, filepath.Join(vocabDir, "ggml-vocab-qwen2.gguf"), pre))
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			tok := c.load(b)
			b.SetBytes(int64(len(corpus)))
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				tok.Encode(corpus, EncodeOptions{})
			}
			// The process's CPU time, which a loaded machine does not
			// inflate as it does ns/op.
			if d := cpuTime() - cpu0; d > 0 {
				b.ReportMetric(float64(len(corpus))*float64(b.N)/d.Seconds()/1e6, "MB/cpu-s")
			}
		})
	}
}
