package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/litert-go/litert-go/conversation/toolcall"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/template"
	"github.com/litert-go/litert-go/tokenizer"
)

const toolcallUsage = `usage: litert-go toolcall parse (-m MODEL.gguf | --template FILE) [--format NAME] < reply.txt
       litert-go toolcall formats`

// runToolcall implements "litert-go toolcall": parse reads a model's raw
// reply on stdin and prints how the model's tool-call format reads it;
// formats lists the known formats.
func runToolcall(ctx context.Context, sio stdio, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(sio.err, toolcallUsage)
		return errors.New("missing subcommand (want parse or formats)")
	}
	switch args[0] {
	case "parse":
		return runToolcallParse(ctx, sio, args[1:])
	case "formats":
		if len(args) > 1 {
			return fmt.Errorf("unexpected arguments: %s", strings.Join(args[1:], " "))
		}
		for _, n := range toolcall.Names() {
			fmt.Fprintln(sio.out, n)
		}
		return nil
	case "-h", "--help", "help":
		fmt.Fprintln(sio.err, toolcallUsage)
		return nil
	}
	fmt.Fprintln(sio.err, toolcallUsage)
	return fmt.Errorf("unknown subcommand %q (want parse or formats)", args[0])
}

// parsedReply is what toolcall parse prints.
type parsedReply struct {
	Format    string         `json:"format"`
	Content   string         `json:"content"`
	Reasoning string         `json:"reasoning"`
	ToolCalls []toolcallJSON `json:"tool_calls"`
}

type toolcallJSON struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

func runToolcallParse(ctx context.Context, sio stdio, args []string) error {
	fs := newFlags("toolcall parse", sio)
	model := fs.String("m", "", "GGUF model whose chat template (and special tokens) pick the format")
	file := fs.String("template", "", "Jinja chat template `FILE` that picks the format")
	name := fs.String("format", "", "use this tool-call format instead of the detected one (see 'litert-go toolcall formats')")
	fs.Usage = func() {
		fmt.Fprintln(sio.err, toolcallUsage+`

Reads a model's raw reply (the text generated after the generation prompt)
from stdin and prints one JSON object:
  {"format": "...", "content": "...", "reasoning": "...",
   "tool_calls": [{"name": "...", "arguments": {...}}]}
The format is detected from the chat template by rendering probe calls
through it, as conversations do. A malformed call exits with status 1 and
a message naming the format and where the call fails.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if *model != "" && *file != "" {
		return errors.New("use either -m or --template, not both")
	}
	if *model == "" && *file == "" && *name == "" {
		return errors.New("-m MODEL or --template FILE (or --format NAME) is required")
	}
	if err := resolveModel(ctx, sio.err, model); err != nil {
		return err
	}
	format, err := replyFormat(ctx, *model, *file, *name)
	if err != nil {
		return err
	}
	reply, err := io.ReadAll(sio.in)
	if err != nil {
		return fmt.Errorf("read the reply from stdin: %w", err)
	}
	p, err := format.Parse(string(reply))
	if err != nil {
		var tce *toolcall.ToolCallError
		if errors.As(err, &tce) {
			line, col := position(string(reply), tce.Offset)
			return fmt.Errorf("malformed %s tool call at byte %d (line %d, column %d): %v; the call: %q", format.Name(), tce.Offset, line, col, tce.Err, tce.Text)
		}
		return fmt.Errorf("%s format: %w", format.Name(), err)
	}
	out := parsedReply{Format: format.Name(), Content: p.Content, Reasoning: p.Reasoning, ToolCalls: []toolcallJSON{}}
	for _, c := range p.Calls {
		args := c.Arguments
		if len(bytes.TrimSpace(args)) == 0 {
			args = json.RawMessage("{}")
		}
		out.ToolCalls = append(out.ToolCalls, toolcallJSON{Name: c.Name, Arguments: args})
	}
	enc := json.NewEncoder(sio.out)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// replyFormat is the format named, or the one the template writes, with
// the template's reasoning markup.
func replyFormat(ctx context.Context, model, file, name string) (toolcall.Format, error) {
	var det toolcall.Detection
	if model != "" || file != "" {
		src, tname, err := templateSource(model, file)
		if err != nil {
			return nil, err
		}
		tmpl, err := template.Parse(src)
		if err != nil {
			return nil, templateError(tname, err)
		}
		var base toolcall.Request
		if model != "" {
			if base.BOS, base.EOS, err = specialTokens(model); err != nil {
				return nil, err
			}
		}
		det = toolcall.Detect(ctx, tmpl, base)
	}
	if name == "" {
		return det.Format, nil
	}
	f, err := toolcall.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("--format: %w", err)
	}
	return toolcall.WithThinking(f, det.Thinking), nil
}

// specialTokens reads the text of a model's BOS and EOS tokens, which
// templates write (nil for a token the model does not have).
func specialTokens(model string) (bos, eos *string, err error) {
	f, err := gguf.Open(model)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", model, err)
	}
	bos, eos = tok.TemplateTokens()
	return bos, eos, nil
}

// position returns the 1-based line and column (in characters) of byte
// offset off in s.
func position(s string, off int) (line, col int) {
	off = min(max(off, 0), len(s))
	before := s[:off]
	line = strings.Count(before, "\n") + 1
	col = len([]rune(before[strings.LastIndexByte(before, '\n')+1:])) + 1
	return line, col
}
