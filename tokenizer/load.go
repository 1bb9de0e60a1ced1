package tokenizer

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/litert-go/litert-go/models/gguf"
)

// Metadata keys.
const (
	keyModel     = "tokenizer.ggml.model"
	keyPre       = "tokenizer.ggml.pre"
	keyTokens    = "tokenizer.ggml.tokens"
	keyScores    = "tokenizer.ggml.scores"
	keyTypes     = "tokenizer.ggml.token_type"
	keyMerges    = "tokenizer.ggml.merges"
	keyAddBOS    = "tokenizer.ggml.add_bos_token"
	keyAddEOS    = "tokenizer.ggml.add_eos_token"
	keyAddSep    = "tokenizer.ggml.add_sep_token"
	keyAddPrefix = "tokenizer.ggml.add_space_prefix"
	keyLowercase = "tokenizer.ggml.normalizer.lowercase"
	keyStripAcc  = "tokenizer.ggml.normalizer.strip_accents"
)

// FromGGUF builds the tokenizer described by f's tokenizer.* metadata,
// applying llama.cpp's per-model defaults where keys are absent.
func FromGGUF(f *gguf.File) (*Tokenizer, error) {
	t, err := load(f, "", "")
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	return t, nil
}

const null = int32(-1)

// load builds the tokenizer; model and pre, when not empty, stand in for
// tokenizer.ggml.model and tokenizer.ggml.pre (tests relabel a vocabulary
// this way without rewriting it).
func load(f *gguf.File, model, pre string) (*Tokenizer, error) {
	var err error
	if model == "" {
		if model, err = f.String(keyModel); err != nil {
			return nil, err
		}
	}
	if pre == "" && f.Has(keyPre) {
		if pre, err = f.String(keyPre); err != nil {
			return nil, err
		}
	}
	t := &Tokenizer{model: model, eot: null, eom: null}
	fim := [6]int32{null, null, null, null, null, null} // pre, suf, mid, pad, rep, sep
	mask := null
	var ps preSettings
	switch model {
	case "llama":
		t.kind = kindSPM
		t.bos, t.eos, t.unk, t.sep, t.pad, mask = 1, 2, 0, null, null, null
	case "bert":
		t.kind = kindWPM
		t.bos, t.eos, t.unk, t.sep, t.pad, mask = 101, null, 100, 102, 0, 103
		t.addSep = true
	case "gpt2", "gemma4", "whitespace", "hybriddna":
		t.kind = kindBPE
		if !f.Has(keyMerges) && !(model != "gemma4" && pre == "kimi-k2") {
			return nil, fmt.Errorf("cannot find tokenizer merges (%s) for model %q", keyMerges, model)
		}
		if model == "gemma4" {
			t.bos, t.eos = null, null
			pre = "gemma4"
		} else {
			t.bos, t.eos = 11, 11
		}
		t.unk, t.sep, t.pad, mask = null, null, null, null
	case "t5":
		t.kind = kindUGM
		t.bos, t.eos, t.unk, t.sep, t.pad, mask = null, 1, 2, null, 0, null
	case "rwkv":
		t.kind = kindRWKV
		t.bos, t.eos, t.unk, t.sep, t.pad, mask = null, null, null, null, null, null
	case "plamo2":
		t.kind = kindPLaMo2
		t.bos, t.eos, t.unk, t.sep, t.pad, mask = 1, 2, 0, null, 3, null
	case "no_vocab", "none":
		return nil, fmt.Errorf("tokenizer model %q (%s) is not supported", model, keyModel)
	default:
		return nil, fmt.Errorf("unknown tokenizer model %q (%s)", model, keyModel)
	}
	_ = mask

	switch t.kind {
	case kindBPE:
		t.cleanSpaces = true
		if ps, err = preTypeOf(pre); err != nil {
			return nil, fmt.Errorf("%w (%s)", err, keyPre)
		}
		t.ignoreMerges = ps.ignoreMerges
		t.addBOS = ps.addBOS
		t.cleanSpaces = !ps.noCleanSpaces
		t.escapeWS = ps.escapeWS
		t.addSep = t.addSep || ps.addSep
		if ps.noBOS {
			t.bos = null
		}
		t.pre = ps.kind
		t.whitespaceModel = model == "whitespace"
	case kindSPM:
		t.addSpacePrefix, t.addBOS = true, true
		t.pre = "default"
	case kindWPM:
		t.cleanSpaces, t.addBOS, t.addSep = true, true, true
		t.pre = "default"
	case kindUGM:
		t.addEOS = true
		t.pre = "default"
	case kindRWKV, kindPLaMo2:
		t.pre = "default"
	}
	if f.Has(keyAddPrefix) {
		if t.addSpacePrefix, err = f.Bool(keyAddPrefix); err != nil {
			return nil, err
		}
	}

	tokens, err := f.Strings(keyTokens)
	if err != nil {
		return nil, err
	}
	n := len(tokens)
	if n == 0 {
		return nil, fmt.Errorf("%s is empty", keyTokens)
	}
	if n > maxSlotIDs {
		return nil, fmt.Errorf("%s has %d tokens, too many", keyTokens, n)
	}
	t.n = n
	t.scores = make([]float32, n)
	if f.Has(keyScores) {
		if sc, err := f.Float32s(keyScores); err == nil {
			if len(sc) < n {
				return nil, fmt.Errorf("%s has %d entries for %d tokens", keyScores, len(sc), n)
			}
			copy(t.scores, sc)
		} else if isc, err2 := f.Ints(keyScores); err2 == nil {
			if len(isc) < n {
				return nil, fmt.Errorf("%s has %d entries for %d tokens", keyScores, len(isc), n)
			}
			for i := range t.scores {
				t.scores[i] = float32(isc[i])
			}
		} else {
			return nil, err
		}
	}
	t.attrs = make([]uint16, n)
	if f.Has(keyTypes) {
		types, err := f.Ints(keyTypes)
		if err != nil {
			return nil, err
		}
		if len(types) < n {
			return nil, fmt.Errorf("%s has %d entries for %d tokens", keyTypes, len(types), n)
		}
		for i := range t.attrs {
			t.attrs[i] = attrOfType(types[i])
		}
	} else {
		for i := range t.attrs {
			t.attrs[i] = attrNormal
		}
	}
	// llama.cpp renames empty tokens so that every text is distinct.
	texts := tokens
	for i, s := range tokens {
		if s == "" {
			if &texts[0] == &tokens[0] {
				texts = append([]string(nil), tokens...)
			}
			texts[i] = "[EMPTY_" + strconv.Itoa(i) + "]"
		}
	}
	idx, dup, ok := newStrIndex(texts)
	if !ok {
		return nil, fmt.Errorf("duplicate token in vocabulary: %q has ids %d and %d", texts[dup], idx0(texts, dup), dup)
	}
	t.vocab = idx
	for _, s := range texts {
		if len(s) > t.maxTokenLen {
			t.maxTokenLen = len(s)
		}
	}

	if err := t.loadSpecialIDs(f, &fim, &mask); err != nil {
		return nil, err
	}
	if err := t.loadFlags(f, ps); err != nil {
		return nil, err
	}
	t.detectSpecials(fim)
	t.buildEOG(fim)
	t.applyNameAttrs(f)
	t.specials = newSpecialMatcher(t)

	if model == "hybriddna" {
		t.initDNA() // before the pieces, whose k-mer texts it changes
	}
	// Pieces and the model-specific tables are independent: build them
	// concurrently.
	piecesDone := make(chan *strIndex, 1)
	go func() { piecesDone <- t.buildPieces() }()
	var initErr error
	switch t.kind {
	case kindBPE:
		initErr = t.initBPE(f)
	case kindSPM:
		t.initSPM()
	case kindUGM:
		initErr = t.initUGM(f)
	case kindRWKV:
		initErr = t.initRWKV()
	case kindPLaMo2:
		initErr = t.initPLaMo2()
	}
	t.pieces = <-piecesDone
	if initErr != nil {
		return nil, initErr
	}
	return t, nil
}

