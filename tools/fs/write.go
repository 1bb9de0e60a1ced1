package fs

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// NewFileInput is the argument of NewFile.
type NewFileInput struct {
	Path      string `json:"path" description:"File to create, relative to the project root"`
	Content   string `json:"content" description:"Full content of the file"`
	Overwrite bool   `json:"overwrite,omitempty" description:"Replace the file if it already exists"`
}

// EditFileInput is the argument of EditFile.
type EditFileInput struct {
	Path       string `json:"path" description:"File to edit, relative to the project root"`
	OldText    string `json:"old_text" description:"Exact text to replace, including whitespace and indentation"`
	NewText    string `json:"new_text" description:"Text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" description:"Replace every occurrence instead of requiring exactly one"`
}

// DeleteFileInput is the argument of DeleteFile.
type DeleteFileInput struct {
	Path string `json:"path" description:"File to delete, relative to the project root"`
}

var errReadOnly = errors.New("the file tools are read-only")

// NewFile creates a file with the given content, creating missing parent
// directories. An existing file is an error unless Overwrite is set; then
// the file is replaced (a new file renamed over it), never written in
// place, so other hard links to it keep the old content, and a symbolic
// link is refused rather than followed.
func (tb *Toolbox) NewFile(ctx context.Context, in NewFileInput) (string, error) {
	if tb.opts.ReadOnly {
		return "", errReadOnly
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	p, err := cleanPath(in.Path)
	if err != nil {
		return "", err
	}
	if p == "." {
		return "", fmt.Errorf("path %q: is the project root, not a file", in.Path)
	}
	if int64(len(in.Content)) > tb.opts.MaxWriteBytes {
		return "", fmt.Errorf("content is %d bytes, over the %d-byte write limit", len(in.Content), tb.opts.MaxWriteBytes)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if dir := path.Dir(p); dir != "." {
		if err := tb.root.MkdirAll(osPath(dir), 0o755); err != nil {
			return "", pathError(dir, err)
		}
	}
	data := []byte(in.Content)
	fi, err := tb.root.Lstat(osPath(p))
	switch {
	case errors.Is(err, os.ErrNotExist):
		err = tb.createFile(p, data)
		if errors.Is(err, os.ErrExist) && in.Overwrite {
			// Created meanwhile by someone else: replace it as below.
			err = tb.replaceFile(p, data, 0o644)
		}
	case err != nil:
		return "", pathError(p, err)
	case !in.Overwrite:
		return "", fmt.Errorf("path %q: file already exists; set overwrite to replace it, or use EditFile", p)
	default:
		if err := tb.checkWritable(p, fi); err != nil {
			return "", err
		}
		err = tb.replaceFile(p, data, fi.Mode().Perm())
	}
	if errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("path %q: file already exists; set overwrite to replace it, or use EditFile", p)
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("wrote %s (%d bytes)", p, len(in.Content)), nil
}

// createFile creates p, which must not exist, with data. O_EXCL makes the
// open fail rather than follow a link or open a file someone else put
// there, so the descriptor is on a new inode of the root.
func (tb *Toolbox) createFile(p string, data []byte) error {
	f, err := tb.root.OpenFile(osPath(p), os.O_WRONLY|os.O_CREATE|os.O_EXCL|extraOpenFlags, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return err
		}
		return pathError(p, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return pathError(p, err)
	}
	return nil
}

// maxTempTries bounds the attempts to find an unused temporary name.
const maxTempTries = 8

// replaceFile replaces the file at p with a new one holding data, with mode
// perm: it writes a temporary file in p's directory and renames it over p.
// The inode p named before is never opened for writing, so when p was a
// hard link to a file outside the root, that file keeps its content and
// modification time; only the name inside the root changes.
func (tb *Toolbox) replaceFile(p string, data []byte, perm os.FileMode) error {
	dir := path.Dir(p)
	var f *os.File
	var tmp string
	for try := 0; ; try++ {
		tmp = path.Join(dir, ".litert-"+rand.Text()[:16]+".tmp")
		var err error
		f, err = tb.root.OpenFile(osPath(tmp), os.O_WRONLY|os.O_CREATE|os.O_EXCL|extraOpenFlags, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) || try == maxTempTries {
			return pathError(tmp, err)
		}
	}
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = tb.root.Rename(osPath(tmp), osPath(p))
	}
	if err != nil {
		_ = tb.root.Remove(osPath(tmp))
		return pathError(p, err)
	}
	return nil
}

// EditFile replaces OldText with NewText in a file. OldText must occur
// exactly once unless ReplaceAll is set; the error says how often it occurs
// otherwise. The edited text replaces the file as NewFile does, keeping
// its mode.
func (tb *Toolbox) EditFile(ctx context.Context, in EditFileInput) (string, error) {
	if tb.opts.ReadOnly {
		return "", errReadOnly
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	p, err := cleanPath(in.Path)
	if err != nil {
		return "", err
	}
	switch {
	case in.OldText == "":
		return "", fmt.Errorf("old_text is empty; give the exact text to replace (use NewFile to write a whole file)")
	case in.OldText == in.NewText:
		return "", fmt.Errorf("old_text and new_text are identical; nothing to change")
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	fi, err := tb.root.Lstat(osPath(p))
	if err != nil {
		return "", pathError(p, err)
	}
	if err := tb.checkWritable(p, fi); err != nil {
		return "", err
	}
	f, err := tb.openRead(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := tb.readForEdit(f)
	if err != nil {
		return "", err
	}
	text := string(data)
	n := strings.Count(text, in.OldText)
	switch {
	case n == 0:
		return "", fmt.Errorf("path %q: old_text not found; it must match the file exactly, including whitespace (read the file again to check)", p)
	case n > 1 && !in.ReplaceAll:
		return "", fmt.Errorf("path %q: old_text occurs %d times; include more surrounding text to make it unique, or set replace_all", p, n)
	}
	text = strings.ReplaceAll(text, in.OldText, in.NewText)
	if int64(len(text)) > tb.opts.MaxWriteBytes {
		return "", fmt.Errorf("path %q: edited file would be %d bytes, over the %d-byte write limit", p, len(text), tb.opts.MaxWriteBytes)
	}
	if err := tb.replaceFile(p, []byte(text), f.info.Mode().Perm()); err != nil {
		return "", err
	}
	if n == 1 {
		return fmt.Sprintf("replaced 1 occurrence in %s", p), nil
	}
	return fmt.Sprintf("replaced %d occurrences in %s", n, p), nil
}

// readForEdit reads the text of a file EditFile edits.
func (tb *Toolbox) readForEdit(f *openFile) ([]byte, error) {
	if f.info.Size() > tb.opts.MaxWriteBytes {
		return nil, fmt.Errorf("path %q: file is %d bytes, over the %d-byte edit limit", f.p, f.info.Size(), tb.opts.MaxWriteBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, tb.opts.MaxWriteBytes+1))
	if err != nil {
		return nil, pathError(f.p, err)
	}
	if err := checkText(f.p, data); err != nil {
		return nil, err
	}
	return data, nil
}

// DeleteFile deletes a file. Directories are refused; a symbolic link is
// removed itself, never its target.
func (tb *Toolbox) DeleteFile(ctx context.Context, in DeleteFileInput) (string, error) {
	if tb.opts.ReadOnly {
		return "", errReadOnly
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	p, err := cleanPath(in.Path)
	if err != nil {
		return "", err
	}
	if p == "." {
		return "", fmt.Errorf("path %q: is the project root, not a file", in.Path)
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	fi, err := tb.root.Lstat(osPath(p))
	if err != nil {
		return "", pathError(p, err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("path %q: is a directory; DeleteFile deletes files only", p)
	}
	if err := tb.root.Remove(osPath(p)); err != nil {
		return "", pathError(p, err)
	}
	return fmt.Sprintf("deleted %s", p), nil
}
