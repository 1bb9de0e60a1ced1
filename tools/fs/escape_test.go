package fs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEscapeLexical(t *testing.T) {
	s := newSandbox(t, Options{})
	abs := filepath.Join(s.outside, "sentinel.txt")
	cases := []struct {
		path string
		want string
	}{
		{"..", "leads outside the project root"},
		{"../", "leads outside the project root"},
		{"../outside/sentinel.txt", "leads outside the project root"},
		{"./../outside/sentinel.txt", "leads outside the project root"},
		{"a/../../outside/sentinel.txt", "leads outside the project root"},
		{"dir/../../outside/sentinel.txt", "leads outside the project root"},
		{"dir/sub/../../../outside/sentinel.txt", "leads outside the project root"},
		{strings.Repeat("../", 40) + "etc/passwd", "leads outside the project root"},
		{"../root/../outside/sentinel.txt", "leads outside the project root"},
		{"/etc/passwd", "absolute paths are not allowed"},
		{"//etc/passwd", "absolute paths are not allowed"},
		{abs, "absolute paths are not allowed"},
		{filepath.Join(s.root, "a.txt"), "absolute paths are not allowed"},
		{`..\outside\sentinel.txt`, "backslash"},
		{`dir\..\..\outside\sentinel.txt`, "backslash"},
		{`C:\Windows\win.ini`, "backslash"},
		{"a.txt\x00", "NUL byte"},
		{"../outside/sentinel.txt\x00.txt", "NUL byte"},
		{"\x00", "NUL byte"},
		{strings.Repeat("a/", 3000), "longer than"},
		{strings.Repeat("x", 5000), "longer than"},
	}
	for _, c := range cases {
		t.Run(c.path[:min(len(c.path), 40)], func(t *testing.T) {
			for i, err := range s.attempt(t, c.path) {
				require.Error(t, err, "operation %d on %q must fail", i, c.path)
				assert.Contains(t, err.Error(), c.want, "operation %d", i)
			}
		})
	}
	s.assertOutsideIntact(t)
	data, err := os.ReadFile(filepath.Join(s.root, "a.txt"))
	require.NoError(t, err)
	assert.Equal(t, "hello inside\n", string(data), "rejected paths must not touch files inside either")
}

// Paths that look like escapes but are ordinary names inside the root: they
// may succeed, but only inside the root.
func TestEscapeLookalikesStayInside(t *testing.T) {
	s := newSandbox(t, Options{})
	for _, p := range []string{
		"%2e%2e/outside/sentinel.txt",
		"..%2f..%2foutside%2fsentinel.txt",
		"%2e%2e%2f",
		"\u2025/outside/sentinel.txt", // two-dot leader
		"\uff0e\uff0e/outside/sentinel.txt",
		"~/sentinel.txt",
		"file:///etc/passwd",
		"...",
		"..../outside",
		". ./outside",
		".. /outside/sentinel.txt",
		"dir/./../a.txt",
		"a/..",
		"./",
		strings.Repeat("y", 300), // longer than NAME_MAX
	} {
		s.attempt(t, p)
	}
	s.assertOutsideIntact(t)
}

func TestEscapeAbsoluteSymlink(t *testing.T) {
	s := newSandbox(t, Options{})
	require.NoError(t, os.Symlink("/etc", filepath.Join(s.root, "etc")))
	require.NoError(t, os.Symlink(s.outside, filepath.Join(s.root, "outabs")))
	ctx := context.Background()
	_, err := s.tb.ReadFile(ctx, ReadFileInput{Path: "etc/passwd"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "leads outside the project root")
	_, err = s.tb.ListFiles(ctx, ListFilesInput{Path: "etc"})
	assert.Error(t, err)
	_, err = s.tb.NewFile(ctx, NewFileInput{Path: "outabs/new.txt", Content: "x"})
	assert.Error(t, err)
	for _, p := range []string{"etc/passwd", "outabs/sentinel.txt", "outabs", "outabs/"} {
		for i, err := range s.attempt(t, p)[:6] { // DeleteFile removes the link itself
			assert.Error(t, err, "operation %d on %q", i, p)
		}
		relink(t, filepath.Join(s.root, "outabs"), s.outside)
	}
	s.assertOutsideIntact(t)
}

func TestEscapeSymlinkToFileOutside(t *testing.T) {
	s := newSandbox(t, Options{})
	ctx := context.Background()
	links := map[string]string{
		"leak":    "../outside/sentinel.txt",
		"leakabs": filepath.Join(s.outside, "sentinel.txt"),
		"dir/up":  "../..",
		"l1":      "l2",
		"l2":      "../outside/sentinel.txt",
		"dangle":  "../outside/created.txt",
		"loop":    "loop",
	}
	for name, target := range links {
		require.NoError(t, os.Symlink(target, filepath.Join(s.root, name)))
	}
	for _, p := range []string{"leak", "leakabs", "dir/up/outside/sentinel.txt", "l1", "loop"} {
		_, err := s.tb.ReadFile(ctx, ReadFileInput{Path: p})
		assert.Error(t, err, p)
		_, err = s.tb.EditFile(ctx, EditFileInput{Path: p, OldText: "SENTINEL", NewText: "PWNED"})
		assert.Error(t, err, p)
		_, err = s.tb.NewFile(ctx, NewFileInput{Path: p, Content: "PWNED", Overwrite: true})
		assert.Error(t, err, p)
	}
	for _, overwrite := range []bool{false, true} {
		_, err := s.tb.NewFile(ctx, NewFileInput{Path: "dangle", Content: "PWNED", Overwrite: overwrite})
		assert.Error(t, err)
	}
	_, err := os.Lstat(filepath.Join(s.outside, "created.txt"))
	assert.True(t, os.IsNotExist(err), "a dangling link must not create a file outside")

	// The listing shows links without following them.
	out, err := s.tb.ListFiles(ctx, ListFilesInput{})
	require.NoError(t, err)
	assert.Contains(t, out, "leak -> ../outside/sentinel.txt\n")
	found, err := s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: "SENTINEL"})
	require.NoError(t, err)
	assert.Contains(t, found, "no matches")

	// Deleting a link removes the link, never its target.
	for _, p := range []string{"leak", "leakabs", "l2", "dangle", "loop"} {
		_, err := s.tb.DeleteFile(ctx, DeleteFileInput{Path: p})
		require.NoError(t, err, p)
		_, err = os.Lstat(filepath.Join(s.root, p))
		assert.True(t, os.IsNotExist(err))
	}
	s.assertOutsideIntact(t)
}

