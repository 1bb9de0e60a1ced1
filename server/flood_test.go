package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/litert-go/litert-go/template"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chatBody is a chat request whose one user message is about size bytes of
// English text.
func chatBody(size int) []byte {
	const sentence = "All work and no play makes Jack a dull boy. "
	head := `{"model":"tiny-qwen","max_tokens":1,"messages":[{"role":"user","content":"`
	tail := `"}]}`
	var b bytes.Buffer
	b.Grow(size + len(head) + len(tail) + len(sentence))
	b.WriteString(head)
	for b.Len() < size {
		b.WriteString(sentence)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// rawPost posts body to path on its own connection, announcing its length
// or sending it chunked, and returns the response's status, Retry-After and
// body. The body is written while the response is read: the server may
// answer, and close the connection, before it read the body (write errors
// after that are expected and ignored).
func rawPost(addr, path string, body []byte, chunked bool) (status int, retryAfter string, data []byte, err error) {
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return 0, "", nil, err
	}
	_ = conn.SetDeadline(time.Now().Add(2 * time.Minute))
	var wrote sync.WaitGroup
	defer wrote.Wait()
	defer conn.Close()
	wrote.Go(func() {
		w := bufio.NewWriterSize(conn, 64<<10)
		fmt.Fprintf(w, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n", path, addr)
		if !chunked {
			fmt.Fprintf(w, "Content-Length: %d\r\n\r\n", len(body))
			_, _ = w.Write(body)
			_ = w.Flush()
			return
		}
		fmt.Fprintf(w, "Transfer-Encoding: chunked\r\n\r\n")
		for rest := body; len(rest) > 0; {
			n := min(len(rest), 32<<10)
			fmt.Fprintf(w, "%x\r\n", n)
			_, _ = w.Write(rest[:n])
			if _, err := io.WriteString(w, "\r\n"); err != nil {
				return
			}
			rest = rest[n:]
		}
		_, _ = io.WriteString(w, "0\r\n\r\n")
		_ = w.Flush()
	})
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, "", nil, err
	}
	data, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Retry-After"), data, err
}

// memPeak samples the heap in use and the resident set every 5 ms until
// stop is called, which returns their peaks.
func memPeak() (stop func() (heap, rss uint64)) {
	var heapPeak, rssPeak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	sample := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse > heapPeak.Load() {
			heapPeak.Store(ms.HeapInuse)
		}
		if r := rss(); r > rssPeak.Load() {
			rssPeak.Store(r)
		}
	}
	wg.Go(func() {
		for {
			sample()
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	return func() (uint64, uint64) {
		close(done)
		wg.Wait()
		sample()
		return heapPeak.Load(), rssPeak.Load()
	}
}

// rss is the process's resident set in bytes (0 where /proc is absent).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// TestLargeBodies floods the server with 40 concurrent 15 MB requests, as
// issue 14 did (ten of them took the resident set from 44 MB to 5.68 GB,
// all read, decoded, rendered and tokenized before any was refused). Every
// request must get an OpenAI error (413 over the body limit, 429 past the
// queue, 400 for a prompt over the context), the memory in use must stay
// within what the admitted requests may hold, and the server must serve a
// normal request afterwards.
//
// By default the body limit is the context-sized default (2 MiB for the
// test model's 2048 tokens), so a 15 MB body is refused on its
// Content-Length at once or, sent chunked, after 2 MiB; a few bodies under
// the limit are read; of these, those longer than the context allows in
// bytes (2048 tokens of at most 128 bytes) are refused before rendering,
// the others after tokenizing. With LITERT_LOAD_FULL=1 the limit is
// raised to 16 MiB, the old default, so that every admitted 15 MB body is
// read and decoded before its prompt is found too long.
func TestLargeBodies(t *testing.T) {
	if testing.Short() {
		t.Skip("flood test skipped in -short mode")
	}
	const (
		parallel = 2
		queue    = 2
		clients  = 40
		huge     = 15 << 20
	)
	full := os.Getenv("LITERT_LOAD_FULL") == "1"
	cfg := Config{Parallel: parallel, Queue: queue}
	small := 0 // requests with a body under the limit, among the clients
	if full {
		cfg.MaxBodyBytes = 16 << 20
	} else {
		small = 6
	}
	testEngine(t)
	goroutines := runtime.NumGoroutine()
	s, ts := startServer(t, cfg)
	limit := s.cfg.MaxBodyBytes
	if !full {
		require.Equal(t, int64(2048*DefaultBodyBytesPerToken), limit, "the default limit is sized to the context")
	}
	addr := ts.Listener.Addr().String()
	hugeBody := chatBody(huge)
	smallBody := chatBody(int(limit) * 3 / 4)           // refused on its length in bytes
	mediumBody := chatBody(2048 * s.tokenBytes * 3 / 4) // tokenized, then refused
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heapBefore, rssBefore := ms.HeapInuse, rss()

	stop := memPeak()
	start := time.Now()
	var (
		mu       sync.Mutex
		statuses = map[int]int{}
		failures []string
		wg       sync.WaitGroup
	)
	for i := range clients {
		wg.Go(func() {
			body, chunked := hugeBody, i%2 == 1
			if i < small {
				body = smallBody
				if i%2 == 0 {
					body = mediumBody
				}
			}
			status, retry, data, err := rawPost(addr, "/v1/chat/completions", body, chunked)
			mu.Lock()
			defer mu.Unlock()
			statuses[status]++
			if err != nil {
				failures = append(failures, fmt.Sprintf("request %d: %v", i, err))
				return
			}
			var e struct{ Error apiError }
			if err := json.Unmarshal(data, &e); err != nil || e.Error.Code == nil {
				failures = append(failures, fmt.Sprintf("request %d: status %d without an error code: %.200s", i, status, data))
				return
			}
			want := map[int]string{
				http.StatusBadRequest:            "context_length_exceeded",
				http.StatusRequestEntityTooLarge: "request_too_large",
				http.StatusTooManyRequests:       "rate_limit_exceeded",
			}[status]
			if *e.Error.Code != want {
				failures = append(failures, fmt.Sprintf("request %d: status %d, code %q: %s", i, status, *e.Error.Code, e.Error.Message))
			}
			if status == http.StatusTooManyRequests && retry == "" {
				failures = append(failures, fmt.Sprintf("request %d: 429 without Retry-After", i))
			}
			if len(body) > int(limit) && status != http.StatusRequestEntityTooLarge && status != http.StatusTooManyRequests {
				failures = append(failures, fmt.Sprintf("request %d: a body over the limit got %d", i, status))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	heapPeak, rssPeak := stop()

	assert.Empty(t, failures)
	assert.Zero(t, statuses[http.StatusOK], "statuses %v", statuses)
	if !full {
		assert.GreaterOrEqual(t, statuses[http.StatusRequestEntityTooLarge], clients/2-small/2, "every announced 15 MB body: statuses %v", statuses)
	}
	heapGrowth := heapPeak - min(heapBefore, heapPeak)
	rssGrowth := rssPeak - min(rssBefore, rssPeak)
	t.Logf("%d concurrent requests of %d MiB (body limit %.1f MiB, parallel %d, queue %d) in %v: statuses %v; peak heap in use +%d MiB, peak RSS +%d MiB",
		clients, huge>>20, float64(limit)/(1<<20), parallel, queue, elapsed.Round(time.Millisecond), statuses, heapGrowth>>20, rssGrowth>>20)

	// Each admitted request holds at most one body of the limit in a
	// handful of copies (the bytes read, the decoded message, the rendered
	// prompt) and the tokenizer's scratch for it (code points, offsets and
	// ids: about 12 bytes per byte of text): 24 bytes per body byte bound
	// it. The bound, 1 GiB over the model, holds for the RSS.
	bound := uint64(parallel+queue)*24*uint64(limit) + 64<<20
	assert.Less(t, heapGrowth, bound, "peak heap in use grew by %d MiB; the bound is %d MiB", heapGrowth>>20, bound>>20)
	assert.Less(t, rssGrowth, uint64(1<<30), "peak RSS grew by %d MiB", rssGrowth>>20)

	// The server is up and idle. One at a time, the bodies under the limit
	// are refused for their length, before rendering or after tokenizing,
	// and a normal request is served.
	waitIdle(t, s)
	for _, tc := range []struct {
		body []byte
		msg  string
	}{
		{smallBody, fmt.Sprintf("but the prompt has %d bytes of text, at least", len(smallBody)-len(chatBody(0)))},
		{mediumBody, "tokens, but the prompt has"},
	} {
		status, _, data, err := rawPost(addr, "/v1/chat/completions", tc.body, false)
		require.NoError(t, err)
		assert.Equal(t, http.StatusBadRequest, status)
		assert.Contains(t, string(data), `"code":"context_length_exceeded"`)
		assert.Contains(t, string(data), tc.msg)
	}
	resp, data := postChat(t, ts.Client(), ts.URL, `{"model":"tiny-qwen","max_tokens":2,"messages":[{"role":"user","content":"hi"}]}`)
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	ts.Close()
	settleGoroutines(t, goroutines)
}

func TestLongestToken(t *testing.T) {
	s, _ := startServer(t, Config{})
	tok := testEngine(t).Tokenizer()
	t.Logf("the longest Qwen2 token is %d bytes", s.tokenBytes-1)
	// A run of spaces is one of the longest tokens of GPT-2-style
	// vocabularies; each token of its encoding is within the bound.
	for _, text := range []string{strings.Repeat(" ", 5000), strings.Repeat("=", 5000), "<|im_start|>" + strings.Repeat("-", 3000)} {
		ids := tok.Encode(text, tokenizerOpts)
		assert.GreaterOrEqual(t, len(ids)*s.tokenBytes, len(text), "a text has at least len/tokenBytes tokens")
	}
}

// renderLimitError renders src with small limits and returns the
// *template.LimitError it ends with, wrapped as the conversation wraps it.
func renderLimitError(t *testing.T, src string, lim template.Limits) error {
	t.Helper()
	tmpl, err := template.Parse(src, template.WithLimits(lim))
	require.NoError(t, err)
	_, err = tmpl.Render(context.Background(), template.Request{})
	var le *template.LimitError
	require.ErrorAs(t, err, &le)
	return fmt.Errorf("conversation: chat template: %w", err)
}

func TestTemplateLimitIsServerError(t *testing.T) {
	// The doubling template of issue #14: the model's template is at fault.
	doubling := renderLimitError(t, "{% set s = namespace(v='xxxxxxxxxx') %}{% for i in range(40) %}{% set s.v = s.v ~ s.v %}{% endfor %}{{ s.v|length }}", template.Limits{})
	for _, e := range []*apiError{asError(doubling), requestError("messages", doubling)} {
		assert.Equal(t, http.StatusInternalServerError, e.Status, "the template is the model's or the server's, not the request's")
		assert.Equal(t, typeServer, e.Type)
		require.NotNil(t, e.Code)
		assert.Equal(t, "template_limit", *e.Code)
		assert.Contains(t, e.Message, "limit exceeded")
	}
	// A prompt rendered past the output limit is the request's: too long.
	long := renderLimitError(t, "{% for i in range(100) %}{{ 'x' * 100 }}{% endfor %}", template.Limits{MaxOutput: 1000})
	e := asError(long)
	assert.Equal(t, http.StatusBadRequest, e.Status)
	require.NotNil(t, e.Code)
	assert.Equal(t, "context_length_exceeded", *e.Code)
	// Other template errors (raise_exception on the request's messages)
	// stay the request's fault.
	assert.Equal(t, http.StatusBadRequest, requestError("messages", fmt.Errorf("template: Conversation roles must alternate")).Status)
}

func TestMaxTokensCap(t *testing.T) {
	s, ts := startServer(t, Config{MaxTokens: 3})
	for _, tc := range []struct {
		requested *int
		want      int
	}{{nil, 3}, {ptr(1000000), 3}, {ptr(2), 2}} {
		got, aerr := s.maxTokens(tc.requested, 10)
		require.Nil(t, aerr)
		assert.Equal(t, tc.want, got)
	}
	d, _ := startServer(t, Config{})
	got, aerr := d.maxTokens(ptr(1000000), 10)
	require.Nil(t, aerr)
	assert.Equal(t, min(DefaultMaxTokens, 2048-10), got, "the default cap, within the context")

	// A request asking for a million tokens gets the server's cap, as
	// llama-server caps n_predict, and finish_reason says "length" when it
	// ran to it.
	resp, data := postChat(t, ts.Client(), ts.URL, `{"model":"tiny-qwen","max_tokens":1000000,"temperature":0,"messages":[{"role":"user","content":"Go on"}]}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	var c chatCompletion
	require.NoError(t, json.Unmarshal(data, &c))
	require.NotNil(t, c.Usage)
	assert.LessOrEqual(t, c.Usage.CompletionTokens, 3)
	if c.Usage.CompletionTokens == 3 {
		assert.Equal(t, "length", *c.Choices[0].FinishReason)
	}
}
