package fs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadFile(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, Options{MaxReadBytes: 64})
	out, err := s.tb.ReadFile(ctx, ReadFileInput{Path: "dir/b.txt"})
	require.NoError(t, err)
	assert.Equal(t, "line one\nline two\n", out)

	var lines []string
	for i := 1; i <= 20; i++ {
		lines = append(lines, fmt.Sprintf("line %02d", i))
	}
	require.NoError(t, os.WriteFile(filepath.Join(s.root, "long.txt"), []byte(strings.Join(lines, "\n")), 0o644))
	_, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "long.txt"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "over the 64-byte read limit; read a part with start_line and end_line")

	out, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "long.txt", StartLine: 3, EndLine: 4})
	require.NoError(t, err)
	assert.Equal(t, "line 03\nline 04\n", out)
	out, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "long.txt", StartLine: 19})
	require.NoError(t, err)
	assert.Equal(t, "line 19\nline 20", out, "last line without a newline")
	out, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "long.txt", StartLine: 2})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(out, "line 02\n"))
	assert.Contains(t, out, "[truncated in line 10: output is limited to 64 bytes; continue with start_line=10]")
	_, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "long.txt", StartLine: 30})
	assert.ErrorContains(t, err, "start_line 30 is past the end of the file (20 lines)")
	_, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "long.txt", StartLine: 5, EndLine: 2})
	assert.ErrorContains(t, err, "invalid line range")

	// A single enormous line is cut, not buffered whole.
	require.NoError(t, os.WriteFile(filepath.Join(s.root, "oneline.txt"), []byte(strings.Repeat("z", 1<<20)), 0o644))
	out, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "oneline.txt", StartLine: 1, EndLine: 1})
	require.NoError(t, err)
	assert.Less(t, len(out), 300)
	assert.Contains(t, out, "[truncated in line 1")

	require.NoError(t, os.WriteFile(filepath.Join(s.root, "img.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), 0o644))
	_, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "img.png"})
	assert.ErrorContains(t, err, "binary file (NUL byte at offset 8)")
	_, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "img.png", StartLine: 1})
	assert.ErrorContains(t, err, "binary file")
	require.NoError(t, os.WriteFile(filepath.Join(s.root, "latin1.txt"), []byte("caf\xe9\n"), 0o644))
	_, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "latin1.txt"})
	assert.ErrorContains(t, err, "not valid UTF-8")

	_, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "dir"})
	assert.ErrorContains(t, err, "is a directory")
	_, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "nope.txt"})
	assert.ErrorContains(t, err, `path "nope.txt": no such file or directory`)
}

func TestListFiles(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, Options{MaxListEntries: 8})
	for _, d := range []string{".git/objects", "node_modules/pkg", "src/internal"} {
		require.NoError(t, os.MkdirAll(filepath.Join(s.root, d), 0o755))
	}
	for _, f := range []string{".git/HEAD", "node_modules/pkg/index.js", "src/main.go", "src/internal/x.go"} {
		require.NoError(t, os.WriteFile(filepath.Join(s.root, f), []byte("x"), 0o644))
	}
	out, err := s.tb.ListFiles(ctx, ListFilesInput{})
	require.NoError(t, err)
	assert.Equal(t, ".git/\na.txt\ndir/\ndir/b.txt\ndir/sub/\nnode_modules/\nsrc/\nsrc/internal/\n"+
		"[truncated after 8 entries; list a subdirectory or set max_depth to see the rest]\n", out)

	out, err = s.tb.ListFiles(ctx, ListFilesInput{Path: "src"})
	require.NoError(t, err)
	assert.Equal(t, "src/internal/\nsrc/internal/x.go\nsrc/main.go\n", out)
	out, err = s.tb.ListFiles(ctx, ListFilesInput{Path: "./src/", MaxDepth: 1})
	require.NoError(t, err)
	assert.Equal(t, "src/internal/\nsrc/main.go\n", out)
	out, err = s.tb.ListFiles(ctx, ListFilesInput{Path: "node_modules"})
	require.NoError(t, err)
	assert.Equal(t, "node_modules/pkg/\nnode_modules/pkg/index.js\n", out, "an explicitly listed skip dir is listed")
	out, err = s.tb.ListFiles(ctx, ListFilesInput{Path: "dir/sub"})
	require.NoError(t, err)
	assert.Equal(t, "(empty directory)\n", out)
	out, err = s.tb.ListFiles(ctx, ListFilesInput{Path: "a.txt"})
	require.NoError(t, err)
	assert.Equal(t, "a.txt\n", out)
	_, err = s.tb.ListFiles(ctx, ListFilesInput{Path: "missing"})
	assert.ErrorContains(t, err, "no such file")
}

func TestFindTextInFiles(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, Options{MaxMatches: 3, MaxSearchFileBytes: 1000})
	files := map[string]string{
		"src/a.go":                "package a\n\nfunc Hello() {}\nfunc hello2() {}\n",
		"src/b.go":                "package b\n// TODO: hello world\n",
		"node_modules/x/hello.js": "hello\n",
		".git/config":             "hello\n",
		"bin.dat":                 "hello\x00world",
		"big.txt":                 strings.Repeat("hello\n", 500),
		"wide.txt":                strings.Repeat("é", 300) + "needle\n",
	}
	for name, content := range files {
		p := filepath.Join(s.root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	out, err := s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: "Hello", Path: "src"})
	require.NoError(t, err)
	assert.Equal(t, "src/a.go:3: func Hello() {}\n", out)

	out, err = s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: "hello", IgnoreCase: true})
	require.NoError(t, err)
	assert.Equal(t, "a.txt:1: hello inside\nsrc/a.go:3: func Hello() {}\nsrc/a.go:4: func hello2() {}\n"+
		"[truncated after 3 matches; narrow the pattern or the path]\n[1 large files were not searched]\n", out)

	out, err = s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: `^func \w+\(\)`, Regexp: true, Path: "src/a.go"})
	require.NoError(t, err)
	assert.Equal(t, "src/a.go:3: func Hello() {}\nsrc/a.go:4: func hello2() {}\n", out)

	out, err = s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: "hello(", Path: "src"})
	require.NoError(t, err, "a literal pattern is not a regexp")
	assert.Equal(t, "no matches for \"hello(\"\n", out)

	out, err = s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: "world"})
	require.NoError(t, err)
	assert.Equal(t, "src/b.go:2: // TODO: hello world\n[1 large files were not searched]\n", out, "binary, skipped and large files are passed over")

	out, err = s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: "needle"})
	require.NoError(t, err)
	assert.Contains(t, out, "wide.txt:1: "+strings.Repeat("é", 100)+"…\n", "long lines are cut on a rune boundary")

	_, err = s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: "(", Regexp: true})
	assert.ErrorContains(t, err, "invalid regular expression")
	_, err = s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: ""})
	assert.ErrorContains(t, err, "pattern is empty")
	_, err = s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: "x", Path: "missing"})
	assert.ErrorContains(t, err, "no such file")

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = s.tb.FindTextInFiles(cctx, FindTextInFilesInput{Pattern: "x"})
	assert.ErrorIs(t, err, context.Canceled)
}
