// Package tokenizer turns text into token ids and back exactly as llama.cpp
// does, from the tokenizer metadata of a GGUF file.
//
// Supported tokenizer.ggml.model values (all of llama.cpp's except the
// weightless no_vocab/none):
//
//   - "llama": SentencePiece BPE by scores, with byte fallback (<0x0A>
//     tokens), a space prefix and ▁ for spaces.
//   - "gpt2": byte-level BPE by merge rank, with the pre-tokenizer chosen by
//     tokenizer.ggml.pre: every name llama.cpp accepts (PreTokenizers lists
//     them), mapped to llama.cpp's type and the flags it sets for that name
//     (ignore_merges, add_bos, clean_spaces, whitespace escaping, no BOS).
//   - "gemma4": BPE with merges over raw UTF-8 with ▁ for spaces and
//     <0xXX> byte fallback.
//   - "whitespace": BPE over the whitespace-separated words.
//   - "bert": WordPiece with BERT's normalizer (lowercasing, accent
//     stripping through NFD) and punctuation/CJK splitting.
//   - "t5": Unigram (T5, XLM-RoBERTa, nomic-embed-v2): SentencePiece's
//     precompiled charsmap normalization, then a Viterbi search by score.
//   - "rwkv": greedy longest match over the unescaped token bytes.
//   - "plamo2": PLaMo-2's Viterbi search over code points by integer
//     score, with <0xXX> byte tokens for what no token covers; no BOS/EOS.
//   - "hybriddna": byte-level BPE as "gpt2", except that text between
//     <dna> and </dna> becomes 6-mer tokens (texts with a U+E000 marker,
//     shown without it), <oov> for k-mers not in the vocabulary.
//
// A pre-tokenizer is a list of regexes, as llama.cpp lists them per type
// (pretok.go). Those llama.cpp splits with hand-written code, and a few
// simple ones this package has faster equivalents for, run as hand-written
// splitters keyed by the regex text; the others run on a small
// backtracking engine with std::regex's ECMAScript semantics over
// llama.cpp's "collapsed" or wide text. Adding a pre-tokenizer is a table
// entry. Code points are classified with llama.cpp's own Unicode tables.
//
// Special tokens (control, user-defined and unknown tokens) are matched in
// the input text the way llama.cpp's tokenizer_st_partition does:
// user-defined tokens always, control and unknown tokens only when
// EncodeOptions.ParseSpecial is set, so user text can never inject a control
// token unless the caller asks for it.
//
// Invalid UTF-8: SentencePiece works on raw bytes and round-trips invalid
// input through byte-fallback tokens, except that, as in llama.cpp, an
// invalid lead byte right before a space can swallow part of the ▁ the
// space becomes. The BPE and WordPiece tokenizers decode the
// input as llama.cpp does: every byte that does not start a structurally
// valid sequence becomes U+FFFD (so such bytes do not round-trip), while
// overlong forms and surrogates are kept as the code point they spell. A
// four-byte form beyond U+10FFFF, on which llama.cpp throws, is treated as
// an invalid byte. Nothing panics on any input.
//
// A Tokenizer is immutable after construction and safe for concurrent use.
package tokenizer
