package fs

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// linkWatchSupported reports whether races on hard links are detected.
const linkWatchSupported = true

// watchMask is what a watch listens for: link(2), unlink(2) and a rename
// over the file change its link count and queue IN_ATTRIB (since Linux
// 2.6.25); a rename of the file queues IN_MOVE_SELF.
const watchMask = unix.IN_ATTRIB | unix.IN_MOVE_SELF | unix.IN_DELETE_SELF

// watcher is one inotify instance shared by a Toolbox's operations
// (closing an instance waits for an RCU grace period, too slow to pay per
// file). Each watched inode has one watch descriptor, shared by the
// operations that watch it concurrently and counted so the last one
// removes it; each keeps a count of the events seen for it.
type watcher struct {
	fd       int
	mu       sync.Mutex
	wds      map[int]*wdState
	overflow uint64 // queue overflows: every watch counts as changed
}

type wdState struct {
	users  int
	events uint64
}

// linkWatch is one operation's watch on one open file.
type linkWatch struct {
	w        *watcher
	wd       int
	events   uint64 // wdState.events when the watch began
	overflow uint64
}

func newWatcher() (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify_init1: %w", err)
	}
	return &watcher{fd: fd, wds: map[int]*wdState{}}, nil
}

func (w *watcher) close() error { return unix.Close(w.fd) }

// watch starts watching the inode f refers to. The watch is added through
// /proc/self/fd, which names exactly the descriptor's inode whatever its
// names are now.
func (w *watcher) watch(f *os.File) (*linkWatch, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var wd int
	var werr error
	cerr := withFd(f, func(fd uintptr) {
		wd, werr = unix.InotifyAddWatch(w.fd, "/proc/self/fd/"+strconv.Itoa(int(fd)), watchMask)
	})
	if err := errors.Join(cerr, werr); err != nil {
		return nil, fmt.Errorf("inotify_add_watch: %w", err)
	}
	st := w.wds[wd]
	if st == nil {
		st = &wdState{}
		w.wds[wd] = st
	}
	st.users++
	// Events already queued happened before this watch began; count them
	// now so only later ones count against it.
	err := w.drain()
	return &linkWatch{w: w, wd: wd, events: st.events, overflow: w.overflow}, err
}

// changed reports whether any event (or a queue overflow) arrived since
// the watch began, and ends the watch.
func (lw *linkWatch) changed() (bool, error) {
	w := lw.w
	w.mu.Lock()
	defer w.mu.Unlock()
	err := w.drain()
	st := w.wds[lw.wd]
	changed := st.events != lw.events || w.overflow != lw.overflow
	if st.users--; st.users == 0 {
		delete(w.wds, lw.wd)
		// EINVAL: the kernel removed the watch itself (IN_IGNORED).
		if _, rerr := unix.InotifyRmWatch(w.fd, uint32(lw.wd)); rerr != nil && !errors.Is(rerr, unix.EINVAL) && err == nil {
			err = fmt.Errorf("inotify_rm_watch: %w", rerr)
		}
	}
	if err != nil {
		return true, err
	}
	return changed, nil
}

// drain reads the queued events and counts them on their watches. The
// caller holds w.mu.
func (w *watcher) drain() error {
	var buf [4096]byte
	for {
		n, err := unix.Read(w.fd, buf[:])
		switch {
		case errors.Is(err, unix.EAGAIN):
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return fmt.Errorf("reading inotify events: %w", err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			switch {
			case ev.Mask&unix.IN_Q_OVERFLOW != 0:
				w.overflow++
			case w.wds[int(ev.Wd)] != nil:
				w.wds[int(ev.Wd)].events++
			}
			off += unix.SizeofInotifyEvent + int(ev.Len)
		}
	}
}
