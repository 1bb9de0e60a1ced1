package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

const constrainUsage = `usage: litert-go constrain check (--json-schema FILE | --regex RE | --grammar FILE) < lines.txt`

// statusError is an error that sets the exit status of litert-go.
type statusError struct {
	status int
	err    error
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// runConstrain implements "litert-go constrain": check compiles a
// constraint and tells, for every line on stdin, whether the constraint
// accepts exactly that text.
func runConstrain(ctx context.Context, sio stdio, args []string) error {
	if len(args) == 0 {
		fmt.Fprintln(sio.err, constrainUsage)
		return errors.New("missing subcommand (want check)")
	}
	switch args[0] {
	case "check":
		return runConstrainCheck(ctx, sio, args[1:])
	case "-h", "--help", "help":
		fmt.Fprintln(sio.err, constrainUsage)
		return nil
	}
	fmt.Fprintln(sio.err, constrainUsage)
	return fmt.Errorf("unknown subcommand %q (want check)", args[0])
}

func runConstrainCheck(ctx context.Context, sio stdio, args []string) error {
	fs := newFlags("constrain check", sio)
	schema := fs.String("json-schema", "", "JSON Schema `FILE`")
	re := fs.String("regex", "", "regular expression `RE` (RE2 syntax, matched as a whole)")
	grammar := fs.String("grammar", "", "GBNF grammar `FILE` (Lark when the name ends in .lark)")
	generation := fs.Bool("generation", false, "check a JSON Schema as generation compiles it (compact literals, no undeclared properties unless allowed) instead of as the specification validates")
	fs.Usage = func() {
		fmt.Fprintln(sio.err, constrainUsage+`

Compiles the constraint and prints, for every line of stdin (without its
newline), true if the constraint accepts exactly that text as a complete
output and false otherwise. It checks the bytes against the constraint's
automaton; no tokenizer is involved. A JSON Schema is checked as the
specification validates (2.0 is an integer, properties in any order,
undeclared properties allowed unless the schema forbids them); with
--generation, as tool calls and response formats compile it, which accepts
a subset. A constraint that does not compile exits with status 2 and the
compile error on stderr.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	set := 0
	for _, s := range []string{*schema, *re, *grammar} {
		if s != "" {
			set++
		}
	}
	if set != 1 {
		fmt.Fprintln(sio.err, constrainUsage)
		return errors.New("give exactly one of --json-schema, --regex and --grammar")
	}
	g, err := compileConstraint(*schema, *re, *grammar, constrain.JSONOptions{Spec: !*generation})
	if err != nil {
		return err
	}
	return checkLines(ctx, g, sio.in, sio.out)
}

// compileConstraint compiles the one constraint given; a constraint that
// does not compile is a statusError with status 2.
func compileConstraint(schema, re, grammar string, opts constrain.JSONOptions) (*constrain.Grammar, error) {
	var g *constrain.Grammar
	var err error
	switch {
	case re != "":
		g, err = constrain.Regex(re)
	default:
		file := schema + grammar
		src, rerr := os.ReadFile(file)
		if rerr != nil {
			return nil, rerr
		}
		switch {
		case schema != "":
			g, err = constrain.JSONSchemaWith(src, opts)
		case strings.HasSuffix(grammar, ".lark"):
			g, err = constrain.Lark(string(src))
		default:
			g, err = constrain.GBNF(string(src))
		}
		if err != nil {
			err = fmt.Errorf("%s: %w", file, err)
		}
	}
	if err != nil {
		return nil, &statusError{status: 2, err: err}
	}
	return g, nil
}

// checkLines prints true or false for every line of in: whether g accepts
// exactly the line's bytes (without the newline) as a complete output.
// Output is flushed whenever the input has nothing more buffered, so
// interactive use answers line by line.
func checkLines(ctx context.Context, g *constrain.Grammar, in io.Reader, out io.Writer) error {
	// A vocabulary of one end-of-sequence token: the matcher is used for
	// its byte-level automaton only.
	v, err := constrain.NewVocab([][]byte{nil}, []int32{0})
	if err != nil {
		return err
	}
	r := bufio.NewReader(in)
	w := bufio.NewWriter(out)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		line, err := r.ReadBytes('\n')
		if len(line) > 0 || err == nil {
			line = bytes.TrimSuffix(line, []byte("\n"))
			m := g.NewMatcher(v)
			ok := m.AcceptBytes(line) == nil && m.Accepting()
			fmt.Fprintln(w, ok)
		}
		if err == io.EOF {
			return w.Flush()
		}
		if err != nil {
			return err
		}
		if r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
}
