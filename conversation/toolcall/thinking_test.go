package toolcall

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestThinkingSplit(t *testing.T) {
	f := WithThinking(Plain(), Thinking{Open: "<think>", Close: "</think>"})
	cases := []struct{ reply, reasoning, content string }{
		{"<think>\nstep 1\n</think>\n\nAnswer.", "step 1", "Answer."},
		{"  <think>x</think>y", "x", "y"},
		{"no thinking", "", "no thinking"},
		{"<think>cut off", "cut off", ""},
		{"not opened</think>answer", "", "not opened</think>answer"},
		{"a <think> inside</think> text", "", "a <think> inside</think> text"},
	}
	for _, c := range cases {
		p, err := f.Parse(c.reply)
		require.NoError(t, err)
		assert.Equal(t, c.reasoning, p.Reasoning, c.reply)
		assert.Equal(t, c.content, p.Content, c.reply)
	}
	opened := WithThinking(Plain(), Thinking{Open: "[THINK]", Close: "[/THINK]", Opened: true})
	p, err := opened.Parse("reasoning[/THINK]answer")
	require.NoError(t, err)
	assert.Equal(t, Parsed{Reasoning: "reasoning", Content: "answer"}, p)
}

// checkPartials asserts the streaming invariants of f on every byte prefix
// of reply: content and reasoning only grow and are prefixes of the final
// ones, and completed calls are a prefix of the final calls.
func checkPartials(t testing.TB, f Format, reply string) {
	t.Helper()
	final, err := f.Parse(reply)
	if err != nil {
		return
	}
	var prev Partial
	for i := 0; i <= len(reply); i++ {
		p := f.ParsePartial(reply[:i])
		if !strings.HasPrefix(final.Content, p.Content) || !strings.HasPrefix(final.Reasoning, p.Reasoning) {
			t.Fatalf("%s: prefix %q: partial content %q / reasoning %q is not a prefix of the final %q / %q", f.Name(), reply[:i], p.Content, p.Reasoning, final.Content, final.Reasoning)
		}
		if len(p.Content) < len(prev.Content) || len(p.Reasoning) < len(prev.Reasoning) || len(p.Calls) < len(prev.Calls) {
			t.Fatalf("%s: prefix %q: the partial parse shrank", f.Name(), reply[:i])
		}
		if len(p.Calls) > len(final.Calls) || !SameCalls(p.Calls, final.Calls[:len(p.Calls)]) {
			t.Fatalf("%s: prefix %q: partial calls %v are not a prefix of %v", f.Name(), reply[:i], p.Calls, final.Calls)
		}
		prev = p
	}
}

func TestThinkingPartials(t *testing.T) {
	f := WithThinking(Plain(), Thinking{Open: "<think>", Close: "</think>"})
	for _, r := range []string{"<think>\nstep 1\n</think>\n\nAnswer.", "plain <answer>", "<think>unfinished"} {
		checkPartials(t, f, r)
	}
}

// FuzzThinking: the reasoning wrapper never panics, and its partial parses
// keep the streaming invariants on every prefix.
func FuzzThinking(f *testing.F) {
	for _, s := range []string{"<think>a</think>b", "x</think>y", "<think>", "<thi", " <think>\n\n</think>\n\nhi"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, reply string, opened bool) {
		if len(reply) > 256 {
			return
		}
		checkPartials(t, WithThinking(Plain(), Thinking{Open: "<think>", Close: "</think>", Opened: opened}), reply)
	})
}
