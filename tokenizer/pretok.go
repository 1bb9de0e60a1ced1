package tokenizer

import (
	"fmt"
	"sort"
	"strings"
)

// A splitStep is one regex of a pre-tokenizer's list: it splits every
// fragment [start, end) of code points further, as llama.cpp's
// unicode_regex_split applies its regex_exprs one after another.
type splitStep interface {
	split(s *splitState, start, end int)
}

// splitState holds the decoded text being pre-tokenized.
type splitState struct {
	cps  []rune
	fl   []uint16
	ends []int32 // output: fragment end positions (code point indices)

	// subjects for regexStep, built on demand per run
	collapsed, wide []int32
	haveColl        bool
	haveWide        bool
	re              reMatcher
}

func (s *splitState) emit(end int) { s.ends = append(s.ends, int32(end)) }

// preTokenizer is the list of split steps for one pre-tokenizer type.
type preTokenizer struct {
	name       string
	steps      []splitStep
	byteEncode bool // GPT-2 byte-to-unicode mapping of words
}

// Pre-tokenizer regexes as llama.cpp's llm_tokenizer_bpe lists them (the
// C++ string literals, which read the same in Go). Several types share one
// list.
var (
	reGPT2   = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)"
	reLlama3 = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
	reQwen2  = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
	reQwen35 = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
	rePoro   = " ?[^(\\s|.,!?…。，、।۔،)]+"
	reDS3    = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"
	reGPT4o  = "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
	reLines  = "[^\\n]+|[\\n]+"

	preRegexes = map[string][]string{
		"default": {"[\\p{P}\\$\\+<=>\\^~\\|]+", reGPT2, "\\p{N}+", "[0-9][0-9][0-9]"},
		"llama3":  {reLlama3},
		"jais2":   {"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s{512}(?!\\S)|\\s{256}(?!\\S)|\\s{128}(?!\\S)|\\s{64}(?!\\S)|\\s{32}(?!\\S)|\\s{16}(?!\\S)|\\s{8}(?!\\S)|\\s{4}(?!\\S)|\\s{1,2}(?!\\S)|\\s{1}"},
		"dbrx":    {reLlama3},
		"smaug":   {reLlama3},
		// (\u escapes: normalizing this file to NFC would change the ranges)
		"deepseek-llm":      {"[\r\n]", "\\s?[A-Za-z\u00B5\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u01BA\u01BC-\u01BF\u01C4-\u0293\u0295-\u02AF\u0370-\u0373\u0376\u0377\u037B-\u037D\u037F\u0386\u0388-\u038A\u038C\u038E-\u03A1\u03A3-\u03F5\u03F7-\u0481\u048A-\u052F\u0531-\u0556\u10A0-\u10C5\u13A0-\u13F5\u13F8-\u13FD\u1C90-\u1CBA\u1CBD-\u1CBF\u1D00-\u1D2B\u1D6B-\u1D77\u1D79-\u1D9A\u1E00-\u1F15\u1F18-\u1F1D\u1F20-\u1F45\u1F48-\u1F4D\u1F50-\u1F57\u1F59\u1F5B\u1F5D\u1F5F-\u1F7D\u1F80-\u1FB4\u1FB6-\u1FBC\u1FBE\u1FC2-\u1FC4\u1FC6-\u1FCC\u1FD0-\u1FD3\u1FD6-\u1FDB\u1FE0-\u1FEC\u1FF2-\u1FF4\u1FF6-\u1FFC\u2102\u2107\u210A-\u2113\u2115\u2119-\u211D\u2124\u2126\u2128\u212A-\u212D\u212F-\u2134\u2139\u213C-\u213F\u2145-\u2149\u214E\u2183\u2184\u2C00-\u2C7B\u2C7E-\u2CE4\u2CEB-\u2CEE\u2CF2\u2CF3\uA640-\uA66D\uA680-\uA69B\uA722-\uA76F\uA771-\uA787\uA78B-\uA78E\uAB70-\uABBF\uFB00-\uFB06\uFB13-\uFB17\uFF21-\uFF3A\uFF41-\uFF5A\U00010400-\U0001044F\U000104B0-\U000104D3\U000104D8-\U000104FB\U00010C80-\U00010CB2\U00010CC0-\U00010CF2\U000118A0-\U000118DF\U0001E900-\U0001E943]+", "\\s?[!-/:-~！-／：-～‘-‟　-。]+", "\\s+$", "[一-龥ࠀ-一가-퟿]+", "\\p{N}+"},
		"deepseek3-llm":     {"\\p{N}{1,3}", "[一-龥぀-ゟ゠-ヿ]+", reDS3},
		"hunyuan-dense":     {"\\p{N}{1,3}", "[一-龥぀-ゟ゠-ヿ]+", reDS3},
		"joyai-llm":         {"\\p{N}{1,3}", "[一-龥぀-ゟ゠-ヿ]+", reDS3},
		"hy-v4":             {"\\p{N}{1,3}", "[一-龥぀-ゟ゠-ヿ]+", reDS3},
		"spark2_5":          {"\\p{N}{1,3}", "[一-龥぀-ゟ゠-ヿ]+", "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+|[\r\n]|\\s+(?!\\S)|\\s+", "\\p{N}"},
		"youtu":             {"[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥぀-ゟ゠-ヿ]+", "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
		"deepseek-coder":    {"[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+", "[一-龥ࠀ-一가-퟿]+", "\\p{N}"},
		"falcon":            {"[\\p{P}\\$\\+<=>\\^~\\|`]+", reGPT2, "[0-9][0-9][0-9]"},
		"starcoder":         {"\\p{N}", reGPT2},
		"refact":            {"\\p{N}", reGPT2},
		"command-r":         {"\\p{N}", reGPT2},
		"smollm":            {"\\p{N}", reGPT2},
		"codeshell":         {"\\p{N}", reGPT2},
		"exaone":            {"\\p{N}", reGPT2},
		"minerva":           {"\\p{N}", reGPT2},
		"mellum2":           {"\\p{N}", reGPT2},
		"gpt2":              {reGPT2},
		"mpt":               {reGPT2},
		"olmo":              {reGPT2},
		"jais":              {reGPT2},
		"trillion":          {reGPT2},
		"granite-docling":   {reGPT2},
		"stablelm2":         {reQwen2},
		"qwen2":             {reQwen2},
		"hunyuan":           {reQwen2},
		"solar-open":        {reQwen2},
		"qwen35":            {reQwen35},
		"poro":              {rePoro},
		"bloom":             {rePoro},
		"gpt3-finnish":      {rePoro},
		"chatglm4":          {reLlama3},
		"viking":            {rePoro, "\\p{N}"},
		"tekken":            {"[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
		"chameleon":         {"<sentinel:[0-9]+>", "(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z", "([\\t\\n]|    |  )", "\\p{N}", "[\\p{P}!-/:-@\\[-`{-~]", reGPT2},
		"gpt-4o":            {reGPT4o},
		"minimax-m2":        {reGPT4o},
		"granite-emb-multi": {"[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))*((?=[\\p{L}\\p{M}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))+((?=[\\p{L}\\p{M}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
		"tiny-aya":          {"\\d{1,3}(?=(?:\\d{3})*\\b)", "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
		"kimi-k2":           {"\\p{Han}+"},
		"superbpe":          {"\\p{N}+", "(?=(\\d{3})+(?!\\d))"},
		"bailingmoe":        {"'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+"},
		"seed-coder":        {"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\\r\\n]+|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
		"ufakzeka":          {"[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
		"grok-2":            {reQwen2},
		"afmoe":             {"\\p{AFMoE_digits}", "[一-鿿㐀-䶿豈-﫿぀-ゟ゠-ヿ･-ﾟ⼀-⿟เ-๿຀-໿ក-៿က-႟ꩠ-ꩿꧠ-꧿가-힯ᄀ-ᇿ]+", "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
		"laguna":            {reLines, reQwen2},
		"exaone-moe":        {"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?(?:\\p{L}\\p{M}*(?: \\p{L}\\p{M}*)*)+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]?|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+"},
		"gemma4":            {reLines},
		"sarvam-moe":        {reLines},
		"minicpm5":          {"\\p{N}{1,3}", "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}+| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
		"whitespace":        {"\\S+"},
	}

	// rawTypes run BPE over raw UTF-8 (llama.cpp's byte_encode = false).
	rawTypes = map[string]bool{"gemma4": true, "sarvam-moe": true, "whitespace": true}
)

// preSettings are the vocabulary flags llama.cpp sets for a
// tokenizer.ggml.pre name, on top of the BPE defaults.
type preSettings struct {
	kind          string // pre-tokenizer type: a key of preRegexes
	ignoreMerges  bool
	addBOS        bool
	noCleanSpaces bool
	escapeWS      bool
	addSep        bool
	noBOS         bool // special_bos_id = null
	noLowercase   bool
}

// preNames maps every tokenizer.ggml.pre value llama.cpp accepts to its
// type and flags (llama_vocab::impl::load).
var preNames = func() map[string]preSettings {
	m := map[string]preSettings{}
	add := func(s preSettings, names ...string) {
		for _, n := range names {
			m[n] = s
		}
	}
	add(preSettings{kind: "default"}, "default")
	add(preSettings{kind: "minicpm5", ignoreMerges: true}, "minicpm5")
	add(preSettings{kind: "llama3", ignoreMerges: true, addBOS: true},
		"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano")
	add(preSettings{kind: "deepseek-llm", noCleanSpaces: true}, "deepseek-llm")
	add(preSettings{kind: "deepseek-coder", noCleanSpaces: true}, "deepseek-coder")
	add(preSettings{kind: "deepseek3-llm", noCleanSpaces: true}, "deepseek-v3")
	add(preSettings{kind: "spark2_5", noCleanSpaces: true}, "spark2_5")
	add(preSettings{kind: "youtu", noCleanSpaces: true, ignoreMerges: true}, "youtu")
	add(preSettings{kind: "falcon"}, "falcon")
	add(preSettings{kind: "mpt"}, "mpt")
	add(preSettings{kind: "starcoder"}, "starcoder")
	add(preSettings{kind: "gpt2"}, "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de",
		"a.x-4.0", "mellum", "modern-bert", "exaone4")
	add(preSettings{kind: "jais2"}, "jais-2")
	add(preSettings{kind: "gemma4", escapeWS: true}, "gemma4", "granite-embed-multi-311m")
	add(preSettings{kind: "sarvam-moe", escapeWS: true, noCleanSpaces: true}, "sarvam-moe")
	add(preSettings{kind: "gpt2", addSep: true}, "jina-v1-en", "jina-v2-code", "roberta-bpe")
	add(preSettings{kind: "whitespace", noLowercase: true}, "whitespace")
	add(preSettings{kind: "refact"}, "refact")
	add(preSettings{kind: "command-r", noCleanSpaces: true}, "command-r")
	add(preSettings{kind: "qwen2", noCleanSpaces: true}, "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2")
	add(preSettings{kind: "qwen35", noCleanSpaces: true}, "qwen35")
	add(preSettings{kind: "stablelm2"}, "stablelm2")
	add(preSettings{kind: "olmo"}, "olmo")
	add(preSettings{kind: "dbrx"}, "dbrx")
	add(preSettings{kind: "smaug"}, "smaug-bpe")
	add(preSettings{kind: "poro", noCleanSpaces: true}, "poro-chat")
	add(preSettings{kind: "chatglm4", noBOS: true}, "glm4", "chatglm-bpe")
	add(preSettings{kind: "viking", noCleanSpaces: true}, "viking")
	add(preSettings{kind: "jais"}, "jais")
	add(preSettings{kind: "tekken", noCleanSpaces: true, ignoreMerges: true, addBOS: true}, "tekken")
	add(preSettings{kind: "smollm", noCleanSpaces: true}, "smollm")
	add(preSettings{kind: "codeshell"}, "codeshell")
	add(preSettings{kind: "bloom"}, "bloom")
	add(preSettings{kind: "gpt3-finnish"}, "gpt3-finnish")
	add(preSettings{kind: "exaone"}, "exaone")
	add(preSettings{kind: "exaone-moe"}, "exaone-moe")
	add(preSettings{kind: "chameleon", addBOS: true, noCleanSpaces: true}, "chameleon")
	add(preSettings{kind: "minerva"}, "minerva-7b")
	add(preSettings{kind: "qwen2"}, "megrez")
	add(preSettings{kind: "gpt-4o", noCleanSpaces: true}, "gpt-4o", "llama4", "kanana2", "talkie")
	add(preSettings{kind: "granite-emb-multi", noCleanSpaces: true, ignoreMerges: true}, "granite-embed-multi-97m")
	add(preSettings{kind: "tiny-aya", noCleanSpaces: true}, "tiny_aya", "cohere2moe")
	add(preSettings{kind: "superbpe", noCleanSpaces: true}, "superbpe")
	add(preSettings{kind: "trillion", noCleanSpaces: true}, "trillion")
	add(preSettings{kind: "granite-docling", noCleanSpaces: true}, "granite-docling")
	add(preSettings{kind: "bailingmoe", noCleanSpaces: true}, "bailingmoe", "bailingmoe2", "llada-moe")
	add(preSettings{kind: "seed-coder", noCleanSpaces: true}, "seed-coder")
	add(preSettings{kind: "hunyuan", noCleanSpaces: true}, "hunyuan")
	add(preSettings{kind: "hunyuan-dense", noCleanSpaces: true}, "hunyuan-dense")
	add(preSettings{kind: "hy-v4", noCleanSpaces: true}, "hy_v4")
	add(preSettings{kind: "joyai-llm", noCleanSpaces: true}, "joyai-llm")
	add(preSettings{kind: "kimi-k2", noCleanSpaces: true}, "kimi-k2")
	add(preSettings{kind: "ufakzeka", noCleanSpaces: true}, "ufakzeka")
	add(preSettings{kind: "grok-2", noCleanSpaces: true}, "grok-2")
	add(preSettings{kind: "afmoe", noCleanSpaces: true}, "afmoe")
	add(preSettings{kind: "laguna", noCleanSpaces: true}, "laguna")
	add(preSettings{kind: "minimax-m2", noCleanSpaces: true}, "minimax-m2")
	add(preSettings{kind: "solar-open", noCleanSpaces: true}, "solar-open")
	add(preSettings{kind: "mellum2"}, "mellum2")
	return m
}()

// PreTokenizers returns every tokenizer.ggml.pre value the package
// accepts, sorted.
func PreTokenizers() []string {
	names := make([]string, 0, len(preNames))
	for n := range preNames {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// preTypeOf maps tokenizer.ggml.pre to llama.cpp's pre-tokenizer type and
// the flags it sets. An absent value is "default", as in llama.cpp.
func preTypeOf(pre string) (preSettings, error) {
	if pre == "" {
		pre = "default"
	}
	if s, ok := preNames[pre]; ok {
		return s, nil
	}
	return preSettings{}, fmt.Errorf("unsupported pre-tokenizer type %q; known: %s", pre, strings.Join(PreTokenizers(), ", "))
}

// newPreTokenizer builds the split steps of a pre-tokenizer type: a
// hand-written splitter for each regex llama.cpp (or this package) has one
// for, the regex engine for the rest.
func newPreTokenizer(kind string) (*preTokenizer, error) {
	exprs, ok := preRegexes[kind]
	if !ok {
		return nil, fmt.Errorf("pre-tokenizer type %q has no regexes", kind)
	}
	p := &preTokenizer{name: kind, byteEncode: !rawTypes[kind]}
	for _, e := range exprs {
		step, err := newSplitStep(e)
		if err != nil {
			return nil, fmt.Errorf("pre-tokenizer %q: %w", kind, err)
		}
		p.steps = append(p.steps, step)
	}
	return p, nil
}

// customSteps are llama.cpp's own hand-written splitters
// (unicode_regex_split_custom), keyed by the exact regex strings it picks
// them by.
func customSteps() map[string]splitStep {
	return map[string]splitStep{
		reGPT2:   gpt2Split{},
		reLlama3: llama3Split{maxDigits: 3},
		"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+": llama3Split{maxDigits: 3},
		reQwen2:                      llama3Split{maxDigits: 1},
		reQwen35:                     llama3Split{maxDigits: 1, marks: true},
		"\\p{Han}+":                  kimiK2Split{},
		"\\p{AFMoE_digits}":          digitGroups{},
		"\\d{1,3}(?=(?:\\d{3})*\\b)": digitGroups{},
		reLines:                      lineRuns{},
	}
}

// emulatedSteps are this package's faster equivalents of std::regex on a
// few simple patterns, keyed by the pattern; TestEmulatedStepsMatchRegex
// and FuzzEmulatedSteps check them against the regex engine.
func emulatedSteps() map[string]splitStep {
	return map[string]splitStep{
		"\\p{N}":                      classRun{body: reN, min: 1, max: 1},
		"\\p{N}+":                     classRun{body: reN, min: 1},
		"\\p{N}{1,3}":                 classRun{body: reN, min: 1, max: 3},
		"[0-9][0-9][0-9]":             classRun{body: reASCIIDigit, min: 3, max: 3},
		"[\\p{P}\\$\\+<=>\\^~\\|]+":   classRun{body: reDefaultPunct, min: 1},
		"[\\p{P}\\$\\+<=>\\^~\\|`]+":  classRun{body: reFalconPunct, min: 1},
		"[\r\n]":                      classRun{body: reCRLF, min: 1, max: 1},
		"\\s?\\p{L}+":                 classRun{prefix: reSpace, body: reL, min: 1},
		"\\s?\\p{P}+":                 classRun{prefix: reSpace, body: reP, min: 1},
		"\\s+$":                       trailingSpace{},
		"(?=(\\d{3})+(?!\\d))":        thousandsCuts{},
		"[一-龥ࠀ-一가-퟿]+":                classRun{body: reCJK, min: 1},
		preRegexes["deepseek-llm"][1]: classRun{prefix: reSpace, body: reDeepseekLetter, min: 1},
		"\\s?[!-/:-~！-／：-～‘-‟　-。]+": classRun{prefix: reSpace, body: reDeepseekPunct, min: 1},
	}
}

// ucats are the unicode categories whose presence makes llama.cpp run a
// regex over the collapsed text (unicode_regex_split's k_ucat_enum).
var ucats = []string{"\\p{N}", "\\p{L}", "\\p{P}", "\\p{M}", "\\p{S}", "\\p{Lu}", "\\p{Ll}", "\\p{Lt}", "\\p{Lm}", "\\p{Lo}"}

// newSplitStep returns the step for one regex of a list.
func newSplitStep(expr string) (splitStep, error) {
	if s, ok := customSteps()[expr]; ok {
		return s, nil
	}
	if s, ok := emulatedSteps()[expr]; ok {
		return s, nil
	}
	return newRegexStep(expr)
}

// regexStep runs a pattern through the regex engine as llama.cpp's
// std::regex fallback does: over the collapsed text, with each \p{..}
// replaced by its collapsed byte and ASCII members, when the pattern uses
// a unicode category; over the wide text otherwise.
type regexStep struct {
	prog      *reProg
	collapsed bool
}

func newRegexStep(expr string) (*regexStep, error) {
	collapsed := false
	for _, u := range ucats {
		if strings.Contains(expr, u) {
			collapsed = true
		}
	}
	pattern := expr
	if collapsed {
		var err error
		if pattern, err = collapseRegex(expr); err != nil {
			return nil, err
		}
	}
	prog, err := compileRegex(pattern)
	if err != nil {
		return nil, err
	}
	return &regexStep{prog: prog, collapsed: collapsed}, nil
}

// Collapsed code points of the unicode categories (k_ucat_cpt) and their
// ASCII members (k_ucat_map), as regex text.
var ucatCollapse = map[string]struct {
	cp    rune
	ascii string
}{
	"N": {0xD1, "0-9"},
	"L": {0xD2, "A-Za-z"},
	"P": {0xD3, "!-#%-*,-/:-;?-@\\[-\\]_\\{\\}"},
	"M": {0xD4, ""},
	"S": {0xD5, "\\$\\+<->\\^`\\|\\~"},
}

// collapseRegex rewrites expr the way unicode_regex_split does before it
// hands it to std::regex: \p{X} becomes [<byte>ascii] (inside brackets,
// without the brackets), where \p{Lu} and the other letter subcategories
// all mean any letter. The collapsed bytes are kept as code points 0xD0-0xD5.
func collapseRegex(expr string) (string, error) {
	for _, c := range expr {
		if c >= 128 {
			return "", fmt.Errorf("regex %q includes both unicode categories and non-ASCII characters", expr)
		}
	}
	var b strings.Builder
	inside := false
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		if c == '[' && (i == 0 || expr[i-1] != '\\') {
			b.WriteByte('[')
			inside = true
			continue
		}
		if inside && c == ']' && expr[i-1] != '\\' {
			b.WriteByte(']')
			inside = false
			continue
		}
		if c == '\\' && i+3 < len(expr) && expr[i+1] == 'p' && expr[i+2] == '{' {
			if j := strings.IndexByte(expr[i+3:], '}'); j >= 0 && i+3+j <= i+10 {
				name := expr[i+3 : i+3+j]
				if u, ok := ucatCollapse[name[:1]]; ok && (len(name) == 1 || name[0] == 'L' && len(name) == 2 && strings.ContainsRune("ultmo", rune(name[1]))) {
					if !inside {
						b.WriteByte('[')
					}
					b.WriteRune(u.cp)
					b.WriteString(u.ascii)
					if !inside {
						b.WriteByte(']')
					}
					i += 3 + j
					continue
				}
			}
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// collapsedChar is llama.cpp's collapsed form of a code point: itself
// below 128, \v for whitespace, else one byte per category.
func collapsedChar(c rune, f uint16) int32 {
	switch {
	case c < 128:
		return c
	case f&fWhitespace != 0:
		return 0x0B
	case f&fNumber != 0:
		return 0xD1
	case f&fLetter != 0:
		return 0xD2
	case f&fPunct != 0:
		return 0xD3
	case f&fMark != 0:
		return 0xD4
	case f&fSymbol != 0:
		return 0xD5
	}
	return 0xD0
}

func (r *regexStep) split(s *splitState, start, end int) {
	var subj []int32
	if r.collapsed {
		if !s.haveColl {
			s.collapsed = s.collapsed[:0]
			for i, c := range s.cps {
				s.collapsed = append(s.collapsed, collapsedChar(c, s.fl[i]))
			}
			s.haveColl = true
		}
		subj = s.collapsed
	} else {
		if !s.haveWide {
			s.wide = s.wide[:0]
			for i, c := range s.cps {
				if c > 0x7F && s.fl[i]&fWhitespace != 0 {
					c = 0x0B
				}
				s.wide = append(s.wide, c)
			}
			s.haveWide = true
		}
		subj = s.wide
	}
	s.re.split(r.prog, subj, start, end, s.emit)
}

// run splits s.cps and returns the fragment end positions (code point
// indices). tmp is a reusable buffer.
func (p *preTokenizer) run(s *splitState, tmp *[]int32) []int32 {
	n := len(s.cps)
	s.ends = s.ends[:0]
	s.haveColl, s.haveWide = false, false
	if n == 0 {
		return s.ends
	}
	s.ends = append(s.ends, int32(n))
	for _, step := range p.steps {
		in := s.ends
		s.ends = (*tmp)[:0]
		start := 0
		for _, e := range in {
			step.split(s, start, int(e))
			start = int(e)
		}
		*tmp = in
	}
	return s.ends
}
