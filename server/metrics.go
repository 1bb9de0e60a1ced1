package server

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/litert-go/litert-go/conversation"
)

// metrics are the server's Prometheus metrics (Config.Metrics, `serve
// --metrics`), on a registry of the server's own, served at GET /metrics:
//
//	litert_requests_total{route,status}        requests answered, by route pattern and HTTP status
//	litert_requests_running                    requests generating now
//	litert_requests_waiting                    requests admitted and not generating (the queue)
//	litert_cached_sessions                     sessions held by the prompt cache
//	litert_prompt_tokens_total                 prompt tokens prefilled (cached ones not included)
//	litert_prompt_cached_tokens_total          prompt tokens reused from the prompt cache
//	litert_prompt_cache_hits_total             generations that reused cached tokens
//	litert_generated_tokens_total              tokens generated
//	litert_time_to_first_token_seconds         from a request's start to its first generated token (of its first choice)
//	litert_decode_tokens_per_second            decode speed of a generation after its first token
type metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	prefilled   prometheus.Counter
	cached      prometheus.Counter
	cacheHits   prometheus.Counter
	generated   prometheus.Counter
	firstToken  prometheus.Histogram
	decodeSpeed prometheus.Histogram
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "litert_requests_total", Help: "Requests answered, by route pattern and HTTP status.",
		}, []string{"route", "status"}),
		prefilled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "litert_prompt_tokens_total", Help: "Prompt tokens prefilled (those reused from the prompt cache not included).",
		}),
		cached: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "litert_prompt_cached_tokens_total", Help: "Prompt tokens reused from the prompt cache.",
		}),
		cacheHits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "litert_prompt_cache_hits_total", Help: "Generations whose prompt reused cached tokens.",
		}),
		generated: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "litert_generated_tokens_total", Help: "Tokens generated.",
		}),
		firstToken: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "litert_time_to_first_token_seconds", Help: "Time from a request's start to its first generated token (queueing and prefill included).",
			Buckets: prometheus.ExponentialBuckets(0.005, 2, 15), // 5 ms … 82 s
		}),
		decodeSpeed: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "litert_decode_tokens_per_second", Help: "Decode speed of one generation, from its first token to its last.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 13), // 1 … 4096 tokens/s
		}),
	}
	gauge := func(name, help string, f func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f)
	}
	m.reg.MustRegister(m.requests, m.prefilled, m.cached, m.cacheHits, m.generated, m.firstToken, m.decodeSpeed,
		gauge("litert_requests_running", "Requests generating now.", func() float64 {
			running, _ := s.lim.load()
			return float64(running)
		}),
		gauge("litert_requests_waiting", "Requests admitted and not generating yet: reading, tokenizing or waiting for a slot.", func() float64 {
			_, waiting := s.lim.load()
			return float64(waiting)
		}),
		gauge("litert_cached_sessions", "Sessions (KV caches) held by the prompt cache.", func() float64 {
			total, _ := s.cache.size()
			return float64(total)
		}),
	)
	return m
}

// handler serves the metrics in Prometheus' text format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// request counts a request answered; route is the pattern it matched.
func (m *metrics) request(route string, status int) {
	if m == nil {
		return
	}
	if route == "" {
		route = "none"
	}
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
}

// generation records one choice's generation: its usage and when its
// tokens came.
func (m *metrics) generation(u conversation.Usage, l *tokenLog) {
	if m == nil {
		return
	}
	m.prefilled.Add(float64(u.PromptTokens - u.CachedTokens))
	m.cached.Add(float64(u.CachedTokens))
	if u.CachedTokens > 0 {
		m.cacheHits.Inc()
	}
	m.generated.Add(float64(u.CompletionTokens))
	if l == nil || l.n == 0 {
		return
	}
	if !l.start.IsZero() {
		m.firstToken.Observe(l.first.Sub(l.start).Seconds())
	}
	if d := l.last.Sub(l.first).Seconds(); l.n > 1 && d > 0 {
		m.decodeSpeed.Observe(float64(l.n-1) / d)
	}
}
