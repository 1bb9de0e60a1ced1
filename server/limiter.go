package server

import (
	"context"
	"net/http"
	"sync"
)

// limiter admits at most `parallel` requests at once and lets at most
// `queue` more wait; beyond that a request is refused with 429 at once.
type limiter struct {
	slots   chan struct{}
	mu      sync.Mutex
	waiting int
	queue   int
	retry   int // Retry-After seconds for refusals
}

func newLimiter(parallel, queue, retry int) *limiter {
	return &limiter{slots: make(chan struct{}, parallel), queue: queue, retry: retry}
}

// acquire takes a slot, waiting in the queue while ctx lasts. It returns a
// 429 *apiError when the queue is full, or ctx's error.
func (l *limiter) acquire(ctx context.Context) error {
	select {
	case l.slots <- struct{}{}:
		return nil
	default:
	}
	l.mu.Lock()
	if l.waiting >= l.queue {
		l.mu.Unlock()
		e := newError(http.StatusTooManyRequests, typeRateLimit, "", "rate_limit_exceeded",
			"the server is busy: %d requests are running and %d waiting; retry later", cap(l.slots), l.queue)
		e.RetryAfter = l.retry
		return e
	}
	l.waiting++
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.waiting--
		l.mu.Unlock()
	}()
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release frees a slot taken by acquire.
func (l *limiter) release() { <-l.slots }

// load reports the running and waiting requests.
func (l *limiter) load() (running, waiting int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.slots), l.waiting
}
