package tokenizer

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/tokenizer/internal/testvocab"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const storiesPath = "../../shared/testdata/models/stories260K.gguf"

func TestStories260K(t *testing.T) {
	if _, err := os.Stat(storiesPath); err != nil {
		t.Skipf("model fixture %s absent: %v", storiesPath, err)
	}
	f, err := gguf.Open(storiesPath)
	require.NoError(t, err)
	defer f.Close()
	tok, err := FromGGUF(f)
	require.NoError(t, err)
	ids := tok.Encode("Once upon a time", EncodeOptions{AddSpecial: true})
	assert.Equal(t, []int32{1, 403, 407, 261, 378}, ids)
	assert.Equal(t, int32(1), tok.BOS())
	assert.Equal(t, int32(2), tok.EOS())
	assert.Equal(t, int32(-1), tok.EOT())
	assert.Equal(t, []int32{2}, tok.EndOfGeneration())
	assert.True(t, tok.IsControl(1))
	assert.Nil(t, tok.TokenBytes(1), "control tokens decode to nothing")
	assert.Equal(t, []byte("\n"), tok.TokenBytes(tok.Find("<0x0A>")))
	text, err := tok.Decode(ids)
	require.NoError(t, err)
	assert.Equal(t, " Once upon a time", text, "llama_detokenize keeps the space after BOS")
	text, err = tok.Decode(ids[1:])
	require.NoError(t, err)
	assert.Equal(t, "Once upon a time", text)
}

// roundTripWant is what llama.cpp's detokenize(tokenize(s)) gives back for
// valid UTF-8 s, or ok=false where its round trip does not hold.
func roundTripWant(tok *Tokenizer, s string) (string, bool) {
	if tok.kind == kindWPM || !utf8.ValidString(s) {
		return "", false
	}
	if tok.kind == kindSPM && strings.Contains(s, spaceMark) {
		return "", false
	}
	if tok.cleanSpaces {
		return string(cleanSpaces([]byte(s))), true
	}
	return s, true
}

func TestRoundTripFixtures(t *testing.T) {
	for _, name := range fixtureVocabs {
		t.Run(name, func(t *testing.T) {
			tok := loadVocab(t, name)
			n := 0
			for _, c := range readFixture(t, name) {
				want, ok := roundTripWant(tok, c.text)
				if !ok {
					continue
				}
				got, err := tok.Decode(c.ids)
				require.NoError(t, err)
				assert.Equal(t, want, got, "decode of fixture ids for %q", c.text)
				n++
			}
			t.Logf("%s: %d round trips", name, n)
		})
	}
}

var adversarial = []string{
	"", " ", "\t", "\n", "\r\n", "\r\n\r\n  \r\n", "   \n\n\t\t  x  ", strings.Repeat(" ", 100),
	"a  b   c    d", "line1\r\nline2\rline3\n",
	"3", "12345678901234567890", "3.14159e-10", "1,000,000", "٣٤٥ ١٢", "½ ¾ ²",
	"DON'T I'M YOU'RE WE'VE THEY'LL HE'D IT'S", "don't i'm", "'''s", "' s", "'",
	"👩‍👩‍👧‍👦 👍🏽 🏳️‍🌈 😶‍🌫️", "e\u0301 n\u0303 a\u0308\u0304", "\u0301\u0301", "Zalgo: Z\u0351\u0352\u0353a\u0354l\u0355g\u0356o",
	"我想在apple工作", "日本語テキスト", "한국어", "ภาษาไทย", "עברית", "हिन्दी",
	"<s>", "</s>", "<unk>", "<|endoftext|>", "<|im_start|>user\nhi<|im_end|>", "<|begin_of_text|>", "<|eot_id|>",
	"<start_of_turn>", "<bos>", "[CLS] [SEP] [MASK]", "<｜begin▁of▁sentence｜>", ">>TITLE<<",
	strings.Repeat("a", 5000), strings.Repeat("ab", 3000), strings.Repeat("🦙", 500), strings.Repeat("1", 1000),
	"\x00", "a\x00b", "\x01\x02\x1f\x7f", "\u00a0\u2003\u3000x\u2028y\u0085z",
	"\uFEFFbom", "\u200b\u200c\u200d", "\U0010FFFF\uE000\uFFFD",
	"▁leading▁marks▁", "<0x0A>",
	// invalid UTF-8
	"\xff", "\xfe\xff", "\xc3", "a\xc3", "\xc3(", "\xe2\x82", "\xed\xa0\x80", "\xc0\x80", "\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80", "\x80\x80", "ok\xe2\x96",
}

