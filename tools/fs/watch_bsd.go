//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package fs

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// linkWatchSupported reports whether races on hard links are detected.
const linkWatchSupported = true

// watcher needs no shared state here: each watch is a kqueue of its own.
type watcher struct{}

func newWatcher() (*watcher, error) { return &watcher{}, nil }

func (*watcher) close() error { return nil }

// linkWatch is a kqueue EVFILT_VNODE filter on one open descriptor:
// link(2) and unlink(2) raise NOTE_LINK, a rename NOTE_RENAME.
type linkWatch struct{ kq int }

// watch starts watching the vnode f refers to.
func (*watcher) watch(f *os.File) (*linkWatch, error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, fmt.Errorf("kqueue: %w", err)
	}
	var kerr error
	cerr := withFd(f, func(fd uintptr) {
		var ev [1]unix.Kevent_t
		unix.SetKevent(&ev[0], int(fd), unix.EVFILT_VNODE, unix.EV_ADD|unix.EV_CLEAR)
		ev[0].Fflags = unix.NOTE_LINK | unix.NOTE_RENAME | unix.NOTE_DELETE | unix.NOTE_REVOKE
		_, kerr = unix.Kevent(kq, ev[:], nil, nil)
	})
	if err := errors.Join(cerr, kerr); err != nil {
		unix.Close(kq)
		return nil, fmt.Errorf("kevent: %w", err)
	}
	return &linkWatch{kq: kq}, nil
}

// changed reports whether any event arrived since the watch began, and
// ends the watch.
func (lw *linkWatch) changed() (bool, error) {
	defer unix.Close(lw.kq)
	var ev [1]unix.Kevent_t
	n, err := unix.Kevent(lw.kq, nil, ev[:], &unix.Timespec{})
	if err != nil {
		return true, fmt.Errorf("kevent: %w", err)
	}
	return n > 0, nil
}
