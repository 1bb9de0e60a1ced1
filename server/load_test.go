package server

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// settleGoroutines waits up to 5 s for the goroutine count to fall to want.
func settleGoroutines(t *testing.T, want int) {
	t.Helper()
	n := 0
	for range 100 {
		if n = runtime.NumGoroutine(); n <= want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	t.Errorf("goroutine leak: %d running, %d before\n%s", n, want, buf[:runtime.Stack(buf, true)])
}

func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test skipped in -short mode")
	}
	const (
		requests = 200
		clients  = 16
		parallel = 4
		queue    = 6
	)
	testEngine(t)
	runtime.GC()
	before := runtime.NumGoroutine()
	heapBefore := heapAlloc()

	s, ts := startServer(t, Config{Parallel: parallel, Queue: queue, CacheSessions: parallel + 2})
	maxHeap := atomic.Uint64{}
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if h := heapAlloc(); h > maxHeap.Load() {
				maxHeap.Store(h)
			}
			select {
			case <-stopSampling:
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()

	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	hc := &http.Client{Transport: tr, Timeout: time.Minute}
	var (
		mu        sync.Mutex
		latencies []time.Duration // from the first try
		served    []time.Duration // of the try that was served
		statuses  = map[int]int{}
		failures  []string
		next      atomic.Int64
	)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range clients {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= requests {
					return
				}
				// A few shared system prompts, so the cache gets hits too.
				body := fmt.Sprintf(`{"model":"tiny-qwen","max_tokens":2,"temperature":0,"stream":%t,"messages":[`+
					`{"role":"system","content":"You are helper %d."},{"role":"user","content":"Request %d from client %d"}]}`,
					i%3 == 0, i%4, i, w)
				// A 429 is retried after a short pause (shorter than its
				// Retry-After, to keep the test quick); latency counts
				// from the first try.
				t0 := time.Now()
				for try := 0; ; try++ {
					t1 := time.Now()
					resp, err := hc.Post(ts.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
					if err != nil {
						mu.Lock()
						failures = append(failures, err.Error())
						mu.Unlock()
						break
					}
					data, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					d := time.Since(t0)
					mu.Lock()
					statuses[resp.StatusCode]++
					retry := false
					switch {
					case err != nil:
						failures = append(failures, err.Error())
					case resp.StatusCode == http.StatusOK:
						latencies = append(latencies, d)
						served = append(served, time.Since(t1))
						if i%3 == 0 && !strings.HasSuffix(string(data), "data: [DONE]\n\n") {
							failures = append(failures, "stream without [DONE]: "+string(data))
						}
					case resp.StatusCode == http.StatusTooManyRequests:
						if resp.Header.Get("Retry-After") == "" {
							failures = append(failures, "429 without Retry-After")
						}
						retry = try < 100
					default:
						failures = append(failures, fmt.Sprintf("status %d: %s", resp.StatusCode, data))
					}
					mu.Unlock()
					if !retry {
						break
					}
					time.Sleep(time.Duration(20+try*10) * time.Millisecond)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stopSampling)
	<-sampled

	assert.Empty(t, failures)
	assert.Equal(t, requests, statuses[http.StatusOK], "statuses %v", statuses)
	require.NotEmpty(t, latencies)
	slices.Sort(latencies)
	slices.Sort(served)
	p := func(l []time.Duration, q float64) time.Duration {
		return l[int(q*float64(len(l)-1))].Round(time.Millisecond)
	}
	t.Logf("load: %d requests from %d clients (parallel %d, queue %d) in %v: %.1f req/s, %d × 429 (retried); "+
		"latency p50 %v p99 %v (served try: p50 %v p99 %v); peak heap +%d MiB",
		requests, clients, parallel, queue, elapsed.Round(time.Millisecond), float64(len(latencies))/elapsed.Seconds(),
		statuses[http.StatusTooManyRequests], p(latencies, 0.5), p(latencies, 0.99), p(served, 0.5), p(served, 0.99),
		(maxHeap.Load()-min(heapBefore, maxHeap.Load()))>>20)

	// Memory stays bounded: the cached sessions' KV caches and logits, plus
	// a margin for request buffers.
	total, idle := s.cache.size()
	assert.LessOrEqual(t, total, parallel+2)
	assert.Equal(t, total, idle, "every session is back in the cache")
	perSession := uint64(kvBytes(testEngine(t).Info())) + 4*uint64(testEngine(t).Info().VocabSize)*4
	assert.Less(t, maxHeap.Load(), heapBefore+uint64(total)*perSession+256<<20)

	running, waiting := s.lim.load()
	assert.Zero(t, running)
	assert.Zero(t, waiting)

	ts.Close()
	tr.CloseIdleConnections()
	settleGoroutines(t, before)
}
