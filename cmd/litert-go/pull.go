package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/litert-go/litert-go/hub"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/models/modelinfo"
)

// runPull implements "litert-go pull hf.co/OWNER/REPO[:QUANT]": it
// downloads the model into the Hugging Face cache and prints its path.
func runPull(ctx context.Context, sio stdio, args []string) error {
	fs := newFlags("pull", sio)
	offline := fs.Bool("offline", false, "use only the cache (as HF_HUB_OFFLINE=1)")
	fs.Usage = func() {
		fmt.Fprintln(sio.err, `usage: litert-go pull [--offline] hf.co/OWNER/REPO[:QUANT]

Downloads a GGUF model from the Hugging Face Hub into its cache
($HF_HOME/hub, shared with huggingface-cli) and prints the file's path.
QUANT (such as Q4_K_M, Q8_0 or F16, any case) picks the file; without it
Q4_K_M is taken, else Q4_0, else Q8_0, else the first GGUF file. The
repository's mmproj file comes too. Downloads resume where they stopped
and are checked against the sha256 the Hub reports. HF_TOKEN is sent for
gated repositories; HF_ENDPOINT replaces https://huggingface.co.
Every -m flag takes the same name and pulls it when needed.`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return errors.New("want one model name")
	}
	ref, err := hub.ParseRef(fs.Arg(0))
	if err != nil {
		return err
	}
	c := hub.FromEnv()
	c.Offline = c.Offline || *offline
	m, err := pullModel(ctx, c, ref, sio.err)
	if err != nil {
		return err
	}
	if m.FromCache {
		fmt.Fprintf(sio.err, "%s is cached (commit %.7s)\n", m.Ref, m.Commit)
	}
	fmt.Fprintln(sio.out, m.Path)
	if m.MMProj != "" {
		fmt.Fprintln(sio.out, m.MMProj)
	}
	return nil
}

// pullModel pulls a model, drawing a progress bar on w when it is a
// terminal and noting each download when it is not.
func pullModel(ctx context.Context, c *hub.Client, ref hub.Ref, w io.Writer) (*hub.Model, error) {
	bar := newProgressBar(w)
	start := time.Now()
	var file string
	var fileStart time.Time
	var size int64
	c.Progress = func(name string, done, total int64) {
		if name != file {
			if bar != nil {
				bar.finish()
			}
			file, fileStart = name, time.Now()
			size += total
		}
		if bar != nil {
			rate := float64(done) / max(time.Since(fileStart).Seconds(), 1e-3)
			bar.draw(float64(done)/float64(max(total, 1)), fmt.Sprintf("%s / %s %s/s %s",
				humanBytes(uint64(done)), humanBytes(uint64(total)), humanBytes(uint64(rate)), filepath.Base(name)), done == total)
		}
	}
	m, err := c.Pull(ctx, ref)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return nil, err
	}
	if !m.FromCache {
		fmt.Fprintf(w, "pulled %s (%s in %.1fs) into %s\n", m.Ref, humanBytes(uint64(size)), time.Since(start).Seconds(), c.CacheDir)
	}
	return m, nil
}

// resolveModel turns a -m value that names a Hub model (hf.co/OWNER/REPO
// [:QUANT]) into the path of its cached file, pulling it first when it is
// not cached; a file path is left as it is. Progress goes to w.
func resolveModel(ctx context.Context, w io.Writer, model *string) error {
	_, err := resolveModelFiles(ctx, w, model)
	return err
}

// resolveModelFiles is resolveModel also returning the local path of the
// repository's mmproj file ("" if it has none, or model is a file).
func resolveModelFiles(ctx context.Context, w io.Writer, model *string) (mmproj string, err error) {
	if !hub.IsRef(*model) {
		return "", nil
	}
	ref, err := hub.ParseRef(*model)
	if err != nil {
		return "", fmt.Errorf("-m: %w", err)
	}
	m, err := pullModel(ctx, hub.FromEnv(), ref, w)
	if err != nil {
		return "", fmt.Errorf("-m: %w", err)
	}
	*model = m.Path
	return m.MMProj, nil
}

// runLs implements "litert-go ls": the GGUF files in the Hugging Face
// cache.
func runLs(ctx context.Context, sio stdio, args []string) error {
	fs := newFlags("ls", sio)
	fs.Usage = func() {
		fmt.Fprintln(sio.err, "usage: litert-go ls\n\nLists the GGUF files in the Hugging Face cache ($HF_HOME/hub) with the name -m takes.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	c := hub.FromEnv()
	list, err := c.List()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		fmt.Fprintf(sio.err, "no models in %s (litert-go pull hf.co/OWNER/REPO fetches one)\n", c.CacheDir)
		return nil
	}
	tw := tabwriter.NewWriter(sio.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tSIZE\tFILE")
	for _, e := range list {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := "hf.co/" + e.Repo
		if !e.Main {
			name += "@" + e.Commit[:7] // a snapshot main no longer points to
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", name, fileQuant(e.Path), humanBytes(uint64(e.Size)), e.File)
	}
	return tw.Flush()
}

// fileQuant is a GGUF file's quantization label, "?" when it cannot be
// read (the second part of a split file, a damaged one).
func fileQuant(path string) string {
	f, err := gguf.Open(path)
	if err != nil {
		return "?"
	}
	defer f.Close()
	info, err := modelinfo.Describe(f)
	if err != nil {
		return "?"
	}
	return info.Quant
}
