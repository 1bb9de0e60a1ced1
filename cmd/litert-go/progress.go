package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progressBar draws a one-line bar on a terminal, at most ten times a
// second.
type progressBar struct {
	w     io.Writer
	drawn bool
	last  time.Time
}

// newProgressBar returns a bar drawing on w, or nil when w is not a
// terminal.
func newProgressBar(w io.Writer) *progressBar {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &progressBar{w: w}
}

// draw shows frac (0 to 1) done and a note after the bar; force draws even
// within a tenth of a second of the last drawing (for the final state).
func (b *progressBar) draw(frac float64, note string, force bool) {
	if !force && time.Since(b.last) < 100*time.Millisecond {
		return
	}
	b.last = time.Now()
	const width = 30
	frac = max(0, min(1, frac))
	n := int(frac * width)
	if r := []rune(note); len(r) > 60 {
		note = string(r[:60])
	}
	fmt.Fprintf(b.w, "\r[%s%s] %3.0f%% %s\x1b[K", strings.Repeat("=", n), strings.Repeat(" ", width-n), 100*frac, note)
	b.drawn = true
}

// finish ends the bar's line, if it drew one.
func (b *progressBar) finish() {
	if b.drawn {
		fmt.Fprintln(b.w)
		b.drawn = false
	}
}
