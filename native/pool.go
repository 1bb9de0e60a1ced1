package native

import (
	"sync"
	"sync/atomic"
)

// pool is a fixed set of worker goroutines that run chunks of a loop. Many
// goroutines may submit loops at once (one per session); each submitter
// takes chunks itself alongside the helpers it wakes, so a loop finishes
// even when every worker is busy with another session's loop.
//
// A loop is split into contiguous chunks handed out from an atomic counter:
// a few per thread, so a thread slowed by other processes on the machine
// takes fewer of them. Submitting a loop allocates nothing: the loop's
// state comes from a sync.Pool.
type pool struct {
	n     int
	jobs  chan *loop
	wg    sync.WaitGroup
	loops sync.Pool // *loop
}

// ranger is the body of a parallel loop: run covers iterations [lo, hi).
// Implementations are pointers to reusable structs, so passing one as a
// ranger does not allocate.
type ranger interface {
	run(lo, hi int)
}

// funcRanger adapts a function to a ranger (for code outside the hot path;
// converting a closure allocates).
type funcRanger func(lo, hi int)

func (f funcRanger) run(lo, hi int) { f(lo, hi) }

// loop is one parallel loop in flight.
type loop struct {
	body   ranger
	n      int // iterations
	chunks int // number of chunks
	next   atomic.Int64
	done   sync.WaitGroup // helpers still working
}

func newPool(n int) *pool {
	p := &pool{n: n, jobs: make(chan *loop, 4*n)}
	p.loops.New = func() any { return new(loop) }
	for range n - 1 {
		p.wg.Add(1)
		go p.work()
	}
	return p
}

func (p *pool) work() {
	defer p.wg.Done()
	for l := range p.jobs {
		l.drain()
		l.done.Done()
	}
}

// drain runs chunks of l until none is left.
func (l *loop) drain() {
	for {
		c := int(l.next.Add(1)) - 1
		if c >= l.chunks {
			return
		}
		l.body.run(c*l.n/l.chunks, (c+1)*l.n/l.chunks)
	}
}

// chunksPerThread is how many chunks each thread gets on average: more
// balance the load on a busy machine, fewer cost less bookkeeping.
const chunksPerThread = 4

// parallel runs fn over [0, n) in contiguous chunks of at least grain
// iterations (so tiny loops stay on the calling goroutine).
func (p *pool) parallel(n, grain int, fn func(lo, hi int)) {
	p.run(n, grain, funcRanger(fn))
}

// run is parallel for a ranger; it allocates nothing.
func (p *pool) run(n, grain int, body ranger) {
	if n <= 0 {
		return
	}
	grain = max(grain, 1)
	chunks := min(p.n*chunksPerThread, (n+grain-1)/grain)
	helpers := min(p.n, chunks) - 1
	if helpers <= 0 {
		body.run(0, n)
		return
	}
	l := p.loops.Get().(*loop)
	l.body, l.n, l.chunks = body, n, chunks
	l.next.Store(0)
	l.done.Add(helpers)
	for range helpers {
		p.jobs <- l
	}
	l.drain()
	l.done.Wait()
	l.body = nil
	p.loops.Put(l)
}

// close stops the workers once queued loops are done.
func (p *pool) close() {
	close(p.jobs)
	p.wg.Wait()
}
