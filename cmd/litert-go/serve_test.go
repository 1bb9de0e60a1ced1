package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServe(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "testdata", "models", "stories260K-Q4_0.gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("fixture absent: %v", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	var errOut syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, stdio{strings.NewReader(""), io.Discard, &errOut},
			[]string{"serve", "-m", path, "--addr", "127.0.0.1:0", "--api-key", "k", "--parallel", "1", "--ctx", "256", "-t", "1", "--metrics"})
	}()
	addrRE := regexp.MustCompile(`on http://(127\.0\.0\.1:\d+)/v1`)
	var addr string
	require.Eventually(t, func() bool {
		if m := addrRE.FindStringSubmatch(errOut.String()); m != nil {
			addr = m[1]
			return true
		}
		return false
	}, 30*time.Second, 10*time.Millisecond, "no listening line: %s", errOut.String())
	assert.Contains(t, errOut.String(), `model "stories260K-Q4_0"`)
	// The limits: a context of 256 tokens gets the least default body
	// limit, 1 MiB, and a body over it is refused.
	assert.Contains(t, errOut.String(), "(parallel 1, queue 4, body limit 1.0 MiB, max tokens 4096)")
	big, err := http.NewRequest(http.MethodPost, "http://"+addr+"/v1/completions", strings.NewReader(strings.Repeat(" ", 2<<20)))
	require.NoError(t, err)
	big.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(big)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)

	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/v1/completions",
		strings.NewReader(`{"model":"model","prompt":"Once upon a time","max_tokens":5,"temperature":0}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer k")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Contains(t, string(body), `"completion_tokens":`)

	resp, err = http.Get("http://" + addr + "/v1/models")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the API key is required")
	// A probe and the chat page need no key; the metrics do.
	for path, want := range map[string]string{"/health": `"status":"ok"`, "/": "<title>litert-go</title>"} {
		resp, err = http.Get("http://" + addr + path)
		require.NoError(t, err)
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.Contains(t, string(body), want, path)
	}
	assert.Contains(t, errOut.String(), "chat page at http://"+addr+"/")
	req, err = http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer k")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Contains(t, string(body), `litert_requests_total{route="/v1/completions",status="200"} 1`)

	stop() // as SIGINT does
	select {
	case code := <-done:
		assert.Equal(t, 0, code, errOut.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	assert.Contains(t, errOut.String(), "stopped after")
}

func TestServeErrors(t *testing.T) {
	code, _, errOut := runCmd(t, "serve")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "-m FILE is required")
	code, _, errOut = runCmd(t, "serve", "-m", "x.gguf", "--parallel", "0")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "--parallel 0")
	code, _, errOut = runCmd(t, "serve", "-m", "x.gguf", "--addr", "nonsense")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `--addr "nonsense"`)
}