// idx0 finds the first index holding texts[i] (for error messages).
func idx0(texts []string, i int) int {
	for j := 0; j < i; j++ {
		if texts[j] == texts[i] {
			return j
		}
	}
	return i
}

// loadSpecialIDs reads the *_token_id keys. A defaulted id out of range is
// disabled, as in llama.cpp; an id the metadata gives out of range is an
// error naming the key and the vocabulary size (llama.cpp warns and keeps
// the default, which for gpt2 silently makes it token 11). The value
// 0xFFFFFFFF (-1), which converters write for "no such token", keeps the
// default as in llama.cpp.
func (t *Tokenizer) loadSpecialIDs(f *gguf.File, fim *[6]int32, mask *int32) error {
	type kv struct {
		key string
		id  *int32
	}
	list := []kv{
		{"tokenizer.ggml.bos_token_id", &t.bos},
		{"tokenizer.ggml.eos_token_id", &t.eos},
		{"tokenizer.ggml.eot_token_id", &t.eot},
		{"tokenizer.ggml.eom_token_id", &t.eom},
		{"tokenizer.ggml.unknown_token_id", &t.unk},
		{"tokenizer.ggml.seperator_token_id", &t.sep},
		{"tokenizer.ggml.padding_token_id", &t.pad},
		{"tokenizer.ggml.mask_token_id", mask},
		{"tokenizer.ggml.fim_pre_token_id", &fim[0]},
		{"tokenizer.ggml.fim_suf_token_id", &fim[1]},
		{"tokenizer.ggml.fim_mid_token_id", &fim[2]},
		{"tokenizer.ggml.fim_pad_token_id", &fim[3]},
		{"tokenizer.ggml.fim_rep_token_id", &fim[4]},
		{"tokenizer.ggml.fim_sep_token_id", &fim[5]},
		{"tokenizer.ggml.prefix_token_id", &fim[0]},
		{"tokenizer.ggml.suffix_token_id", &fim[1]},
		{"tokenizer.ggml.middle_token_id", &fim[2]},
	}
	for _, e := range list {
		if *e.id >= 0 && int(*e.id) >= t.n {
			*e.id = null
		}
		if !f.Has(e.key) {
			continue
		}
		v, err := f.Int(e.key)
		if err != nil {
			return err
		}
		if v == -1 || v == 1<<32-1 {
			continue // converters write -1 (as uint32) for "none": keep the default, as llama.cpp does
		}
		if v < 0 || v >= int64(t.n) {
			return fmt.Errorf("%s = %d is out of range for a vocabulary of %d tokens", e.key, v, t.n)
		}
		*e.id = int32(v)
	}
	return nil
}

