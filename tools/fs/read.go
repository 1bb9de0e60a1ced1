package fs

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ReadFileInput is the argument of ReadFile.
type ReadFileInput struct {
	Path      string `json:"path" description:"File to read, relative to the project root"`
	StartLine int    `json:"start_line,omitempty" description:"First line to return, counting from 1 (default 1)"`
	EndLine   int    `json:"end_line,omitempty" description:"Last line to return, inclusive (default: end of file)"`
}

// ReadFile returns the text of a file, or the lines StartLine..EndLine of
// it. A whole file larger than Options.MaxReadBytes, a binary file and a
// file that is not valid UTF-8 are refused with an error saying so.
func (tb *Toolbox) ReadFile(ctx context.Context, in ReadFileInput) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	p, err := cleanPath(in.Path)
	if err != nil {
		return "", err
	}
	if in.StartLine < 0 || in.EndLine < 0 || (in.EndLine > 0 && in.EndLine < in.StartLine) {
		return "", fmt.Errorf("invalid line range %d-%d", in.StartLine, in.EndLine)
	}
	f, err := tb.openRead(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return tb.readOpen(f, in)
}

// readOpen reads what ReadFile returns from f.
func (tb *Toolbox) readOpen(f *openFile, in ReadFileInput) (string, error) {
	p, limit := f.p, tb.opts.MaxReadBytes
	if in.StartLine > 1 || in.EndLine > 0 {
		return readLines(p, f, max(in.StartLine, 1), in.EndLine, limit)
	}
	if f.info.Size() > limit {
		return "", fmt.Errorf("path %q: file is %d bytes, over the %d-byte read limit; read a part with start_line and end_line", p, f.info.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return "", pathError(p, err)
	}
	if int64(len(data)) > limit {
		return "", fmt.Errorf("path %q: file grew over the %d-byte read limit while reading", p, limit)
	}
	if err := checkText(p, data); err != nil {
		return "", err
	}
	return string(data), nil
}

// readLines returns lines start..end (end 0: to the end) of r, at most limit
// bytes of them, with a note when the output was cut. Memory use is bounded
// by limit however long the lines are.
func readLines(p string, r io.Reader, start, end int, limit int64) (string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var out strings.Builder
	done := 0 // complete lines read
	seen := 0 // lines of which something was read
	first := true
	for {
		chunk, err := br.ReadSlice('\n')
		if first && looksBinary(chunk) {
			return "", fmt.Errorf("path %q: binary file; only text files can be used", p)
		}
		first = false
		cur := done + 1
		if len(chunk) > 0 {
			seen = cur
		}
		if len(chunk) > 0 && cur >= start && (end == 0 || cur <= end) {
			if int64(out.Len()+len(chunk)) > limit {
				fmt.Fprintf(&out, "\n[truncated in line %d: output is limited to %d bytes; continue with start_line=%d]", cur, limit, cur)
				break
			}
			out.Write(chunk)
		}
		if len(chunk) > 0 && (chunk[len(chunk)-1] == '\n' || errors.Is(err, io.EOF)) {
			done++
			if end > 0 && done >= end {
				break
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", pathError(p, err)
		}
	}
	if seen < start {
		return "", fmt.Errorf("path %q: start_line %d is past the end of the file (%d lines)", p, start, seen)
	}
	text := out.String()
	if err := checkText(p, []byte(text)); err != nil {
		return "", err
	}
	return text, nil
}
