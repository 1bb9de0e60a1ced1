package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/models/quantize"
)

// runQuantize implements "litert-go quantize IN OUT --type T": it writes a
// copy of the GGUF model IN with its weights converted to the mix T, as
// llama.cpp's llama-quantize does.
func runQuantize(ctx context.Context, sio stdio, args []string) error {
	fs := newFlags("quantize", sio)
	typ := fs.String("type", "", "quantization `mix`: "+strings.Join(quantize.FileTypeNames(), ", "))
	threads := fs.Int("threads", 0, "goroutines quantizing (0: all CPUs)")
	fs.IntVar(threads, "t", 0, "same as --threads")
	requant := fs.Bool("allow-requantize", false, "allow converting tensors that are already quantized")
	dryRun := fs.Bool("dry-run", false, "print the type chosen for each tensor and write nothing")
	fs.Usage = func() {
		fmt.Fprintln(sio.err, "usage: litert-go quantize IN.gguf OUT.gguf --type T [flags]\n       litert-go quantize --dry-run IN.gguf --type T")
		fs.PrintDefaults()
	}
	// Flags may come before, between or after the file names.
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if *typ == "" && len(pos) == 3 && !*dryRun { // llama-quantize style: IN OUT TYPE
		*typ, pos = pos[2], pos[:2]
	}
	if *typ == "" {
		fs.Usage()
		return errors.New("missing --type")
	}
	ft, err := quantize.ParseFileType(*typ)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		if err := resolveModel(ctx, sio.err, &pos[0]); err != nil {
			return err
		}
	}
	if *dryRun {
		if len(pos) != 1 && len(pos) != 2 {
			fs.Usage()
			return fmt.Errorf("--dry-run wants one input file, got %d arguments", len(pos))
		}
		return printPlan(sio.out, pos[0], ft)
	}
	if len(pos) != 2 {
		fs.Usage()
		return fmt.Errorf("want IN and OUT files, got %d arguments", len(pos))
	}
	in, out := pos[0], pos[1]
	if in == out {
		return fmt.Errorf("input and output are the same file %s", in)
	}
	opts := quantize.Options{Type: ft, AllowRequantize: *requant, Threads: *threads}
	bar := newProgressBar(sio.err)
	if bar != nil {
		opts.Progress = quantizeProgress(bar)
	}
	rep, err := quantize.File(ctx, in, out, opts)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(sio.out, "wrote %s: %s, %d tensors, %s -> %s", out, ft, len(rep.Tensors),
		humanBytes(uint64(rep.InBytes)), humanBytes(uint64(rep.OutBytes)))
	if rep.Fallbacks > 0 {
		fmt.Fprintf(sio.out, " (%d tensors used a fallback type)", rep.Fallbacks)
	}
	fmt.Fprintln(sio.out)
	return nil
}

// printPlan lists the type each tensor of the model at path would get.
func printPlan(w io.Writer, path string, ft quantize.FileType) error {
	f, err := gguf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	plans, err := quantize.Plan(f, ft)
	if err != nil {
		return err
	}
	for _, p := range plans {
		note := ""
		if p.Fallback {
			note = " (fallback)"
		}
		fmt.Fprintf(w, "%-36s %-18s %5s -> %s%s\n", p.Name, fmt.Sprint(p.Dims), p.From, p.To, note)
	}
	return nil
}

// quantizeProgress draws a quantization's progress on a bar.
func quantizeProgress(b *progressBar) func(quantize.Progress) {
	return func(p quantize.Progress) {
		frac := 1.0
		if p.Total > 0 {
			frac = float64(p.Done) / float64(p.Total)
		}
		b.draw(frac, fmt.Sprintf("%d/%d %s", p.Tensor, p.Tensors, p.Name), p.Tensor == p.Tensors)
	}
}
