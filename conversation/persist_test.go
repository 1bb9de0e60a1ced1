package conversation

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/litert-go/litert-go/session"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	ctx := context.Background()
	decl := ToolDecl{Name: "get_weather", Description: "Gets the weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)}
	c, err := New(ctx, eng, Config{
		Preface:   Preface{Messages: []Message{SystemText("You are terse.")}, Tools: []ToolDecl{decl}, Extra: map[string]any{"enable_thinking": false}},
		Sampler:   session.Sampler{Temperature: 0.7, TopK: 20, Seed: 5},
		MaxTokens: 3,
	})
	require.NoError(t, err)
	for _, q := range []string{"Hello!", "Weather in Rome — 天気?"} {
		_, err := c.SendMessage(ctx, UserText(q))
		require.NoError(t, err)
	}
	path := filepath.Join(t.TempDir(), "chat.json")
	require.NoError(t, c.SaveFile(path))
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"type":"function"`, "tools are saved in the OpenAI shape")
	assert.Contains(t, string(raw), `"seed":5`)

	d, err := LoadFile(ctx, eng, path)
	require.NoError(t, err)
	assert.Equal(t, c.History(), d.History())
	assert.Equal(t, c.Snapshot(), d.Snapshot())
	assert.Equal(t, c.cfg.Sampler, d.cfg.Sampler)
	assert.Equal(t, c.cfg.Preface.Tools[0].Name, d.cfg.Preface.Tools[0].Name)
	assert.JSONEq(t, string(decl.Parameters), string(d.cfg.Preface.Tools[0].Parameters))

	// The loaded conversation continues as the original does: the original
	// prefills a delta, the loaded one the whole history, and the seeded
	// sampler draws the same reply from the same logits.
	r1, err := c.SendMessage(ctx, UserText("and tomorrow?"))
	require.NoError(t, err)
	r2, err := d.SendMessage(ctx, UserText("and tomorrow?"))
	require.NoError(t, err)
	assert.Equal(t, r1.Message, r2.Message)
	assert.Equal(t, r1.Usage.PromptTokens, r2.Usage.PromptTokens)
	assert.Zero(t, r2.Usage.CachedTokens, "a loaded conversation starts with an empty cache")
	checkKV(t, d)

	// Reset goes back to the saved preface.
	d.Reset()
	assert.Equal(t, []Message{SystemText("You are terse.")}, d.History())
}

// A failed turn never loses the history: save, fail, save again, load.
func TestSaveFailLoad(t *testing.T) {
	eng := testEngine(t, "")
	ctx := context.Background()
	c, err := New(ctx, eng, Config{MaxTokens: 2})
	require.NoError(t, err)
	_, err = c.SendMessage(ctx, UserText("remember the number 42"))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "chat.json")
	require.NoError(t, c.SaveFile(path))
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = c.SendMessage(cancelled, UserText("this turn fails"))
	require.ErrorIs(t, err, context.Canceled)
	// A stream broken off midway fails too.
	for range c.SendMessageStream(ctx, UserText("this one is interrupted")) {
		break
	}
	require.NoError(t, c.SaveFile(path))
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "the failed turns left no trace")

	d, err := LoadFile(ctx, eng, path)
	require.NoError(t, err)
	require.Len(t, d.History(), 2)
	assert.Equal(t, "remember the number 42", d.History()[0].Text)
	_, err = d.SendMessage(ctx, UserText("what was it?"))
	require.NoError(t, err)
	assert.Len(t, d.History(), 4)
}

func TestReadSnapshotErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"version":2,"messages":[]}`, "version 2, want 1"},
		{`{"version":1,"messages":[{"role":"robot","content":"x"}]}`, `message 0: unknown role "robot"`},
		{`{"version":1,"messages":[{"content":"x"}]}`, "missing role"},
		{`{"version":1,"messages":[],"colour":"red"}`, `unknown field "colour"`},
		{`{"version":1,"messages":[],"preface":{"tools":[{"type":"function","function":{"description":"x"}}]}}`, "tool declaration: missing name"},
		{`{"version":1,`, "unexpected EOF"},
	} {
		_, err := ReadSnapshot(strings.NewReader(tc.in))
		assert.ErrorContains(t, err, tc.want, tc.in)
	}
	_, err := LoadFile(context.Background(), nil, filepath.Join(t.TempDir(), "absent.json"))
	assert.ErrorContains(t, err, "absent.json")
}

