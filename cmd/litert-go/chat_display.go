package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/litert-go/litert-go/conversation"
)

// textDisplay streams a turn as text: the reply to out, tool activity to
// tools (the terminal, or stderr in pipe mode).
type textDisplay struct {
	out, tools io.Writer
	tty        bool
	thinking   bool // inside reasoning text
	atLineEnd  bool // the last thing written to out ended a line
	wrote      bool
	answering  bool // the answer's first visible text was written
}

func newTextDisplay(out, tools io.Writer, tty bool) *textDisplay {
	return &textDisplay{out: out, tools: tools, tty: tty, atLineEnd: true}
}

func (d *textDisplay) write(s string) {
	if s == "" {
		return
	}
	fmt.Fprint(d.out, s)
	d.atLineEnd = strings.HasSuffix(s, "\n")
	d.wrote = true
}

func (d *textDisplay) endThinking() {
	if d.thinking {
		d.thinking = false
		if d.tty {
			d.write("\x1b[0m")
		}
		d.write("\n")
	}
}

func (d *textDisplay) reasoning(s string) {
	if !d.tty {
		return // pipe mode prints answers only
	}
	if !d.thinking {
		d.thinking = true
		d.write("\x1b[2m")
	}
	d.write(s)
}

func (d *textDisplay) text(s string) {
	d.endThinking()
	if !d.answering {
		s = strings.TrimLeft(s, " \t\r\n")
		d.answering = s != ""
	}
	d.write(s)
}

// toolLine writes a line of tool activity, ending the reply's line first.
func (d *textDisplay) toolLine(s string) {
	d.endThinking()
	if d.tools == d.out && !d.atLineEnd {
		d.write("\n")
	}
	if d.tty {
		s = "\x1b[36m" + s + "\x1b[0m"
	}
	fmt.Fprintln(d.tools, s)
	if d.tools == d.out {
		d.atLineEnd = true
	}
	d.answering = false // the next reply starts a new answer
}

func (d *textDisplay) toolCall(call conversation.ToolCall) {
	d.toolLine(fmt.Sprintf("→ %s %s", call.Name, oneLine(string(call.Arguments), 300)))
}

func (d *textDisplay) toolResult(rec toolRecord) {
	if rec.Error != "" {
		d.toolLine(fmt.Sprintf("← %s failed: %s", rec.Name, oneLine(rec.Error, 300)))
		return
	}
	d.toolLine(fmt.Sprintf("← %s: %s", rec.Name, summarizeResult(rec.Result)))
}

func (d *textDisplay) malformed(err error) {
	d.toolLine("✗ " + oneLine(err.Error(), 300))
}

func (d *textDisplay) done(res *turnResult) {
	d.endThinking()
	if !d.atLineEnd || !d.wrote {
		d.write("\n")
	}
	if d.tty {
		d.write(dim(res.Usage.speedLine()) + "\n")
	}
}

// summarizeResult shortens a tool's JSON result for display: a string's
// first line and its line count, or the compact JSON cut short.
func summarizeResult(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		lines := strings.Count(strings.TrimRight(s, "\n"), "\n") + 1
		first, _, _ := strings.Cut(s, "\n")
		if lines > 1 {
			return fmt.Sprintf("%s (%d lines)", oneLine(first, 160), lines)
		}
		return oneLine(first, 200)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return oneLine(string(raw), 200)
	}
	return oneLine(buf.String(), 200)
}

// oneLine puts s on one line, at most n runes long.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// jsonDisplay prints each turn as one JSON line when it is done.
type jsonDisplay struct{ w io.Writer }

func (*jsonDisplay) text(string)                    {}
func (*jsonDisplay) reasoning(string)               {}
func (*jsonDisplay) toolCall(conversation.ToolCall) {}
func (*jsonDisplay) toolResult(toolRecord)          {}
func (*jsonDisplay) malformed(error)                {}
func (d *jsonDisplay) done(res *turnResult)         { writeJSONLine(d.w, res) }

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(w, "{\"error\":%q}\n", err.Error())
		return
	}
	w.Write(buf.Bytes())
}

// lineReader reads lines of any length.
type lineReader struct{ r *bufio.Reader }

func newLineReader(r io.Reader) *lineReader { return &lineReader{bufio.NewReader(r)} }

// next returns the next line without its line ending, or io.EOF.
func (l *lineReader) next() (string, error) {
	line, err := l.r.ReadString('\n')
	if err == io.EOF && line != "" {
		err = nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
