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

// openFile is a file of the root opened for reading by openRead.
type openFile struct {
	*os.File
	p    string
	info os.FileInfo
}

// openRead opens p (already cleaned) for reading and checks that it is a
// regular file with a single link (unless Options.AllowHardLinks), with
// openSingle, which closes the race with a process that removes the link
// right after the open (see there).
func (tb *Toolbox) openRead(p string) (*openFile, error) {
	if !tb.opts.AllowHardLinks {
		return tb.openSingle(p)
	}
	f, err := tb.root.OpenFile(osPath(p), os.O_RDONLY|extraOpenFlags, 0)
	if err != nil {
		return nil, pathError(p, err)
	}
	of := &openFile{File: f, p: p}
	if err := of.check(tb); err != nil {
		f.Close()
		return nil, err
	}
	return of, nil
}

// check fstats the open file and refuses anything but a regular file with
// a single link (unless hard links are allowed).
func (of *openFile) check(tb *Toolbox) error {
	fi, err := of.Stat()
	if err != nil {
		return pathError(of.p, err)
	}
	if err := tb.checkRegular(of.p, fi); err != nil {
		return err
	}
	of.info = fi
	return nil
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