// loadFlags reads add_bos/add_eos/add_sep and the BERT normalizer options.
func (t *Tokenizer) loadFlags(f *gguf.File, ps preSettings) error {
	for _, e := range []struct {
		key string
		v   *bool
	}{{keyAddBOS, &t.addBOS}, {keyAddEOS, &t.addEOS}, {keyAddSep, &t.addSep}} {
		if f.Has(e.key) {
			b, err := f.Bool(e.key)
			if err != nil {
				return err
			}
			*e.v = b
		}
	}
	if t.pre == "gemma4" {
		t.addBOS = true
	}
	if t.kind == kindPLaMo2 {
		// llama.cpp's PLaMo-2 tokenizer adds no BOS/EOS whatever the
		// metadata says; AddBOS and AddEOS report what Encode does.
		t.addBOS, t.addEOS = false, false
	}
	if t.addBOS && t.bos == null {
		return fmt.Errorf("%s is true, but tokenizer.ggml.bos_token_id is not set", keyAddBOS)
	}
	if t.addEOS && t.eos == null {
		return fmt.Errorf("%s is true, but tokenizer.ggml.eos_token_id is not set", keyAddEOS)
	}
	// add_sep is not used by llama.cpp's tokenizer (only by reranking
	// front ends), but WordPiece always ends with SEP and starts with CLS.
	if t.kind == kindWPM && (t.sep == null || t.bos == null) {
		return fmt.Errorf("a WordPiece vocabulary needs tokenizer.ggml.bos_token_id and tokenizer.ggml.seperator_token_id (CLS and SEP)")
	}
	t.lowercase = !ps.noLowercase
	if f.Has(keyLowercase) {
		b, err := f.Bool(keyLowercase)
		if err != nil {
			return err
		}
		t.lowercase = b
	}
	t.stripAccents = t.lowercase
	if f.Has(keyStripAcc) {
		b, err := f.Bool(keyStripAcc)
		if err != nil {
			return err
		}
		t.stripAccents = b
	}
	return nil
}

