package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/template"
)

// chatTemplateKey is the GGUF metadata key holding a model's chat template.
const chatTemplateKey = "tokenizer.chat_template"

// runTemplate implements "litert-go template render": it reads a JSON render
// request from stdin and writes the rendered prompt, byte-exact, to stdout.
func runTemplate(ctx context.Context, sio stdio, args []string) error {
	if len(args) == 0 || args[0] != "render" {
		fmt.Fprintln(sio.err, "usage: litert-go template render [-m MODEL.gguf | --template FILE] < request.json")
		if len(args) == 0 {
			return errors.New("missing subcommand (want render)")
		}
		if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			return nil
		}
		return fmt.Errorf("unknown subcommand %q (want render)", args[0])
	}
	fs := newFlags("template render", sio)
	model := fs.String("m", "", "GGUF model whose "+chatTemplateKey+" to render (the default ChatML template if it has none)")
	file := fs.String("template", "", "Jinja chat template file to render")
	nowFlag := fs.String("now", "", "the time strftime_now reads: RFC 3339 or 2024-07-26T12:00:00 (local); default the current time")
	fs.Usage = func() {
		fmt.Fprintln(sio.err, `usage: litert-go template render [-m MODEL.gguf | --template FILE] [--now TIME] < request.json

Reads {"messages": [...], "tools": [...], "documents": [...],
"add_generation_prompt": true, "bos_token": "...", "eos_token": "...",
"kwargs": {...}, "now": "..."} from stdin and prints the rendered prompt.
With neither -m nor --template, the default ChatML template is used.
--now (or the request's "now", which wins) fixes the date a template
prints with strftime_now, so the output does not change every day.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if *model != "" && *file != "" {
		return errors.New("use either -m or --template, not both")
	}
	if err := resolveModel(ctx, sio.err, model); err != nil {
		return err
	}
	src, name, err := templateSource(*model, *file)
	if err != nil {
		return err
	}
	var opts []template.Option
	if *nowFlag != "" {
		now, err := template.ParseTime(*nowFlag)
		if err != nil {
			return fmt.Errorf("--now: %w", err)
		}
		opts = append(opts, template.WithClock(func() time.Time { return now }))
	}
	tmpl, err := template.Parse(src, opts...)
	if err != nil {
		return templateError(name, err)
	}
	req, err := io.ReadAll(sio.in)
	if err != nil {
		return fmt.Errorf("read request from stdin: %w", err)
	}
	out, err := tmpl.RenderJSON(ctx, req)
	if err != nil {
		return templateError(name, err)
	}
	_, err = io.WriteString(sio.out, out)
	return err
}

// templateError names the template in a parse or render error (a
// *template.ParseError or *template.LimitError names the line and the
// problem). A *template.RaiseError, the template's own message, is left
// as it is.
func templateError(name string, err error) error {
	var re *template.RaiseError
	if errors.As(err, &re) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// templateSource returns the chat template text from a template file, from
// a GGUF model's metadata, or the default, and a name for it in errors.
func templateSource(model, file string) (src, name string, err error) {
	const defaultName = "default ChatML template"
	switch {
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", "", fmt.Errorf("read template: %w", err)
		}
		return string(b), file, nil
	case model != "":
		f, err := gguf.Open(model)
		if err != nil {
			return "", "", err
		}
		defer f.Close()
		if !f.Has(chatTemplateKey) {
			return template.DefaultChatML, defaultName, nil
		}
		s, err := f.String(chatTemplateKey)
		if err != nil {
			return "", "", fmt.Errorf("%s: %w", model, err)
		}
		return strings.Clone(s), model + " " + chatTemplateKey, nil
	}
	return template.DefaultChatML, defaultName, nil
}
