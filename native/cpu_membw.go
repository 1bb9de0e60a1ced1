package native

import (
	"encoding/binary"
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/litert-go/litert-go/internal/hugepage"
)

// MeasureReadBandwidth returns the best of reps timings, in bytes per
// second, of reading a buffer of size bytes with every thread of b: the
// native kernels' loop for a *CPU, goroutines otherwise. Decode streams
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
	if c, ok := b.(*CPU); ok {
		read = func() {
			var x uint64
			rc, _, _ := purego.SyscallN(c.lib.readBytes, c.pool, uintptr(unsafe.Pointer(&buf[0])),
				uintptr(len(buf)), uintptr(unsafe.Pointer(&x)))
			must("ReadBandwidth", rc)
		}
	}
	read() // warm up the threads and the TLB
	best := time.Duration(1 << 62)
	for range reps {
		start := time.Now()
		read()
		best = min(best, time.Since(start))
	}
	return float64(size) / best.Seconds(), nil
}

// readGo reads buf with n goroutines and returns the xor of its words.
func readGo(buf []byte, n int) uint64 {
	n = max(n, 1)
	words := len(buf) / 8
	sums := make([]uint64, n)
	var wg sync.WaitGroup
	for g := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var s0, s1, s2, s3 uint64
			lo, hi := g*words/n, (g+1)*words/n
			i := lo
			for ; i+4 <= hi; i += 4 {
				b := buf[8*i : 8*i+32]
				s0 ^= binary.LittleEndian.Uint64(b)
				s1 ^= binary.LittleEndian.Uint64(b[8:])
				s2 ^= binary.LittleEndian.Uint64(b[16:])
				s3 ^= binary.LittleEndian.Uint64(b[24:])
			}
			for ; i < hi; i++ {
				s0 ^= binary.LittleEndian.Uint64(buf[8*i:])
			}
			sums[g] = s0 ^ s1 ^ s2 ^ s3
		}()
	}
	wg.Wait()
	var x uint64
	for _, s := range sums {
		x ^= s
	}
	return x
}
