package fs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"regexp"
	"strings"
	"unicode/utf8"
)

// FindTextInFilesInput is the argument of FindTextInFiles.
type FindTextInFilesInput struct {
	Pattern    string `json:"pattern" description:"Text to search for (a regular expression if regexp is true)"`
	Path       string `json:"path,omitempty" description:"Directory or file to search, relative to the project root (default: the root)"`
	Regexp     bool   `json:"regexp,omitempty" description:"Treat pattern as a regular expression (RE2 syntax)"`
	IgnoreCase bool   `json:"ignore_case,omitempty" description:"Match without regard to letter case"`
}

const (
	maxPatternLen   = 1000
	maxMatchLineLen = 200
)

// FindTextInFiles searches text files under a directory for a literal
// string or an RE2 regular expression and returns matching lines as
// "path:line: text". Binary files, files over Options.MaxSearchFileBytes,
// symbolic links and Options.SkipDirs are skipped. At most
// Options.MaxMatches lines are returned, then a "[truncated …]" note.
func (tb *Toolbox) FindTextInFiles(ctx context.Context, in FindTextInFilesInput) (string, error) {
	if in.Pattern == "" {
		return "", fmt.Errorf("pattern is empty")
	}
	if len(in.Pattern) > maxPatternLen {
		return "", fmt.Errorf("pattern is longer than %d bytes", maxPatternLen)
	}
	expr := in.Pattern
	if !in.Regexp {
		expr = regexp.QuoteMeta(expr)
	}
	if in.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", fmt.Errorf("pattern %q: invalid regular expression: %w", in.Pattern, err)
	}
	p, err := cleanPath(in.Path)
	if err != nil {
		return "", err
	}
	if _, err := tb.root.Stat(osPath(p)); err != nil {
		return "", pathError(p, err)
	}
	s := &search{tb: tb, re: re, literal: !in.Regexp}
	err = iofs.WalkDir(tb.root.FS(), p, func(name string, d iofs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		switch {
		case err != nil:
			if name == p {
				return err
			}
			return nil
		case d.IsDir():
			if name != p && tb.skip[d.Name()] {
				return iofs.SkipDir
			}
			return nil
		case !d.Type().IsRegular():
			return nil
		}
		return s.file(name)
	})
	if err != nil && !errors.Is(err, errStop) {
		return "", pathError(p, err)
	}
	if s.matches == 0 {
		fmt.Fprintf(&s.out, "no matches for %q\n", in.Pattern)
	}
	if s.truncated {
		fmt.Fprintf(&s.out, "[truncated after %d matches; narrow the pattern or the path]\n", s.matches)
	}
	if s.skipped > 0 {
		fmt.Fprintf(&s.out, "[%d large files were not searched]\n", s.skipped)
	}
	return s.out.String(), nil
}

// search is the state of one FindTextInFiles walk.
type search struct {
	tb        *Toolbox
	re        *regexp.Regexp
	literal   bool // a whole-file match is a valid pre-filter
	out       strings.Builder
	matches   int
	skipped   int
	truncated bool
}

// file searches one file; files that cannot be opened or are not text are
// passed over silently.
func (s *search) file(name string) error {
	f, err := s.tb.openRead(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	if f.info.Size() > s.tb.opts.MaxSearchFileBytes {
		s.skipped++
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, s.tb.opts.MaxSearchFileBytes))
	if err != nil || looksBinary(data) || (s.literal && !s.re.Match(data)) {
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for line := 1; sc.Scan(); line++ {
		text := sc.Bytes()
		if !s.re.Match(text) {
			continue
		}
		if s.matches >= s.tb.opts.MaxMatches {
			s.truncated = true
			return errStop
		}
		s.matches++
		fmt.Fprintf(&s.out, "%s:%d: %s\n", name, line, shorten(text))
	}
	return nil
}

// shorten trims a matching line for display.
func shorten(line []byte) string {
	line = bytes.TrimRight(line, "\r")
	if len(line) <= maxMatchLineLen {
		return strings.ToValidUTF8(string(line), "\uFFFD")
	}
	cut := maxMatchLineLen
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return strings.ToValidUTF8(string(line[:cut]), "\uFFFD") + "…"
}
