package fs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/litert-go/litert-go/tools"
)

// DefaultSkipDirs returns the directory names ListFiles and
// FindTextInFiles do not descend into (unless the walk starts there):
// version-control metadata, dependency trees and caches.
func DefaultSkipDirs() []string {
	return []string{
		".git", ".hg", ".svn", ".jj", "node_modules", "__pycache__", ".venv", "venv",
		".tox", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".gradle", ".idea", ".cache",
	}
}

// Options tunes the limits of a Toolbox. Zero values select the defaults.
type Options struct {
	// MaxReadBytes bounds what ReadFile returns (default 256 KiB).
	MaxReadBytes int64
	// MaxWriteBytes bounds the content NewFile and EditFile write (default 4 MiB).
	MaxWriteBytes int64
	// MaxListEntries bounds the entries ListFiles returns (default 500).
	MaxListEntries int
	// MaxMatches bounds the lines FindTextInFiles returns (default 100).
	MaxMatches int
	// MaxSearchFileBytes: larger files are skipped by FindTextInFiles (default 1 MiB).
	MaxSearchFileBytes int64
	// SkipDirs replaces DefaultSkipDirs() when non-nil.
	SkipDirs []string
	// ReadOnly leaves NewFile, EditFile and DeleteFile out of Tools and makes
	// those methods fail.
	ReadOnly bool
	// AllowHardLinks lets the tools read and write files that have more than
	// one hard link. Such a link may have been placed in the root to reach a
	// file outside it, so by default they are refused.
	AllowHardLinks bool
}

func (o Options) withDefaults() Options {
	if o.MaxReadBytes <= 0 {
		o.MaxReadBytes = 256 << 10
	}
	if o.MaxWriteBytes <= 0 {
		o.MaxWriteBytes = 4 << 20
	}
	if o.MaxListEntries <= 0 {
		o.MaxListEntries = 500
	}
	if o.MaxMatches <= 0 {
		o.MaxMatches = 100
	}
	if o.MaxSearchFileBytes <= 0 {
		o.MaxSearchFileBytes = 1 << 20
	}
	if o.SkipDirs == nil {
		o.SkipDirs = DefaultSkipDirs()
	}
	return o
}

// Toolbox holds the file tools for one root directory. It is safe for
// concurrent use; operations that modify files are serialized.
type Toolbox struct {
	root     *os.Root
	rootPath string
	opts     Options
	skip     map[string]bool
	links    *watcher   // watches opened files for hard-link races
	mu       sync.Mutex // serializes NewFile, EditFile and DeleteFile
}

// New opens root (which must be an existing directory) and returns the
// toolbox confined to it. Close releases the directory handle.
func New(root string, opts Options) (*Toolbox, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("fs: root %q: %w", root, err)
	}
	r, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("fs: opening root %q: %w", root, err)
	}
	opts = opts.withDefaults()
	links, err := newWatcher()
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("fs: root %q: cannot watch files for hard-link races: %w", root, err)
	}
	tb := &Toolbox{root: r, rootPath: abs, opts: opts, skip: map[string]bool{}, links: links}
	for _, d := range opts.SkipDirs {
		tb.skip[d] = true
	}
	return tb, nil
}

// Close releases the root directory handle. The tools fail afterwards.
func (tb *Toolbox) Close() error { return errors.Join(tb.root.Close(), tb.links.close()) }

// Root returns the absolute path of the root directory.
func (tb *Toolbox) Root() string { return tb.rootPath }

// Tools returns the file tools, built with tools.Define: ListFiles,
// ReadFile, FindTextInFiles and, unless Options.ReadOnly, NewFile, EditFile
// and DeleteFile.
func (tb *Toolbox) Tools() []*tools.Tool {
	ts := []*tools.Tool{
		tools.Define("ListFiles",
			"List the files and directories under a directory of the project, recursively. "+
				"Paths are relative to the project root; directories end with '/'.",
			tb.ListFiles),
		tools.Define("ReadFile",
			"Read a text file of the project. Use start_line/end_line to read part of a large file.",
			tb.ReadFile),
		tools.Define("FindTextInFiles",
			"Search the project's text files for a literal string or a regular expression; "+
				"returns matching lines as path:line: text.",
			tb.FindTextInFiles),
	}
	if !tb.opts.ReadOnly {
		ts = append(ts,
			tools.Define("NewFile",
				"Create a file with the given content, creating parent directories. "+
					"Fails if the file exists unless overwrite is true.",
				tb.NewFile),
			tools.Define("EditFile",
				"Replace old_text with new_text in a file. old_text must match exactly, including "+
					"whitespace, and occur exactly once unless replace_all is true.",
				tb.EditFile),
			tools.Define("DeleteFile", "Delete a file of the project.", tb.DeleteFile),
		)
	}
	return ts
}