func TestAdversarial(t *testing.T) {
	for _, name := range fixtureVocabs {
		t.Run(name, func(t *testing.T) {
			tok := loadVocab(t, name)
			for _, s := range adversarial {
				for _, opts := range []EncodeOptions{{}, {AddSpecial: true}, {ParseSpecial: true}, {AddSpecial: true, ParseSpecial: true}} {
					ids := tok.Encode(s, opts)
					for _, id := range ids {
						require.True(t, id >= 0 && int(id) < tok.VocabSize(), "%q: id %d out of range", s, id)
					}
					if !opts.ParseSpecial {
						start, end := 0, len(ids)
						if opts.AddSpecial {
							start, end = specialBounds(tok, ids)
						}
						for _, id := range ids[start:end] {
							if id == tok.unk {
								continue // the unknown token is a legitimate output
							}
							assert.False(t, tok.IsControl(id), "%q without ParseSpecial gave control token %d %q", s, id, tok.TokenText(id))
						}
					}
					if _, err := tok.Decode(ids); err != nil {
						t.Fatalf("%q: decode: %v", s, err)
					}
				}
				if want, ok := roundTripWant(tok, s); ok && !strings.ContainsAny(s, "\u2581") {
					got, err := tok.Decode(tok.Encode(s, EncodeOptions{}))
					require.NoError(t, err)
					assert.Equal(t, want, got, "round trip of %q", s)
				}
				// Byte-fallback SentencePiece keeps every byte, valid or not.
				if tok.kind == kindSPM && spmRoundTrips(s) {
					got, err := tok.Decode(tok.Encode(s, EncodeOptions{}))
					require.NoError(t, err)
					assert.Equal(t, s, got, "SPM byte round trip of %q", s)
				}
			}
		})
	}
}

// specialBounds returns the range of ids between the added BOS/EOS.
func specialBounds(tok *Tokenizer, ids []int32) (int, int) {
	start, end := 0, len(ids)
	if (tok.addBOS || tok.kind == kindWPM) && end > 0 {
		start++
	}
	if (tok.addEOS && tok.kind != kindWPM || tok.kind == kindWPM) && end > start {
		end--
	}
	return start, end
}

func TestParseSpecial(t *testing.T) {
	tok := loadVocab(t, "qwen2")
	text := "<|im_start|>user\nhi<|im_end|>"
	with := tok.Encode(text, EncodeOptions{ParseSpecial: true})
	assert.Equal(t, int32(151644), with[0])
	assert.Equal(t, int32(151645), with[len(with)-1])
	without := tok.Encode(text, EncodeOptions{})
	assert.NotContains(t, without, int32(151644))
	assert.NotContains(t, without, int32(151645))
	got, err := tok.Decode(without)
	require.NoError(t, err)
	assert.Equal(t, text, got, "special-looking text round-trips as plain text")
	got, err = tok.DecodeSpecial(with)
	require.NoError(t, err)
	assert.Equal(t, text, got)
	got, err = tok.Decode(with)
	require.NoError(t, err)
	assert.Equal(t, "user\nhi", got, "control tokens are not rendered by Decode")

	assert.Equal(t, int32(151645), tok.EOT(), "EOT found by text")
	assert.Contains(t, tok.EndOfGeneration(), int32(151643))
	assert.Contains(t, tok.EndOfGeneration(), int32(151645))

	spm := loadVocab(t, "llama-spm")
	ids := spm.Encode("<s>Hi</s>", EncodeOptions{ParseSpecial: true, AddSpecial: true})
	assert.Equal(t, []int32{1, 1}, ids[:2])
	assert.Equal(t, int32(2), ids[len(ids)-1])
	assert.NotContains(t, spm.Encode("<s>Hi</s>", EncodeOptions{}), int32(1))
}

func TestAddSpecial(t *testing.T) {
	cases := []struct {
		vocab      string
		first, end int32 // -1: nothing added there
	}{
		{"llama-spm", 1, -1},
		{"llama-bpe", 128000, -1},
		{"qwen2", -1, -1},
		{"gpt-2", -1, -1},
		{"gemma-4", 2, -1},
		{"bert-bge", 101, 102},
		{"command-r", 5, -1},
	}
	for _, c := range cases {
		t.Run(c.vocab, func(t *testing.T) {
			tok := loadVocab(t, c.vocab)
			plain := tok.Encode("Hello world", EncodeOptions{})
			ids := tok.Encode("Hello world", EncodeOptions{AddSpecial: true})
			want := plain
			if c.first >= 0 {
				want = append([]int32{c.first}, want...)
			}
			if c.end >= 0 {
				want = append(want, c.end)
			}
			if tok.kind == kindSPM {
				// The space prefix is added after BOS as well.
				assert.Equal(t, c.first, ids[0])
				assert.Equal(t, plain, ids[1:])
				return
			}
			assert.Equal(t, want, ids)
		})
	}
}

