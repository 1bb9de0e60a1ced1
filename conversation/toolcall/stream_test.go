package toolcall

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/tokenizer"
)

// checkPending asserts that a pending call is the start of the final call
// at its index: the same name, arguments a prefix of the final ones.
func checkPending(t *testing.T, name string, p Partial, final Parsed) {
	t.Helper()
	if p.Pending == nil || p.Pending.Name == "" {
		return
	}
	i := len(p.Calls)
	require.Less(t, i, len(final.Calls), "%s: a pending call the final parse does not have", name)
	require.Equal(t, final.Calls[i].Name, p.Pending.Name, name)
	require.True(t, strings.HasPrefix(string(final.Calls[i].Arguments), string(p.Pending.Arguments)),
		"%s: pending arguments %s are not a prefix of %s", name, p.Pending.Arguments, final.Calls[i].Arguments)
}

// Every template's replies, decoded token by token with real tokenizers
// as a model streams them: no partial parse shows text the final parse
// does not (so no marker text reaches the answer), partial calls are the
// final calls, and the streamed arguments are prefixes of the final ones.
func TestStreamTokenByTokenAllTemplates(t *testing.T) {
	toks := map[string]*tokenizer.Tokenizer{
		"qwen2":  loadTokenizer(t, "ggml-vocab-qwen2.gguf"),
		"llama3": loadTokenizer(t, "ggml-vocab-llama-bpe.gguf"),
		"gemma4": loadTokenizer(t, "ggml-vocab-gemma-4.gguf"),
	}
	checked := 0
	for _, tt := range loadTemplates(t) {
		d := Detect(context.Background(), tt.template, tt.base())
		if !d.RendersCalls || !d.Exact {
			continue
		}
		for _, calls := range richCalls() {
			part, err := renderCalls(tt, calls)
			part = d.AsGenerated(part)
			if err != nil {
				continue
			}
			final, err := d.Format.Parse(part)
			if err != nil || !SameCalls(final.Calls, calls) {
				continue // reported by TestRoundTripAllTemplates
			}
			for vocab, tok := range toks {
				ids := tok.Encode(part, tokenizer.EncodeOptions{ParseSpecial: true})
				if back, err := tok.DecodeSpecial(ids); err != nil || back != part {
					continue // this vocabulary cannot spell the family's markers (SPM reads ▁ as a space)
				}
				// The reply as the model streams it: control tokens (an
				// end-of-turn marker) decode to nothing.
				whole := tok.NewStreamDecoder()
				var streamed strings.Builder
				for _, id := range ids {
					piece, err := whole.Add(id)
					require.NoError(t, err)
					streamed.WriteString(piece)
				}
				streamed.WriteString(whole.Flush())
				final, err := d.Format.Parse(streamed.String())
				require.NoError(t, err, "%s (%s): %q", tt.Name, vocab, streamed.String())
				require.True(t, SameCalls(final.Calls, calls), "%s (%s): %q", tt.Name, vocab, streamed.String())
				dec := tok.NewStreamDecoder()
				var text strings.Builder
				var prev Partial
				for _, id := range ids {
					piece, err := dec.Add(id)
					require.NoError(t, err)
					text.WriteString(piece)
					p := d.Format.ParsePartial(text.String())
					name := tt.Name + " (" + d.Format.Name() + ", " + vocab + ")"
					require.True(t, strings.HasPrefix(final.Content, p.Content), "%s: streamed content %q is not a prefix of %q", name, p.Content, final.Content)
					require.True(t, strings.HasPrefix(final.Reasoning, p.Reasoning), "%s: streamed reasoning %q is not a prefix of %q", name, p.Reasoning, final.Reasoning)
					require.GreaterOrEqual(t, len(p.Calls), len(prev.Calls), name)
					require.LessOrEqual(t, len(p.Calls), len(final.Calls), name)
					require.True(t, SameCalls(p.Calls, final.Calls[:len(p.Calls)]), "%s: streamed calls %v", name, p.Calls)
					checkPending(t, name, p, final)
					prev = p
				}
			}
			checked++
		}
	}
	require.Positive(t, checked)
	t.Logf("%d replies streamed token by token, each through every real tokenizer that spells its markers", checked)
}
