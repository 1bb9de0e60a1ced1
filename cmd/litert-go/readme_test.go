package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/hub/hubtest"
)

// readmeBlock is a fenced code block of README.md.
type readmeBlock struct {
	line int    // the line of the opening fence
	info string // what follows the fence: "sh", "go file=hello/main.go", …
	text string
}

// readmeBlocks returns the fenced code blocks of a Markdown file.
func readmeBlocks(path string) ([]readmeBlock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var blocks []readmeBlock
	var cur *readmeBlock
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &readmeBlock{line: n, info: strings.TrimSpace(strings.TrimPrefix(line, "```"))}
		case cur != nil && strings.TrimSpace(line) == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: the code block is not closed", path, cur.line)
	}
	return blocks, sc.Err()
}

// The Hugging Face repository the README pulls, and its file names there.
const (
	readmeRepo   = "Qwen/Qwen2.5-0.5B-Instruct-GGUF"
	readmeCommit = "9217f5db79a29953eb74d5343926648285ec7e67"
)

// TestReadme is make readme-check: it runs README.md's ```sh blocks, in
// order, with bash in a fresh copy of the working tree (as a fresh clone
// would be, ../shared/testdata beside it), so the README's commands cannot
// drift from what works. A "```go file=PATH" block is written to PATH
// first. The Hub is a fake one on loopback (HF_ENDPOINT) serving, under the
// real repository's file names, a tiny Qwen2.5-shaped model with the real
// Qwen2 vocabulary and chat template: the machines here have no internet.
func TestReadme(t *testing.T) {
	if os.Getenv("LITERT_README_CHECK") == "" {
		t.Skip("make readme-check runs this (LITERT_README_CHECK=1): it builds a fresh copy of the tree")
	}
	shared, err := filepath.Abs(filepath.Join("..", "..", "..", "shared"))
	require.NoError(t, err)
	vocab := filepath.Join(shared, "testdata", "vocab", "ggml-vocab-qwen2.gguf")
	tmpl := filepath.Join(shared, "testdata", "templates", "Qwen-Qwen2.5-7B-Instruct.jinja")
	for _, p := range []string{vocab, tmpl} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("test data absent: %v", err)
		}
	}
	blocks, err := readmeBlocks(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)

	// A fresh copy of the working tree: tracked files and new ones not ignored.
	root := t.TempDir()
	clone := filepath.Join(root, "litert-go")
	files, err := exec.Command("git", "-C", filepath.Join("..", ".."), "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	require.NoError(t, err)
	for _, name := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		src := filepath.Join("..", "..", name)
		b, err := os.ReadFile(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		require.NoError(t, err)
		st, err := os.Stat(src)
		require.NoError(t, err)
		dst := filepath.Join(clone, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, b, st.Mode().Perm()))
	}
	require.NoError(t, os.Symlink(shared, filepath.Join(root, "shared")))

	// The fake Hub: the model, and the repository's other quants by name.
	tmplSrc, err := os.ReadFile(tmpl)
	require.NoError(t, err)
	model := filepath.Join(root, "model.gguf")
	require.NoError(t, synth.WriteFile(model, "tiny-qwen2.5-0.5b", synth.Options{Seed: 1, Mix: "q4_k_m", VocabFile: vocab, ChatTemplate: string(tmplSrc)}))
	mb, err := os.ReadFile(model)
	require.NoError(t, err)
	h := hubtest.NewServer()
	defer h.Close()
	h.Add(readmeRepo, readmeCommit, map[string][]byte{
		"qwen2.5-0.5b-instruct-q4_k_m.gguf": mb,
		"qwen2.5-0.5b-instruct-q8_0.gguf":   []byte("not served in this check"),
		"qwen2.5-0.5b-instruct-fp16.gguf":   []byte("not served in this check"),
		"README.md":                         []byte("# Qwen2.5-0.5B-Instruct-GGUF\n"),
	})

	env := append(os.Environ(), "HF_ENDPOINT="+h.URL, "HF_HOME="+filepath.Join(root, "hf"), "HF_HUB_CACHE=", "HF_TOKEN=", "HF_HUB_OFFLINE=",
		// the example module's `go mod tidy` resolves its dependencies' test
		// imports too, which the module cache of a fresh machine lacks: it
		// uses the environment's module proxy, as a user's would
		"GOFLAGS=-mod=mod", "GOSUMDB=off")
	ran := 0
	for _, b := range blocks {
		lang, attrs, _ := strings.Cut(b.info, " ")
		if file, ok := strings.CutPrefix(strings.TrimSpace(attrs), "file="); ok {
			dst := filepath.Join(clone, filepath.FromSlash(file))
			require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
			require.NoError(t, os.WriteFile(dst, []byte(b.text), 0o644))
			continue
		}
		if lang != "sh" {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", b.text)
		cmd.Dir, cmd.Env = clone, env
		// A block's own group: what it starts in the background (a server)
		// ends with it, and a timeout ends them all.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = 5 * time.Second
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		cancel()
		require.NoError(t, err, "README.md:%d: the ```sh block failed:\n%s\n--- output:\n%s", b.line, b.text, out)
		t.Logf("README.md:%d: ok in %.1fs", b.line, time.Since(start).Seconds())
		ran++
	}
	require.Positive(t, ran, "README.md has no ```sh block")
}
