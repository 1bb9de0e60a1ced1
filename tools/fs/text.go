package fs

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// sniffLen is how much of a file is inspected for NUL bytes.
const sniffLen = 8000

// checkText returns an error if data does not look like UTF-8 text.
func checkText(p string, data []byte) error {
	head := data[:min(len(data), sniffLen)]
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return fmt.Errorf("path %q: binary file (NUL byte at offset %d); only text files can be used", p, i)
	}
	if !utf8.Valid(data) {
		return fmt.Errorf("path %q: not valid UTF-8 text", p)
	}
	return nil
}

// looksBinary reports whether the start of data contains a NUL byte.
func looksBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), sniffLen)], 0) >= 0
}
