package native

import "sync"

// pool is a fixed set of worker goroutines that run chunks of a loop. Many
// goroutines may submit loops at once (one per session); each submitter
// runs one chunk itself and waits for the rest.
type pool struct {
	n    int
	jobs chan job
	wg   sync.WaitGroup
}

// job is one chunk [lo, hi) of a loop.
type job struct {
	fn     func(lo, hi int)
	lo, hi int
	done   *sync.WaitGroup
}

func newPool(n int) *pool {
	p := &pool{n: n, jobs: make(chan job, 4*n)}
	for range n - 1 {
		p.wg.Add(1)
		go p.work()
	}
	return p
}

func (p *pool) work() {
	defer p.wg.Done()
	for j := range p.jobs {
		j.fn(j.lo, j.hi)
		j.done.Done()
	}
}

// parallel runs fn over [0, n) split into at most p.n chunks, none smaller
// than grain iterations (so tiny loops stay on the calling goroutine).
func (p *pool) parallel(n, grain int, fn func(lo, hi int)) {
	chunks := min(p.n, (n+grain-1)/max(grain, 1))
	if chunks <= 1 {
		fn(0, n)
		return
	}
	var done sync.WaitGroup
	done.Add(chunks - 1)
	for c := 1; c < chunks; c++ {
		p.jobs <- job{fn: fn, lo: c * n / chunks, hi: (c + 1) * n / chunks, done: &done}
	}
	fn(0, n/chunks)
	done.Wait()
}

// close stops the workers once queued chunks are done.
func (p *pool) close() {
	close(p.jobs)
	p.wg.Wait()
}
