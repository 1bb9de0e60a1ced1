package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// benchResult is the outcome of "litert-go bench"; the JSON field names are
// stable (bench/run.sh and CI read them). Rates are the best of the
// repetitions (other processes share the cores), with the mean beside.
type benchResult struct {
	Model         string  `json:"model"`
	Arch          string  `json:"arch"`
	Quant         string  `json:"quant"`
	Backend       string  `json:"backend"`
	BackendNote   string  `json:"backend_note,omitempty"`
	Threads       int     `json:"threads"`
	KVType        string  `json:"kv_type"`
	Load          string  `json:"load"` // how the weights are held: mmap or read
	PromptTokens  int     `json:"prompt_tokens"`
	GenTokens     int     `json:"gen_tokens"`
	Depth         int     `json:"depth"`
	Batch         int     `json:"batch"`
	Reps          int     `json:"reps"`
	LoadMS        float64 `json:"load_ms"`
	PrefillTPS    float64 `json:"prefill_tps"`
	PrefillTPSAvg float64 `json:"prefill_tps_mean"`
	DecodeTPS     float64 `json:"decode_tps"`
	DecodeTPSAvg  float64 `json:"decode_tps_mean"`
	TTFTMS        float64 `json:"ttft_ms"`
	PeakRSSMB     float64 `json:"peak_rss_mb"`
	// Decode reads every weight once per token, and the KV cache up to
	// its position (KVMB: the average over the decoded tokens): the two
	// at BandwidthGBs bound it at DecodeBoundTPS.
	WeightMB       float64 `json:"weight_mb_per_token"`
	KVMB           float64 `json:"kv_mb_per_token"`
	BandwidthGBs   float64 `json:"bandwidth_gbs,omitempty"`
	DecodeBoundTPS float64 `json:"decode_bound_tps,omitempty"`
	DecodePct      float64 `json:"decode_pct_of_bound,omitempty"`
}