func TestEscapeSymlinkedDirectory(t *testing.T) {
	s := newSandbox(t, Options{})
	ctx := context.Background()
	require.NoError(t, os.Symlink("../outside", filepath.Join(s.root, "outdir")))
	require.NoError(t, os.Symlink("../../outside", filepath.Join(s.root, "dir", "deep")))
	for _, p := range []string{"outdir", "outdir/", "outdir/sentinel.txt", "dir/deep/sentinel.txt", "outdir/new/x.txt"} {
		for i, err := range s.attempt(t, p) {
			if i == 6 && (p == "outdir" || p == "outdir/") {
				continue // deleting the link itself is allowed
			}
			assert.Error(t, err, "operation %d on %q", i, p)
		}
		// Deleting "outdir" removed the link; put it back for the next path.
		relink(t, filepath.Join(s.root, "outdir"), "../outside")
	}
	out, err := s.tb.ListFiles(ctx, ListFilesInput{})
	require.NoError(t, err)
	assert.NotContains(t, out, "sentinel")
	s.assertOutsideIntact(t)
}

func TestSymlinkInsideRootAllowed(t *testing.T) {
	s := newSandbox(t, Options{})
	ctx := context.Background()
	require.NoError(t, os.Symlink("dir/b.txt", filepath.Join(s.root, "alias")))
	require.NoError(t, os.Symlink("../a.txt", filepath.Join(s.root, "dir", "back")))
	out, err := s.tb.ReadFile(ctx, ReadFileInput{Path: "alias"})
	require.NoError(t, err)
	assert.Equal(t, "line one\nline two\n", out)
	out, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "dir/back"})
	require.NoError(t, err)
	assert.Equal(t, "hello inside\n", out)
}

func TestEscapeHardLink(t *testing.T) {
	s := newSandbox(t, Options{})
	ctx := context.Background()
	if err := os.Link(filepath.Join(s.outside, "sentinel.txt"), filepath.Join(s.root, "hard.txt")); err != nil {
		t.Skipf("cannot create hard links here: %v", err)
	}
	s.before = s.snapshot(t)
	_, err := s.tb.ReadFile(ctx, ReadFileInput{Path: "hard.txt"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "hard links")
	_, err = s.tb.ReadFile(ctx, ReadFileInput{Path: "hard.txt", StartLine: 1})
	assert.Error(t, err)
	_, err = s.tb.EditFile(ctx, EditFileInput{Path: "hard.txt", OldText: "SENTINEL", NewText: "PWNED"})
	assert.Error(t, err)
	found, err := s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: "SENTINEL"})
	require.NoError(t, err)
	assert.Contains(t, found, "no matches")
	s.assertOutsideIntact(t)
	// Overwriting replaces the link inside the root with a new file; the
	// outside file keeps its content.
	_, err = s.tb.NewFile(ctx, NewFileInput{Path: "hard.txt", Content: "PWNED", Overwrite: true})
	require.NoError(t, err)
	assert.Equal(t, "PWNED", readRoot(t, s, "hard.txt"))
	s.assertOutsideIntact(t)
	require.NoError(t, os.Remove(filepath.Join(s.root, "hard.txt")))
	require.NoError(t, os.Link(filepath.Join(s.outside, "sentinel.txt"), filepath.Join(s.root, "hard.txt")))
	// Deleting the link inside the root leaves the outside file alone.
	_, err = s.tb.DeleteFile(ctx, DeleteFileInput{Path: "hard.txt"})
	require.NoError(t, err)
	s.assertOutsideIntact(t)

	// Opting in makes hard-linked files usable (documented trade-off).
	allow := newSandbox(t, Options{AllowHardLinks: true})
	require.NoError(t, os.Link(filepath.Join(allow.root, "a.txt"), filepath.Join(allow.root, "a2.txt")))
	out, err := allow.tb.ReadFile(ctx, ReadFileInput{Path: "a2.txt"})
	require.NoError(t, err)
	assert.Equal(t, "hello inside\n", out)
}

