package fs

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// maxPathLen bounds the length of a path argument.
const maxPathLen = 1024

// cleanPath checks a path given by the model and returns it cleaned, in
// slash form, relative to the root ("." for the root itself). The check is
// lexical; os.Root enforces confinement again at every operation.
func cleanPath(p string) (string, error) {
	switch {
	case p == "":
		return ".", nil
	case strings.IndexByte(p, 0) >= 0:
		return "", fmt.Errorf("path %q: contains a NUL byte", p)
	case len(p) > maxPathLen:
		return "", fmt.Errorf("path %.40q…: longer than %d bytes", p, maxPathLen)
	case strings.ContainsRune(p, '\\'):
		return "", fmt.Errorf("path %q: contains a backslash; use '/' as the separator", p)
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "":
		return "", fmt.Errorf("path %q: absolute paths are not allowed; use a path relative to the project root", p)
	}
	c := path.Clean(p)
	if !filepath.IsLocal(filepath.FromSlash(c)) {
		return "", fmt.Errorf("path %q: leads outside the project root", p)
	}
	return c, nil
}

// osPath converts a cleaned slash path to the form os.Root expects.
func osPath(p string) string { return filepath.FromSlash(p) }

// pathError rewrites an error from an os.Root operation on p into a message
// for the model, keeping the original error wrapped.
func pathError(p string, err error) error {
	var pe *iofs.PathError
	var inner error = err
	if errors.As(err, &pe) {
		inner = pe.Err
	}
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return fmt.Errorf("path %q: no such file or directory: %w", p, err)
	case errors.Is(err, iofs.ErrExist):
		return fmt.Errorf("path %q: already exists: %w", p, err)
	case errors.Is(err, iofs.ErrPermission):
		return fmt.Errorf("path %q: permission denied: %w", p, err)
	case inner != nil && strings.Contains(inner.Error(), "escapes"):
		return fmt.Errorf("path %q: leads outside the project root (through a symbolic link): %w", p, err)
	}
	return fmt.Errorf("path %q: %w", p, err)
}

// checkRegular refuses anything but a regular file with a single link
// (unless hard links are allowed).
func (tb *Toolbox) checkRegular(p string, fi os.FileInfo) error {
	switch {
	case fi.IsDir():
		return fmt.Errorf("path %q: is a directory", p)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("path %q: not a regular file (%s)", p, fi.Mode().Type())
	case !tb.opts.AllowHardLinks && linkCount(fi) > 1:
		return fmt.Errorf("path %q: file has %d hard links; refusing to use it because a hard link may lead outside the project root", p, linkCount(fi))
	}
	return nil
}

// openFile is a file of the root opened for reading by openRead. What is
// read from it may be used only after verify returns nil.
type openFile struct {
	*os.File
	p     string
	info  os.FileInfo
	watch *linkWatch // nil when Options.AllowHardLinks is set
}

// openRead opens p (already cleaned) for reading and checks that it is a
// regular file with a single link, named by p. Reading through a hard link
// races with the process that made it: it can remove the link inside the
// root right after the open, leaving the descriptor on a file outside with
// a link count of 1. So the checks come after a watch on the opened inode
// begins, and verify, after the read, refuses the content if the inode's
// links or name changed meanwhile:
//
//  1. open p (os.Root confines the path; links out of the root are refused)
//  2. start watching the inode of the descriptor (linkWatch)
//  3. fstat the descriptor: a regular file with link count 1
//  4. stat p again: it names the same inode
//  5. read
//  6. verify: no link-count or rename event since 2
//
// Why it holds: a file outside the root keeps its outside name (the tools'
// adversary writes inside the root only), so while an inside name refers to
// it, its link count is at least 2. Step 3 saw a count of 1 and step 4 an
// inside name, both after the watch began: between them a link was made,
// which changes the link count and is an event step 6 sees. With no event,
// the count was 1 from step 2 to step 6 and the one name was p, inside the
// root, for the whole read. Without a watch on this platform
// (linkWatchSupported false), steps 3 and 4 remain, which narrows the race
// but does not close it.
func (tb *Toolbox) openRead(p string) (*openFile, error) {
	f, err := tb.root.OpenFile(osPath(p), os.O_RDONLY|extraOpenFlags, 0)
	if err != nil {
		return nil, pathError(p, err)
	}
	of := &openFile{File: f, p: p}
	if !tb.opts.AllowHardLinks {
		if of.watch, err = tb.links.watch(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("path %q: cannot watch the file for hard-link changes: %w", p, err)
		}
	}
	if err := of.check(tb); err != nil {
		of.Close()
		return nil, err
	}
	return of, nil
}

// check is steps 3 and 4 of openRead.
func (of *openFile) check(tb *Toolbox) error {
	fi, err := of.Stat()
	if err != nil {
		return pathError(of.p, err)
	}
	if err := tb.checkRegular(of.p, fi); err != nil {
		return err
	}
	of.info = fi
	if of.watch == nil {
		return nil
	}
	named, err := tb.root.Stat(osPath(of.p))
	if err != nil || !os.SameFile(fi, named) {
		return fmt.Errorf("path %q: the file was replaced while it was opened; refusing it because a hard link may lead outside the project root (try again)", of.p)
	}
	return nil
}

// verify is step 6 of openRead: it returns an error if the file's links or
// name changed since it was opened, and must be called after reading and
// before the content is used.
func (of *openFile) verify() error {
	w := of.watch
	if w == nil {
		return nil
	}
	of.watch = nil
	changed, err := w.changed()
	switch {
	case err != nil:
		return fmt.Errorf("path %q: cannot check the file for hard-link changes: %w", of.p, err)
	case changed:
		return fmt.Errorf("path %q: the file's hard links or name changed while it was read; refusing its content because a hard link may lead outside the project root", of.p)
	}
	return nil
}

// Close closes the file and ends its watch.
func (of *openFile) Close() error {
	if of.watch != nil {
		_, _ = of.watch.changed()
		of.watch = nil
	}
	return of.File.Close()
}

// withFd calls fn with the descriptor of f without changing its mode
// (unlike os.File.Fd).
func withFd(f *os.File, fn func(fd uintptr)) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(fn)
}

// checkWritable refuses to replace anything but a regular file: a
// directory, a special file, or a symbolic link, which a write would
// replace rather than follow.
func (tb *Toolbox) checkWritable(p string, fi os.FileInfo) error {
	if fi.Mode()&os.ModeSymlink != 0 {
		target, err := tb.root.Readlink(osPath(p))
		if err != nil {
			target = "?"
		}
		return fmt.Errorf("path %q: is a symbolic link (to %q); write the file it points to instead", p, target)
	}
	switch {
	case fi.IsDir():
		return fmt.Errorf("path %q: is a directory", p)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("path %q: not a regular file (%s)", p, fi.Mode().Type())
	}
	return nil
}
