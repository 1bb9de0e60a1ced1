package fs

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDirWatch checks the directory watch openSingle relies on, one change
// at a time: an entry of the name removed, renamed away or replaced while
// the watch runs counts as a change, even when the entry is back by the
// end; other names do not.
func TestDirWatch(t *testing.T) {
	s := newSandbox(t, Options{})
	a := filepath.Join(s.root, "a.txt")
	other := filepath.Join(s.root, "other.txt")
	changes := []struct {
		name    string
		change  func() error
		changed bool
	}{
		{"none", func() error { return nil }, false},
		{"another name", func() error { return os.WriteFile(other, []byte("x"), 0o644) }, false},
		{"unlink and recreate", func() error {
			if err := os.Remove(a); err != nil {
				return err
			}
			return os.WriteFile(a, []byte("hello inside\n"), 0o644)
		}, true},
		{"rename away and back", func() error {
			if err := os.Rename(a, a+".moved"); err != nil {
				return err
			}
			return os.Rename(a+".moved", a)
		}, true},
		{"rename over", func() error {
			if err := os.WriteFile(a+".new", []byte("hello inside\n"), 0o644); err != nil {
				return err
			}
			return os.Rename(a+".new", a)
		}, true},
	}
	dir, err := s.tb.root.Open(".")
	require.NoError(t, err)
	defer dir.Close()
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			w, err := s.tb.links.watch(int(dir.Fd()), "a.txt")
			require.NoError(t, err)
			require.NoError(t, c.change())
			changed, err := w.end()
			require.NoError(t, err)
			assert.Equal(t, c.changed, changed)
		})
	}
	// Concurrent watches of one directory share a watch descriptor: ending
	// one must not blind the other.
	w1, err := s.tb.links.watch(int(dir.Fd()), "a.txt")
	require.NoError(t, err)
	w2, err := s.tb.links.watch(int(dir.Fd()), "a.txt")
	require.NoError(t, err)
	changed, err := w2.end()
	require.NoError(t, err)
	require.False(t, changed)
	require.NoError(t, changes[2].change())
	changed, err = w1.end()
	require.NoError(t, err)
	assert.True(t, changed, "the first watch missed the change after the second ended")
	assert.Empty(t, s.tb.links.wds, "every watch was removed")
}
