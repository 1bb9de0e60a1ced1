package fs

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readRoot(t *testing.T, s *sandbox, p string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(p)))
	require.NoError(t, err)
	return string(data)
}

func TestEditFile(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, Options{})
	src := "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	require.NoError(t, os.WriteFile(filepath.Join(s.root, "x.go"), []byte(src), 0o600))

	// Absent text.
	_, err := s.tb.EditFile(ctx, EditFileInput{Path: "x.go", OldText: "return 2", NewText: "return 3"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `path "x.go": old_text not found`)
	// Whitespace must match exactly.
	_, err = s.tb.EditFile(ctx, EditFileInput{Path: "x.go", OldText: "    return 1", NewText: "x"})
	assert.ErrorContains(t, err, "old_text not found")

	// Ambiguous text.
	_, err = s.tb.EditFile(ctx, EditFileInput{Path: "x.go", OldText: "\treturn 1", NewText: "\treturn 2"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "old_text occurs 2 times")
	assert.Contains(t, err.Error(), "replace_all")
	assert.Equal(t, src, readRoot(t, s, "x.go"), "a failed edit leaves the file alone")

	// Unique with context.
	out, err := s.tb.EditFile(ctx, EditFileInput{Path: "x.go", OldText: "func b() {\n\treturn 1", NewText: "func b() {\n\treturn 22"})
	require.NoError(t, err)
	assert.Equal(t, "replaced 1 occurrence in x.go", out)
	assert.Equal(t, "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 22\n}\n", readRoot(t, s, "x.go"))

	// replace_all.
	out, err = s.tb.EditFile(ctx, EditFileInput{Path: "x.go", OldText: "func", NewText: "fn", ReplaceAll: true})
	require.NoError(t, err)
	assert.Equal(t, "replaced 2 occurrences in x.go", out)
	// Shrinking the file truncates it.
	_, err = s.tb.EditFile(ctx, EditFileInput{Path: "x.go", OldText: "\n\nfn b() {\n\treturn 22\n}\n", NewText: ""})
	require.NoError(t, err)
	assert.Equal(t, "fn a() {\n\treturn 1\n}", readRoot(t, s, "x.go"))
	fi, err := os.Stat(filepath.Join(s.root, "x.go"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "mode is preserved")

	// Degenerate requests.
	_, err = s.tb.EditFile(ctx, EditFileInput{Path: "x.go", OldText: "", NewText: "x"})
	assert.ErrorContains(t, err, "old_text is empty")
	_, err = s.tb.EditFile(ctx, EditFileInput{Path: "x.go", OldText: "fn", NewText: "fn"})
	assert.ErrorContains(t, err, "identical")
	_, err = s.tb.EditFile(ctx, EditFileInput{Path: "missing.go", OldText: "a", NewText: "b"})
	assert.ErrorContains(t, err, "no such file")
	_, err = s.tb.EditFile(ctx, EditFileInput{Path: "dir", OldText: "a", NewText: "b"})
	assert.ErrorContains(t, err, "is a directory")
	require.NoError(t, os.WriteFile(filepath.Join(s.root, "bin"), []byte("a\x00b"), 0o644))
	_, err = s.tb.EditFile(ctx, EditFileInput{Path: "bin", OldText: "a", NewText: "b"})
	assert.ErrorContains(t, err, "binary file")
	s.assertOutsideIntact(t)
}

func TestNewFile(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, Options{MaxWriteBytes: 100})
	out, err := s.tb.NewFile(ctx, NewFileInput{Path: "new/deep/file.txt", Content: "hi\n"})
	require.NoError(t, err)
	assert.Equal(t, "wrote new/deep/file.txt (3 bytes)", out)
	assert.Equal(t, "hi\n", readRoot(t, s, "new/deep/file.txt"))

	_, err = s.tb.NewFile(ctx, NewFileInput{Path: "new/deep/file.txt", Content: "again"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "already exists; set overwrite")
	assert.Equal(t, "hi\n", readRoot(t, s, "new/deep/file.txt"))

	_, err = s.tb.NewFile(ctx, NewFileInput{Path: "./new/deep/file.txt", Content: "ok", Overwrite: true})
	require.NoError(t, err)
	assert.Equal(t, "ok", readRoot(t, s, "new/deep/file.txt"))

	_, err = s.tb.NewFile(ctx, NewFileInput{Path: "big.txt", Content: string(make([]byte, 101))})
	assert.ErrorContains(t, err, "over the 100-byte write limit")
	_, err = s.tb.NewFile(ctx, NewFileInput{Path: "dir", Content: "x", Overwrite: true})
	assert.ErrorContains(t, err, "is a directory")
	_, err = s.tb.NewFile(ctx, NewFileInput{Path: "a.txt/child", Content: "x"})
	assert.Error(t, err, "a file is not a directory")
	s.assertOutsideIntact(t)
}

func TestDeleteFile(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, Options{})
	out, err := s.tb.DeleteFile(ctx, DeleteFileInput{Path: "dir/b.txt"})
	require.NoError(t, err)
	assert.Equal(t, "deleted dir/b.txt", out)
	_, err = os.Stat(filepath.Join(s.root, "dir", "b.txt"))
	assert.True(t, os.IsNotExist(err))
	_, err = s.tb.DeleteFile(ctx, DeleteFileInput{Path: "dir/b.txt"})
	assert.ErrorContains(t, err, "no such file")
	_, err = s.tb.DeleteFile(ctx, DeleteFileInput{Path: "dir/sub"})
	assert.ErrorContains(t, err, "is a directory")
	s.assertOutsideIntact(t)
}

func TestReadOnly(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, Options{ReadOnly: true})
	var names []string
	for _, tool := range s.tb.Tools() {
		names = append(names, tool.Name())
	}
	assert.Equal(t, []string{"ListFiles", "ReadFile", "FindTextInFiles"}, names)
	_, err := s.tb.NewFile(ctx, NewFileInput{Path: "x", Content: "y"})
	assert.ErrorIs(t, err, errReadOnly)
	_, err = s.tb.EditFile(ctx, EditFileInput{Path: "a.txt", OldText: "hello", NewText: "bye"})
	assert.ErrorIs(t, err, errReadOnly)
	_, err = s.tb.DeleteFile(ctx, DeleteFileInput{Path: "a.txt"})
	assert.ErrorIs(t, err, errReadOnly)
	assert.Equal(t, "hello inside\n", readRoot(t, s, "a.txt"))
}
