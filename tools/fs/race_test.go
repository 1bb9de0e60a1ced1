//go:build unix

package fs

import (
	"context"
	"errors"
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

// outsideMark is in the outside file's text, whatever edit was made to it.
const outsideMark = "OUTSIDE-DO-NOT-TOUCH"

// raceOps is how many tool operations TestEscapeHardLinkRace runs: a few
// thousand in CI, 100,000 with LITERT_RACE_LONG=1.
// The time limit only keeps a starved machine from hanging the suite.
func raceOps() (int, time.Duration) {
	if os.Getenv("LITERT_RACE_LONG") != "" {
		return 100_000, 30 * time.Minute
	}
	return 3_000, 2 * time.Minute
}

// TestEscapeHardLinkRace runs the file tools while attackers inside the
// root create and remove hard links and symbolic links to a file outside
// it, as fast as they can. The window the attackers aim for is between the
// open and the link-count check: a hard link is removed right after the
// tool opened the file through it, so the open descriptor refers to the
// outside file with a link count of 1. No interleaving may return an
// outside byte, copy one into the root, or change the outside file.
func TestEscapeHardLinkRace(t *testing.T) {
	s := newSandbox(t, Options{})
	ctx := context.Background()
	sentinel := filepath.Join(s.outside, "sentinel.txt")
	probe := filepath.Join(s.root, "probe")
	if err := os.Link(sentinel, probe); err != nil {
		t.Skipf("cannot create hard links here: %v", err)
	}
	require.NoError(t, os.Remove(probe))
	before, err := os.Stat(sentinel)
	require.NoError(t, err)
	s.before = s.snapshot(t)

	var stop atomic.Bool
	var attacks atomic.Int64
	var wg sync.WaitGroup
	at := func(name string) string { return filepath.Join(s.root, name) }
	// 1. h.txt flips between absent and a hard link to the outside file.
	wg.Go(func() {
		for !stop.Load() {
			_ = os.Link(sentinel, at("h.txt"))
			_ = os.Remove(at("h.txt"))
			attacks.Add(1)
		}
	})
	// 2. swap.txt is replaced atomically, by rename, with an ordinary file
	// inside the root and then with a hard link to the outside file.
	wg.Go(func() {
		for i := 0; !stop.Load(); i++ {
			_ = os.WriteFile(at("in.tmp"), []byte("INSIDE swap\n"), 0o644)
			_ = os.Rename(at("in.tmp"), at("swap.txt"))
			_ = os.Link(sentinel, at("out.tmp"))
			_ = os.Rename(at("out.tmp"), at("swap.txt"))
			if i%2 == 0 {
				_ = os.Remove(at("swap.txt"))
			}
			attacks.Add(1)
		}
	})
	// 3. dir/l.txt flips between a hard link and a symbolic link outside, in
	// a directory the search walks.
	wg.Go(func() {
		for !stop.Load() {
			_ = os.Link(sentinel, at("dir/l.txt"))
			_ = os.Remove(at("dir/l.txt"))
			_ = os.Symlink("../../outside/sentinel.txt", at("dir/l.txt"))
			_ = os.Remove(at("dir/l.txt"))
			attacks.Add(1)
		}
	})

	leak := func(what, out string, err error) {
		if strings.Contains(out, outsideMark) || (err != nil && strings.Contains(err.Error(), outsideMark)) {
			t.Errorf("%s returned outside content: %q, %v", what, out, err)
			stop.Store(true)
		}
	}
	// raced counts the reads refused by the checks after the open (a link
	// that changed between the open and the read's end).
	n, insideReads, refused, raced := 0, 0, 0, 0
	ops, limit := raceOps()
	deadline := time.Now().Add(limit)
	for n < ops && !stop.Load() && time.Now().Before(deadline) {
		for _, p := range []string{"h.txt", "swap.txt", "dir/l.txt"} {
			out, err := s.tb.ReadFile(ctx, ReadFileInput{Path: p})
			leak("ReadFile "+p, out, err)
			switch {
			case err == nil:
				insideReads++
			case strings.Contains(err.Error(), "while it was opened"):
				raced++
				refused++
			case strings.Contains(err.Error(), "hard link"), strings.Contains(err.Error(), "outside the project root"):
				refused++
			}
			out, err = s.tb.ReadFile(ctx, ReadFileInput{Path: p, StartLine: 1, EndLine: 3})
			leak("ReadFile lines "+p, out, err)
			out, err = s.tb.EditFile(ctx, EditFileInput{Path: p, OldText: "SENTINEL", NewText: "PWNED"})
			leak("EditFile "+p, out, err)
			out, err = s.tb.EditFile(ctx, EditFileInput{Path: p, OldText: "\n", NewText: "\n\n"})
			leak("EditFile "+p, out, err)
			out, err = s.tb.NewFile(ctx, NewFileInput{Path: p, Content: "PWNED\n", Overwrite: true})
			leak("NewFile "+p, out, err)
			n += 5
		}
		out, err := s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: "SENTINEL"})
		leak("FindTextInFiles", out, err)
		out, err = s.tb.ListFiles(ctx, ListFilesInput{})
		leak("ListFiles", out, err)
		n += 2
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d tool operations against %d link/unlink rounds: %d whole reads of inside content, %d refused (%d by the checks after the open)",
		n, attacks.Load(), insideReads, refused, raced)
	if !t.Failed() {
		require.GreaterOrEqual(t, n, ops, "the race ran out of time before its operation count")
	}
	assert.Positive(t, insideReads, "the swap never showed an inside file")
	assert.Positive(t, refused, "the attackers never got a hard link in front of a tool")

	// Nothing of the outside file was copied into the root.
	for _, name := range []string{"h.txt", "swap.txt", "dir/l.txt", "in.tmp", "out.tmp"} {
		data, err := os.ReadFile(at(name))
		if err == nil {
			fi, _ := os.Stat(at(name))
			if os.SameFile(fi, before) {
				continue // a hard link the attackers left behind
			}
		}
		if !errors.Is(err, os.ErrNotExist) {
			assert.NotContains(t, string(data), outsideMark, "%s holds outside bytes", name)
		}
	}
	// The outside file's content and mtime are unchanged.
	for _, name := range []string{"h.txt", "swap.txt", "dir/l.txt", "in.tmp", "out.tmp"} {
		_ = os.Remove(at(name))
	}
	after, err := os.Stat(sentinel)
	require.NoError(t, err)
	assert.Equal(t, before.ModTime(), after.ModTime(), "outside file's mtime changed")
	s.assertOutsideIntact(t)
}
