package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/term"
)

// runChatTerminal is the interactive chat: line editing and history,
// streamed replies, and Ctrl-C that stops the reply, not the program.
func runChatTerminal(ctx context.Context, sio stdio, f *chatFlags) error {
	in := sio.in.(*os.File)
	// Ctrl-C is ours: it cancels the reply being written. The program ends
	// on Ctrl-D, /exit, SIGTERM or SIGHUP, or Ctrl-C while the model loads.
	ctx, cancelAll := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelAll()
	var mu sync.Mutex
	var cancelReply context.CancelFunc
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigc)
	go func() {
		for {
			select {
			case s := <-sigc:
				mu.Lock()
				if s == os.Interrupt && cancelReply != nil {
					cancelReply()
				} else {
					cancelAll()
				}
				mu.Unlock()
			case <-ctx.Done():
				return
			}
		}
	}()

	if err := f.eng.resolve(ctx); err != nil { // a pull shows its own progress
		return err
	}
	sp := &spinner{w: sio.err, label: "loading " + filepath.Base(*f.eng.model), on: isTerminal(sio.err)}
	start := time.Now()
	c, err := newChat(ctx, sio, f, sp.loading)
	if err != nil {
		return err
	}
	defer c.close()
	c.tty = true
	info := c.eng.Info()
	fmt.Fprintln(sio.out, dim(fmt.Sprintf("%s (%s, %s) loaded in %.1fs; context %d tokens, %s backend. /help for commands, Ctrl-D to leave.",
		info.Name, info.Arch, info.Quant, time.Since(start).Seconds(), info.ContextLength, info.Backend)))

	ctrlC := &ctrlCReader{r: in}
	r := &replInput{fd: int(in.Fd()), ctrlC: ctrlC, t: term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{ctrlC, sio.out}, ">>> ")}
	r.t.History = &lineHistory{}
	for ctx.Err() == nil {
		input, err := r.read()
		if errors.Is(err, errInterrupted) {
			fmt.Fprintln(sio.out, "^C")
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if strings.TrimSpace(input) == "" {
			continue
		}
		rctx, cancel := context.WithCancel(ctx)
		mu.Lock()
		cancelReply = cancel
		mu.Unlock()
		quit, err := c.handle(rctx, input)
		mu.Lock()
		cancelReply = nil
		mu.Unlock()
		stopped := rctx.Err() != nil && ctx.Err() == nil
		cancel()
		switch {
		case err != nil && stopped:
			fmt.Fprintln(sio.out, dim("\n[stopped]"))
		case err != nil:
			fmt.Fprintf(sio.out, "\x1b[31merror: %v\x1b[0m\n", err)
		}
		if quit {
			break
		}
	}
	return nil
}

// errInterrupted is returned by replInput.read on Ctrl-C.
var errInterrupted = errors.New("interrupted")

// replInput reads user input from the terminal: a line, lines joined by a
// trailing backslash, or a """ block.
type replInput struct {
	fd    int
	ctrlC *ctrlCReader
	t     *term.Terminal
}

// readLine reads one line in raw mode.
func (r *replInput) readLine(prompt string) (string, error) {
	r.t.SetPrompt(prompt)
	old, err := term.MakeRaw(r.fd)
	if err != nil {
		return "", fmt.Errorf("terminal: %w", err)
	}
	line, err := r.t.ReadLine()
	_ = term.Restore(r.fd, old)
	if r.ctrlC.seen.Swap(false) {
		return "", errInterrupted
	}
	return line, err
}

func (r *replInput) read() (string, error) {
	var lines []string
	block := false
	prompt := ">>> "
	for {
		line, err := r.readLine(prompt)
		if err != nil {
			return "", err
		}
		prompt = "... "
		switch {
		case block:
			if strings.TrimSpace(line) == `"""` {
				return strings.Join(lines, "\n"), nil
			}
			lines = append(lines, line)
		case len(lines) == 0 && strings.HasPrefix(strings.TrimSpace(line), `"""`):
			rest := strings.TrimPrefix(strings.TrimSpace(line), `"""`)
			if strings.HasSuffix(rest, `"""`) && rest != "" {
				return strings.TrimSuffix(rest, `"""`), nil
			}
			block = true
			if rest != "" {
				lines = append(lines, rest)
			}
		case strings.HasSuffix(line, `\`):
			lines = append(lines, strings.TrimSuffix(line, `\`))
		default:
			return strings.Join(append(lines, line), "\n"), nil
		}
	}
}

// ctrlCReader notes Ctrl-C typed at the prompt (in raw mode it is a byte,
// not a signal) and turns it into end-of-line, kill-line, enter: the line
// editor then returns an empty line, which the REPL drops, instead of
// ending the chat as it would on a raw Ctrl-C.
type ctrlCReader struct {
	r       io.Reader
	seen    atomic.Bool
	buf     [256]byte
	pending []byte
}

func (c *ctrlCReader) Read(p []byte) (int, error) {
	if len(c.pending) == 0 {
		n, err := c.r.Read(c.buf[:])
		if n == 0 {
			return 0, err
		}
		chunk := c.buf[:n]
		if bytes.IndexByte(chunk, 3) >= 0 {
			c.seen.Store(true)
			chunk = bytes.ReplaceAll(chunk, []byte{3}, []byte{5, 21, '\r'}) // ^E ^U Enter
		}
		c.pending = chunk
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// lineHistory is the REPL's input history: at most 500 lines, without
// empty lines or repeats of the last one.
type lineHistory struct{ lines []string }

func (h *lineHistory) Add(s string) {
	if strings.TrimSpace(s) == "" || (len(h.lines) > 0 && h.lines[len(h.lines)-1] == s) {
		return
	}
	if len(h.lines) == 500 {
		h.lines = h.lines[1:]
	}
	h.lines = append(h.lines, s)
}

func (h *lineHistory) Len() int { return len(h.lines) }

// At returns the idx-th most recent line (0: the last).
func (h *lineHistory) At(idx int) string { return h.lines[len(h.lines)-1-idx] }

// spinner shows progress on a terminal while the model loads.
type spinner struct {
	w     io.Writer
	label string
	on    bool
	stop  chan struct{}
	done  chan struct{}
}

// loading starts the spinner (done false) or stops it (done true).
func (s *spinner) loading(done bool) {
	if !s.on {
		return
	}
	if !done {
		s.stop, s.done = make(chan struct{}), make(chan struct{})
		go s.spin()
		return
	}
	close(s.stop)
	<-s.done
}

func (s *spinner) spin() {
	defer close(s.done)
	frames := []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		fmt.Fprintf(s.w, "\r%s %c %.1fs", s.label, frames[i%len(frames)], time.Since(start).Seconds())
		select {
		case <-s.stop:
			fmt.Fprint(s.w, "\r\x1b[K")
			return
		case <-tick.C:
		}
	}
}