func TestToolDeclJSON(t *testing.T) {
	d := ToolDecl{Name: "f", Description: "does f", Parameters: json.RawMessage(`{"type":"object"}`)}
	b, err := json.Marshal(d)
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"function","function":{"name":"f","description":"does f","parameters":{"type":"object"}}}`, string(b))
	var back ToolDecl
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, d, back)
	require.NoError(t, json.Unmarshal([]byte(`{"name":"g"}`), &back))
	assert.Equal(t, ToolDecl{Name: "g"}, back)
	_, err = json.Marshal(ToolDecl{Name: "bad", Parameters: json.RawMessage(`{`)})
	assert.ErrorContains(t, err, `tool "bad": parameters are not valid JSON`)
}

func TestRestoreChecks(t *testing.T) {
	eng := testEngine(t, "")
	c, err := New(context.Background(), eng, Config{MaxTokens: 2})
	require.NoError(t, err)
	assert.ErrorContains(t, c.Restore([]Message{{Role: "robot"}}), `message 0: unknown role "robot"`)
	assert.ErrorContains(t, c.Restore([]Message{{Role: RoleAssistant, ToolCalls: []ToolCall{{Name: "f", Arguments: json.RawMessage(`{`)}}}}), `tool call "f"`)
	hist := []Message{UserText("a"), {Role: RoleAssistant, Text: "b"}}
	require.NoError(t, c.Restore(hist))
	assert.Equal(t, hist, c.History())
	_, err = c.SendMessage(context.Background(), UserText("c"))
	require.NoError(t, err)
	checkKV(t, c)
}

func FuzzReadSnapshot(f *testing.F) {
	f.Add([]byte(`{"version":1,"messages":[{"role":"user","content":"hi"}],"preface":{"tools":[{"name":"f"}]}}`))
	f.Add([]byte(`{"version":1,"messages":[{"role":"assistant","content":null,"tool_calls":[{"type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSnapshot(bytes.NewReader(data))
		if err != nil {
			return
		}
		b, err := json.Marshal(s)
		if err != nil {
			return // e.g. parameters that are not JSON cannot come from a valid read
		}
		s2, err := ReadSnapshot(bytes.NewReader(b))
		require.NoError(t, err, "%s", b)
		assert.Equal(t, len(s.Messages), len(s2.Messages))
	})
}

// Saving keeps every byte of a history, tool calls included.
func TestSaveExact(t *testing.T) {
	eng := testEngine(t, "")
	c, err := New(context.Background(), eng, Config{MaxTokens: 2})
	require.NoError(t, err)
	hist := []Message{
		SystemText("sys"),
		UserText("edit it"),
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "EditFile", Arguments: json.RawMessage(`{"path": "a.txt",  "new_text": "x\ny"}`)}}},
		{Role: RoleTool, ToolCallID: "c1", Name: "EditFile", Text: `{"ok":true}`},
		{Role: RoleAssistant, Text: "done", ReasoningContent: "easy"},
		{Role: RoleUser, Parts: []Part{{Type: "text", Text: "look"}, {Type: "image", Blob: []byte{1, 2, 3}}}},
	}
	require.NoError(t, c.Restore(hist))
	var buf bytes.Buffer
	require.NoError(t, c.Save(&buf))
	assert.Equal(t, len(hist)+3, strings.Count(buf.String(), "\n"), "one message a line:\n%s", buf.String())
	d, err := Load(context.Background(), eng, &buf)
	require.NoError(t, err)
	assert.Equal(t, hist, d.History())
}
