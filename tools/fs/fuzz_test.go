package fs

import (
	"context"
	"testing"
)

// FuzzPath feeds arbitrary paths to every tool of a toolbox whose root has
// symbolic links leading out, and checks nothing outside the root changes
// and no outside content is returned.
func FuzzPath(f *testing.F) {
	for _, seed := range []string{
		"a.txt", "..", "../outside/sentinel.txt", "dir/../../outside/sentinel.txt", "/etc/passwd",
		"out/sentinel.txt", "out", "up/outside/sentinel.txt", `..\outside`, "%2e%2e/x", "a\x00b",
		"dir/sub/../../a.txt", "./././", "new/file.txt", "dir/b.txt",
	} {
		f.Add(seed)
	}
	s := newSandbox(f, Options{MaxReadBytes: 4096})
	for name, target := range map[string]string{"out": "../outside", "up": "..", "leak": "../outside/sentinel.txt"} {
		if err := symlink(target, s.root, name); err != nil {
			f.Skipf("symlinks unavailable: %v", err)
		}
	}
	s.before = s.snapshot(f)
	f.Fuzz(func(t *testing.T, p string) {
		s.attempt(t, p)
		_, _ = s.tb.NewFile(context.Background(), NewFileInput{Path: p + "/child", Content: "x"})
		s.assertOutsideIntact(t)
	})
}
