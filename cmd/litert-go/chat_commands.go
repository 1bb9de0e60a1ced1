package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

const chatHelp = `commands:
  /help           this help
  /reset          forget the conversation (the system prompt stays)
  /save FILE      save the conversation as JSON
  /load FILE      continue a saved conversation
  /tools          list the tools the model may call
  /stats          tokens, speed and context use
  /compact        summarize (or drop) older turns now
  /image FILE     attach an image (PNG, JPEG, GIF, WebP) to the next message
  /audio FILE     attach audio (WAV, MP3, FLAC) to the next message
  /exit           leave (also exit, quit or Ctrl-D)
input:
  a line ending in \ continues on the next line; """ on its own line
  starts and ends a block of several lines; //text sends "/text".
  Ctrl-C stops the reply being written; what it wrote stays in the
  history, ending in "[interrupted by the user]", which the model sees.`

// command runs a /command. It reports whether the chat should end.
func (c *chat) command(ctx context.Context, line string) (quit bool, err error) {
	name, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	out := c.sio.err
	if c.tty {
		out = c.sio.out
	}
	switch name {
	case "/help", "/?":
		fmt.Fprintln(out, chatHelp)
	case "/exit", "/quit", "/bye":
		return true, nil
	case "/reset":
		c.conv.Reset()
		c.notice("[conversation reset]")
	case "/save":
		if arg == "" {
			return false, errors.New("/save needs a file name")
		}
		if err := c.conv.SaveFile(arg); err != nil {
			return false, err
		}
		c.notice("[saved %d messages to %s]", len(c.conv.History()), arg)
	case "/load":
		if arg == "" {
			return false, errors.New("/load needs a file name")
		}
		if err := c.loadFile(arg); err != nil {
			return false, err
		}
		c.notice("[loaded %d messages from %s]", len(c.conv.History()), arg)
	case "/tools":
		if c.tools == nil {
			fmt.Fprintln(out, "no tools (start with --tools fs --root DIR)")
			break
		}
		fmt.Fprintf(out, "%s(tool choice %s, at most %d rounds of calls per message)\n", c.tools.describe(), c.flags.toolChoice, c.flags.maxToolTurns)
	case "/stats":
		fmt.Fprintln(out, c.stats())
	case "/compact":
		return false, c.maybeCompact(ctx, true)
	case "/image", "/audio":
		return false, c.attach(name[1:], arg)
	default:
		return false, fmt.Errorf("unknown command %s (/help lists them; start a message with // to send a slash)", name)
	}
	return false, nil
}

// stats describes the session for /stats.
func (c *chat) stats() string {
	var b strings.Builder
	s := c.conv.Stats()
	hist, err := c.conv.HistoryTokens()
	if err != nil {
		hist = -1
	}
	info := c.eng.Info()
	fmt.Fprintf(&b, "model      %s (%s, %s, %s backend, %d threads)\n", info.Name, info.Arch, info.Quant, info.Backend, info.Threads)
	fmt.Fprintf(&b, "context    %d of %d tokens used by the history (%.0f%%), %d in the cache\n", hist, s.ContextLength, 100*float64(hist)/float64(max(s.ContextLength, 1)), s.Tokens)
	fmt.Fprintf(&b, "messages   %d\n", s.Turns)
	if c.total.turns > 0 {
		l := c.last.Usage
		fmt.Fprintf(&b, "last turn  prefill %d of %d prompt tokens (%d cached) in %.2fs, %.1f tokens/s; decode %d tokens in %.2fs, %.1f tokens/s\n",
			l.PromptTokens-l.CachedTokens, l.PromptTokens, l.CachedTokens, l.PrefillSeconds, l.prefillRate(), l.CompletionTokens, l.DecodeSeconds, l.decodeRate())
		s := turnUsage{PromptTokens: c.total.prompt, CachedTokens: c.total.cached, CompletionTokens: c.total.completion,
			PrefillSeconds: c.total.prefillTime.Seconds(), DecodeSeconds: c.total.decodeTime.Seconds()}
		fmt.Fprintf(&b, "session    %d turns: prefill %d of %d prompt tokens in %.2fs, %.1f tokens/s; decode %d tokens in %.2fs, %.1f tokens/s",
			c.total.turns, s.PromptTokens-s.CachedTokens, s.PromptTokens, s.PrefillSeconds, s.prefillRate(), s.CompletionTokens, s.DecodeSeconds, s.decodeRate())
	} else {
		b.WriteString("no turns yet")
	}
	return b.String()
}
