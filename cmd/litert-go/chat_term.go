package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
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

	r := &replInput{fd: int(in.Fd()), ed: &lineEditor{in: in, out: sio.out, hist: &lineHistory{}, width: func() int {
		w, _, err := term.GetSize(int(in.Fd()))
		if err != nil || w <= 0 {
			return 80
		}
		return w
	}}}
	for ctx.Err() == nil {
		input, err := r.read()
		if errors.Is(err, errInterrupted) {
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		switch strings.TrimSpace(input) {
		case "":
			continue
		case "exit", "quit": // as in ollama and python; "//exit" sends the word
			return nil
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
			fmt.Fprintln(sio.out, dim("\n[stopped] (the partial reply stays in the history)"))
		case err != nil:
			fmt.Fprintf(sio.out, "\x1b[31merror: %v\x1b[0m\n", err)
		}
		if quit {
			break
		}
	}
	return nil
}

// replInput reads user input from the terminal: a line, lines joined by a
// trailing backslash, or a """ block.
type replInput struct {
	fd int
	ed *lineEditor
}

// readLine reads one line in raw mode, with bracketed paste on.
func (r *replInput) readLine(prompt string) (string, error) {
	old, err := term.MakeRaw(r.fd)
	if err != nil {
		return "", fmt.Errorf("terminal: %w", err)
	}
	r.ed.write("\x1b[?2004h")
	line, err := r.ed.readLine(prompt)
	r.ed.write("\x1b[?2004l")
	_ = term.Restore(r.fd, old)
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

// spinner shows on a terminal that something is under way: the model
// loading, a prefill that takes more than a second.
type spinner struct {
	w     io.Writer
	label string
	on    bool
	delay time.Duration // drawn only once this long has passed
	stop  chan struct{}
	done  chan struct{}
}

// loading starts the spinner (done false) or stops it (done true).
func (s *spinner) loading(done bool) {
	if done {
		s.end()
	} else {
		s.start()
	}
}

// start starts the spinner, if it is on.
func (s *spinner) start() {
	if !s.on {
		return
	}
	s.stop, s.done = make(chan struct{}), make(chan struct{})
	go s.spin()
}

// end stops the spinner and erases it; it may be called more than once.
func (s *spinner) end() {
	if s.stop == nil {
		return
	}
	close(s.stop)
	<-s.done
	s.stop = nil
}

func (s *spinner) spin() {
	defer close(s.done)
	start := time.Now()
	if s.delay > 0 {
		select {
		case <-s.stop:
			return
		case <-time.After(s.delay):
		}
	}
	frames := []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
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
