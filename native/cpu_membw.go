package native

import (
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/litert-go/litert-go/internal/hugepage"
)

// MeasureReadBandwidth returns the best of reps timings, in bytes per
// second, of reading a buffer of size bytes with as many goroutines as b
// has threads, with the vector loads the kernels stream weights with: one
// probe for every backend, so a bound is the machine's. Decode streams
// every weight once per token, so bandwidth divided by the bytes of the
// weights is the bound decode speed is measured against. size should be
// well above the last-level cache (256 MiB is safe on desktop CPUs). The
// buffer is package hugepage's, as the weights of a model read into
// memory are.
func MeasureReadBandwidth(b Backend, size, reps int) (float64, error) {
	if size < 1<<20 || reps < 1 {
		return 0, fmt.Errorf("native: bandwidth probe of %d bytes × %d reps", size, reps)
	}
	// the probe reads memory like the weights' (gguf.ReadPrivate): huge
	// pages where the OS grants them
	buf, free, err := hugepage.Alloc(size)
	if err != nil {
		return 0, fmt.Errorf("native: bandwidth probe: %w", err)
	}
	defer free()
	// Touch every page: untouched pages all map the kernel's zero page and
	// would be read from cache.
	for i := 0; i < len(buf); i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], uint64(i)*0x9E3779B97F4A7C15)
	}
	read := func() { readGo(buf, b.Threads()) }
	read() // warm up the threads and the TLB
	best := time.Duration(1 << 62)
	for range reps {
		start := time.Now()
		read()
		best = min(best, time.Since(start))
	}
	return float64(size) / best.Seconds(), nil
}

// readGo reads buf with n goroutines, which claim it 1 MB at a time (a
// goroutine the OS deschedules delays nothing, as in the native pool), and
// returns the xor of its words.
func readGo(buf []byte, n int) uint64 {
	const chunk = 1 << 20
	n = max(n, 1)
	var next atomic.Int64
	sums := make([]uint64, n)
	var wg sync.WaitGroup
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var x uint64
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= len(buf) {
					break
				}
				x ^= xorWords(buf[lo:min(lo+chunk, len(buf))])
			}
			sums[g] = x
		}()
	}
	wg.Wait()
	var x uint64
	for _, s := range sums {
		x ^= s
	}
	return x
}

// xorWords returns the xor of the little-endian 8-byte words of b (a
// trailing partial word ignored): full-width vector loads where the SIMD
// kernels run, so that the probe reads as fast as the kernels stream
// weights, else four chains of word loads.
func xorWords(b []byte) uint64 {
	var x uint64
	i := 0
	if haveSIMD && len(b) >= 128 {
		i = len(b) &^ 127
		x = xorSIMD(&b[0], i)
	}
	var s0, s1, s2, s3 uint64
	for ; i+32 <= len(b); i += 32 {
		w := b[i : i+32]
		s0 ^= binary.LittleEndian.Uint64(w)
		s1 ^= binary.LittleEndian.Uint64(w[8:])
		s2 ^= binary.LittleEndian.Uint64(w[16:])
		s3 ^= binary.LittleEndian.Uint64(w[24:])
	}
	for ; i+8 <= len(b); i += 8 {
		s0 ^= binary.LittleEndian.Uint64(b[i:])
	}
	return x ^ s0 ^ s1 ^ s2 ^ s3
}
