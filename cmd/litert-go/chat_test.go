package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const chatTestdata = "../../../shared/testdata"

var chatModel struct {
	once sync.Once
	path string
	err  error
}

// chatTestModel writes (once per test binary) a tiny synthetic Qwen2.5
// with the real Qwen2 vocabulary and chat template; its random weights
// never end a reply, so tests cap --max-tokens.
func chatTestModel(t *testing.T) string {
	t.Helper()
	vocab := filepath.Join(chatTestdata, "vocab", "ggml-vocab-qwen2.gguf")
	tmpl := filepath.Join(chatTestdata, "templates", "Qwen-Qwen2.5-7B-Instruct.jinja")
	for _, p := range []string{vocab, tmpl} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("test data absent (%v); it lives in ../shared/testdata", err)
		}
	}
	chatModel.once.Do(func() {
		src, err := os.ReadFile(tmpl)
		if err != nil {
			chatModel.err = err
			return
		}
		dir, err := os.MkdirTemp("", "litert-chat-test")
		if err != nil {
			chatModel.err = err
			return
		}
		chatModel.path = filepath.Join(dir, "tiny-qwen2.5.gguf")
		chatModel.err = synth.WriteFile(chatModel.path, "tiny-qwen2.5-0.5b", synth.Options{Seed: 1, Type: ggml.F32, VocabFile: vocab, ChatTemplate: string(src)})
	})
	require.NoError(t, chatModel.err)
	return chatModel.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if chatModel.path != "" {
		os.RemoveAll(filepath.Dir(chatModel.path))
	}
	os.Exit(code)
}

// runChatPipe runs litert-go chat in-process with input on stdin.
func runChatPipe(t *testing.T, input string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), stdio{strings.NewReader(input), &out, &errb}, append([]string{"chat"}, args...))
	return out.String(), errb.String(), code
}

// newFileSchema narrows NewFile's arguments to one path and one content,
// so the random model's forced call is short and does a real edit.
const newFileSchema = `{"NewFile": {"type": "object", "properties": {
	"path": {"type": "string", "enum": ["notes/hello.txt"]},
	"content": {"type": "string", "enum": ["hello from the model\n"]}},
	"required": ["path", "content"], "additionalProperties": false}}`

func TestChatPipe(t *testing.T) {
	model := chatTestModel(t)
	dir := t.TempDir()
	session := filepath.Join(dir, "session.json")
	out, errOut, code := runChatPipe(t, "hello there\n\n/stats\nwhat next?\n",
		"-m", model, "--max-tokens", "6", "--seed", "3", "--system", "You are terse.", "--session", session)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "tokens/s")
	assert.Contains(t, errOut, "context ")

	// The session file holds the whole conversation and continues it.
	saved, err := os.ReadFile(session)
	require.NoError(t, err)
	s, err := conversation.ReadSnapshot(bytes.NewReader(saved))
	require.NoError(t, err)
	require.Len(t, s.Messages, 5)
	assert.Equal(t, "You are terse.", s.Messages[0].Text)
	assert.Equal(t, "what next?", s.Messages[3].Text)
	// The replies were printed, each ending its line, and nothing else.
	assert.Equal(t, strings.TrimSpace(s.Messages[2].Text)+"\n"+strings.TrimSpace(s.Messages[4].Text)+"\n", out)
	out, errOut, code = runChatPipe(t, "third\n", "-m", model, "--max-tokens", "4", "--system", "You are terse.", "--session", session, "--json")
	require.Equal(t, 0, code, errOut)
	var turn turnResult
	require.NoError(t, json.Unmarshal([]byte(out), &turn), out)
	assert.Greater(t, turn.Usage.PromptTokens, 40, "the prompt holds the loaded history")
	assert.Positive(t, turn.Usage.PrefillSeconds, "prefill and decode are timed apart")
	assert.Positive(t, turn.Usage.DecodeSeconds)
	assert.LessOrEqual(t, turn.Usage.PrefillSeconds+turn.Usage.DecodeSeconds, turn.Seconds)
	saved, err = os.ReadFile(session)
	require.NoError(t, err)
	s, err = conversation.ReadSnapshot(bytes.NewReader(saved))
	require.NoError(t, err)
	assert.Len(t, s.Messages, 7)
}

