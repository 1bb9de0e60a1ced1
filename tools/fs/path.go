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

// openChecked opens p (already cleaned) with flag and checks the file it got
// is a regular, singly-linked file. The check is on the open descriptor, so
// it cannot be raced.
func (tb *Toolbox) openChecked(p string, flag int) (*os.File, os.FileInfo, error) {
	f, err := tb.root.OpenFile(osPath(p), flag|extraOpenFlags, 0o644)
	if err != nil {
		return nil, nil, pathError(p, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, pathError(p, err)
	}
	if err := tb.checkRegular(p, fi); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}
