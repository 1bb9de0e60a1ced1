package server

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/server/webui"
	"github.com/litert-go/litert-go/session"
	"github.com/litert-go/litert-go/tokenizer"
)

// Defaults for Config fields left zero.
const (
	DefaultParallel        = 2
	DefaultMaxTokens       = 4096
	DefaultRequestTimeout  = 10 * time.Minute
	DefaultShutdownTimeout = 30 * time.Second
	DefaultCacheBytes      = 4 << 30
)

// bodyReadTimeout bounds reading one request body.
const bodyReadTimeout = time.Minute

// DefaultSampler is the sampler of requests that set no temperature or
// top_p when Config.Sampler is nil (llama.cpp's defaults).
var DefaultSampler = session.Sampler{Temperature: 0.8, TopK: 40, TopP: 0.95, MinP: 0.05}

// Config configures a Server. The zero value serves with the defaults.
type Config struct {
	// ModelID is the model's name in the API ("model" in requests and
	// /v1/models); "" uses the model's general.name, else "litert-go".
	ModelID string
	// Parallel is the number of requests generating at once, each on its
	// own session of the shared engine; 0 means DefaultParallel.
	Parallel int
	// Queue is how many more requests may be in the server besides the
	// Parallel generating ones: reading and decoding their bodies,
	// rendering and tokenizing their prompts, or waiting for a slot.
	// Beyond that requests get 429 with Retry-After before their body is
	// read. 0 means 4 × Parallel; a negative value means no queue.
	Queue int
	// CacheSessions bounds the sessions (KV caches) kept for prompt
	// caching, the running ones included; 0 means Parallel + 2. It is
	// raised to Parallel if lower.
	CacheSessions int
	// CacheBytes bounds the memory of those KV caches; 0 means
	// DefaultCacheBytes. It never forces fewer than Parallel sessions.
	CacheBytes int64
	// MaxBodyBytes is the largest request body accepted (413 beyond,
	// before reading it when the request announces its length); 0 means
	// DefaultBodyLimit of the engine's context length.
	MaxBodyBytes int64
	// RequestTimeout bounds a request, queueing included (504 after);
	// 0 means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// ShutdownTimeout is how long Serve lets in-flight requests finish
	// once its context is cancelled before cancelling them; 0 means
	// DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// MaxTokens caps the tokens of a reply: a request setting none, or
	// asking for more, gets this many (as llama-server caps n_predict;
	// finish_reason "length" says so), never more than the context leaves.
	// 0 means DefaultMaxTokens.
	MaxTokens int
	// APIKey, if set, is required as "Authorization: Bearer KEY" on every
	// route but GET /health (unless HealthNeedsKey) and the chat page.
	APIKey string
	// HealthNeedsKey requires the API key on GET /health too; by default a
	// container probe needs no secret.
	HealthNeedsKey bool
	// StrictModel refuses requests naming another model than ModelID with
	// 404 model_not_found. By default any name (or none) is accepted, as
	// llama-server does, and answered with ModelID.
	StrictModel bool
	// Metrics serves Prometheus metrics at GET /metrics (behind the API
	// key); see the metrics type for the names.
	Metrics bool
	// NoWebUI leaves out the chat page at GET /.
	NoWebUI bool
	// Sampler is the sampler of requests before their temperature, top_p,
	// penalties and seed apply; nil means DefaultSampler.
	Sampler *session.Sampler
	// ToolFormat names the tool-call syntax; "" detects it from the chat
	// template (see conversation.Config).
	ToolFormat string
	// ChatTemplate replaces the model's chat template (Jinja source); ""
	// uses the model's own (see conversation.Config).
	ChatTemplate string
	// AllowRemoteMedia lets image_url parts name http(s) URLs, which the
	// server then fetches (RemoteMediaTimeout, conversation.MaxMediaBytes,
	// RemoteMediaRedirects); by default only data: URLs are accepted.
	// Turn it on only where the server may reach what clients name.
	AllowRemoteMedia bool
	// Logger receives one line per request and server events; nil
	// discards them.
	Logger *slog.Logger
}

// Server is an OpenAI-compatible HTTP server for one engine. Create it with
// New; it is safe for concurrent use.
type Server struct {
	eng      *engine.Engine
	cfg      Config
	modelID  string
	created  int64
	prompter *conversation.Prompter
	// mediaClient fetches remote image_url URLs; nil unless
	// Config.AllowRemoteMedia.
	mediaClient *http.Client
	lim         *limiter
	cache       *promptCache
	jsonObject  *constrain.Grammar
	// tokenBytes is the most bytes of text one token stands for, so a text
	// of n bytes has at least n/tokenBytes tokens; 0 where no such bound
	// holds (WordPiece drops whitespace).
	tokenBytes int
	log        *slog.Logger
	metrics    *metrics // nil unless Config.Metrics
	draining   atomic.Bool
	inflight   sync.WaitGroup
}

