package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// lineEditor reads one line at a time from a terminal in raw mode, with no
// limit on its length: typed or pasted text of any size arrives whole
// (golang.org/x/term's Terminal drops what follows 4096 bytes). It edits
// as readline does: arrows, Home/End, Ctrl-A/E/B/F/K/U/W/D/L, history with
// Up/Down or Ctrl-P/N, and bracketed paste, whose newlines stay in the
// line. A line wider than the terminal wraps; the editor tracks the rows.
type lineEditor struct {
	in    io.Reader
	out   io.Writer
	width func() int // the terminal's columns
	hist  *lineHistory

	pending []byte // read but not yet decoded
	rbuf    [4096]byte
	eof     bool

	prompt  []rune
	buf     []rune // the line being edited
	pos     int    // the cursor, an index into buf
	curRow  int    // the cursor's row below the prompt's, as last drawn
	tail    cursor // the cursor after the whole line
	pasting bool
	lastCR  bool   // the last key was a carriage return
	histIdx int    // -1: editing a new line, else the history entry shown
	draft   []rune // the new line, kept while browsing the history
}

// errInterrupted is returned by readLine on Ctrl-C.
var errInterrupted = fmt.Errorf("interrupted")

// Escape sequences for bracketed paste (xterm's mode 2004).
var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// readLine shows prompt and returns the line entered, io.EOF on Ctrl-D at
// an empty line, or errInterrupted on Ctrl-C.
func (e *lineEditor) readLine(prompt string) (string, error) {
	e.prompt, e.buf, e.pos, e.curRow, e.pasting, e.histIdx, e.draft = []rune(prompt), e.buf[:0], 0, 0, false, -1, nil
	e.tail = e.layout(len(e.prompt))
	e.write(prompt)
	for {
		k, err := e.next()
		if err != nil {
			if len(e.buf) > 0 && err == io.EOF {
				return e.submit(), nil
			}
			return "", err
		}
		lastCR := e.lastCR
		e.lastCR = k.r == '\r'
		switch {
		case k.paste != 0:
			e.pasting = k.paste > 0
		case e.pasting && k.r == '\n' && lastCR:
			// the \n of a pasted \r\n
		case e.pasting && (k.r == '\r' || k.r == '\n'):
			e.insert('\n')
		case e.pasting && k.r >= 0:
			e.insert(k.r)
		case k.r == '\r' || k.r == '\n':
			return e.submit(), nil
		case k.r == 3: // Ctrl-C
			e.moveTo(len(e.buf))
			e.write("^C\r\n")
			return "", errInterrupted
		case k.r == 4: // Ctrl-D: delete, or leave at an empty line
			if len(e.buf) == 0 {
				e.write("\r\n")
				return "", io.EOF
			}
			e.deleteRange(e.pos, e.pos+1)
		case k.r == 1 || k.key == keyHome:
			e.moveTo(0)
		case k.r == 5 || k.key == keyEnd:
			e.moveTo(len(e.buf))
		case k.r == 2 || k.key == keyLeft:
			e.moveTo(e.pos - 1)
		case k.r == 6 || k.key == keyRight:
			e.moveTo(e.pos + 1)
		case k.r == 0x7f || k.r == 8:
			e.deleteRange(e.pos-1, e.pos)
		case k.key == keyDelete:
			e.deleteRange(e.pos, e.pos+1)
		case k.r == 0x0b: // Ctrl-K
			e.deleteRange(e.pos, len(e.buf))
		case k.r == 0x15: // Ctrl-U
			e.deleteRange(0, e.pos)
		case k.r == 0x17: // Ctrl-W
			i := e.pos
			for i > 0 && e.buf[i-1] == ' ' {
				i--
			}
			for i > 0 && e.buf[i-1] != ' ' {
				i--
			}
			e.deleteRange(i, e.pos)
		case k.r == 0x0c: // Ctrl-L
			e.write("\x1b[H\x1b[2J")
			e.curRow = 0
			e.refresh()
		case k.r == 0x10 || k.key == keyUp:
			e.browse(+1)
		case k.r == 0x0e || k.key == keyDown:
			e.browse(-1)
		case k.r == '\t':
			e.insert('\t')
		case k.r >= 0x20 && k.r != 0x7f:
			e.insert(k.r)
		}
	}
}

