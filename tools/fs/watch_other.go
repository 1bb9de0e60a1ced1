//go:build !linux && !darwin && !dragonfly && !freebsd && !netbsd && !openbsd

package fs

import "os"

// linkWatchSupported reports whether races on hard links are detected.
// Here they are not: the link count and the name are checked once after
// opening, which a process racing the tools inside the root can defeat
// (see the package documentation).
const linkWatchSupported = false

type (
	watcher   struct{}
	linkWatch struct{}
)

func newWatcher() (*watcher, error)                 { return &watcher{}, nil }
func (*watcher) close() error                       { return nil }
func (*watcher) watch(*os.File) (*linkWatch, error) { return &linkWatch{}, nil }
func (*linkWatch) changed() (bool, error)           { return false, nil }