// New returns a server for eng. The engine must outlive the server.
func New(eng *engine.Engine, cfg Config) (*Server, error) {
	if cfg.Parallel < 0 || cfg.CacheSessions < 0 || cfg.CacheBytes < 0 || cfg.MaxBodyBytes < 0 || cfg.MaxTokens < 0 ||
		cfg.RequestTimeout < 0 || cfg.ShutdownTimeout < 0 {
		return nil, errors.New("server: negative limit in Config")
	}
	if cfg.Parallel == 0 {
		cfg.Parallel = DefaultParallel
	}
	switch {
	case cfg.Queue == 0:
		cfg.Queue = 4 * cfg.Parallel
	case cfg.Queue < 0:
		cfg.Queue = 0
	}
	if cfg.CacheBytes == 0 {
		cfg.CacheBytes = DefaultCacheBytes
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultBodyLimit(eng.Info().ContextLength)
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.Sampler == nil {
		s := DefaultSampler
		cfg.Sampler = &s
	}
	if err := cfg.Sampler.Validate(); err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	info := eng.Info()
	id := cfg.ModelID
	if id == "" {
		id = info.Name
	}
	if id == "" {
		id = "litert-go"
	}
	// The Prompter encodes a request's media to match it to a cached
	// conversation, which then finds them encoded.
	convCfg := conversation.Config{Sampler: *cfg.Sampler, ToolFormat: cfg.ToolFormat, ChatTemplate: cfg.ChatTemplate,
		MediaCache: conversation.NewMediaCache(conversation.DefaultMediaCacheBytes)}
	prompter, err := conversation.NewPrompter(eng, convCfg)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	jsonObject, err := constrain.JSONSchemaWith([]byte(`{"type":"object"}`), constrain.JSONOptions{AdditionalProperties: true})
	if err != nil {
		return nil, fmt.Errorf("server: json_object grammar: %w", err)
	}
	sessions := cfg.CacheSessions
	if sessions == 0 {
		sessions = cfg.Parallel + 2
	}
	if per := kvBytes(info); per > 0 {
		sessions = min(sessions, int(cfg.CacheBytes/per))
	}
	sessions = max(sessions, cfg.Parallel)
	s := &Server{
		eng: eng, cfg: cfg, modelID: id, created: time.Now().Unix(), prompter: prompter,
		lim: newLimiter(cfg.Parallel, cfg.Queue, 1), jsonObject: jsonObject, tokenBytes: longestToken(eng.Tokenizer()), log: cfg.Logger,
	}
	if cfg.AllowRemoteMedia {
		s.mediaClient = newMediaClient()
	}
	s.cache = newPromptCache(sessions, func(ctx context.Context) (*conversation.Conversation, error) {
		return conversation.New(ctx, eng, convCfg)
	})
	if cfg.Metrics {
		s.metrics = newMetrics(s)
	}
	return s, nil
}

// longestToken returns the most bytes of text a token of tok stands for,
// control tokens included, plus one for the space prefix SentencePiece
// removes from a first token; 0 for WordPiece, whose tokens do not cover
// the whitespace between words.
func longestToken(tok *tokenizer.Tokenizer) int {
	if tok.Model() == "bert" {
		return 0
	}
	n := 0
	for id := range int32(tok.VocabSize()) {
		if s, err := tok.DecodeSpecial([]int32{id}); err == nil {
			n = max(n, len(s))
		}
	}
	return n + 1
}

// checkTextLength refuses, before rendering or tokenizing it, text of n
// bytes that cannot fit the context: it has at least n/tokenBytes tokens.
func (s *Server) checkTextLength(param string, n int) *apiError {
	if s.tokenBytes == 0 {
		return nil
	}
	ctxLen := s.eng.Info().ContextLength
	if least := (n + s.tokenBytes - 1) / s.tokenBytes; least >= ctxLen {
		return invalid(param, "context_length_exceeded",
			"this model's maximum context length is %d tokens, but the prompt has %d bytes of text, at least %d tokens (a token is at most %d bytes)",
			ctxLen, n, least, s.tokenBytes)
	}
	return nil
}

// kvBytes estimates one session's KV cache: keys and values of every layer
// for the whole context.
func kvBytes(info engine.Info) int64 {
	p := info.Params
	elem := int64(4)
	if info.KVType == ggml.F16 {
		elem = 2
	}
	return 2 * int64(p.NLayers) * int64(info.ContextLength) * int64(p.NKVHeads) * int64(p.HeadDim) * elem
}

// Config returns the server's configuration with the defaults applied:
// the limits it enforces.
func (s *Server) Config() Config { return s.cfg }

// ModelID is the model's name in the API.
func (s *Server) ModelID() string { return s.modelID }

// Handler returns the server's routes: GET /v1/models, GET
// /v1/models/{id}, POST /v1/chat/completions, POST /v1/completions, GET
// /health, GET /metrics (with Config.Metrics) and the chat page at GET /
// (unless Config.NoWebUI).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/v1/models", s.keyed(route(http.MethodGet, s.handleModels)))
	mux.Handle("/v1/models/{id}", s.keyed(route(http.MethodGet, s.handleModel)))
	mux.Handle("/v1/chat/completions", s.keyed(route(http.MethodPost, s.admitted(s.handleChat))))
	mux.Handle("/v1/completions", s.keyed(route(http.MethodPost, s.admitted(s.handleCompletions))))
	health := route(http.MethodGet, s.handleHealth)
	if s.cfg.HealthNeedsKey {
		health = s.keyed(health)
	}
	mux.Handle("/health", health)
	if s.metrics != nil {
		mux.Handle("/metrics", s.keyed(route(http.MethodGet, s.metrics.handler().ServeHTTP)))
	}
	if !s.cfg.NoWebUI {
		// The page holds no data: it asks for the key, if any, and sends
		// it with its API calls.
		ui := webui.Handler()
		mux.Handle("GET /{$}", ui)
		mux.Handle("GET /webui/", ui)
	}
	mux.Handle("/", s.keyed(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, newError(http.StatusNotFound, typeInvalidRequest, "", "unknown_url", "unknown request URL: %s %s", r.Method, r.URL.Path))
	})))
	return s.middleware(mux)
}