// submit ends the line: the cursor goes below it and the line joins the
// history.
func (e *lineEditor) submit() string {
	e.moveTo(len(e.buf))
	e.write("\r\n")
	s := string(e.buf)
	if e.hist != nil && !strings.Contains(s, "\n") {
		e.hist.Add(s)
	}
	return s
}

func (e *lineEditor) write(s string) { io.WriteString(e.out, s) }

// drawn is how a rune is drawn: control characters (a pasted tab) as
// one space, so each rune takes one column.
func drawn(r rune) rune {
	if r < 0x20 && r != '\n' {
		return ' '
	}
	return r
}

// cursor is where the terminal draws the next rune, with its deferred
// wrap: a row filled to the last column wraps only when the next rune
// comes, and a newline there starts just one new row.
type cursor struct {
	row, col int
	wrap     bool // the row is full; the next rune starts a new one
}

// advance moves past r on a terminal w columns wide.
func (c *cursor) advance(r rune, w int) {
	switch {
	case r == '\n':
		c.row, c.col, c.wrap = c.row+1, 0, false
	case c.wrap:
		c.row, c.col, c.wrap = c.row+1, 1, false
	default:
		c.col++
	}
	if c.col == w {
		c.wrap = true
	}
}

// at is the row and column the next rune goes to.
func (c cursor) at() (row, col int) {
	if c.wrap {
		return c.row + 1, 0
	}
	return c.row, c.col
}

// layout returns the cursor after the first n runes of prompt+buf.
func (e *lineEditor) layout(n int) cursor {
	w := max(e.width(), 1)
	var c cursor
	for i := 0; i < n; i++ {
		if i < len(e.prompt) {
			c.advance(e.prompt[i], w)
		} else {
			c.advance(e.buf[i-len(e.prompt)], w)
		}
	}
	return c
}

// refresh redraws the line from the prompt on and puts the cursor at pos.
func (e *lineEditor) refresh() {
	var b strings.Builder
	if e.curRow > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", e.curRow)
	}
	b.WriteString("\r\x1b[J")
	b.WriteString(string(e.prompt))
	for _, r := range e.buf {
		if r == '\n' {
			b.WriteString("\r\n")
		} else {
			b.WriteRune(drawn(r))
		}
	}
	e.tail = e.layout(len(e.prompt) + len(e.buf))
	endRow, _ := e.tail.at()
	if e.tail.wrap {
		b.WriteString("\r\n") // leave the deferred wrap, so the terminal's cursor is where at says
	}
	row, col := e.layout(len(e.prompt) + e.pos).at()
	if endRow > row {
		fmt.Fprintf(&b, "\x1b[%dA", endRow-row)
	}
	b.WriteString("\r")
	if col > 0 {
		fmt.Fprintf(&b, "\x1b[%dC", col)
	}
	e.curRow = row
	e.write(b.String())
}

// insert puts r at the cursor. Typing at the end of the line (and every
// paste) writes just the rune.
func (e *lineEditor) insert(r rune) {
	if e.pos < len(e.buf) {
		e.buf = append(e.buf[:e.pos], append([]rune{r}, e.buf[e.pos:]...)...)
		e.pos++
		e.refresh()
		return
	}
	e.buf = append(e.buf, r)
	e.pos++
	e.tail.advance(r, max(e.width(), 1))
	if r == '\n' {
		e.write("\r\n")
	} else {
		e.write(string(drawn(r)))
	}
	if e.tail.wrap {
		e.write("\r\n")
	}
	e.curRow, _ = e.tail.at()
}

func (e *lineEditor) deleteRange(from, to int) {
	from, to = max(from, 0), min(to, len(e.buf))
	if from >= to {
		return
	}
	e.buf = append(e.buf[:from], e.buf[to:]...)
	e.pos = from
	e.refresh()
}

func (e *lineEditor) moveTo(pos int) {
	pos = max(0, min(pos, len(e.buf)))
	if pos == e.pos {
		return
	}
	e.pos = pos
	e.refresh()
}

