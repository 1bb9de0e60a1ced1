package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/litert-go/litert-go/server"
)

// runServe serves the model over an OpenAI-compatible HTTP API until ctx
// is cancelled (SIGINT or SIGTERM), then shuts down gracefully.
func runServe(ctx context.Context, sio stdio, args []string) error {
	fs := newFlags("serve", sio)
	eo := addEngineFlags(fs)
	eo.addMMProjFlag(fs)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on (loopback by default)")
	parallel := fs.Int("parallel", server.DefaultParallel, "requests generating at once")
	queue := fs.Int("queue", 0, "requests that may be in the server beyond --parallel (reading, tokenizing, waiting) before 429 (0: 4 × parallel, -1: none)")
	cache := fs.Int("cache", 0, "sessions kept for prompt caching, running ones included (0: parallel + 2)")
	cacheMiB := fs.Int64("cache-mib", server.DefaultCacheBytes>>20, "memory bound of the cached KV caches, in MiB (0: only the running sessions)")
	apiKey := fs.String("api-key", "", "require 'Authorization: Bearer KEY' on every route (default $LITERT_API_KEY)")
	alias := fs.String("alias", "", "model name in the API (default: the file name without .gguf)")
	maxTokens := fs.Int("max-tokens", server.DefaultMaxTokens, "most tokens of a reply: requests setting none or asking for more get this many")
	fs.IntVar(maxTokens, "n", server.DefaultMaxTokens, "same as --max-tokens")
	timeout := fs.Duration("timeout", server.DefaultRequestTimeout, "time limit of one request, queueing included")
	grace := fs.Duration("grace", server.DefaultShutdownTimeout, "on shutdown, how long in-flight requests may finish")
	maxBody := fs.Int64("max-body-mib", 0, fmt.Sprintf("largest request body, in MiB (0: %d bytes per token of the context, at least 1 MiB)", server.DefaultBodyBytesPerToken))
	verbose := fs.Bool("v", false, "log every request to stderr")
	metrics := fs.Bool("metrics", false, "serve Prometheus metrics at /metrics (behind --api-key)")
	healthKey := fs.Bool("health-key", false, "require --api-key on /health too (by default a probe needs no key)")
	strictModel := fs.Bool("strict-model", false, "refuse requests naming another model than the served one (404); by default any name is accepted")
	noWebUI := fs.Bool("no-webui", false, "do not serve the chat page at /")
	remoteMedia := fs.Bool("allow-remote-media", false, "fetch http(s) image_url parts (10 s, 32 MiB each); by default only data: URLs are accepted")
	chatTemplate := addChatTemplateFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *parallel < 1 {
		return fmt.Errorf("--parallel %d: want at least 1", *parallel)
	}
	if *cache < 0 || *cacheMiB < 0 || *maxBody < 0 || *timeout < 0 || *grace < 0 || *maxTokens < 1 {
		return errors.New("--cache, --cache-mib, --max-body-mib, --timeout and --grace must not be negative, --max-tokens at least 1")
	}
	tmplSrc, err := readChatTemplate(*chatTemplate)
	if err != nil {
		return err
	}
	if *apiKey == "" {
		*apiKey = os.Getenv("LITERT_API_KEY")
	}
	if host, _, err := net.SplitHostPort(*addr); err != nil {
		return fmt.Errorf("--addr %q: %w", *addr, err)
	} else if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" && *apiKey == "" {
		fmt.Fprintf(sio.err, "litert-go serve: warning: listening on %s without --api-key\n", *addr)
	}
	id := *alias
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(*eo.model), ".gguf")
	}
	eng, err := eo.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelInfo
	}
	srv, err := server.New(eng, server.Config{
		ModelID:          id,
		Parallel:         *parallel,
		Queue:            *queue,
		CacheSessions:    *cache,
		CacheBytes:       max(*cacheMiB<<20, 1),
		MaxBodyBytes:     *maxBody << 20,
		RequestTimeout:   *timeout,
		ShutdownTimeout:  *grace,
		MaxTokens:        *maxTokens,
		APIKey:           *apiKey,
		HealthNeedsKey:   *healthKey,
		StrictModel:      *strictModel,
		Metrics:          *metrics,
		NoWebUI:          *noWebUI,
		AllowRemoteMedia: *remoteMedia,
		ChatTemplate:     tmplSrc,
		Logger:           slog.New(slog.NewTextHandler(sio.err, &slog.HandlerOptions{Level: level})),
	})
	if err != nil {
		return err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", *addr)
	if err != nil {
		return err
	}
	info, lim := eng.Info(), srv.Config()
	fmt.Fprintf(sio.err, "litert-go serve: model %q (%s %s, context %d, backend %s) on http://%s/v1 (parallel %d, queue %d, body limit %.1f MiB, max tokens %d)\n",
		id, info.Arch, info.Quant, info.ContextLength, info.Backend, ln.Addr(), lim.Parallel, lim.Queue, float64(lim.MaxBodyBytes)/(1<<20), lim.MaxTokens)
	if !*noWebUI {
		fmt.Fprintf(sio.err, "litert-go serve: chat page at http://%s/\n", ln.Addr())
	}
	start := time.Now()
	err = srv.Serve(ctx, ln)
	fmt.Fprintf(sio.err, "litert-go serve: stopped after %v\n", time.Since(start).Round(time.Second))
	return err
}
