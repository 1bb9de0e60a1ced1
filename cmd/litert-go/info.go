package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/litert-go/litert-go/models/modelinfo"
	"github.com/litert-go/litert-go/native"
)

// runInfo implements "litert-go info": it describes a GGUF model file, as
// text or as one JSON object.
func runInfo(ctx context.Context, sio stdio, args []string) error {
	fs := newFlags("info", sio)
	model := fs.String("m", "", "GGUF model `file` (or hf.co/OWNER/REPO[:QUANT]) to describe")
	asJSON := fs.Bool("json", false, "print one JSON object with stable field names")
	fs.Usage = func() {
		fmt.Fprintln(sio.err, "usage: litert-go info -m FILE.gguf [--json]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *model == "" && fs.NArg() == 1 {
		*model = fs.Arg(0)
	} else if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if *model == "" {
		fs.Usage()
		return errors.New("missing -m FILE")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := resolveModel(ctx, sio.err, model); err != nil {
		return err
	}
	info, err := modelinfo.Load(*model)
	if err != nil {
		return err
	}
	backend, note := activeBackend()
	if *asJSON {
		enc := json.NewEncoder(sio.out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			*modelinfo.Info
			Backend     string `json:"backend"`
			BackendNote string `json:"backend_note,omitempty"`
		}{info, backend, note})
	}
	if err := printInfo(sio.out, info); err != nil {
		return err
	}
	_, err = fmt.Fprintf(sio.out, "%-18s %s (%s)\n", "backend:", backend, note)
	return err
}

// activeBackend names the backend engine.Auto would choose and why: the
// native kernels with the library's path, or the pure-Go kernels with the
// reason the library did not load.
func activeBackend() (name, note string) {
	c, err := native.LoadCPU(1)
	if err != nil {
		return "go", "pure-Go kernels: " + err.Error()
	}
	defer c.Close()
	return c.Name(), "native kernels from " + c.Path()
}

// printInfo writes info as aligned "key: value" lines.
func printInfo(w io.Writer, i *modelinfo.Info) error {
	var b strings.Builder
	line := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-18s "+format+"\n", append([]any{k + ":"}, args...)...)
	}
	line("file", "%s (%s, GGUF v%d, opened in %.2f ms)", i.Path, humanBytes(uint64(i.FileBytes)), i.GGUFVersion, i.OpenMillis)
	arch := i.Arch
	if arch == "" {
		arch = "(none: vocabulary only)"
	}
	line("architecture", "%s", arch)
	if i.Name != "" {
		line("name", "%s", i.Name)
	}
	line("quant", "%s", i.QuantDetail())
	line("parameters", "%s (%d tensors)", humanCount(i.Parameters), i.NTensors)
	for _, t := range i.SortedTypes() {
		s := i.TensorTypes[t]
		line("  "+t, "%d tensors, %s elements, %s", s.Tensors, humanCount(s.Elements), humanBytes(s.Bytes))
	}
	if i.Arch != "" {
		line("context length", "%d", i.CtxLen)
		line("layers", "%d", i.NLayers)
		// a count that varies per layer prints as its range
		count := func(key string, v int) string {
			r, ok := i.PerLayer[key]
			if !ok {
				return fmt.Sprint(v)
			}
			s := fmt.Sprint(r.Min)
			if r.Max != r.Min {
				s = fmt.Sprintf("%d–%d per layer", r.Min, r.Max)
			}
			if r.Zero > 0 {
				s += fmt.Sprintf(", 0 in %d layers", r.Zero)
			}
			return s
		}
		line("embedding", "%d (FFN %s)", i.Dim, count("feed_forward_length", i.HiddenDim))
		line("heads", "%s (KV heads %s, head dim %d)", count("attention.head_count", i.NHeads), count("attention.head_count_kv", i.NKVHeads), i.HeadDim)
		if i.NExperts != 0 {
			line("experts", "%d per block, %d per token (expert FFN %d)", i.NExperts, i.NExpertsUsed, i.ExpertHiddenDim)
		}
		if i.NormEps != 0 {
			line("norm eps", "%g", i.NormEps)
		}
		rope := "freq base default (10000)"
		if i.RopeBase != 0 {
			rope = fmt.Sprintf("freq base %g", i.RopeBase)
		}
		if i.RopeDim != 0 {
			rope += fmt.Sprintf(", %d dims", i.RopeDim)
		}
		if i.RopeBaseSWA != 0 {
			rope += fmt.Sprintf(", local freq base %g", i.RopeBaseSWA)
		}
		if i.RopeScaling != "" {
			rope += fmt.Sprintf(", scaling %s ×%g (original ctx %d)", i.RopeScaling, i.RopeFactor, i.RopeOrigCtx)
		}
		if i.RopeFreqsTensor {
			rope += ", rope_freqs tensor"
		}
		line("rope", "%s", rope)
		if i.Window != 0 {
			line("sliding window", "%d", i.Window)
		}
		if i.AttnSoftcap != 0 || i.FinalSoftcap != 0 {
			line("soft-caps", "attention %g, logits %g", i.AttnSoftcap, i.FinalSoftcap)
		}
		if i.EmbeddingScale != 0 || i.AttentionScale != 0 || i.ResidualScale != 0 || i.LogitScale != 0 {
			line("multipliers", "embedding %g, attention %g, residual %g, logit 1/%g", i.EmbeddingScale, i.AttentionScale, i.ResidualScale, i.LogitScale)
		}
		line("tied embeddings", "%t", i.TiedEmbeddings)
	}
	tok := i.TokenizerModel
	if i.TokenizerPre != "" {
		tok += " (pre " + i.TokenizerPre + ")"
	}
	line("vocab", "%d tokens, tokenizer %s", i.NVocab, tok)
	if i.BOS != nil || i.EOS != nil {
		line("bos / eos", "%s / %s", optID(i.BOS), optID(i.EOS))
	}
	switch {
	case !i.HasChatTemplate:
		line("chat template", "none (conversations use the default ChatML template)")
	case i.ChatTemplateTools:
		line("chat template", "yes (%d bytes, mentions tools)", i.ChatTemplateBytes)
	default:
		line("chat template", "yes (%d bytes, no tools)", i.ChatTemplateBytes)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func optID(p *int64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func humanBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func humanCount(n uint64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2fB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1fK", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