var (
	eotTexts    = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>"}
	eomTexts    = []string{"<|eom_id|>"}
	fimPreTexts = []string{"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>", "▁<PRE>", "<|code_prefix|>", "<|prefix|>"}
	fimSufTexts = []string{"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>", "▁<SUF>", "<|code_suffix|>", "<|suffix|>"}
	fimMidTexts = []string{"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>", "▁<MID>", "<|code_middle|>", "<|middle|>"}
	fimPadTexts = []string{"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"}
	fimRepTexts = []string{"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"}
	fimSepTexts = []string{"<|file_sep|>"}
	eogTexts    = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>", "<｜end▁of▁sentence｜>", "[e~["}
)

// findLast returns the highest id whose text is one of texts, or -1.
// llama.cpp takes the first match in its hash map's iteration order, which
// for libstdc++ visits later insertions first.
func (t *Tokenizer) findLast(texts []string) int32 {
	best := null
	for _, s := range texts {
		if id := t.Find(s); id > best {
			best = id
		}
	}
	return best
}

// detectSpecials finds EOT/EOM/FIM tokens by text when the metadata does not
// name them, marks them as control tokens, and marks control tokens whose
// text contains "unused" as unused.
func (t *Tokenizer) detectSpecials(fim [6]int32) {
	set := func(id *int32, texts []string) {
		if *id != null {
			return
		}
		if found := t.findLast(texts); found != null {
			*id = found
			t.attrs[found] |= attrControl
		}
	}
	set(&t.eot, eotTexts)
	set(&t.eom, eomTexts)
	lists := [6][]string{fimPreTexts, fimSufTexts, fimMidTexts, fimPadTexts, fimRepTexts, fimSepTexts}
	for i := range fim {
		set(&fim[i], lists[i])
	}
	for i, a := range t.attrs {
		if a&attrControl != 0 && a&attrUnused == 0 && strings.Contains(t.vocab.text(int32(i)), "unused") {
			t.attrs[i] |= attrUnused
		}
	}
}

// buildEOG builds the end-of-generation set as llama.cpp does.
func (t *Tokenizer) buildEOG(fim [6]int32) {
	set := map[int32]struct{}{}
	for _, id := range []int32{fim[3], fim[4], fim[5]} {
		if id != null {
			set[id] = struct{}{}
		}
	}
	for _, s := range eogTexts {
		if id := t.Find(s); id != null {
			set[id] = struct{}{}
			t.attrs[id] |= attrControl
		}
	}
	for _, s := range []string{"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"} {
		if id := t.Find(s); id != null {
			t.attrs[id] = attrUserDefined
		}
	}
	for _, id := range []int32{t.eos, t.eot, t.eom} {
		if id != null {
			set[id] = struct{}{}
		}
	}
	has := func(s string) (int32, bool) {
		id := t.Find(s)
		if id == null {
			return null, false
		}
		_, ok := set[id]
		return id, ok
	}
	_, hasReturn := has("<|return|>")
	_, hasCall := has("<|call|>")
	if _, ok := has("<|calls|>"); ok {
		hasCall = true
	}
	_, hasFlush := has("<|flush|>")
	if endID, hasEnd := has("<|end|>"); hasEnd && ((hasReturn && hasCall) || (hasCall && hasFlush)) {
		delete(set, endID)
		t.attrs[endID] = attrUserDefined
	}
	if _, ok := has("<|tool_response>"); ok {
		if sID, ok := has("</s>"); ok {
			delete(set, sID)
			t.attrs[sID] = attrNormal
		}
	}
	t.eogSet = set
	t.eog = make([]int32, 0, len(set))
	for id := range set {
		t.eog = append(t.eog, id)
	}
	sort.Slice(t.eog, func(i, j int) bool { return t.eog[i] < t.eog[j] })
}

// applyNameAttrs sets the lstrip/rstrip attributes llama.cpp assigns by
// model name.
func (t *Tokenizer) applyNameAttrs(f *gguf.File) {
	name, _ := f.String("general.name")
	name = strings.ToLower(name)
	pre, _ := f.String(keyPre)
	arch, _ := f.String("general.architecture")
	containsAny := func(s string, subs ...string) bool {
		for _, x := range subs {
			if strings.Contains(s, x) {
				return true
			}
		}
		return false
	}
	setAttr := func(s string, a uint16, on bool) {
		id := t.Find(s)
		if id == null {
			return
		}
		if on {
			t.attrs[id] |= a
		} else {
			t.attrs[id] &^= a
		}
	}
	switch {
	case containsAny(pre, "jina-v2-de", "jina-v2-es", "jina-v2-code") || containsAny(arch, "nomic-bert-moe", "jina-bert-v3"):
		setAttr("<mask>", attrLstrip, true)
	case containsAny(name, "phi-3", "phi3"):
		for i, a := range t.attrs {
			if a&(attrControl|attrUserDefined|attrUnknown) != 0 {
				t.attrs[i] |= attrRstrip
			}
		}
		setAttr("</s>", attrRstrip, true)
		for _, s := range []string{"<unk>", "<s>", "<|endoftext|>"} {
			setAttr(s, attrRstrip, false)
		}
	case containsAny(name, "modern-bert"):
		setAttr("[MASK]", attrLstrip, true)
	}
}