// keyed checks the API key before h.
func (s *Server) keyed(h http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := s.authorize(r); err != nil {
			writeError(w, err)
			return
		}
		h.ServeHTTP(w, r)
	}
}

// route answers 405 to methods other than method.
func route(method string, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method {
			w.Header().Set("Allow", method)
			writeError(w, newError(http.StatusMethodNotAllowed, typeInvalidRequest, "", "method_not_allowed",
				"%s %s is not supported; use %s", r.Method, r.URL.Path, method))
			return
		}
		h(w, r)
	})
}

// admitted runs h once the limiter admits the request, before anything of
// it is read: a body announced larger than Config.MaxBodyBytes gets 413 and
// a request past the queue 429, each at once.
func (s *Server) admitted(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > s.cfg.MaxBodyBytes {
			writeError(w, tooLarge(s.cfg.MaxBodyBytes))
			return
		}
		if err := s.lim.admit(); err != nil {
			writeError(w, err)
			return
		}
		defer s.lim.leave()
		h(w, r)
	}
}

// middleware refuses work while draining, recovers panics, and logs and
// counts each request.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		s.inflight.Add(1)
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic serving request", "path", r.URL.Path, "panic", p)
				if !rec.wrote {
					writeError(rec, newError(http.StatusInternalServerError, typeServer, "", "", "internal error: %v", p))
				}
			}
			s.inflight.Done()
			s.metrics.request(r.Pattern, rec.status)
			s.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", rec.status, "duration", time.Since(start))
		}()
		if s.draining.Load() && r.URL.Path != "/health" {
			writeError(rec, newError(http.StatusServiceUnavailable, typeServer, "", "shutting_down", "the server is shutting down"))
			return
		}
		next.ServeHTTP(rec, r)
	})
}

// authorize checks the bearer token when an API key is set.
func (s *Server) authorize(r *http.Request) *apiError {
	if s.cfg.APIKey == "" {
		return nil
	}
	auth := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || token == "" {
		return newError(http.StatusUnauthorized, typeInvalidRequest, "", "invalid_api_key",
			"you didn't provide an API key: send it as 'Authorization: Bearer YOUR_KEY'")
	}
	if subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(s.cfg.APIKey)) != 1 {
		return newError(http.StatusUnauthorized, typeInvalidRequest, "", "invalid_api_key", "incorrect API key provided")
	}
	return nil
}

// statusRecorder remembers the status written, for the log.
type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *statusRecorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// ListenAndServe listens on addr (host:port) and serves until ctx is
// cancelled; see Serve.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve accepts connections on ln until ctx is cancelled, then shuts down
// gracefully: it stops accepting, lets in-flight requests finish for up to
// Config.ShutdownTimeout, then cancels the rest and returns. It returns nil
// after a shutdown, else the error that stopped it.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	base, cancelAll := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelAll()
	hs := &http.Server{
		Handler:           s.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	s.log.Info("serving", "addr", ln.Addr().String(), "model", s.modelID, "parallel", s.cfg.Parallel, "cache_sessions", s.cache.max)
	select {
	case err := <-errc:
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
	}
	s.draining.Store(true)
	s.log.Info("shutting down", "grace", s.cfg.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		s.log.Warn("cancelling requests still running after the grace period", "err", err)
		cancelAll()
		_ = hs.Close()
		done := make(chan struct{})
		go func() { s.inflight.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			s.log.Warn("requests did not stop within 5 s of cancellation")
		}
	}
	<-errc
	return nil
}

// newID returns a unique id with the given prefix, such as "chatcmpl-".
func newID(prefix string) string { return prefix + strings.ToLower(rand.Text()) }