func TestChatJSONWithTools(t *testing.T) {
	model := chatTestModel(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "project")
	require.NoError(t, os.Mkdir(root, 0o755))
	schema := filepath.Join(dir, "schema.json")
	require.NoError(t, os.WriteFile(schema, []byte(newFileSchema), 0o644))
	out, errOut, code := runChatPipe(t, "write the notes file\n",
		"-m", model, "--json", "--tools", "NewFile", "--root", root, "--tool-schema", schema,
		"--tool-choice", "required", "--max-tool-turns", "1", "--parallel-tools=false", "--max-tokens", "128", "--seed", "1")
	require.Equal(t, 0, code, errOut)
	var turn turnResult
	require.NoError(t, json.Unmarshal([]byte(out), &turn), out)
	require.Len(t, turn.ToolCalls, 1, out)
	call := turn.ToolCalls[0]
	assert.Equal(t, "NewFile", call.Name)
	assert.JSONEq(t, `{"path": "notes/hello.txt", "content": "hello from the model\n"}`, string(call.Arguments))
	assert.Empty(t, call.Error)
	assert.Contains(t, string(call.Result), "notes/hello.txt")
	assert.True(t, turn.ToolLimitReached)
	assert.Greater(t, turn.Usage.CompletionTokens, 10)
	assert.Greater(t, turn.Usage.CachedTokens, 0, "the second round reuses the cache")
	got, err := os.ReadFile(filepath.Join(root, "notes", "hello.txt"))
	require.NoError(t, err)
	assert.Equal(t, "hello from the model\n", string(got))
	assert.Equal(t, 1, strings.Count(out, "\n"), "one JSON line per turn")
}

func TestChatJSONSchemaReply(t *testing.T) {
	model := chatTestModel(t)
	schema := filepath.Join(t.TempDir(), "answer.json")
	require.NoError(t, os.WriteFile(schema, []byte(`{"type":"object","properties":{"answer":{"enum":["yes","no"]}},"required":["answer"],"additionalProperties":false}`), 0o644))
	out, errOut, code := runChatPipe(t, "is it?\n", "-m", model, "--json-schema", schema, "--max-tokens", "64", "--seed", "2", "--temp", "0")
	require.Equal(t, 0, code, errOut)
	var v struct {
		Answer string `json:"answer"`
	}
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(out)), &v), "the reply matches the schema: %q", out)
	assert.Contains(t, []string{"yes", "no"}, v.Answer)
}

func TestChatCommandsAndErrors(t *testing.T) {
	model := chatTestModel(t)
	dir := t.TempDir()
	saved := filepath.Join(dir, "c.json")
	out, errOut, code := runChatPipe(t, "/help\nhi\n/save "+saved+"\n/reset\n/load "+saved+"\n/tools\n/nope\n/exit\nnever sent\n",
		"-m", model, "--max-tokens", "3", "--temp", "0")
	assert.Equal(t, 1, code, "an unknown command fails the run")
	assert.Contains(t, errOut, "/save FILE")
	assert.Contains(t, errOut, "[saved 2 messages to "+saved+"]")
	assert.Contains(t, errOut, "[conversation reset]")
	assert.Contains(t, errOut, "[loaded 2 messages")
	assert.Contains(t, errOut, "no tools")
	assert.Contains(t, errOut, "unknown command /nope")
	assert.Contains(t, errOut, "1 of the turns failed")
	only, _, code := runChatPipe(t, "hi\n", "-m", model, "--max-tokens", "3", "--temp", "0")
	require.Equal(t, 0, code)
	assert.Equal(t, only, out, "only the one message got a reply (greedy, so the same reply)")
	assert.NotContains(t, out, "unknown command", "command errors go to stderr")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-tokens", "3"}, "-m FILE is required"},
		{[]string{"-m", model, "--tools", "shell"}, `unknown tool "shell"`},
		{[]string{"-m", model, "--tool-choice", "required"}, "--tool-choice required needs --tools"},
		{[]string{"-m", model, "--tools", "fs", "--root", dir, "--tool-choice", "Nope"}, `--tool-choice "Nope"`},
		{[]string{"-m", model, "--tools", "command", "--root", dir}, "--allow"},
		{[]string{"-m", model, "--tools", "fs", "--root", filepath.Join(dir, "absent")}, "--root"},
		{[]string{"-m", model, "--compact", "shred"}, `unknown compaction mode "shred"`},
		{[]string{"-m", model, "--max-tool-turns", "0"}, "--max-tool-turns 0"},
		{[]string{"-m", model, "--json-schema", filepath.Join(dir, "absent.json")}, "--json-schema"},
		{[]string{"-m", filepath.Join(dir, "absent.gguf")}, "absent.gguf"},
	} {
		_, errOut, code := runChatPipe(t, "hi\n", tc.args...)
		assert.Equal(t, 1, code, tc.args)
		assert.Contains(t, errOut, tc.want, tc.args)
	}
	schema := filepath.Join(dir, "s.json")
	require.NoError(t, os.WriteFile(schema, []byte(`{"Nope": {}}`), 0o644))
	_, errOut, _ = runChatPipe(t, "hi\n", "-m", model, "--tools", "NewFile", "--root", dir, "--tool-schema", schema)
	assert.Contains(t, errOut, `"Nope" is not one of the tools (NewFile)`)
}

