package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"strings"
)

// ListFilesInput is the argument of ListFiles.
type ListFilesInput struct {
	Path     string `json:"path,omitempty" description:"Directory to list, relative to the project root (default: the root)"`
	MaxDepth int    `json:"max_depth,omitempty" description:"How many directory levels to descend (default: unlimited)"`
}

// errStop ends a walk early.
var errStop = errors.New("stop")

// ListFiles lists the entries under a directory recursively, one per line,
// as paths relative to the root; directories end with "/" and symbolic
// links show their target ("link -> target") and are not followed.
// Directories named in Options.SkipDirs are not descended into. At most
// Options.MaxListEntries entries are listed, then a "[truncated …]" note.
func (tb *Toolbox) ListFiles(ctx context.Context, in ListFilesInput) (string, error) {
	p, err := cleanPath(in.Path)
	if err != nil {
		return "", err
	}
	if in.MaxDepth < 0 {
		return "", fmt.Errorf("max_depth %d is negative", in.MaxDepth)
	}
	fi, err := tb.root.Stat(osPath(p))
	if err != nil {
		return "", pathError(p, err)
	}
	if !fi.IsDir() {
		return p + "\n", nil
	}
	var out strings.Builder
	n, unreadable := 0, 0
	truncated := false
	startDepth := depth(p)
	err = iofs.WalkDir(tb.root.FS(), p, func(name string, d iofs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if name == p {
				return err
			}
			unreadable++
			return nil
		}
		if name == p {
			return nil
		}
		if n >= tb.opts.MaxListEntries {
			truncated = true
			return errStop
		}
		n++
		switch {
		case d.IsDir():
			out.WriteString(name + "/\n")
			if tb.skip[d.Name()] || (in.MaxDepth > 0 && depth(name)-startDepth >= in.MaxDepth) {
				return iofs.SkipDir
			}
		case d.Type()&iofs.ModeSymlink != 0:
			target, lerr := tb.root.Readlink(osPath(name))
			if lerr != nil {
				target = "?"
			}
			fmt.Fprintf(&out, "%s -> %s\n", name, target)
		default:
			out.WriteString(name + "\n")
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return "", pathError(p, err)
	}
	if n == 0 {
		out.WriteString("(empty directory)\n")
	}
	if truncated {
		fmt.Fprintf(&out, "[truncated after %d entries; list a subdirectory or set max_depth to see the rest]\n", n)
	}
	if unreadable > 0 {
		fmt.Fprintf(&out, "[%d entries could not be read]\n", unreadable)
	}
	return out.String(), nil
}

// depth counts the components of a cleaned slash path ("." is 0).
func depth(p string) int {
	if p == "." {
		return 0
	}
	return strings.Count(p, "/") + 1
}
