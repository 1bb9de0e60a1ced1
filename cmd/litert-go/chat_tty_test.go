package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/conversation"
)

// tmuxPane drives a program in a detached tmux session on a private server.
type tmuxPane struct {
	t    *testing.T
	sock string
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	require.NoError(p.t, err, "tmux %v: %s", args, out)
	return string(out)
}

func (p *tmuxPane) capture() string { return p.tmux("capture-pane", "-p", "-J", "-S", "-200") }

// waitFor polls the pane until ok accepts its text.
func (p *tmuxPane) waitFor(what string, timeout time.Duration, ok func(screen string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := p.capture()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s; the pane shows:\n%s", what, s)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (p *tmuxPane) waitText(text string, n int, timeout time.Duration) string {
	p.t.Helper()
	return p.waitFor(text, timeout, func(s string) bool { return strings.Count(s, text) >= n })
}

// listTree lists the files under dir with their contents, skipping skip.
func listTree(t *testing.T, dir string, skip ...string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if slices.Contains(skip, rel) {
			if info.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if info.Mode().IsRegular() {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			files[rel] = string(b)
		}
		return nil
	}))
	return files
}

// TestChatTerminal runs the built binary in a pseudo-terminal (tmux): the
// model, forced by the tool-call grammar, edits a file inside its root;
// Ctrl-C stops a reply without ending the chat.
func TestChatTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and generates a few hundred tokens")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is absent (apt-get install tmux)")
	}
	model := chatTestModel(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "litert-go")
	build := exec.Command("go", "build", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	root := filepath.Join(dir, "project")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "src", "main.go"), []byte("package main\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "outside.txt"), []byte("do not touch\n"), 0o644))
	schema := filepath.Join(dir, "schema.json")
	require.NoError(t, os.WriteFile(schema, []byte(newFileSchema), 0o644))
	outsideBefore := listTree(t, dir, "project", "tmux.sock")

	p := &tmuxPane{t: t, sock: filepath.Join(dir, "tmux.sock")}
	cmd := strings.Join([]string{bin, "chat", "-m", model, "--tools", "NewFile", "--root", root, "--tool-schema", schema,
		"--tool-choice", "required", "--max-tool-turns", "1", "--parallel-tools=false", "--max-tokens", "128", "--seed", "1"}, " ")
	p.tmux("new-session", "-d", "-x", "200", "-y", "60", "-c", dir, cmd+"; echo EXITED $?; sleep 60")
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", p.sock, "kill-server").Run() })

	p.waitText("/help for commands", 1, time.Minute)
	p.tmux("send-keys", "-l", "please write the notes file")
	p.tmux("send-keys", "Enter")
	screen := p.waitFor("the reply after the tool call", 3*time.Minute, func(s string) bool {
		i := strings.Index(s, "← NewFile")
		return i >= 0 && strings.Contains(s[i:], ">>> ")
	})
	// The schema pins both values; JSON Schema has no property order, so
	// the model may write them in either.
	assert.Regexp(t, `→ NewFile (\{"path": "notes/hello.txt", "content": "hello from the model\\n"\}|\{"content": "hello from the model\\n", "path": "notes/hello.txt"\})`, screen)
	assert.Contains(t, screen, "← NewFile: wrote notes/hello.txt")
	assert.Regexp(t, `\[prompt \d+ tok \(cached \d+\) · prefill \d+\.\d t/s · decode \d+\.\d t/s\]`, screen, "the speed line after the reply")
	got, err := os.ReadFile(filepath.Join(root, "notes", "hello.txt"))
	require.NoError(t, err, "the tool call made the file")
	assert.Equal(t, "hello from the model\n", string(got))

	// A continued line; the forced call now fails (the file exists), and
	// Ctrl-C stops the text reply that follows.
	p.tmux("send-keys", "-l", `once \`)
	p.tmux("send-keys", "Enter")
	p.waitText("... ", 1, 30*time.Second)
	p.tmux("send-keys", "-l", "more")
	p.tmux("send-keys", "Enter")
	p.waitText("← NewFile failed", 1, 3*time.Minute)
	p.tmux("send-keys", "C-c")
	p.waitText("[stopped]", 1, time.Minute)
	p.waitFor("the prompt after the stopped reply", 30*time.Second, func(s string) bool {
		return strings.Contains(s[strings.Index(s, "[stopped]"):], ">>> ")
	})

	// Ctrl-C at the prompt clears the line; the chat goes on.
	p.tmux("send-keys", "-l", "half a thought")
	p.tmux("send-keys", "C-c")
	p.waitText("^C", 1, 30*time.Second)
	p.tmux("send-keys", "-l", "/stats")
	p.tmux("send-keys", "Enter")
	screen = p.waitText("tokens/s", 1, 30*time.Second)
	assert.Contains(t, screen, "context ")
	assert.Regexp(t, `last turn  prefill \d+ of \d+ prompt tokens \(\d+ cached\) in \d+\.\d+s, \d+\.\d tokens/s; decode \d+ tokens in`, screen)
	p.tmux("send-keys", "-l", "/exit")
	p.tmux("send-keys", "Enter")
	p.waitText("EXITED 0", 1, 30*time.Second)

	assert.Equal(t, map[string]string{"notes/hello.txt": "hello from the model\n", "src/main.go": "package main\n"}, listTree(t, root))
	assert.Equal(t, outsideBefore, listTree(t, dir, "project", "tmux.sock"), "nothing outside the root changed")
}

// TestChatTerminalPaste pastes 20 KB (bracketed, with newlines, as a
// terminal pastes) and checks the model got all of it; Ctrl-C mid-reply
// keeps the partial reply in the history, marked; "exit" leaves.
func TestChatTerminalPaste(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and generates tokens")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is absent (apt-get install tmux)")
	}
	model := chatTestModel(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "litert-go")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)

	// 20,480 bytes: rules and lines of text, as a pasted log looks. Long
	// rules keep the prompt short (64 '=' are one Qwen2 token).
	var paste strings.Builder
	paste.WriteString("BEGIN-PASTE ")
	for i := 0; paste.Len() < 20480-16; i++ {
		fmt.Fprintf(&paste, "line %d\n%s\n", i, strings.Repeat("=", min(1984, 20480-16-paste.Len())))
	}
	paste.WriteString("END-PASTE")
	text := paste.String()
	require.GreaterOrEqual(t, len(text), 20000)
	pasteFile := filepath.Join(dir, "paste.txt")
	require.NoError(t, os.WriteFile(pasteFile, []byte(text), 0o644))
	session := filepath.Join(dir, "session.json")

	p := &tmuxPane{t: t, sock: filepath.Join(dir, "tmux.sock")}
	cmd := strings.Join([]string{bin, "chat", "-m", model, "--max-tokens", "512", "--seed", "1", "--session", session}, " ")
	p.tmux("new-session", "-d", "-x", "200", "-y", "60", "-c", dir, cmd+"; echo EXITED $?; sleep 60")
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", p.sock, "kill-server").Run() })
	p.waitText("/help for commands", 1, time.Minute)

	p.tmux("load-buffer", pasteFile)
	p.tmux("paste-buffer", "-p", "-d") // bracketed: the REPL asked for it
	p.waitText("END-PASTE", 1, 30*time.Second)
	p.tmux("send-keys", "Enter")
	p.waitFor("the reply to start", 2*time.Minute, func(s string) bool {
		i := strings.LastIndex(s, "END-PASTE")
		return i >= 0 && len(strings.TrimSpace(s[i+len("END-PASTE"):])) > 20
	})
	p.tmux("send-keys", "C-c")
	p.waitText("[stopped]", 1, time.Minute)
	p.waitFor("the prompt after the stopped reply", 30*time.Second, func(s string) bool {
		return strings.Contains(s[strings.Index(s, "[stopped]"):], ">>> ")
	})

	f, err := os.Open(session)
	require.NoError(t, err, "the session is saved after the stopped turn")
	snap, err := conversation.ReadSnapshot(f)
	f.Close()
	require.NoError(t, err)
	require.Len(t, snap.Messages, 2)
	assert.Equal(t, conversation.RoleUser, snap.Messages[0].Role)
	assert.Equal(t, len(text), len(snap.Messages[0].Text))
	assert.True(t, text == snap.Messages[0].Text, "the 20 KB paste arrived whole, newlines included")
	reply := snap.Messages[1]
	assert.Equal(t, conversation.RoleAssistant, reply.Role)
	assert.True(t, strings.HasSuffix(reply.Text, " "+interruptedMark), "the partial reply is marked: %q", reply.Text)
	assert.Greater(t, len(reply.Text), len(interruptedMark)+1, "the partial reply keeps what was written")

	p.tmux("send-keys", "-l", "exit")
	p.tmux("send-keys", "Enter")
	p.waitText("EXITED 0", 1, 30*time.Second)
}
