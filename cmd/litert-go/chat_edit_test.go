package main

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chunkReader returns its input a few bytes per Read, cutting runes and
// escape sequences, as a terminal may.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.b[:min(len(c.b), c.n, len(p))])
	c.b = c.b[n:]
	return n, nil
}

func editLines(t *testing.T, input string, width int) ([]string, []error, string) {
	t.Helper()
	var out bytes.Buffer
	e := &lineEditor{in: &chunkReader{b: []byte(input), n: 3}, out: &out, width: func() int { return width }, hist: &lineHistory{}}
	var lines []string
	var errs []error
	for range 20 {
		line, err := e.readLine(">>> ")
		if errors.Is(err, io.EOF) {
			break
		}
		lines = append(lines, line)
		errs = append(errs, err)
	}
	return lines, errs, out.String()
}

func TestLineEditor(t *testing.T) {
	long := strings.Repeat("0123456789abcdéf", 1280) // 20,480 runes, 21,760 bytes
	lines, errs, _ := editLines(t, long+"\r", 80)
	require.Len(t, lines, 1)
	assert.Len(t, lines[0], len(long))
	assert.True(t, lines[0] == long, "a 20 KB line arrives whole")
	assert.NoError(t, errs[0])

	for _, tc := range []struct{ name, in, want string }{
		{"left and insert", "hello\x1b[D\x1b[DXY\r", "helXYlo"},
		{"home end", "bc\x01a\x05d\r", "abcd"},
		{"ss3 home", "bc\x1bOHa\r", "abc"},
		{"backspace", "abx\x7fc\r", "abc"},
		{"delete key", "abxc\x1b[D\x1b[D\x1b[3~\r", "abc"},
		{"kill to end", "abcdef\x1b[D\x1b[D\x1b[D\x0b\r", "abc"},
		{"kill to start", "xyzabc\x1b[D\x1b[D\x1b[D\x15\r", "abc"},
		{"kill word", "abc def\x17\r", "abc "},
		{"ctrl-d deletes mid-line", "abxc\x1b[D\x1b[D\x04\r", "abc"},
		{"bracketed paste keeps newlines", "\x1b[200~line one\r\nline two\rline three\x1b[201~\r", "line one\nline two\nline three"},
		{"utf-8 cut across reads", "héllo wörld ✓\r", "héllo wörld ✓"},
		{"alt keys are ignored", "a\x1bbc\r", "ac"},
	} {
		lines, errs, _ := editLines(t, tc.in, 40)
		require.Len(t, lines, 1, tc.name)
		assert.Equal(t, tc.want, lines[0], tc.name)
		assert.NoError(t, errs[0], tc.name)
	}

	// History: Up recalls the last line, Down returns to the draft.
	lines, _, _ = editLines(t, "first\rsecond\r\x1b[A\x1b[A\r\x10\x10\x10\x0e\r", 40)
	assert.Equal(t, []string{"first", "second", "first", "second"}, lines)

	// Ctrl-C abandons the line; Ctrl-D at an empty line is EOF.
	lines, errs, out := editLines(t, "half a thought\x03next\r\x04", 40)
	assert.Equal(t, []string{"", "next"}, lines)
	assert.ErrorIs(t, errs[0], errInterrupted)
	assert.Contains(t, out, "half a thought^C\r\n")
}

// TestLineEditorLayout: the cursor arithmetic follows a terminal's
// deferred wrap: a row filled to the last column wraps with the next rune.
func TestLineEditorLayout(t *testing.T) {
	e := &lineEditor{prompt: []rune(">>> "), width: func() int { return 10 }}
	e.buf = []rune("abcdef")
	c := e.layout(10) // ">>> abcdef" fills the row
	assert.Equal(t, cursor{0, 10, true}, c)
	r, col := c.at()
	assert.Equal(t, [2]int{1, 0}, [2]int{r, col})
	e.buf = []rune("abcdef\nxy")
	assert.Equal(t, cursor{1, 2, false}, e.layout(len(e.prompt)+len(e.buf)), "the newline after a full row starts one row")
	e.buf = []rune(strings.Repeat("x", 26))
	assert.Equal(t, cursor{2, 10, true}, e.layout(len(e.prompt)+len(e.buf)))
}
