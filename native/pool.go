package native

import (
	"sync"
	"sync/atomic"
	"time"
)

// pool is a fixed set of worker goroutines that run chunks of a loop. Many
// goroutines may submit loops at once (one per session).
//
// A loop is split into contiguous chunks handed out from an atomic counter,
// a few per thread, so a thread slowed by other processes on the machine
// takes fewer of them. The submitter takes chunks itself alongside the
// helpers it wakes, and waits only for chunks that have been claimed: a
// helper that arrives after the last chunk is taken (its thread was busy,
// or descheduled by the OS) costs the submitter nothing. Submitting a loop
// allocates nothing: loops are reused through a sync.Pool, and a loop goes
// back to it when its submitter and every helper holding it are done.
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

// loop is one parallel loop in flight.
type loop struct {
	p        *pool
	body     ranger
	n        int           // iterations
	chunks   int           // number of chunks
	next     atomic.Int64  // next chunk to claim
	finished atomic.Int64  // chunks done
	refs     atomic.Int32  // the submitter and the helpers holding the loop
	last     chan struct{} // a helper finished the last chunk (buffer 1)
}

func newPool(n int) *pool {
	p := &pool{n: n, jobs: make(chan *loop, 4*n)}
	p.loops.New = func() any { return &loop{p: p, last: make(chan struct{}, 1)} }
	for range n - 1 {
		p.wg.Add(1)
		go p.work()
	}
	return p
}

// spinTime is how long an idle worker polls for a new loop before it
// blocks (and a submitter polls for its helpers before it parks): a
// forward pass submits a loop every few microseconds, and waking a parked
// goroutine takes tens of microseconds on a busy machine. Pollers yield
// their core every 64 polls (osYield), so on a loaded machine they do not
// take time slices from the thread they wait for. Measured on 2 busy
// cores, SmolLM2-135M Q8_0 decode at 2 threads: 101 tok/s polling for
// 2µs, 158 for 20µs, 160-168 for 20-100µs with yields (best of 6).
const spinTime = 50 * time.Microsecond

func (p *pool) work() {
	defer p.wg.Done()
	for {
		l, ok := p.poll()
		if !ok {
			return
		}
		if l.drain() {
			l.last <- struct{}{}
		}
		l.release()
	}
}

// poll returns the next loop, polling for up to spinTime before it
// blocks; ok is false once the pool is closed.
func (p *pool) poll() (l *loop, ok bool) {
	var start time.Time
	for i := 0; i == 0 || i%64 != 0 || time.Since(start) < spinTime; i++ {
		if i == 0 {
			start = time.Now()
		}
		select {
		case l, ok = <-p.jobs:
			return l, ok
		default:
		}
		if i%64 == 63 {
			osYield()
		}
	}
	l, ok = <-p.jobs
	return l, ok
}

// drain runs chunks of l until none is left to claim. It reports whether
// the caller finished the loop's last chunk.
func (l *loop) drain() (last bool) {
	for {
		c := int(l.next.Add(1)) - 1
		if c >= l.chunks {
			return last
		}
		l.body.run(c*l.n/l.chunks, (c+1)*l.n/l.chunks)
		last = l.finished.Add(1) == int64(l.chunks)
	}
}

// release drops one reference to l, returning it to the pool with the last.
func (l *loop) release() {
	if l.refs.Add(-1) == 0 {
		l.body = nil
		l.p.loops.Put(l)
	}
}

// chunksPerThread is how many chunks each thread gets on average: more
// balance the load on a busy machine, fewer cost less bookkeeping.
const chunksPerThread = 4

// split returns the chunks a loop of n iterations in chunks of at least
// grain (≥ 1) is cut into and the helpers it wakes: none means the caller
// runs it alone.
func (p *pool) split(n, grain int) (chunks, helpers int) {
	chunks = min(p.n*chunksPerThread, (n+grain-1)/grain)
	return chunks, min(p.n, chunks) - 1
}

// run runs body over [0, n) in contiguous chunks of at least grain
// iterations (so tiny loops stay on the calling goroutine). It allocates
// nothing.
func (p *pool) run(n, grain int, body ranger) {
	if n <= 0 {
		return
	}
	grain = max(grain, 1)
	chunks, helpers := p.split(n, grain)
	if helpers <= 0 {
		body.run(0, n)
		return
	}
	l := p.loops.Get().(*loop)
	l.body, l.n, l.chunks = body, n, chunks
	l.next.Store(0)
	l.finished.Store(0)
	l.refs.Store(int32(helpers) + 1)
	for range helpers {
		select {
		case p.jobs <- l:
		default: // every worker is behind: do without this helper
			l.refs.Add(-1)
		}
	}
	if !l.drain() {
		// a helper is finishing the last chunk and will say so
		l.await()
	}
	l.release()
}

// await waits for the helper that finishes l's last chunk, polling for up
// to spinTime before it parks.
func (l *loop) await() {
	var start time.Time
	for i := 0; i == 0 || i%64 != 0 || time.Since(start) < spinTime; i++ {
		if i == 0 {
			start = time.Now()
		}
		select {
		case <-l.last:
			return
		default:
		}
		if i%64 == 63 {
			osYield()
		}
	}
	<-l.last
}

// close stops the workers once queued loops are done.
func (p *pool) close() {
	close(p.jobs)
	p.wg.Wait()
}
