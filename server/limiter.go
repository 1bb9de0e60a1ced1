package server

import (
	"context"
	"net/http"
)

// limiter bounds the work in the server in two stages. Admission comes
// first, before a request's body is read: at most parallel+queue requests
// are inside the server at once (reading, decoding, rendering and
// tokenizing, waiting for a slot or generating), and one more is refused
// at once with 429. An admitted request then takes one of `parallel`
// generation slots, waiting for one while its context lasts. The memory of
// requests in flight is so bounded by parallel+queue times the body limit
// (and what a body of that size costs to decode and tokenize).
type limiter struct {
	admitted chan struct{} // one token per request inside the server
	slots    chan struct{} // one token per request generating
	queue    int
	retry    int // Retry-After seconds for refusals
}

func newLimiter(parallel, queue, retry int) *limiter {
	return &limiter{admitted: make(chan struct{}, parallel+queue), slots: make(chan struct{}, parallel), queue: queue, retry: retry}
}

// admit lets a request in, or returns a 429 *apiError at once when
// parallel+queue requests are in already. A nil error must be followed by
// leave.
func (l *limiter) admit() *apiError {
	select {
	case l.admitted <- struct{}{}:
		return nil
	default:
	}
	e := newError(http.StatusTooManyRequests, typeRateLimit, "", "rate_limit_exceeded",
		"the server is busy: %d requests are running and %d waiting; retry later", cap(l.slots), l.queue)
	e.RetryAfter = l.retry
	return e
}

// leave lets out a request admitted by admit.
func (l *limiter) leave() { <-l.admitted }

// acquire takes a generation slot for an admitted request, waiting while
// ctx lasts. It returns ctx's error if the wait ends first.
func (l *limiter) acquire(ctx context.Context) error {
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release frees a slot taken by acquire.
func (l *limiter) release() { <-l.slots }

// load reports the requests generating and the others admitted (preparing
// or waiting for a slot).
func (l *limiter) load() (running, waiting int) {
	running = len(l.slots)
	return running, max(len(l.admitted)-running, 0)
}