func TestTokenBytes(t *testing.T) {
	tok := loadVocab(t, "gpt-2")
	id := tok.Find("Ġworld")
	require.GreaterOrEqual(t, id, int32(0))
	assert.Equal(t, []byte(" world"), tok.TokenBytes(id))
	assert.Equal(t, "Ġworld", tok.TokenText(id))
	assert.Nil(t, tok.TokenBytes(50256), "<|endoftext|> is a control token")
	assert.Nil(t, tok.TokenBytes(-1))
	assert.Nil(t, tok.TokenBytes(int32(tok.VocabSize())))
	// byte-level tokens for a lone byte
	assert.Equal(t, []byte{0xe2}, tok.TokenBytes(tok.Find("â")))

	g := loadVocab(t, "gemma-4")
	assert.Equal(t, []byte{0x0a}, g.TokenBytes(g.Find("<0x0A>")))
	assert.Equal(t, []byte(" hello"), g.TokenBytes(g.Find("▁hello")))
}

func TestDecodeErrors(t *testing.T) {
	tok := loadVocab(t, "qwen2")
	_, err := tok.Decode([]int32{9707, -3})
	var re *RangeError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, int32(-3), re.ID)
	assert.Equal(t, 1, re.Index)
	_, err = tok.Decode([]int32{int32(tok.VocabSize())})
	require.ErrorAs(t, err, &re)
	assert.Contains(t, err.Error(), "out of range")
	_, err = tok.NewStreamDecoder().Add(1 << 30)
	require.Error(t, err)
}

func TestStreamDecoder(t *testing.T) {
	for _, name := range []string{"qwen2", "llama-spm", "gemma-4"} {
		t.Run(name, func(t *testing.T) {
			tok := loadVocab(t, name)
			text := "Emoji 🦙🚀😶‍🌫️ and 中文 Ελληνικά ✅ done"
			ids := tok.Encode(text, EncodeOptions{})
			d := tok.NewStreamDecoder()
			var all strings.Builder
			for _, id := range ids {
				chunk, err := d.Add(id)
				require.NoError(t, err)
				assert.True(t, utf8.ValidString(chunk), "chunk %q", chunk)
				all.WriteString(chunk)
			}
			all.WriteString(d.Flush())
			want := text
			if tok.kind == kindSPM {
				want = " " + text // the stream keeps the space prefix
			}
			assert.Equal(t, want, all.String())
		})
	}
	assert.Equal(t, 0, completePrefix([]byte{0xf0, 0x9f}))
	assert.Equal(t, 1, completePrefix([]byte{'a', 0xe2, 0x82}))
	assert.Equal(t, 2, completePrefix([]byte{0xff, 0xfe}), "invalid bytes pass through")
}

func TestConcurrentEncode(t *testing.T) {
	f := openVocabFile(t, "qwen2")
	defer f.Close()
	regexTok, err := load(f, "", "tekken") // the regex engine's matcher state
	require.NoError(t, err)
	toks := []*Tokenizer{loadVocab(t, "qwen2"), regexTok,
		loadBuilt(t, "ggml-vocab-qwen2.gguf", testvocab.RWKV),
		loadBuilt(t, "ggml-vocab-qwen2.gguf", testvocab.HybridDNA),
		loadBuilt(t, "ggml-vocab-llama-spm.gguf", testvocab.PLaMo2),
		loadBuilt(t, "ggml-vocab-llama-spm.gguf", testvocab.UGM)}
	corpus := makeCorpus(64 << 10)
	for _, tok := range toks {
		want := tok.Encode(corpus, EncodeOptions{})
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 3; i++ {
					assert.Equal(t, want, tok.Encode(corpus, EncodeOptions{}), "%s/%s", tok.Model(), tok.pre)
				}
			}()
		}
		wg.Wait()
	}
}

// TestChunkingExact checks that cutting SentencePiece text at ▁ gives the
// same ids as merging it as one sequence.
func TestChunkingExact(t *testing.T) {
	for _, name := range []string{"llama-spm", "gemma-4"} {
		t.Run(name, func(t *testing.T) {
			tok := loadVocab(t, name)
			require.True(t, tok.chunkable)
			whole := loadVocab(t, name)
			whole.chunkable = false
			corpus := makeCorpus(32 << 10)
			for _, s := range append([]string{corpus}, adversarial...) {
				require.Equal(t, tok.Encode(s, EncodeOptions{}), wholeEncode(whole, s), "%q", s)
			}
		})
	}
}

// wholeEncode encodes without chunking.
func wholeEncode(tok *Tokenizer, s string) []int32 {
	return tok.Encode(s, EncodeOptions{})
}

// rewrite returns a copy of a fixture vocabulary with its metadata changed.
func rewrite(t *testing.T, name string, edit func(m *gguf.Model)) *gguf.File {
	f := openVocabFile(t, name)
	defer f.Close()
	m := f.Model()
	edit(m)
	return reparse(t, m)
}

