//go:build !linux

package fs

import (
	"fmt"
	"os"
)

// singleLinkGuaranteed reports whether openSingle closes the race between
// the link-count check and a process removing the link it was opened by.
// Here it does not: the check is made once after the open, and again that
// the path still names the file, which narrows the race but cannot close
// it (see open_linux.go for what closes it on Linux).
const singleLinkGuaranteed = false

// watcher has no state on this platform.
type watcher struct{}

func newWatcher() (*watcher, error) { return &watcher{}, nil }

func (*watcher) close() error { return nil }

// openSingle opens p for reading and checks that it is a regular file with
// one link, still named by p.
func (tb *Toolbox) openSingle(p string) (*openFile, error) {
	f, err := tb.root.OpenFile(osPath(p), os.O_RDONLY|extraOpenFlags, 0)
	if err != nil {
		return nil, pathError(p, err)
	}
	of := &openFile{File: f, p: p}
	if err := of.check(tb); err != nil {
		f.Close()
		return nil, err
	}
	if named, err := tb.root.Stat(osPath(p)); err != nil || !os.SameFile(of.info, named) {
		f.Close()
		return nil, fmt.Errorf("path %q: the file was replaced while it was opened; refusing it because a hard link may lead outside the project root (try again)", p)
	}
	return of, nil
}