// runBench measures load time, prefill and decode speed of a model on
// synthetic token ids, as llama-bench does (pp and tg tests).
func runBench(ctx context.Context, sio stdio, args []string) error {
	fs := newFlags("bench", sio)
	eo := addEngineFlags(fs)
	nPrompt := fs.Int("p", 512, "prompt tokens to prefill")
	nGen := fs.Int("n", 128, "tokens to decode")
	reps := fs.Int("r", 3, "repetitions (rates are the best; the mean is reported beside)")
	batch := fs.Int("b", 512, "prefill batch size (tokens per forward pass; llama-bench's default ubatch)")
	bw := fs.Bool("bw", true, "measure memory read bandwidth and report decode against its bound")
	depth := fs.Int("depth", 0, "tokens of context before the timed prefill and decode, each (llama-bench -d; 0: decode follows the prompt)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	fs.Usage = func() {
		fmt.Fprintln(sio.err, "usage: litert-go bench -m FILE [-p 512] [-n 128] [-t THREADS] [-r REPS] [-b BATCH] [--depth N] [--json]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if *nPrompt < 1 || *nGen < 0 || *reps < 1 || *batch < 1 || *depth < 0 {
		return fmt.Errorf("-p %d -n %d -r %d -b %d --depth %d: want p, r, b ≥ 1 and n, depth ≥ 0", *nPrompt, *nGen, *reps, *batch, *depth)
	}

	start := time.Now()
	eng, err := eo.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	info := eng.Info()
	res := benchResult{
		Model: *eo.model, Arch: info.Arch, Quant: info.Quant, Backend: info.Backend, BackendNote: info.BackendNote,
		Threads: info.Threads, KVType: strings.ToLower(info.KVType.String()), Load: info.Load.String(), PromptTokens: *nPrompt, GenTokens: *nGen, Depth: *depth, Batch: *batch, Reps: *reps,
		LoadMS:   ms(time.Since(start)),
		WeightMB: float64(weightBytesPerToken(eng.File())) / 1e6,
	}
	p := eng.Model().Params()
	kvElem := float64(info.KVType.TypeSize()) / float64(info.KVType.BlockSize()) // bytes per element, blocks' scales included
	// decode starts after the prompt, or at --depth after the depth tokens
	avgPos := float64(*nPrompt) + float64(*nGen)/2
	need := *nPrompt + *nGen
	if *depth > 0 {
		avgPos = float64(*depth) + float64(*nGen)/2
		need = *depth + max(*nPrompt, *nGen)
	}
	res.KVMB = avgPos * float64(2*p.NLayers*p.NKVHeads*p.HeadDim) * kvElem / 1e6
	if need > info.ContextLength {
		return fmt.Errorf("-p %d, -n %d and --depth %d need %d tokens, more than the context of %d (raise -c)",
			*nPrompt, *nGen, *depth, need, info.ContextLength)
	}

	var prefillSum, decodeSum float64
	for r := range *reps {
		p, d, ttft, err := benchOnce(ctx, eng, *nPrompt, *nGen, *batch, *depth, uint64(r))
		if err != nil {
			return err
		}
		prefillSum += p
		decodeSum += d
		res.PrefillTPS = max(res.PrefillTPS, p)
		res.DecodeTPS = max(res.DecodeTPS, d)
		if r == 0 || ttft < res.TTFTMS {
			res.TTFTMS = ttft
		}
	}
	res.PrefillTPSAvg = prefillSum / float64(*reps)
	res.DecodeTPSAvg = decodeSum / float64(*reps)
	res.PeakRSSMB = peakRSSMB()

	if *bw {
		b, err := native.MeasureReadBandwidth(eng.Backend(), 256<<20, 5)
		if err != nil {
			return err
		}
		res.BandwidthGBs = b / 1e9
		if res.WeightMB > 0 {
			res.DecodeBoundTPS = b / ((res.WeightMB + res.KVMB) * 1e6)
			res.DecodePct = 100 * res.DecodeTPS / res.DecodeBoundTPS
		}
	}

	if *asJSON {
		enc := json.NewEncoder(sio.out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return printBench(sio, res)
}

// benchOnce prefills nPrompt synthetic tokens in batches and then decodes
// nGen tokens greedily, returning both rates and the time to first token
// (the prefill plus picking the first token). With depth > 0 both run after
// depth untimed tokens of context, as llama-bench's -d: the prefill follows
// them, and the State is truncated back to them before the decode.
func benchOnce(ctx context.Context, eng *engine.Engine, nPrompt, nGen, batch, depth int, seed uint64) (prefill, decode, ttftMS float64, err error) {
	s, err := eng.NewState(batch)
	if err != nil {
		return 0, 0, 0, err
	}
	vocab := eng.Info().VocabSize
	ids := make([]int32, depth+nPrompt)
	for i := range ids {
		ids[i] = int32((uint64(i)*7919 + seed*104729 + 1) % uint64(vocab))
	}
	m := eng.Model()
	logits := make([]float32, vocab)
	// run prefills ids[lo:hi] in batches, the last one's logits into logits
	run := func(lo, hi int) error {
		for ; lo < hi; lo += s.MaxBatch() {
			if err := ctx.Err(); err != nil {
				return err
			}
			end := min(lo+s.MaxBatch(), hi)
			var out []float32
			if end == hi {
				out = logits
			}
			m.Forward(s, models.Tokens(ids[lo:end]), out)
		}
		return nil
	}
	if err := run(0, depth); err != nil {
		return 0, 0, 0, err
	}
	s.Checkpoint()

	start := time.Now()
	if err := run(depth, depth+nPrompt); err != nil {
		return 0, 0, 0, err
	}
	prefillTime := time.Since(start)
	tok := argmax(logits)
	ttft := time.Since(start)
	if depth > 0 {
		resume, err := s.Truncate(depth)
		if err != nil {
			return 0, 0, 0, err
		}
		// a recurrent model resumes at its checkpoint, which is depth
		if err := run(resume, depth); err != nil {
			return 0, 0, 0, err
		}
		tok = ids[depth-1]
	}

	start = time.Now()
	for range nGen {
		if err := ctx.Err(); err != nil {
			return 0, 0, 0, err
		}
		m.Forward(s, models.Tokens([]int32{tok}), logits)
		tok = argmax(logits)
	}
	decodeTime := time.Since(start)
	prefill = float64(nPrompt) / prefillTime.Seconds()
	if nGen > 0 {
		decode = float64(nGen) / decodeTime.Seconds()
	}
	return prefill, decode, ms(ttft), nil
}

// weightBytesPerToken is the bytes of weights a decode step reads: every
// matrix, except the token embeddings, of which one row is read, unless the
// output projection is tied to them (no output.weight).
func weightBytesPerToken(f *gguf.File) uint64 {
	_, untied := f.Tensor("output.weight")
	var n uint64
	for _, t := range f.Tensors {
		if len(t.Dims) < 2 || (t.Name == "token_embd.weight" && untied) {
			continue
		}
		n += t.Bytes()
	}
	return n
}

// peakRSSMB reads the peak resident set size (VmHWM) of this process from
// /proc; 0 where there is no /proc.
func peakRSSMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err == nil {
				return kb / 1024
			}
		}
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func printBench(sio stdio, r benchResult) error {
	var b strings.Builder
	line := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "%-10s "+format+"\n", append([]any{k}, args...)...)
	}
	line("model", "%s (%s, %s; a decode step reads %.1f MB of weights and %.1f MB of KV cache)",
		r.Model, r.Arch, r.Quant, r.WeightMB, r.KVMB)
	be := fmt.Sprintf("%s, %d threads, %s KV cache, weights %s", r.Backend, r.Threads, r.KVType, r.Load)
	if r.BackendNote != "" {
		be += "; " + r.BackendNote
	}
	line("backend", "%s", be)
	line("load", "%.1f ms", r.LoadMS)
	at := ""
	if r.Depth > 0 {
		at = fmt.Sprintf(" at depth %d", r.Depth)
	}
	line("prefill", "%d tokens in batches of %d%s: %.1f tok/s (best of %d; mean %.1f)", r.PromptTokens, r.Batch, at, r.PrefillTPS, r.Reps, r.PrefillTPSAvg)
	line("ttft", "%.1f ms", r.TTFTMS)
	line("decode", "%d tokens%s: %.1f tok/s (best of %d; mean %.1f)", r.GenTokens, at, r.DecodeTPS, r.Reps, r.DecodeTPSAvg)
	if r.BandwidthGBs > 0 {
		line("bandwidth", "%.1f GB/s read: decode bound %.1f tok/s, reached %.0f%%", r.BandwidthGBs, r.DecodeBoundTPS, r.DecodePct)
	}
	if r.PeakRSSMB > 0 {
		line("peak RSS", "%.1f MB", r.PeakRSSMB)
	}
	_, err := fmt.Fprint(sio.out, b.String())
	return err
}