// browse shows the next older (+1) or newer (-1) history entry.
func (e *lineEditor) browse(dir int) {
	if e.hist == nil {
		return
	}
	idx := e.histIdx + dir
	if idx < -1 || idx >= e.hist.Len() {
		return
	}
	if e.histIdx == -1 {
		e.draft = append([]rune(nil), e.buf...)
	}
	e.histIdx = idx
	if idx == -1 {
		e.buf = append(e.buf[:0], e.draft...)
	} else {
		e.buf = append(e.buf[:0], []rune(e.hist.At(idx))...)
	}
	e.pos = len(e.buf)
	e.refresh()
}

// Keys that arrive as escape sequences.
const (
	keyNone = iota
	keyUp
	keyDown
	keyRight
	keyLeft
	keyHome
	keyEnd
	keyDelete
)

// key is one decoded input: a rune (r >= 0), a special key, or the start
// (paste 1) or end (paste -1) of a bracketed paste.
type key struct {
	r     rune
	key   int
	paste int
}

// next decodes the next key, reading more input when a rune or an escape
// sequence is cut short.
func (e *lineEditor) next() (key, error) {
	for {
		if k, n, ok := decodeKey(e.pending, e.pasting, e.eof); ok {
			e.pending = e.pending[n:]
			return k, nil
		}
		if e.eof {
			return key{}, io.EOF
		}
		tail := bytes.Clone(e.pending) // a cut-off key, at most a few bytes; rbuf is reused below
		n, err := e.in.Read(e.rbuf[:])
		if len(tail) == 0 {
			e.pending = e.rbuf[:n:n]
		} else {
			e.pending = append(tail, e.rbuf[:n]...)
		}
		if err != nil {
			if err != io.EOF {
				return key{}, err
			}
			e.eof = true
		}
	}
}

// decodeKey decodes the first key of b, reporting how many bytes it took;
// ok is false when b holds only the start of one (at EOF the start is
// taken as it is).
func decodeKey(b []byte, pasting, eof bool) (k key, n int, ok bool) {
	if len(b) == 0 {
		return key{}, 0, false
	}
	if b[0] != 0x1b {
		if !utf8.FullRune(b) && !eof {
			return key{}, 0, false
		}
		r, size := utf8.DecodeRune(b)
		return key{r: r}, size, true
	}
	if bytes.HasPrefix(b, pasteEnd) {
		return key{r: -1, paste: -1}, len(pasteEnd), true
	}
	if pasting {
		if bytes.HasPrefix(pasteEnd, b) && !eof {
			return key{}, 0, false // maybe the end of the paste, cut short
		}
		return key{r: 0x1b}, 1, true // an escape inside pasted text: kept as a byte
	}
	if bytes.HasPrefix(b, pasteStart) {
		return key{r: -1, paste: 1}, len(pasteStart), true
	}
	if len(b) < 2 {
		if eof {
			return key{r: -1}, 1, true
		}
		return key{}, 0, false
	}
	if b[1] != '[' && b[1] != 'O' {
		return key{r: -1}, 2, true // Alt-key: ignored
	}
	// CSI or SS3: parameters, then a final byte in 0x40–0x7e.
	for i := 2; i < len(b); i++ {
		c := b[i]
		if c < 0x40 || c > 0x7e {
			continue
		}
		k = key{r: -1}
		switch seq := string(b[2:i]); c {
		case 'A':
			k.key = keyUp
		case 'B':
			k.key = keyDown
		case 'C':
			k.key = keyRight
		case 'D':
			k.key = keyLeft
		case 'H':
			k.key = keyHome
		case 'F':
			k.key = keyEnd
		case '~':
			switch seq {
			case "1", "7":
				k.key = keyHome
			case "4", "8":
				k.key = keyEnd
			case "3":
				k.key = keyDelete
			}
		}
		return k, i + 1, true
	}
	if eof || len(b) > 32 {
		return key{r: -1}, len(b), true // a sequence that never ends: dropped
	}
	return key{}, 0, false
}
