package tokenizer

import "fmt"

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
}

func (s *splitState) emit(end int) { s.ends = append(s.ends, int32(end)) }

// preTokenizer is the list of split steps for one tokenizer.ggml.pre value.
type preTokenizer struct {
	name       string
	steps      []splitStep
	byteEncode bool // GPT-2 byte-to-unicode mapping of words
}

// preTypeOf maps tokenizer.ggml.pre to llama.cpp's pre-tokenizer type, with
// the vocabulary flags that type sets.
type preSettings struct {
	kind          string
	ignoreMerges  bool
	addBOS        bool
	noCleanSpaces bool
	escapeWS      bool
	addSep        bool
}

func preTypeOf(pre string) (preSettings, error) {
	switch pre {
	case "", "default":
		return preSettings{kind: "default"}, nil
	case "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano":
		return preSettings{kind: "llama3", ignoreMerges: true, addBOS: true}, nil
	case "dbrx", "smaug-bpe":
		return preSettings{kind: "llama3"}, nil
	case "glm4", "chatglm-bpe":
		return preSettings{kind: "chatglm4"}, nil
	case "deepseek-llm":
		return preSettings{kind: "deepseek-llm", noCleanSpaces: true}, nil
	case "deepseek-coder":
		return preSettings{kind: "deepseek-coder", noCleanSpaces: true}, nil
	case "falcon":
		return preSettings{kind: "falcon"}, nil
	case "mpt", "olmo", "jais":
		return preSettings{kind: "gpt2"}, nil
	case "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum", "modern-bert", "exaone4":
		return preSettings{kind: "gpt2"}, nil
	case "trillion", "granite-docling":
		return preSettings{kind: "gpt2", noCleanSpaces: true}, nil
	case "jina-v1-en", "jina-v2-code", "roberta-bpe":
		return preSettings{kind: "gpt2", addSep: true}, nil
	case "starcoder", "refact", "codeshell", "exaone", "minerva-7b", "mellum2":
		return preSettings{kind: "starcoder"}, nil
	case "command-r", "smollm":
		return preSettings{kind: "starcoder", noCleanSpaces: true}, nil
	case "qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2":
		return preSettings{kind: "qwen2", noCleanSpaces: true}, nil
	case "stablelm2", "megrez":
		return preSettings{kind: "qwen2"}, nil
	case "hunyuan", "solar-open":
		return preSettings{kind: "qwen2", noCleanSpaces: true}, nil
	case "qwen35":
		return preSettings{kind: "qwen35", noCleanSpaces: true}, nil
	case "gemma4", "granite-embed-multi-311m":
		return preSettings{kind: "gemma4", escapeWS: true}, nil
	}
	return preSettings{}, fmt.Errorf("unsupported pre-tokenizer type %q", pre)
}

// newPreTokenizer returns the split steps llama.cpp's llm_tokenizer_bpe uses
// for a pre-tokenizer kind.
func newPreTokenizer(kind string) *preTokenizer {
	p := &preTokenizer{name: kind, byteEncode: true}
	switch kind {
	case "llama3", "chatglm4":
		p.steps = []splitStep{llama3Split{maxDigits: 3}}
	case "qwen2":
		p.steps = []splitStep{llama3Split{maxDigits: 1}}
	case "qwen35":
		p.steps = []splitStep{llama3Split{maxDigits: 1, marks: true}}
	case "gpt2":
		p.steps = []splitStep{gpt2Split{}}
	case "starcoder":
		p.steps = []splitStep{classRun{body: reN, min: 1, max: 1}, gpt2Split{}}
	case "falcon":
		p.steps = []splitStep{classRun{body: reFalconPunct, min: 1}, gpt2Split{}, classRun{body: reASCIIDigit, min: 3, max: 3}}
	case "deepseek-llm":
		p.steps = []splitStep{
			classRun{body: reCRLF, min: 1, max: 1},
			classRun{prefix: reSpace, body: reDeepseekLetter, min: 1},
			classRun{prefix: reSpace, body: reDeepseekPunct, min: 1},
			trailingSpace{},
			classRun{body: reCJK, min: 1},
			classRun{body: reN, min: 1},
		}
	case "deepseek-coder":
		p.steps = []splitStep{
			classRun{body: reCRLF, min: 1, max: 1},
			classRun{prefix: reSpace, body: reL, min: 1},
			classRun{prefix: reSpace, body: reP, min: 1},
			classRun{body: reCJK, min: 1},
			classRun{body: reN, min: 1, max: 1},
		}
	case "gemma4":
		p.steps = []splitStep{lineRuns{}}
		p.byteEncode = false
	default: // "default"
		p.steps = []splitStep{classRun{body: reDefaultPunct, min: 1}, gpt2Split{}, classRun{body: reN, min: 1}, classRun{body: reASCIIDigit, min: 3, max: 3}}
	}
	return p
}

// run splits s.cps and returns the fragment end positions (code point
// indices). tmp is a reusable buffer.
func (p *preTokenizer) run(s *splitState, tmp *[]int32) []int32 {
	n := len(s.cps)
	s.ends = s.ends[:0]
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
