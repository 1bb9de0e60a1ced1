package gguf_test

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
)

// BenchmarkOpen measures gguf.Open (mmap and header parse, including a
// 151,936-token vocabulary with its merges) of a synthetic Qwen2.5-0.5B in
// Q8_0, about 500 MB, generated once. Goal: under 20 ms. It also reports the
// resident memory the open adds (VmRSS delta), which should be the parsed
// metadata only, not the weights.
func BenchmarkOpen(b *testing.B) {
	if testing.Short() {
		b.Skip("generates a 500 MB model; skipped in -short")
	}
	path := filepath.Join(b.TempDir(), "qwen2.5-0.5b-q8_0.gguf")
	start := time.Now()
	if err := synth.WriteFile(path, "qwen2.5-0.5b", synth.Options{Seed: 1, Type: ggml.Q8_0}); err != nil {
		b.Fatal(err)
	}
	b.Logf("generated %s in %v", path, time.Since(start))
	b.Run("qwen2.5-0.5b-Q8_0", func(b *testing.B) { benchOpen(b, path) })

	fixture := filepath.Join("..", "..", "..", "shared", "testdata", "vocab", "ggml-vocab-qwen2.gguf")
	if _, err := os.Stat(fixture); err == nil {
		b.Run("vocab-qwen2", func(b *testing.B) { benchOpen(b, fixture) })
	}
}

func benchOpen(b *testing.B, path string) {
	var rss int64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		before := vmRSS(b)
		b.StartTimer()
		f, err := gguf.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		rss += vmRSS(b) - before
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(rss)/float64(b.N)/(1<<20), "rss-MiB/op")
}

// vmRSS returns the process's resident set size in bytes, from
// /proc/self/status.
func vmRSS(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc/self/status: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Bytes()
		if rest, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
			fields := bytes.Fields(rest)
			kb, err := strconv.ParseInt(string(fields[0]), 10, 64)
			if err != nil {
				b.Fatalf("VmRSS line %q: %v", line, err)
			}
			return kb << 10
		}
	}
	b.Skip("no VmRSS in /proc/self/status")
	return 0
}