// A failed turn (here: the context is too small for the message) keeps the
// session file as it was, and the chat goes on.
func TestChatFailedTurnKeepsSession(t *testing.T) {
	model := chatTestModel(t)
	session := filepath.Join(t.TempDir(), "s.json")
	long := strings.Repeat("many words ", 400)
	out, errOut, code := runChatPipe(t, "short\n"+long+"\nshort again\n", "-m", model, "--ctx", "256", "--max-tokens", "3", "--session", session, "--compact", "off", "--json")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "1 of the turns failed")
	assert.Equal(t, 3, strings.Count(out, "\n"), "two replies and an error line: %s", out)
	assert.Contains(t, out, `{"error":`)
	b, err := os.ReadFile(session)
	require.NoError(t, err)
	s, err := conversation.ReadSnapshot(bytes.NewReader(b))
	require.NoError(t, err)
	require.Len(t, s.Messages, 4)
	assert.Equal(t, "short", s.Messages[0].Text)
	assert.Equal(t, "short again", s.Messages[2].Text)
}

func TestChatCompacts(t *testing.T) {
	model := chatTestModel(t)
	var in strings.Builder
	for range 6 {
		in.WriteString(strings.Repeat("word ", 40) + "\n")
	}
	out, errOut, code := runChatPipe(t, in.String(), "-m", model, "--ctx", "256", "--max-tokens", "3", "--compact", "drop", "--keep-turns", "1", "--json")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, 6, strings.Count(out, "\n"), "one JSON line per turn")
	assert.Contains(t, errOut, "[context: dropped")
}

// chat --chat-template replaces the model's template: a bare ChatML
// template without Qwen's default system prompt makes a shorter prompt.
func TestChatChatTemplate(t *testing.T) {
	model := chatTestModel(t)
	tmpl := filepath.Join(t.TempDir(), "chatml.jinja")
	require.NoError(t, os.WriteFile(tmpl, []byte(`{% for m in messages %}<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant
{% endif %}`), 0o644))
	prompt := func(args ...string) int {
		out, errOut, code := runChatPipe(t, "hi\n", append([]string{"-m", model, "--json", "--max-tokens", "2", "--seed", "1"}, args...)...)
		require.Equal(t, 0, code, errOut)
		var turn turnResult
		require.NoError(t, json.Unmarshal([]byte(out), &turn), out)
		return turn.Usage.PromptTokens
	}
	own := prompt()
	custom := prompt("--chat-template", tmpl)
	// "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n": 9 tokens.
	assert.Equal(t, 9, custom)
	assert.Greater(t, own, custom+10, "the model's own template adds its default system prompt")
}

