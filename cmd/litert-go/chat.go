package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/engine"
	"golang.org/x/term"
)

// chatFlags are the command-line settings of litert-go chat.
type chatFlags struct {
	eng          *engineFlags
	system       string
	tools        string
	root         string
	allow        string
	toolSchema   string
	toolChoice   string
	maxToolTurns int
	parallel     bool
	sampling     *samplerFlags
	maxTokens    int
	jsonSchema   string
	jsonOut      bool
	session      string
	compact      string
	compactAt    float64
	keepTurns    int
	chatTemplate string
}

func parseChatFlags(sio stdio, args []string) (*chatFlags, error) {
	fs := newFlags("chat", sio)
	f := &chatFlags{eng: addEngineFlags(fs)}
	f.eng.addMMProjFlag(fs)
	fs.StringVar(&f.system, "system", "", "system prompt")
	fs.StringVar(&f.tools, "tools", "", "comma-separated tools: fs (all file tools), fs-ro (read-only file tools), a file tool's name (ListFiles, ReadFile, NewFile, EditFile, FindTextInFiles, DeleteFile), or command (see --allow)")
	fs.StringVar(&f.root, "root", ".", "project root the file and command tools are confined to")
	fs.StringVar(&f.allow, "allow", "", "programs the command tool may run, comma-separated (e.g. go,git)")
	fs.StringVar(&f.toolSchema, "tool-schema", "", "JSON file mapping tool names to JSON schemas that replace their declared parameters, narrowing what the model may generate")
	fs.StringVar(&f.toolChoice, "tool-choice", "auto", "auto, none, required, or the name of the tool the first reply must call")
	fs.IntVar(&f.maxToolTurns, "max-tool-turns", 5, "rounds of tool calls per message; then the reply is text")
	fs.BoolVar(&f.parallel, "parallel-tools", true, "allow several tool calls in one reply")
	f.sampling = addSamplerFlags(fs)
	fs.IntVar(&f.maxTokens, "max-tokens", conversation.DefaultMaxTokens, "most tokens of each reply")
	fs.IntVar(&f.maxTokens, "n", conversation.DefaultMaxTokens, "same as --max-tokens")
	fs.StringVar(&f.jsonSchema, "json-schema", "", "JSON schema file the replies must match")
	fs.BoolVar(&f.jsonOut, "json", false, "print each turn as one JSON line (text, tool calls, token counts)")
	fs.StringVar(&f.session, "session", "", "conversation file: loaded at start if it exists, saved after every turn")
	fs.StringVar(&f.compact, "compact", "summarize", "when the history nears the context length: summarize, drop or off")
	fs.Float64Var(&f.compactAt, "compact-at", 0.8, "fraction of the context length that triggers compaction")
	fs.IntVar(&f.keepTurns, "keep-turns", 2, "recent turns kept verbatim when compacting")
	chatTemplate := addChatTemplateFlag(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if f.maxToolTurns < 1 {
		return nil, fmt.Errorf("--max-tool-turns %d: want at least 1", f.maxToolTurns)
	}
	if f.maxTokens < 1 {
		return nil, fmt.Errorf("--max-tokens %d: want at least 1", f.maxTokens)
	}
	if f.compactAt <= 0 || f.compactAt > 1 {
		return nil, fmt.Errorf("--compact-at %g: want a fraction in (0, 1]", f.compactAt)
	}
	var err error
	if f.chatTemplate, err = readChatTemplate(*chatTemplate); err != nil {
		return nil, err
	}
	return f, nil
}

// runChat is litert-go chat: an interactive chat when stdin is a terminal,
// else one reply per input line.
func runChat(ctx context.Context, sio stdio, args []string) error {
	f, err := parseChatFlags(sio, args)
	if err != nil {
		return err
	}
	tty := isTerminal(sio.in)
	if tty {
		return runChatTerminal(ctx, sio, f)
	}
	c, err := newChat(ctx, sio, f, nil)
	if err != nil {
		return err
	}
	defer c.close()
	return c.pipe(ctx)
}

// chat is one chat session: the engine, the conversation and its settings.
type chat struct {
	sio      stdio
	flags    *chatFlags
	eng      *engine.Engine
	conv     *conversation.Conversation
	cfg      conversation.Config
	tools    *toolbelt
	grammar  *constrain.Grammar
	compact  *conversation.CompactPolicy
	tty      bool
	last     turnResult // the last successful turn
	total    usageTotals
	attached []conversation.Part // media for the next message (/image, /audio)
	closeFns []func()
}

// usageTotals counts a session's tokens and times.
type usageTotals struct {
	turns                      int
	prompt, cached, completion int
	prefillTime, decodeTime    time.Duration
}

// newChat opens the model and builds the conversation. loading, if not
// nil, is told when the model starts and ends loading.
func newChat(ctx context.Context, sio stdio, f *chatFlags, loading func(done bool)) (*chat, error) {
	c := &chat{sio: sio, flags: f}
	ok := false
	defer func() {
		if !ok {
			c.close()
		}
	}()
	sampler := f.sampling.sampler()
	if err := sampler.Validate(); err != nil {
		return nil, err
	}
	var err error
	if c.tools, err = newToolbelt(f); err != nil {
		return nil, err
	}
	if c.tools != nil {
		c.closeFns = append(c.closeFns, c.tools.close)
	}
	if f.jsonSchema != "" {
		if c.tools != nil {
			return nil, errors.New("--json-schema cannot be combined with --tools: the reply grammar would forbid tool calls")
		}
		b, err := os.ReadFile(f.jsonSchema)
		if err != nil {
			return nil, fmt.Errorf("--json-schema: %w", err)
		}
		if c.grammar, err = constrain.JSONSchema(b); err != nil {
			return nil, fmt.Errorf("--json-schema %s: %w", f.jsonSchema, err)
		}
	}
	if f.toolChoice != "auto" && c.tools == nil {
		return nil, fmt.Errorf("--tool-choice %s needs --tools", f.toolChoice)
	}
	if c.tools != nil {
		if err := c.tools.checkChoice(f.toolChoice); err != nil {
			return nil, err
		}
	}
	switch f.compact {
	case "off":
	default:
		mode, err := conversation.ParseCompactMode(f.compact)
		if err != nil {
			return nil, fmt.Errorf("--compact: %w", err)
		}
		c.compact = &conversation.CompactPolicy{Mode: mode, Threshold: f.compactAt, KeepTurns: f.keepTurns}
	}

	if loading != nil {
		loading(false)
	}
	c.eng, err = f.eng.open(ctx)
	if loading != nil {
		loading(true)
	}
	if err != nil {
		return nil, err
	}
	c.closeFns = append(c.closeFns, func() { c.eng.Close() })

	c.cfg = conversation.Config{Sampler: sampler, MaxTokens: f.maxTokens, ChatTemplate: f.chatTemplate}
	if f.system != "" {
		c.cfg.Preface.Messages = []conversation.Message{conversation.SystemText(f.system)}
	}
	if c.conv, err = conversation.New(ctx, c.eng, c.cfg); err != nil {
		return nil, err
	}
	if f.session != "" {
		if err := c.loadFile(f.session); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	ok = true
	return c, nil
}

func (c *chat) close() {
	for i := len(c.closeFns) - 1; i >= 0; i-- {
		c.closeFns[i]()
	}
	c.closeFns = nil
}

// loadFile replaces the history with a saved conversation's. The settings
// stay those of the command line.
func (c *chat) loadFile(path string) error {
	r, err := os.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	s, err := conversation.ReadSnapshot(r)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return c.conv.Restore(s.Messages)
}

// autosave writes the session file, if there is one.
func (c *chat) autosave() error {
	if c.flags.session == "" {
		return nil
	}
	return c.conv.SaveFile(c.flags.session)
}

// pipe reads one user message per line and prints one reply per message.
func (c *chat) pipe(ctx context.Context) error {
	lines := newLineReader(c.sio.in)
	failed := 0
	for {
		line, err := lines.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		quit, err := c.handle(ctx, line)
		if err != nil {
			failed++
			if c.flags.jsonOut {
				writeJSONLine(c.sio.out, map[string]string{"error": err.Error()})
			} else {
				fmt.Fprintf(c.sio.err, "error: %v\n", err)
			}
		}
		if quit {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of the turns failed", failed)
	}
	return nil
}

// handle runs one input: a command or a user message. It reports whether
// the chat should end.
func (c *chat) handle(ctx context.Context, input string) (quit bool, err error) {
	if strings.HasPrefix(input, "/") && !strings.HasPrefix(input, "//") {
		return c.command(ctx, input)
	}
	input = strings.TrimPrefix(input, "/") // "//x" sends "/x"
	var out display
	switch {
	case c.flags.jsonOut:
		out = &jsonDisplay{w: c.sio.out}
	default:
		out = newTextDisplay(c.sio.out, c.toolWriter(), c.tty)
	}
	_, err = c.turn(ctx, input, out)
	if serr := c.autosave(); serr != nil && err == nil {
		err = serr
	}
	return false, err
}

// toolWriter is where tool activity goes: the terminal, or stderr when
// stdout carries only replies.
func (c *chat) toolWriter() io.Writer {
	if c.tty {
		return c.sio.out
	}
	return c.sio.err
}

// notice prints a line about the chat itself (not a reply).
func (c *chat) notice(format string, args ...any) {
	w := c.sio.err
	if c.tty {
		w = c.sio.out
		format = dim(format)
	}
	fmt.Fprintf(w, format+"\n", args...)
}

// maybeCompact compacts the history when it nears the context length.
func (c *chat) maybeCompact(ctx context.Context, force bool) error {
	if c.compact == nil && !force {
		return nil
	}
	p := conversation.CompactPolicy{Mode: conversation.CompactSummarize, Threshold: c.flags.compactAt, KeepTurns: c.flags.keepTurns}
	if c.compact != nil {
		p = *c.compact
	}
	p.Force = force
	res, err := c.conv.Compact(ctx, p)
	if err != nil {
		return fmt.Errorf("compacting the history: %w", err)
	}
	if res.Compacted {
		c.notice("[context: %s %d messages, %d → %d tokens]", map[bool]string{true: "summarized", false: "dropped"}[res.Summary != ""], res.Removed, res.TokensBefore, res.TokensAfter)
	}
	return nil
}

// isTerminal reports whether a stream is a terminal.
func isTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// dim wraps text in the terminal's faint style.
func dim(s string) string { return "\x1b[2m" + s + "\x1b[0m" }
