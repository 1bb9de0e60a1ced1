// Package constrain compiles constraints (regular expressions, JSON Schemas,
// llama.cpp GBNF grammars, the Lark subset used by llguidance/LiteRT-LM, and
// tool-call formats) into byte-level automata and turns them into per-token
// masks applied at sampling time.
//
// Every constraint is lowered to one intermediate form: a set of rules whose
// bodies are regular expressions over bytes and calls to other rules. Rules
// that are not recursive are inlined, so regular constraints (regexes and
// non-recursive JSON Schemas) become a plain byte automaton; recursive rules
// use a pushdown stack. The matcher determinizes this automaton lazily: a
// state is an interned set of (automaton node, stack) pairs, and each state
// has a byte transition table filled on demand.
//
// Tokens are matched on their bytes, so a constraint works with any
// tokenizer, including tokens that span several grammar symbols or end in the
// middle of a UTF-8 sequence. A [Vocab] stores the token byte strings in two
// tries laid out in depth-first order: the tokens that are plain string text
// (JSON string content without escapes: llguidance's "slice") and all others.
// Computing a mask walks a trie against the automaton and skips whole
// subtrees as soon as a prefix is rejected. The string-text tokens are not
// walked when the state allows every such text of up to n characters and
// none longer (inside a JSON string, with or without maxLength, or free
// text): they come from a per-length bitset, found by following the states
// after 1, 2, … characters. Masks are cached per automaton state, per
// (Grammar, Vocab) pair, and shared by all matchers of that pair.
//
// Compiled automata are trimmed: every node can still reach the end of its
// rule and every rule is productive, so a matcher never enters a state from
// which acceptance is unreachable (assuming the vocabulary can spell every
// byte, which holds for byte-level BPE vocabularies; see [Vocab.CoversAllBytes]).
package constrain
