package conversation

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/litert-go/litert-go/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// longHistory is a system prompt and n user turns; turn 1 calls a tool.
func longHistory(n int) []Message {
	h := []Message{SystemText("You are a helpful assistant.")}
	for i := range n {
		h = append(h, UserText(fmt.Sprintf("question %d: %s", i, strings.Repeat("words and more words ", 10))))
		if i == 1 {
			call := ToolCall{ID: "c1", Name: "ReadFile", Arguments: json.RawMessage(`{"path":"a.txt"}`)}
			h = append(h, Message{Role: RoleAssistant, ToolCalls: []ToolCall{call}}, ToolResult(call, `"file text"`))
		}
		h = append(h, Message{Role: RoleAssistant, Text: fmt.Sprintf("answer %d: %s", i, strings.Repeat("more text here ", 10))})
	}
	return h
}

func TestCompactDrop(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja", true)
	ctx := context.Background()
	c, err := New(ctx, eng, Config{MaxTokens: 2})
	require.NoError(t, err)
	hist := longHistory(6)
	require.NoError(t, c.Restore(hist))
	n, err := c.HistoryTokens()
	require.NoError(t, err)
	ctxLen := c.Stats().ContextLength

	// Below the threshold nothing happens.
	res, err := c.Compact(ctx, CompactPolicy{Mode: CompactDrop})
	require.NoError(t, err)
	assert.False(t, res.Compacted)
	assert.Equal(t, n, res.TokensBefore)
	assert.Equal(t, hist, c.History())

	// Over it, the middle turns go; the system prompt and the last two
	// turns stay.
	threshold := float64(n-10) / float64(ctxLen)
	res, err = c.Compact(ctx, CompactPolicy{Mode: CompactDrop, Threshold: threshold})
	require.NoError(t, err)
	require.True(t, res.Compacted)
	got := c.History()
	assert.Equal(t, hist[0], got[0])
	assert.Equal(t, hist[len(hist)-4:], got[1:], "the last two turns are kept verbatim")
	assert.Equal(t, len(hist)-5, res.Removed)
	assert.Less(t, res.TokensAfter, res.TokensBefore)
	assert.LessOrEqual(t, res.TokensAfter, res.Limit)
	after, err := c.HistoryTokens()
	require.NoError(t, err)
	assert.Equal(t, res.TokensAfter, after)

	// The conversation goes on, its cache matching the new history.
	_, err = c.SendMessage(ctx, UserText("next"))
	require.NoError(t, err)
	checkKV(t, c)
}

func TestCompactKeepsFewerTurnsAndNeverSplitsToolCalls(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja", true)
	ctx := context.Background()
	c, err := New(ctx, eng, Config{MaxTokens: 2})
	require.NoError(t, err)
	hist := longHistory(4)
	require.NoError(t, c.Restore(hist))
	// A limit so low that only the last turn fits (or not even that): keep 1.
	res, err := c.Compact(ctx, CompactPolicy{Mode: CompactDrop, KeepTurns: 3, Threshold: 0.001})
	require.NoError(t, err)
	require.True(t, res.Compacted)
	got := c.History()
	assert.Equal(t, []Message{hist[0], hist[len(hist)-2], hist[len(hist)-1]}, got)

	// With only one turn left there is nothing more to remove.
	_, err = c.Compact(ctx, CompactPolicy{Mode: CompactDrop, Threshold: 0.001})
	require.ErrorIs(t, err, ErrCannotCompact)
	assert.Equal(t, got, c.History())

	// Keeping turns 2 and 3 of longHistory(4) cuts before a user message,
	// never between the tool call of turn 1 and its result.
	require.NoError(t, c.Restore(hist))
	_, err = c.Compact(ctx, CompactPolicy{Mode: CompactDrop, KeepTurns: 3, Force: true})
	require.NoError(t, err)
	got = c.History()
	assert.Equal(t, RoleUser, got[1].Role)
	assert.Equal(t, hist[3:], got[1:], "turn 1 with its tool call and result is kept whole")
}

func TestCompactSummarize(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja", true)
	ctx := context.Background()
	c, err := New(ctx, eng, Config{MaxTokens: 2, Sampler: session.Sampler{Temperature: 1, Seed: 11}})
	require.NoError(t, err)
	hist := longHistory(5)
	require.NoError(t, c.Restore(hist))
	_, err = c.SendMessage(ctx, UserText("fill the cache"))
	require.NoError(t, err)
	hist = c.History()

	res, err := c.Compact(ctx, CompactPolicy{Force: true, SummaryMaxTokens: 6})
	require.NoError(t, err)
	require.True(t, res.Compacted)
	require.NotEmpty(t, res.Summary)
	got := c.History()
	assert.Equal(t, RoleSystem, got[0].Role)
	assert.Equal(t, "You are a helpful assistant.\n\nSummary of the earlier conversation:\n"+res.Summary, got[0].Text)
	assert.Equal(t, hist[len(hist)-4:], got[1:])
	_, err = c.SendMessage(ctx, UserText("go on"))
	require.NoError(t, err)
	checkKV(t, c)

	// Without a system prompt the summary becomes a user/assistant pair.
	d, err := New(ctx, eng, Config{MaxTokens: 2, Sampler: session.Sampler{Temperature: 1, Seed: 11}})
	require.NoError(t, err)
	require.NoError(t, d.Restore(hist[1:]))
	res, err = d.Compact(ctx, CompactPolicy{Force: true, KeepTurns: 1, SummaryMaxTokens: 4})
	require.NoError(t, err)
	got = d.History()
	require.Len(t, got, 4)
	assert.Equal(t, UserText("Summary of the earlier conversation:\n"+res.Summary), got[0])
	assert.Equal(t, RoleAssistant, got[1].Role)
	assert.Equal(t, hist[len(hist)-2:], got[2:])

	// A cancelled summary leaves the history alone.
	require.NoError(t, d.Restore(hist))
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = d.Compact(cancelled, CompactPolicy{Force: true})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, hist, d.History())
}

func TestParseCompactMode(t *testing.T) {
	for _, m := range []CompactMode{CompactSummarize, CompactDrop} {
		got, err := ParseCompactMode(m.String())
		require.NoError(t, err)
		assert.Equal(t, m, got)
	}
	_, err := ParseCompactMode("shred")
	assert.ErrorContains(t, err, `unknown compaction mode "shred"`)
}