// reparse writes m and parses it back.
func reparse(t testing.TB, m *gguf.Model) *gguf.File {
	var buf bytes.Buffer
	require.NoError(t, gguf.Write(&buf, m))
	g, err := gguf.Parse(buf.Bytes())
	require.NoError(t, err)
	return g
}

func drop(m *gguf.Model, key string) {
	kv := m.KV[:0]
	for _, e := range m.KV {
		if e.Key != key {
			kv = append(kv, e)
		}
	}
	m.KV = kv
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		name string
		edit func(m *gguf.Model)
		want string
	}{
		{"unknown model", func(m *gguf.Model) { m.Set(keyModel, gguf.String("sentencepiece9")) }, `unknown tokenizer model "sentencepiece9"`},
		{"unsupported model", func(m *gguf.Model) { m.Set(keyModel, gguf.String("no_vocab")) }, `tokenizer model "no_vocab" (tokenizer.ggml.model) is not supported`},
		{"plamo2 without byte tokens", func(m *gguf.Model) { m.Set(keyModel, gguf.String("plamo2")) }, "plamo2 vocabulary has no byte token <0x00>"},
		{"missing model", func(m *gguf.Model) { drop(m, keyModel) }, keyModel},
		{"missing merges", func(m *gguf.Model) { drop(m, keyMerges) }, "cannot find tokenizer merges"},
		{"merges wrong type", func(m *gguf.Model) { m.Set(keyMerges, gguf.Uint32(3)) }, keyMerges},
		{"unknown pre", func(m *gguf.Model) { m.Set(keyPre, gguf.String("klingon")) }, `unsupported pre-tokenizer type "klingon"; known: a.x-4.0, afmoe, bailingmoe,`},
		{"missing tokens", func(m *gguf.Model) { drop(m, keyTokens) }, keyTokens},
		{"duplicate token", func(m *gguf.Model) {
			v, _ := m.Get(keyTokens)
			toks := append([]string(nil), v.Data.([]string)...)
			toks[7] = toks[5]
			m.Set(keyTokens, gguf.Strings(toks))
		}, "duplicate token"},
		{"short token types", func(m *gguf.Model) { m.Set(keyTypes, gguf.Int32s([]int32{1, 1})) }, keyTypes},
		{"add_bos without bos", func(m *gguf.Model) {
			m.Set(keyAddBOS, gguf.Bool(true))
			drop(m, "tokenizer.ggml.bos_token_id")
			m.Set(keyPre, gguf.String("chatglm-bpe"))
		}, "bos_token_id is not set"},
		// issue 14: 2^30 used to become token 11 (gpt2's default) silently.
		{"bos id out of range", func(m *gguf.Model) {
			m.Set("tokenizer.ggml.bos_token_id", gguf.Uint32(1<<30))
		}, "tokenizer.ggml.bos_token_id = 1073741824 is out of range for a vocabulary of 151936 tokens"},
		{"eot id out of range", func(m *gguf.Model) {
			m.Set("tokenizer.ggml.eot_token_id", gguf.Uint32(151936))
		}, "tokenizer.ggml.eot_token_id = 151936 is out of range"},
		{"negative pad id", func(m *gguf.Model) {
			m.Set("tokenizer.ggml.padding_token_id", gguf.Int32(-5))
		}, "tokenizer.ggml.padding_token_id = -5 is out of range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := rewrite(t, "qwen2", c.edit)
			_, err := FromGGUF(f)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			var ke *gguf.KeyError
			if strings.Contains(c.name, "missing tokens") || strings.Contains(c.name, "missing model") {
				assert.True(t, errors.As(err, &ke), "typed key error: %v", err)
			}
		})
	}
}

func TestOutOfRangeSpecialIDs(t *testing.T) {
	// A default id beyond a (tiny) vocabulary is disabled, as in llama.cpp.
	f := rewrite(t, "llama-spm", func(m *gguf.Model) {
		v, _ := m.Get(keyTokens)
		m.Set(keyTokens, gguf.Strings(v.Data.([]string)[:2]))
		drop(m, "tokenizer.ggml.eos_token_id")
		drop(m, "tokenizer.ggml.bos_token_id")
		m.Set(keyAddBOS, gguf.Bool(false))
	})
	tok, err := FromGGUF(f)
	require.NoError(t, err)
	assert.Equal(t, int32(1), tok.BOS())
	assert.Equal(t, int32(-1), tok.EOS(), "default 2 is out of a 2-token vocabulary")
	// A metadata id out of range is refused, naming the key.
	f = rewrite(t, "llama-spm", func(m *gguf.Model) {
		m.Set("tokenizer.ggml.eos_token_id", gguf.Uint32(999999))
	})
	_, err = FromGGUF(f)
	require.ErrorContains(t, err, "tokenizer.ggml.eos_token_id = 999999 is out of range for a vocabulary of 32000 tokens")
}
