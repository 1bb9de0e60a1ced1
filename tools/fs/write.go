package fs

import (
	"context"
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
// directories. An existing file is an error unless Overwrite is set.
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
	flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if in.Overwrite {
		// No O_TRUNC: the file is checked (regular, one link) before it is
		// truncated through the same descriptor.
		flag = os.O_WRONLY | os.O_CREATE
	}
	f, _, err := tb.openChecked(p, flag)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("path %q: file already exists; set overwrite to replace it, or use EditFile", p)
		}
		return "", err
	}
	defer f.Close()
	if err := writeAll(f, []byte(in.Content)); err != nil {
		return "", pathError(p, err)
	}
	if err := f.Close(); err != nil {
		return "", pathError(p, err)
	}
	return fmt.Sprintf("wrote %s (%d bytes)", p, len(in.Content)), nil
}

// writeAll replaces the content of f with data.
func writeAll(f *os.File, data []byte) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt(data, 0)
	return err
}

// EditFile replaces OldText with NewText in a file. OldText must occur
// exactly once unless ReplaceAll is set; the error says how often it occurs
// otherwise. The file is read and rewritten through one descriptor.
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
	f, fi, err := tb.openChecked(p, os.O_RDWR)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi.Size() > tb.opts.MaxWriteBytes {
		return "", fmt.Errorf("path %q: file is %d bytes, over the %d-byte edit limit", p, fi.Size(), tb.opts.MaxWriteBytes)
	}
	data, err := io.ReadAll(io.LimitReader(f, tb.opts.MaxWriteBytes+1))
	if err != nil {
		return "", pathError(p, err)
	}
	if err := checkText(p, data); err != nil {
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
	if err := writeAll(f, []byte(text)); err != nil {
		return "", pathError(p, err)
	}
	if err := f.Close(); err != nil {
		return "", pathError(p, err)
	}
	if n == 1 {
		return fmt.Sprintf("replaced 1 occurrence in %s", p), nil
	}
	return fmt.Sprintf("replaced %d occurrences in %s", n, p), nil
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
