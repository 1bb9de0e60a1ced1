package fs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// singleLinkGuaranteed reports whether openSingle closes the race between
// the link-count check and a process removing the link it was opened by.
const singleLinkGuaranteed = true

// maxSymlinkHops bounds the symbolic links followed to open one file
// (Linux's own limit is 40).
const maxSymlinkHops = 40

// openSingle opens p (cleaned) for reading and makes sure the file it got
// had, at one moment after the open, a link count of 1 and its one name in
// the root. Because another process may remove the link inside the root
// right after the open, leaving the descriptor on a file outside with a
// link count of 1, the check is
//
//  1. open p's directory P (os.Root confines the path) and watch P's entries
//     (inotify: IN_CREATE, IN_DELETE, IN_MOVED_FROM, IN_MOVED_TO);
//  2. open base(p) in P with O_NOFOLLOW: the file F, through the entry E;
//  3. fstat: F is regular and has one link;
//  4. getdents on P, which takes P's lock shared: it waits for any link,
//     unlink or rename in P in progress;
//  5. no event named base(p) arrived since 1.
//
// Why it holds: suppose F is a file outside the root. Its outside name
// stays (the adversary writes inside the root only), so while E counts as
// a link of F its link count is at least 2. Step 3 saw 1, so E stopped
// counting between 2 and 3: an unlink of E, a rename of E out of P, or a
// rename over E. Each is an operation on the entry base(p) of P, made with
// P's inode lock held, and queues its event while it holds that lock
// (vfs_unlink's d_delete_notify, vfs_rename's fsnotify_move). It began
// before step 3 ended and after step 1 began (E was there at 2, or was
// being removed and so not yet notified), so the lock step 4 waits for is
// released only after its event is queued, which step 5 then sees.
//
// The argument assumes what Linux does today: a directory operation holds
// the directory's i_rwsem exclusively from before it changes the entry and
// the link count until after it queues its event, and getdents takes it
// shared (iterate_dir). It needs /proc (the watch is added through
// /proc/self/fd) and an inotify instance per Toolbox.
//
// A symbolic link as the last component is read with the root's Readlink
// and followed lexically (it must stay in the root), then checked the same
// way.
func (tb *Toolbox) openSingle(p string) (*openFile, error) {
	name := p
	for hop := 0; ; hop++ {
		f, err := tb.openInDir(name)
		if !errors.Is(err, unix.ELOOP) {
			if err != nil {
				return nil, err
			}
			f.p = p
			return f, nil
		}
		if hop == maxSymlinkHops {
			return nil, fmt.Errorf("path %q: more than %d symbolic links", p, maxSymlinkHops)
		}
		target, err := tb.root.Readlink(osPath(name))
		if err != nil {
			return nil, pathError(p, err)
		}
		if path.IsAbs(target) {
			return nil, fmt.Errorf("path %q: leads outside the project root (through a symbolic link to %q)", p, target)
		}
		next, err := cleanPath(path.Join(path.Dir(name), target))
		if err != nil {
			return nil, fmt.Errorf("path %q: leads outside the project root (through a symbolic link to %q)", p, target)
		}
		name = next
	}
}

