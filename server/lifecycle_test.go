package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// longStream is a streamed chat request that would run to the context's
// end: it is only ever cancelled.
const longStream = `{"model":"tiny-qwen","stream":true,"max_tokens":1900,"temperature":0,"messages":[{"role":"user","content":"Go on forever"}]}`

// openStream posts a streamed request and returns the response once its
// first event arrived, so the request holds a slot.
func openStream(t *testing.T, ctx context.Context, hc *http.Client, url, body string) (*http.Response, *bufio.Reader) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
	require.NoError(t, err)
	resp, err := hc.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	r := bufio.NewReader(resp.Body)
	line, err := r.ReadString('\n')
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(line, "data: {"), line)
	return resp, r
}

// waitIdle waits until no request runs and every session is back in the
// cache.
func waitIdle(t *testing.T, s *Server) {
	t.Helper()
	require.Eventually(t, func() bool {
		running, waiting := s.lim.load()
		total, idle := s.cache.size()
		return running == 0 && waiting == 0 && total == idle
	}, 10*time.Second, 10*time.Millisecond)
}

func postChat(t *testing.T, hc *http.Client, url, body string) (*http.Response, []byte) {
	t.Helper()
	resp, err := hc.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, data
}

func TestQueueFullAndDisconnect(t *testing.T) {
	testEngine(t)
	before := runtime.NumGoroutine()
	s, ts := startServer(t, Config{Parallel: 1, Queue: -1})
	hc := ts.Client()
	ctx, cancel := context.WithCancel(context.Background())
	resp, _ := openStream(t, ctx, hc, ts.URL, longStream)

	// The only slot is taken and there is no queue: 429 at once.
	busy, data := postChat(t, hc, ts.URL, `{"model":"tiny-qwen","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`)
	assert.Equal(t, http.StatusTooManyRequests, busy.StatusCode)
	assert.Equal(t, "1", busy.Header.Get("Retry-After"))
	var e struct{ Error apiError }
	require.NoError(t, json.Unmarshal(data, &e))
	assert.Equal(t, "rate_limit_exceeded", *e.Error.Code)
	assert.Equal(t, typeRateLimit, e.Error.Type)

	// The client goes away: generation stops and the slot frees.
	cancel()
	resp.Body.Close()
	waitIdle(t, s)
	ok, data := postChat(t, hc, ts.URL, `{"model":"tiny-qwen","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`)
	assert.Equal(t, http.StatusOK, ok.StatusCode, string(data))

	ts.Close()
	settleGoroutines(t, before)
}

func TestQueueWaits(t *testing.T) {
	s, ts := startServer(t, Config{Parallel: 1, Queue: 1})
	hc := ts.Client()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp, _ := openStream(t, ctx, hc, ts.URL, longStream)
	defer resp.Body.Close()

	// One request may wait; it runs once the first is cancelled.
	done := make(chan int)
	go func() {
		r, err := hc.Post(ts.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"tiny-qwen","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			done <- -1
			return
		}
		r.Body.Close()
		done <- r.StatusCode
	}()
	require.Eventually(t, func() bool { _, w := s.lim.load(); return w == 1 }, 5*time.Second, 5*time.Millisecond)
	busy, _ := postChat(t, hc, ts.URL, `{"model":"tiny-qwen","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`)
	assert.Equal(t, http.StatusTooManyRequests, busy.StatusCode, "the queue of one is full")
	cancel()
	assert.Equal(t, http.StatusOK, <-done)
	waitIdle(t, s)
}

func TestRequestTimeout(t *testing.T) {
	s, ts := startServer(t, Config{RequestTimeout: 300 * time.Millisecond})
	start := time.Now()
	resp, data := postChat(t, ts.Client(), ts.URL, `{"model":"tiny-qwen","max_tokens":1900,"temperature":0,"messages":[{"role":"user","content":"Go on"}]}`)
	assert.Equal(t, http.StatusGatewayTimeout, resp.StatusCode, string(data))
	assert.Contains(t, string(data), `"code":"timeout"`)
	assert.Less(t, time.Since(start), 5*time.Second)
	waitIdle(t, s)
}

// serve runs s.Serve on a loopback port and returns its URL and a channel
// with Serve's result.
func serve(t *testing.T, ctx context.Context, s *Server) (string, chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	errc := make(chan error, 1)
	go func() { errc <- s.Serve(ctx, ln) }()
	return "http://" + ln.Addr().String(), errc
}

func TestGracefulShutdown(t *testing.T) {
	eng := testEngine(t)
	t.Run("in-flight requests finish", func(t *testing.T) {
		s, err := New(eng, Config{ModelID: testModel, ShutdownTimeout: 20 * time.Second})
		require.NoError(t, err)
		ctx, stop := context.WithCancel(context.Background())
		url, errc := serve(t, ctx, s)
		hc := &http.Client{}
		resp, r := openStream(t, context.Background(), hc, url,
			`{"model":"tiny-qwen","stream":true,"max_tokens":30,"messages":[{"role":"user","content":"Hi"}]}`)
		defer resp.Body.Close()
		stop() // SIGINT
		rest, err := io.ReadAll(r)
		require.NoError(t, err)
		assert.True(t, strings.HasSuffix(string(rest), "data: [DONE]\n\n"), "the stream completes: %s", rest)
		select {
		case err := <-errc:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return")
		}
		_, err = hc.Get(url + "/health")
		assert.Error(t, err, "no longer accepting")
	})
	t.Run("stragglers are cancelled after the grace period", func(t *testing.T) {
		s, err := New(eng, Config{ModelID: testModel, ShutdownTimeout: 200 * time.Millisecond})
		require.NoError(t, err)
		ctx, stop := context.WithCancel(context.Background())
		url, errc := serve(t, ctx, s)
		resp, r := openStream(t, context.Background(), &http.Client{}, url, longStream)
		defer resp.Body.Close()
		start := time.Now()
		stop()
		select {
		case err := <-errc:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Fatal("Serve did not return")
		}
		assert.Less(t, time.Since(start), 6*time.Second)
		rest, _ := io.ReadAll(r) // cut short
		assert.NotContains(t, string(rest), `"finish_reason":"length"`)
		waitIdle(t, s)
	})
	t.Run("draining refuses new work", func(t *testing.T) {
		s, ts := startServer(t, Config{})
		s.draining.Store(true)
		resp, data := postChat(t, ts.Client(), ts.URL, `{"model":"tiny-qwen","messages":[{"role":"user","content":"hi"}]}`)
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		assert.Contains(t, string(data), "shutting down")
		h, err := ts.Client().Get(ts.URL + "/health")
		require.NoError(t, err)
		h.Body.Close()
		assert.Equal(t, http.StatusServiceUnavailable, h.StatusCode)
	})
	t.Run("listen error", func(t *testing.T) {
		s, err := New(eng, Config{ModelID: testModel})
		require.NoError(t, err)
		err = s.ListenAndServe(context.Background(), "256.0.0.1:0")
		require.Error(t, err)
		assert.False(t, errors.Is(err, context.Canceled))
	})
}