// TestEscapeSymlinkSwapRace swaps a symbolic link between a directory inside
// the root and one outside while the tools use paths through it. os.Root
// resolves each component without following links out of the root, so no
// interleaving can reach the outside.
func TestEscapeSymlinkSwapRace(t *testing.T) {
	s := newSandbox(t, Options{})
	ctx := context.Background()
	inside := filepath.Join(s.root, "inside")
	require.NoError(t, os.MkdirAll(inside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(inside, "sentinel.txt"), []byte("SENTINEL inside\n"), 0o644))
	link := filepath.Join(s.root, "link")
	require.NoError(t, os.Symlink("inside", link))

	var stop atomic.Bool
	var wg sync.WaitGroup
	targets := []string{"inside", "../outside", s.outside, "inside", "dir/../../outside"}
	wg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			tmp := link + ".tmp"
			_ = os.Remove(tmp)
			if os.Symlink(targets[i%len(targets)], tmp) == nil {
				_ = os.Rename(tmp, link) // atomic replacement
			}
		}
	})
	// A second swapper replaces a real directory by a link and back.
	dir2 := filepath.Join(s.root, "dir2")
	require.NoError(t, os.MkdirAll(dir2, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir2, "sentinel.txt"), []byte("SENTINEL dir2\n"), 0o644))
	wg.Go(func() {
		for !stop.Load() {
			_ = os.Rename(dir2, dir2+".bak")
			_ = os.Symlink("../outside", dir2)
			time.Sleep(time.Microsecond)
			_ = os.Remove(dir2)
			_ = os.Rename(dir2+".bak", dir2)
		}
	})
	okReads, refused := 0, 0
	deadline := time.Now().Add(1500 * time.Millisecond)
	for i := 0; time.Now().Before(deadline); i++ {
		for _, p := range []string{"link/sentinel.txt", "dir2/sentinel.txt"} {
			for range 5 {
				out, err := s.tb.ReadFile(ctx, ReadFileInput{Path: p})
				switch {
				case err == nil:
					okReads++
					assert.NotContains(t, out, "SENTINEL-OUTSIDE")
				case strings.Contains(err.Error(), "outside the project root"):
					refused++
				}
			}
			s.attempt(t, p)
			_, _ = s.tb.NewFile(ctx, NewFileInput{Path: p, Content: "SENTINEL rewritten inside\n"})
			_, _ = s.tb.NewFile(ctx, NewFileInput{Path: strings.Replace(p, "sentinel", "new", 1), Content: "x", Overwrite: true})
		}
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("through the swapping links: %d reads succeeded inside, %d were refused as escapes", okReads, refused)
	assert.Positive(t, okReads, "the race never saw the link pointing inside")
	assert.Positive(t, refused, "the race never saw the link pointing outside")
	// Put the fixture back in case the swapper stopped mid-swap.
	if _, err := os.Stat(dir2 + ".bak"); err == nil {
		require.NoError(t, os.RemoveAll(dir2))
		require.NoError(t, os.Rename(dir2+".bak", dir2))
	}
	s.assertOutsideIntact(t)
	_, err := os.Stat(filepath.Join(s.outside, "new.txt"))
	assert.True(t, os.IsNotExist(err))
}

func TestRootIsNotAFile(t *testing.T) {
	s := newSandbox(t, Options{})
	ctx := context.Background()
	for _, p := range []string{"", ".", "./", "dir/.."} {
		_, err := s.tb.DeleteFile(ctx, DeleteFileInput{Path: p})
		assert.Error(t, err, "%q", p)
		_, err = s.tb.NewFile(ctx, NewFileInput{Path: p, Content: "x", Overwrite: true})
		assert.Error(t, err, "%q", p)
	}
	_, err := os.Stat(s.root)
	require.NoError(t, err)
}

func TestRootMustExist(t *testing.T) {
	_, err := New(filepath.Join(t.TempDir(), "missing"), Options{})
	assert.ErrorContains(t, err, "opening root")
	f := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	_, err = New(f, Options{})
	assert.Error(t, err)
}

// relink makes name a symbolic link to target, replacing whatever is there.
func relink(t *testing.T, name, target string) {
	t.Helper()
	require.NoError(t, os.RemoveAll(name))
	require.NoError(t, os.Symlink(target, name))
}
