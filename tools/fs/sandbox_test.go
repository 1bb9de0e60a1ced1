package fs

import (
	"context"
	iofs "io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sentinelText = "SENTINEL-OUTSIDE-DO-NOT-TOUCH\n"

// sandbox is a temporary directory holding the toolbox root and, next to
// it, files that must never be read, written or deleted through the tools.
type sandbox struct {
	parent, root, outside string
	tb                    *Toolbox
	before                map[string]string
}

func newSandbox(t testing.TB, opts Options) *sandbox {
	t.Helper()
	parent := t.TempDir()
	s := &sandbox{parent: parent, root: filepath.Join(parent, "root"), outside: filepath.Join(parent, "outside")}
	require.NoError(t, os.MkdirAll(filepath.Join(s.root, "dir", "sub"), 0o755))
	require.NoError(t, os.MkdirAll(s.outside, 0o755))
	write := func(p, content string) {
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	write(filepath.Join(s.outside, "sentinel.txt"), sentinelText)
	write(filepath.Join(parent, "top-sentinel.txt"), sentinelText)
	write(filepath.Join(s.root, "a.txt"), "hello inside\n")
	write(filepath.Join(s.root, "dir", "b.txt"), "line one\nline two\n")
	tb, err := New(s.root, opts)
	require.NoError(t, err)
	t.Cleanup(func() { tb.Close() })
	s.tb = tb
	s.before = s.snapshot(t)
	return s
}

// snapshot records everything in the parent directory outside the root:
// paths, file contents, link targets and modes.
func (s *sandbox) snapshot(t testing.TB) map[string]string {
	t.Helper()
	snap := map[string]string{}
	err := filepath.WalkDir(s.parent, func(p string, d iofs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == s.root {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(s.parent, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&iofs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			snap[rel] = "link:" + target
		case d.IsDir():
			snap[rel] = "dir:" + info.Mode().String()
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			snap[rel] = "file:" + info.Mode().String() + ":" + string(data)
		}
		return nil
	})
	require.NoError(t, err)
	return snap
}

// assertOutsideIntact checks that nothing outside the root changed.
func (s *sandbox) assertOutsideIntact(t testing.TB) {
	t.Helper()
	assert.Equal(t, s.before, s.snapshot(t), "files outside the root changed")
	data, err := os.ReadFile(filepath.Join(s.outside, "sentinel.txt"))
	require.NoError(t, err, "sentinel outside the root was deleted")
	assert.Equal(t, sentinelText, string(data))
}

// attempt runs every tool on path p and returns their outputs, which must
// never contain the sentinel text.
func (s *sandbox) attempt(t testing.TB, p string) (errs []error) {
	t.Helper()
	ctx := context.Background()
	outs := []string{}
	run := func(out string, err error) {
		outs = append(outs, out)
		errs = append(errs, err)
	}
	run(s.tb.ReadFile(ctx, ReadFileInput{Path: p}))
	run(s.tb.ReadFile(ctx, ReadFileInput{Path: p, StartLine: 1, EndLine: 5}))
	run(s.tb.ListFiles(ctx, ListFilesInput{Path: p}))
	run(s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Path: p, Pattern: "SENTINEL"}))
	run(s.tb.EditFile(ctx, EditFileInput{Path: p, OldText: "SENTINEL", NewText: "PWNED"}))
	run(s.tb.NewFile(ctx, NewFileInput{Path: p, Content: "PWNED", Overwrite: true}))
	run(s.tb.DeleteFile(ctx, DeleteFileInput{Path: p}))
	for i, out := range outs {
		assert.NotContains(t, out, "SENTINEL-OUTSIDE", "operation %d on %q leaked outside content", i, p)
		if errs[i] != nil {
			assert.NotContains(t, errs[i].Error(), "SENTINEL-OUTSIDE")
		}
	}
	return errs
}

// symlink creates root/name pointing at target.
func symlink(target, root, name string) error {
	return os.Symlink(target, filepath.Join(root, name))
}