// The trained demo model calls a file tool by itself (no grammar, tool
// choice auto); the conversation's loop runs it, and the pipe shows the
// call, then its result, then the answer, as they happen.
func TestChatPipeModelCallsTool(t *testing.T) {
	model := filepath.Join(chatTestdata, "models", "litert-demo-tools-q8_0.gguf")
	if _, err := os.Stat(model); err != nil {
		t.Skipf("test data absent (%v)", err)
	}
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "src", "main.go"), []byte("package main\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes.txt"), []byte("hello\n"), 0o644))
	args := []string{"chat", "-m", model, "--tools", "fs-ro", "--root", root, "--temp", "0", "--max-tokens", "128"}

	var both bytes.Buffer // stdout and stderr interleaved as a terminal shows them
	code := run(context.Background(), stdio{strings.NewReader("What files are in the project?\n"), &both, &both}, args)
	out := both.String()
	require.Equal(t, 0, code, out)
	call := strings.Index(out, "→ ListFiles {}")
	result := strings.Index(out, "← ListFiles: notes.txt")
	require.GreaterOrEqual(t, call, 0, out)
	require.Greater(t, result, call, "the result after the call: %s", out)
	answer := strings.TrimSpace(out[strings.Index(out[result:], "\n")+result:])
	assert.NotEmpty(t, answer, "the model answered the result: %s", out)
	assert.Equal(t, 1, strings.Count(out, "→ "), "each call shown once: %s", out)

	jsonOut, errOut, code := runChatPipe(t, "What files are in the project?\n", append(args[1:], "--json")...)
	require.Equal(t, 0, code, errOut)
	var turn turnResult
	require.NoError(t, json.Unmarshal([]byte(jsonOut), &turn), jsonOut)
	require.Len(t, turn.ToolCalls, 1, jsonOut)
	assert.Equal(t, "ListFiles", turn.ToolCalls[0].Name)
	var listing string
	require.NoError(t, json.Unmarshal(turn.ToolCalls[0].Result, &listing))
	assert.Equal(t, "notes.txt\nsrc/\nsrc/main.go\n", listing)
	assert.NotEmpty(t, turn.Text)
	assert.Greater(t, turn.Usage.CachedTokens, 0, "the answer round reused the cache")
}

// recordingDisplay records what a turn shows, in order.
type recordingDisplay struct{ events []string }

func (d *recordingDisplay) text(s string)      { d.events = append(d.events, "text "+s) }
func (d *recordingDisplay) reasoning(s string) { d.events = append(d.events, "reasoning "+s) }
func (d *recordingDisplay) toolCall(c conversation.ToolCall) {
	d.events = append(d.events, "call "+c.Name+" "+string(c.Arguments))
}
func (d *recordingDisplay) toolResult(r toolRecord) {
	d.events = append(d.events, "result "+r.Name+" "+string(r.Result)+r.Error)
}
func (d *recordingDisplay) malformed(err error) {
	d.events = append(d.events, "malformed "+err.Error())
}
func (d *recordingDisplay) done(*turnResult) { d.events = append(d.events, "done") }

// Streamed deltas become whole calls, each shown once it is complete, and
// before the results; a new generation numbers its calls from 0 again.
func TestCallStream(t *testing.T) {
	d := &recordingDisplay{}
	s := &callStream{out: d}
	s.delta(conversation.ToolCallDelta{Index: 0, ID: "a", Name: "ReadFile", Arguments: `{"path": `})
	s.delta(conversation.ToolCallDelta{Index: 0, Arguments: `"x"}`})
	assert.Empty(t, d.events, "a call is shown once complete")
	s.delta(conversation.ToolCallDelta{Index: 1, ID: "b", Name: "ListFiles"})
	s.delta(conversation.ToolCallDelta{Index: 1, Arguments: `{}`})
	assert.Equal(t, []string{`call ReadFile {"path": "x"}`}, d.events, "the next call completes the first")
	// Results arrive as the tools finish, the second first.
	s.result(conversation.ToolRun{Call: conversation.ToolCall{ID: "b", Name: "ListFiles"}, Result: `"a.txt"`})
	s.result(conversation.ToolRun{Call: conversation.ToolCall{ID: "a", Name: "ReadFile"}, Err: errors.New("no such file")})
	s.delta(conversation.ToolCallDelta{Index: 0, ID: "c", Name: "ReadFile", Arguments: `{"path": "a.txt"}`})
	s.result(conversation.ToolRun{Call: conversation.ToolCall{ID: "c", Name: "ReadFile"}, Result: `"hi"`})
	assert.Equal(t, []string{
		`call ReadFile {"path": "x"}`,
		`call ListFiles {}`,
		`result ListFiles "a.txt"`,
		`result ReadFile no such file`,
		`call ReadFile {"path": "a.txt"}`,
		`result ReadFile "hi"`,
	}, d.events)
}
