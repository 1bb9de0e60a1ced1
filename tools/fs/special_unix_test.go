//go:build unix

package fs

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A FIFO in the root must not make a tool block, and is never treated as a
// file.
func TestFIFORefused(t *testing.T) {
	s := newSandbox(t, Options{})
	require.NoError(t, syscall.Mkfifo(filepath.Join(s.root, "fifo"), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, err := s.tb.ReadFile(ctx, ReadFileInput{Path: "fifo"})
		assert.ErrorContains(t, err, "not a regular file")
		_, err = s.tb.NewFile(ctx, NewFileInput{Path: "fifo", Content: "x", Overwrite: true})
		assert.Error(t, err)
		_, err = s.tb.EditFile(ctx, EditFileInput{Path: "fifo", OldText: "a", NewText: "b"})
		assert.Error(t, err)
		out, err := s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: "x"})
		assert.NoError(t, err)
		assert.Contains(t, out, "no matches")
	}()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("a tool blocked on a FIFO")
	}
}
