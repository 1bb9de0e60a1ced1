package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/tokenizer"
)

// loadTokenizer opens a GGUF file and builds its tokenizer.
func loadTokenizer(path string) (*tokenizer.Tokenizer, error) {
	if path == "" {
		return nil, errors.New("missing -m MODEL.gguf")
	}
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tok, nil
}

// appendIDs appends ids as a JSON array.
func appendIDs(b []byte, ids []int32) []byte {
	b = append(b, '[')
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	return append(b, ']', '\n')
}

// runTokenize implements "litert-go tokenize": text on stdin, token ids as
// a JSON array on stdout.
func runTokenize(ctx context.Context, sio stdio, args []string) error {
	fs := newFlags("tokenize", sio)
	model := fs.String("m", "", "GGUF model (or vocab-only GGUF) whose tokenizer to use")
	parseSpecial := fs.Bool("parse-special", true, "match special tokens such as <|im_start|> written in the text")
	addSpecial := fs.String("add-special", "auto", "auto: add BOS/EOS as the model's metadata says; false: add nothing")
	jsonl := fs.Bool("jsonl", false, "read one JSON string per line, print one JSON array per line")
	fs.Usage = func() {
		fmt.Fprintln(sio.err, `usage: litert-go tokenize -m MODEL.gguf [--parse-special=BOOL] [--add-special=auto|false] [--jsonl] < text

Reads UTF-8 text from stdin (all of it, byte for byte) and prints its token
ids as one JSON array. With --jsonl each input line is a JSON string and
each output line the JSON array of its ids.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	opts := tokenizer.EncodeOptions{ParseSpecial: *parseSpecial}
	switch *addSpecial {
	case "auto", "true":
		opts.AddSpecial = true
	case "false":
	default:
		return fmt.Errorf("--add-special=%q: want auto or false", *addSpecial)
	}
	if err := resolveModel(ctx, sio.err, model); err != nil {
		return err
	}
	tok, err := loadTokenizer(*model)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(sio.out)
	defer w.Flush()
	if !*jsonl {
		text, err := io.ReadAll(sio.in)
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		_, err = w.Write(appendIDs(nil, tok.Encode(string(text), opts)))
		if err != nil {
			return err
		}
		return w.Flush()
	}
	var buf []byte
	err = forLines(ctx, sio.in, func(n int, line []byte) error {
		var s string
		if err := json.Unmarshal(line, &s); err != nil {
			return fmt.Errorf("stdin line %d: want a JSON string: %w", n, err)
		}
		buf = appendIDs(buf[:0], tok.Encode(s, opts))
		_, err := w.Write(buf)
		return err
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

// runDetokenize implements "litert-go detokenize": a JSON array of ids on
// stdin, the text on stdout.
func runDetokenize(ctx context.Context, sio stdio, args []string) error {
	fs := newFlags("detokenize", sio)
	model := fs.String("m", "", "GGUF model (or vocab-only GGUF) whose tokenizer to use")
	special := fs.Bool("special", false, "render control tokens (such as <|im_end|>) as their text")
	jsonl := fs.Bool("jsonl", false, "read one JSON array per line, print one JSON string per line")
	fs.Usage = func() {
		fmt.Fprintln(sio.err, `usage: litert-go detokenize -m MODEL.gguf [--special] [--jsonl] < ids.json

Reads a JSON array of token ids from stdin and prints their text. With
--jsonl each input line is a JSON array and each output line a JSON string.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if err := resolveModel(ctx, sio.err, model); err != nil {
		return err
	}
	tok, err := loadTokenizer(*model)
	if err != nil {
		return err
	}
	decode := tok.Decode
	if *special {
		decode = tok.DecodeSpecial
	}
	w := bufio.NewWriter(sio.out)
	defer w.Flush()
	if !*jsonl {
		data, err := io.ReadAll(sio.in)
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		var ids []int32
		if err := json.Unmarshal(data, &ids); err != nil {
			return fmt.Errorf("stdin: want a JSON array of token ids: %w", err)
		}
		text, err := decode(ids)
		if err != nil {
			return err
		}
		if _, err := w.WriteString(text); err != nil {
			return err
		}
		return w.Flush()
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	err = forLines(ctx, sio.in, func(n int, line []byte) error {
		var ids []int32
		if err := json.Unmarshal(line, &ids); err != nil {
			return fmt.Errorf("stdin line %d: want a JSON array of token ids: %w", n, err)
		}
		text, err := decode(ids)
		if err != nil {
			return fmt.Errorf("stdin line %d: %w", n, err)
		}
		// The encoder writes the line, HTML characters unescaped; invalid
		// UTF-8 in the text becomes U+FFFD, as JSON requires.
		return enc.Encode(text)
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

// forLines calls fn for every non-empty line of r (1-based line numbers),
// stopping when ctx is done.
func forLines(ctx context.Context, r io.Reader, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			if ferr := fn(n, line); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
	}
}
