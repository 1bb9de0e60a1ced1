// Command litert-go runs local language models: chat, generate, tokenize,
// inspect, quantize and benchmark GGUF files.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// stdio carries the streams a command reads and writes, so tests can run
// commands in-process.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// command is one subcommand of litert-go.
type command struct {
	summary string
	run     func(ctx context.Context, io stdio, args []string) error
}

// commands lists every subcommand. Each lives in its own file.
func commands() map[string]command {
	return map[string]command{
		"bench":      {"measure load time, prefill and decode speed (llama-bench style)", runBench},
		"chat":       {"chat with a model: streamed replies, tools, saved conversations", runChat},
		"constrain":  {"check texts against a JSON Schema, regex or grammar constraint (constrain check)", runConstrain},
		"info":       {"describe a GGUF model file", runInfo},
		"generate":   {"complete a prompt, streaming the generated text", runGenerate},
		"logits":     {"print the model's logits as JSON lines (reference format)", runLogits},
		"ls":         {"list the models in the Hugging Face cache", runLs},
		"pull":       {"download a model from Hugging Face: pull hf.co/OWNER/REPO[:QUANT]", runPull},
		"quantize":   {"convert a GGUF model to f16, bf16, q8_0, q4_0, q4_k_m, q5_k_m, q6_k …", runQuantize},
		"serve":      {"serve the model over an OpenAI-compatible HTTP API with prompt caching", runServe},
		"synth":      {"write a synthetic model with a real shape and random weights", runSynth},
		"template":   {"render a chat template (template render)", runTemplate},
		"tokenize":   {"print the token ids of stdin text as a JSON array", runTokenize},
		"toolcall":   {"parse a raw model reply into content, reasoning and tool calls (toolcall parse)", runToolcall},
		"detokenize": {"print the text of a JSON array of token ids", runDetokenize},
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, stdio{os.Stdin, os.Stdout, os.Stderr}, os.Args[1:]))
}

// run dispatches to a subcommand and returns the process exit status.
func run(ctx context.Context, sio stdio, args []string) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(sio.err, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(sio.err, "litert-go: unknown command %q\n", args[0])
		usage(sio.err, cmds)
		return 2
	}
	if err := c.run(ctx, sio, args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(sio.err, "litert-go %s: %v\n", args[0], err)
		if se := (*statusError)(nil); errors.As(err, &se) {
			return se.status
		}
		return 1
	}
	return 0
}

// usage lists the commands, sorted, with their one-line summaries.
func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: litert-go <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'litert-go <command> -h' for a command's flags.")
}

// newFlags returns a FlagSet that reports errors instead of exiting.
func newFlags(name string, sio stdio) *flag.FlagSet {
	fs := flag.NewFlagSet("litert-go "+name, flag.ContinueOnError)
	fs.SetOutput(sio.err)
	return fs
}
