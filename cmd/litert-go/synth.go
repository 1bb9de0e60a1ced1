package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/litert-go/litert-go/bench/synth"
)

// runSynth implements "litert-go synth": it writes a synthetic model with a
// real architecture's shape and seeded random weights.
func runSynth(ctx context.Context, sio stdio, args []string) error {
	fs := newFlags("synth", sio)
	shape := fs.String("shape", "", "architecture shape: "+strings.Join(synth.Shapes(), ", "))
	mmproj := fs.String("mmproj", "", "write a synthetic mmproj (vision/audio encoder) instead: "+strings.Join(synth.MMProjKinds(), ", "))
	typ := fs.String("type", "f32", "weight type: "+strings.Join(synth.TypeNames(), ", "))
	vocab := fs.String("vocab", "", "GGUF `file` whose tokenizer to copy (default: a synthetic one)")
	tmpl := fs.String("chat-template", "", "Jinja chat template `file` to store")
	seed := fs.Uint64("seed", 1, "random seed of the weights")
	out := fs.String("o", "", "output GGUF `file`")
	fs.Usage = func() {
		fmt.Fprintln(sio.err, "usage: litert-go synth --shape S [--type T] [--vocab FILE.gguf] [--chat-template FILE.jinja] [--seed N] -o OUT.gguf")
		fmt.Fprintln(sio.err, "       litert-go synth --mmproj KIND [--type T] [--seed N] -o OUT.gguf")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if *mmproj != "" && *out != "" {
		if *shape != "" {
			return errors.New("--mmproj and --shape are exclusive: an mmproj is written alone")
		}
		dtype, mix, err := synth.ParseType(*typ)
		if err != nil {
			return err
		}
		if mix != "" {
			return fmt.Errorf("--mmproj takes a single weight type, not the mix %s", mix)
		}
		if err := synth.WriteMMProj(*out, *mmproj, *seed, dtype); err != nil {
			return err
		}
		fmt.Fprintf(sio.err, "wrote %s: synthetic %s mmproj, %s\n", *out, *mmproj, *typ)
		return nil
	}
	if *shape == "" || *out == "" {
		fs.Usage()
		return errors.New("--shape and -o are required")
	}
	dtype, mix, err := synth.ParseType(*typ)
	if err != nil {
		return err
	}
	opts := synth.Options{Seed: *seed, Type: dtype, Mix: mix, VocabFile: *vocab}
	if *tmpl != "" {
		b, err := os.ReadFile(*tmpl)
		if err != nil {
			return err
		}
		if len(b) == 0 {
			return fmt.Errorf("chat template %s is empty", *tmpl)
		}
		opts.ChatTemplate = string(b)
	}
	bar := newProgressBar(sio.err)
	if bar != nil {
		opts.Progress = func(done, total int64) {
			bar.draw(float64(done)/float64(max(total, 1)), fmt.Sprintf("%s of %s: %s", humanBytes(uint64(done)), humanBytes(uint64(total)), *out), done == total)
		}
	}
	start := time.Now()
	err = synth.WriteFileContext(ctx, *out, *shape, opts)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return err
	}
	st, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(sio.err, "wrote %s: %s %s, %s in %v\n", *out, *shape, *typ, humanBytes(uint64(st.Size())), time.Since(start).Round(time.Millisecond))
	return nil
}