// openInDir is steps 1 to 5 of openSingle for a path whose last component
// is opened without following a link (unix.ELOOP if it is one).
func (tb *Toolbox) openInDir(p string) (*openFile, error) {
	dirName, base := path.Split(p)
	if dirName == "" {
		dirName = "."
	}
	if base == "." {
		return nil, fmt.Errorf("path %q: is a directory", p)
	}
	dir, err := tb.root.Open(osPath(dirName))
	if err != nil {
		return nil, pathError(p, err)
	}
	defer dir.Close()
	dfd := int(dir.Fd())
	w, err := tb.links.watch(dfd, base)
	if err != nil {
		return nil, fmt.Errorf("path %q: cannot watch its directory for hard-link races: %w", p, err)
	}
	fd, err := unix.Openat(dfd, base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|extraOpenFlags, 0)
	if err != nil {
		w.end()
		if errors.Is(err, unix.ELOOP) {
			return nil, err
		}
		return nil, pathError(p, &os.PathError{Op: "openat", Path: p, Err: err})
	}
	f := &openFile{File: os.NewFile(uintptr(fd), p), p: p}
	err = f.check(tb)
	if err == nil {
		// Step 4: wait for directory operations in progress.
		var buf [512]byte
		for {
			_, err = unix.Getdents(dfd, buf[:])
			if !errors.Is(err, unix.EINTR) {
				break
			}
		}
		if err != nil {
			err = pathError(p, fmt.Errorf("reading its directory: %w", err))
		}
	}
	changed, werr := w.end()
	switch {
	case err != nil:
	case werr != nil:
		err = fmt.Errorf("path %q: cannot check its directory for hard-link races: %w", p, werr)
	case changed:
		err = fmt.Errorf("path %q: the file was replaced or unlinked while it was opened; refusing it because a hard link may lead outside the project root (try again)", p)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// watcher is one inotify instance shared by a Toolbox's operations
// (closing an instance waits for an RCU grace period, too slow to pay per
// file). A directory watched by several operations at once has one watch
// descriptor, counted so the last of them removes it, and a count of the
// events seen for each entry name.
type watcher struct {
	fd       int
	mu       sync.Mutex
	wds      map[int]*dirWatch
	overflow uint64 // queue overflows: every watch counts as changed
}

// dirWatch is the state of one watched directory.
type dirWatch struct {
	users  int
	events map[string]uint64 // by entry name
	gone   uint64            // the kernel dropped the watch (IN_IGNORED)
}

// linkWatch is one operation's watch on one entry of a directory.
type linkWatch struct {
	w                    *watcher
	wd                   int
	name                 string
	events, gone, overfl uint64 // counts when the watch began
}

// watchMask selects the events that add, remove or replace an entry.
const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_ONLYDIR

func newWatcher() (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify_init1: %w", err)
	}
	return &watcher{fd: fd, wds: map[int]*dirWatch{}}, nil
}

func (w *watcher) close() error { return unix.Close(w.fd) }

// watch starts watching the entry name of the directory open as dirFd.
// The watch is added through /proc/self/fd, which names exactly the
// descriptor's directory.
func (w *watcher) watch(dirFd int, name string) (*linkWatch, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	wd, err := unix.InotifyAddWatch(w.fd, "/proc/self/fd/"+strconv.Itoa(dirFd), watchMask)
	if err != nil {
		return nil, fmt.Errorf("inotify_add_watch: %w", err)
	}
	dw := w.wds[wd]
	if dw == nil {
		dw = &dirWatch{events: map[string]uint64{}}
		w.wds[wd] = dw
	}
	dw.users++
	// Events already queued came before this watch; count them now so
	// only later ones count against it.
	err = w.drain()
	return &linkWatch{w: w, wd: wd, name: name, events: dw.events[name], gone: dw.gone, overfl: w.overflow}, err
}

// end reports whether an event for the entry (or a queue overflow) arrived
// since the watch began, and ends the watch.
func (lw *linkWatch) end() (changed bool, err error) {
	w := lw.w
	w.mu.Lock()
	defer w.mu.Unlock()
	err = w.drain()
	dw := w.wds[lw.wd]
	changed = dw.events[lw.name] != lw.events || dw.gone != lw.gone || w.overflow != lw.overfl
	if dw.users--; dw.users == 0 {
		delete(w.wds, lw.wd)
		// EINVAL: the kernel already dropped the watch.
		if _, rerr := unix.InotifyRmWatch(w.fd, uint32(lw.wd)); rerr != nil && !errors.Is(rerr, unix.EINVAL) && err == nil {
			err = fmt.Errorf("inotify_rm_watch: %w", rerr)
		}
	}
	return changed || err != nil, err
}

// drain reads the queued events and counts them on their watches. The
// caller holds w.mu.
func (w *watcher) drain() error {
	var buf [16 << 10]byte
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
			nameBytes := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+int(ev.Len)]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if ev.Mask&unix.IN_Q_OVERFLOW != 0 {
				w.overflow++
				continue
			}
			dw := w.wds[int(ev.Wd)]
			if dw == nil {
				continue // a watch already removed
			}
			if ev.Mask&unix.IN_IGNORED != 0 {
				dw.gone++
				continue
			}
			if i := bytes.IndexByte(nameBytes, 0); i >= 0 {
				nameBytes = nameBytes[:i]
			}
			dw.events[string(nameBytes)]++
		}
	}
}
