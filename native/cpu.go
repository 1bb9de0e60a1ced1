package native

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/litert-go/litert-go/models/ggml"
)

// CPU is the native C backend: the kernels of csrc/ (SIMD chosen at load
// for this CPU, a persistent pthread pool) called through purego, so it
// works in CGO_ENABLED=0 builds. Operations the library does not cover
// (weight types other than F32, F16, BF16, Q4_0-Q8_0, Q2_K-Q6_K, IQ4_NL,
// IQ4_XS and MXFP4; StoreKV; Embed of other than F32, F16, BF16 and
// Q8_0 rows) run on an embedded pure-Go
// backend. Calls from several goroutines are serialized by the C pool.
type CPU struct {
	lib      *lib
	pool     uintptr
	threads  int
	isa      string
	fallback *Go
	il16     [40]bool // weight types the pool's kernels multiply Interleaved16, by ggml id
	once     sync.Once
	epoch    time.Time
	yielded  atomic.Int64 // time.Since(epoch) at the last yieldDue yield, ns
	ssm      ssmSyms      // cpu_ssm.go
	moe      moeSyms      // cpu_moe.go
}

// LoadCPU loads the native library (see LibCandidates) and starts a pool of
// threads threads running the best kernels for this CPU; threads <= 0 or
// above runtime.NumCPU() means NumCPU, so the pool never oversubscribes the
// cores. The error wraps ErrUnavailable when the library is missing or
// refuses to load (ABI version mismatch), and names each path tried.
func LoadCPU(threads int) (*CPU, error) {
	return LoadCPUWith(CPUOptions{Threads: threads})
}

// CPUOptions selects the library file, thread count and kernel set of a
// CPU backend.
type CPUOptions struct {
	Path    string // library file; "" searches LibCandidates
	Threads int    // as for LoadCPU
	ISA     string // kernel set, one of ISAs(); "" for the best
}

// LoadCPUWith is LoadCPU with options: tests use it to run every kernel
// set this CPU supports against the Go twin.
func LoadCPUWith(o CPUOptions) (*CPU, error) {
	var l *lib
	var err error
	if o.Path != "" {
		l, err = openLib(o.Path)
		if err != nil {
			err = fmt.Errorf("native: %w", err)
		}
	} else {
		l, err = findLib()
	}
	if err != nil {
		return nil, err
	}
	threads := o.Threads
	if n := runtime.NumCPU(); threads <= 0 || threads > n {
		threads = n
	}
	name := append([]byte(o.ISA), 0)
	p, _, _ := purego.SyscallN(l.poolNew, uintptr(threads), uintptr(unsafe.Pointer(&name[0])))
	if p == 0 {
		purego.Dlclose(l.handle)
		if o.ISA != "" && !slices.Contains(l.isas, o.ISA) {
			return nil, fmt.Errorf("native: kernel set %q not available on this CPU (have %s): %w",
				o.ISA, strings.Join(l.isas, ", "), ErrUnavailable)
		}
		return nil, fmt.Errorf("native: %s: starting %d threads failed", l.path, threads)
	}
	var buf [64]byte
	n, _, _ := purego.SyscallN(l.poolISA, p, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	c := &CPU{lib: l, epoch: time.Now(), pool: p, threads: threads, isa: string(buf[:min(int(n), len(buf))]),
		fallback: NewGo(threads)}
	for t := range c.il16 {
		r, _, _ := purego.SyscallN(l.poolIL16, p, uintptr(t))
		c.il16[t] = int32(r) != 0
	}
	return c, nil
}

// ISAs returns the kernel sets this CPU can run, best first, such as
// ["avx512vnni", "avx512bf16", "avx2", "generic"] (avx512bf16 is the
// AVX-512 set with BF16 batches as vdpbf16ps pair panels, the best on
// AMD's cores and not on Intel's).
func (c *CPU) ISAs() []string { return slices.Clone(c.lib.isas) }

// Name returns "cpu-" and the kernel set in use, such as "cpu-avx2".
func (c *CPU) Name() string { return "cpu-" + c.isa }

// ISA is the kernel set chosen for this CPU: "avx512vnni", "avx512bf16",
// "avx2", "neon" or "generic".
func (c *CPU) ISA() string { return c.isa }

// Path is the file the library was loaded from.
func (c *CPU) Path() string { return c.lib.path }

// Threads is the number of threads of the pool, the caller included.
func (c *CPU) Threads() int { return c.threads }

// Close stops the threads. The backend must not be used after.
func (c *CPU) Close() error {
	c.once.Do(func() {
		purego.SyscallN(c.lib.poolFree, c.pool)
		c.pool = 0
		c.fallback.Close()
	})
	return nil
}

// nativeType reports whether the library multiplies weights of type t.
func (c *CPU) nativeType(t ggml.DType) bool {
	return int(t) < len(c.lib.types) && c.lib.types[t]
}

// Supports reports whether MatMul accepts weights of type t, natively or
// through the pure-Go fallback.
func (c *CPU) Supports(t ggml.DType) bool { return c.nativeType(t) || c.fallback.Supports(t) }

// must panics on a failed call: the Backend contract makes shape errors
// programming errors, and the Go side checks shapes before calling.
func must(op string, rc uintptr) {
	if err := status(op, rc); err != nil {
		panic(err)
	}
}

// MatMul sets out[t*w.Rows+r] = row r of w · x[t*w.Cols:(t+1)*w.Cols].
// Activations are quantized to 8 bits on the fly for quantized weights.
func (c *CPU) MatMul(out []float32, w Weight, x []float32, nTokens int) {
	checkMatMul(out, w, x, nTokens)
	if !c.nativeType(w.Type) {
		c.fallback.MatMul(out, w, x, nTokens)
		return
	}
	if w.Rows == 0 || nTokens == 0 {
		return
	}
	if w.Cols == 0 {
		clear(out[:nTokens*w.Rows])
		return
	}
	fn := c.lib.matmul
	if w.Layout == Interleaved16 {
		if !c.Interleaves(w.Type) {
			// not this kernel set's layout: its product of the rows as
			// stored (a copy per call; this backend never interleaves)
			w = RowMajorCopy(w)
		} else {
			fn = c.lib.matmulIL16
		}
	}
	c.yieldDue()
	rc, _, _ := purego.SyscallN(fn, c.pool, uintptr(w.Type),
		uintptr(unsafe.Pointer(&w.Data[0])), uintptr(w.Rows), uintptr(w.Cols),
		uintptr(unsafe.Pointer(&x[0])), uintptr(nTokens), uintptr(unsafe.Pointer(&out[0])))
	must("MatMul", rc)
}

// yieldPeriod is how often yieldDue lets the scheduler run.
const yieldPeriod = 2 * time.Millisecond

// yieldDue yields the processor (runtime.Gosched) if yieldPeriod has passed
// since the last yield. A goroutine that calls C back to back never passes
// through the scheduler, and after 10 ms on one time slice the runtime's
// monitor (sysmon) takes its P away in the middle of a call and then polls
// every 20 µs for a millisecond or more: on a machine whose cores all run
// the pool's threads, each poll preempts one of them (tens of thousands of
// context switches a second). A yield every few milliseconds starts a new
// time slice, so the monitor sleeps.
func (c *CPU) yieldDue() {
	if c.yieldAt(int64(time.Since(c.epoch))) {
		runtime.Gosched()
	}
}

// yieldAt reports whether a caller at now (ns since c.epoch) takes the
// yield: yieldPeriod has passed since the last one and no other caller
// took it first.
func (c *CPU) yieldAt(now int64) bool {
	last := c.yielded.Load()
	return now-last >= int64(yieldPeriod) && c.yielded.CompareAndSwap(last, now)
}

// product is lrt_product.
type product struct {
	w, out unsafe.Pointer
	rows   int64
	wtype  int32
	il16   int32
}

// MatMuls is MatMul for each product, in one pass of the pool for decode
// (Backend.MatMuls). Products the library's kernels do not take as they
// are (a fallback type, a layout of another kernel set) run on their own.
func (c *CPU) MatMuls(ps []Product, x []float32, nTokens int) {
	if productsApart(ps, x, nTokens, c.MatMul) {
		return
	}
	var cp [maxProducts]product
	n := 0
	for _, p := range ps {
		w := p.W
		il := w.Layout == Interleaved16
		if !c.nativeType(w.Type) || w.Cols == 0 || (il && !c.Interleaves(w.Type)) {
			c.MatMul(p.Out, w, x, nTokens)
			continue
		}
		if w.Rows == 0 {
			continue
		}
		cp[n] = product{w: unsafe.Pointer(&w.Data[0]), out: unsafe.Pointer(&p.Out[0]), rows: int64(w.Rows), wtype: int32(w.Type)}
		if il {
			cp[n].il16 = 1
		}
		n++
	}
	if n == 0 {
		return
	}
	c.yieldDue()
	rc, _, _ := purego.SyscallN(c.lib.matmuls, c.pool, uintptr(unsafe.Pointer(&cp[0])), uintptr(n),
		uintptr(ps[0].W.Cols), uintptr(unsafe.Pointer(&x[0])), uintptr(nTokens))
	// the heap does not move; the weights and outputs must outlive the call
	runtime.KeepAlive(ps)
	runtime.KeepAlive(x)
	must("MatMuls", rc)
}

// Interleaves reports whether MatMul has kernels for weights of type t
// laid out Interleaved16 (Interleaver): the AVX-512 VNNI kernel set's
// Q4_0, IQ4_NL, Q5_0, Q8_0, Q3_K, Q4_K, Q5_K, Q6_K, IQ4_XS and F16, and
// BF16 in the avx512bf16 set (batches as pair panels); the AVX2 set's
// Q4_0, Q5_0, Q8_0, Q4_K, Q5_K, Q6_K and F16.
func (c *CPU) Interleaves(t ggml.DType) bool {
	return int(t) < len(c.il16) && c.il16[t]
}

// RMSNorm normalizes each row of n elements of x into out and scales it by
// weight (if not nil).
func (c *CPU) RMSNorm(out, x, weight []float32, n int, eps float32) {
	if n <= 0 || len(x)%n != 0 || len(out) < len(x) || (weight != nil && len(weight) != n) {
		panic(fmt.Sprintf("native: RMSNorm of %d floats in rows of %d into %d, weight %d", len(x), n, len(out), len(weight)))
	}
	if len(x) == 0 {
		return
	}
	var wp unsafe.Pointer
	if weight != nil {
		wp = unsafe.Pointer(&weight[0])
	}
	prm := &normParams{eps: eps}
	rc, _, _ := purego.SyscallN(c.lib.rmsnorm, c.pool, uintptr(unsafe.Pointer(&out[0])),
		uintptr(unsafe.Pointer(&x[0])), uintptr(wp), uintptr(n), uintptr(len(x)/n),
		uintptr(unsafe.Pointer(prm)))
	must("RMSNorm", rc)
}

// RoPE rotates, in place, the first r.Dim elements of each head of x.
func (c *CPU) RoPE(x []float32, nHeads, headDim, pos0, nTokens int, r RoPE) {
	if r.Dim > headDim || r.Dim%2 != 0 || len(r.InvFreq) != r.Dim/2 || len(x) < nTokens*nHeads*headDim ||
		pos0 < 0 || nTokens < 0 || nHeads < 0 {
		panic(fmt.Sprintf("native: RoPE of dim %d (%d freqs) on %d tokens × %d heads × %d in %d floats",
			r.Dim, len(r.InvFreq), nTokens, nHeads, headDim, len(x)))
	}
	if nTokens == 0 || nHeads == 0 || r.Dim == 0 {
		return
	}
	neox := uintptr(0)
	if r.Neox {
		neox = 1
	}
	rc, _, _ := purego.SyscallN(c.lib.rope, c.pool, uintptr(unsafe.Pointer(&x[0])), uintptr(nTokens),
		uintptr(nHeads), uintptr(headDim), uintptr(pos0), uintptr(unsafe.Pointer(&r.InvFreq[0])),
		uintptr(r.Dim), neox)
	must("RoPE", rc)
}

// StoreKV writes keys and values to the cache (pure Go: a copy or an F16
// conversion of one row per token, too small to cross the boundary for).
func (c *CPU) StoreKV(cache *KVCache, pos0 int, k, v []float32, nTokens int) {
	c.fallback.StoreKV(cache, pos0, k, v, nTokens)
}

// Attend computes attention (causal unless a.NonCausal) of the nTokens
// query rows of q over the cache with the fused online-softmax kernel.
func (c *CPU) Attend(out, q []float32, cache *KVCache, pos0, nTokens int, a Attention) {
	hd := a.HeadDim
	if a.NKVHeads <= 0 || a.NHeads%a.NKVHeads != 0 || a.NKVHeads*hd != cache.width || hd <= 0 ||
		pos0 < 0 || nTokens < 0 || pos0+nTokens > cache.ctxLen || len(q) < nTokens*a.NHeads*hd || len(out) < nTokens*a.NHeads*hd ||
		(cache.quantized() && hd%qk != 0) {
		panic(fmt.Sprintf("native: Attend %d tokens at %d, %d heads / %d KV heads × %d, cache %d×%d, q %d, out %d",
			nTokens, pos0, a.NHeads, a.NKVHeads, hd, cache.ctxLen, cache.width, len(q), len(out)))
	}
	if nTokens == 0 {
		return
	}
	if a.Sinks != nil && len(a.Sinks) != a.NHeads {
		panic(fmt.Sprintf("native: Attend with %d sinks for %d heads", len(a.Sinks), a.NHeads))
	}
	prm := &attnParams{
		q: unsafe.Pointer(&q[0]), out: unsafe.Pointer(&out[0]),
		pos0: int64(pos0), ntok: int64(nTokens), nKV: int64(pos0 + nTokens),
		nHeads: int32(a.NHeads), nKVHeads: int32(a.NKVHeads), headDim: int32(hd),
		kvType: int32(cache.typ), kvStride: int64(cache.width),
		scale: a.Scale, softcap: a.SoftCap, window: int32(a.Window), causal: 1,
	}
	if a.NonCausal {
		prm.causal = 0
	}
	if a.Sinks != nil {
		prm.sinks = unsafe.Pointer(&a.Sinks[0])
	}
	switch {
	case cache.quantized():
		prm.k, prm.v = unsafe.Pointer(&cache.kq[0]), unsafe.Pointer(&cache.vq[0])
	case cache.typ == ggml.F16:
		prm.k, prm.v = unsafe.Pointer(&cache.k16[0]), unsafe.Pointer(&cache.v16[0])
	default:
		prm.k, prm.v = unsafe.Pointer(&cache.k32[0]), unsafe.Pointer(&cache.v32[0])
	}
	rc, _, _ := purego.SyscallN(c.lib.attention, c.pool, uintptr(unsafe.Pointer(prm)))
	must("Attend", rc)
}

// glu values of lrt.h.
const (
	gluSiLU = 0
	gluGELU = 1
)

func (c *CPU) gated(op string, act uintptr, gate, up []float32) {
	if len(up) < len(gate) {
		panic(fmt.Sprintf("native: %s of %d gates with %d up values", op, len(gate), len(up)))
	}
	if len(gate) == 0 {
		return
	}
	rc, _, _ := purego.SyscallN(c.lib.glu, c.pool, act, uintptr(unsafe.Pointer(&gate[0])),
		uintptr(unsafe.Pointer(&gate[0])), uintptr(unsafe.Pointer(&up[0])), uintptr(len(gate)))
	must(op, rc)
}

// SwiGLU sets gate[i] = silu(gate[i]) * up[i].
func (c *CPU) SwiGLU(gate, up []float32) { c.gated("SwiGLU", gluSiLU, gate, up) }

// GeGLU sets gate[i] = gelu_tanh(gate[i]) * up[i].
func (c *CPU) GeGLU(gate, up []float32) { c.gated("GeGLU", gluGELU, gate, up) }

// Softmax replaces x by softmax(x).
func (c *CPU) Softmax(x []float32) {
	if len(x) == 0 {
		return
	}
	rc, _, _ := purego.SyscallN(c.lib.softmax, c.pool, uintptr(unsafe.Pointer(&x[0])), uintptr(len(x)), 1)
	must("Softmax", rc)
}

// Embed converts the rows of w of ids into out: in C for F32, F16, BF16
// and Q8_0 rows, through the Go fallback for the other types.
func (c *CPU) Embed(out []float32, w Weight, ids []int32) {
	switch t := w.Type; {
	case w.Layout != RowMajor, t != ggml.F32 && t != ggml.F16 && t != ggml.BF16 && t != ggml.Q8_0:
		c.fallback.Embed(out, w, ids)
		return
	}
	rs := w.RowBytes()
	if rs == 0 || len(w.Data) < rs*w.Rows || len(out) < len(ids)*w.Cols {
		panic(fmt.Sprintf("native: Embed of %d rows of a %d×%d %s matrix (%d bytes) into %d floats",
			len(ids), w.Rows, w.Cols, w.Type, len(w.Data), len(out)))
	}
	for _, id := range ids {
		if id < 0 || int(id) >= w.Rows {
			panic(fmt.Sprintf("native: Embed of row %d of %d", id, w.Rows))
		}
	}
	if len(ids) == 0 || w.Cols == 0 {
		return
	}
	rc, _, _ := purego.SyscallN(c.lib.getRows, c.pool, uintptr(w.Type), uintptr(unsafe.Pointer(&w.Data[0])),
		uintptr(w.Rows), uintptr(w.Cols), uintptr(unsafe.Pointer(&ids[0])), uintptr(len(ids)),
		uintptr(unsafe.Pointer(&out[0])))
	must("Embed", rc)
}

// elt values of lrt.h.
const (
	eltAdd    = 0
	eltAddRow = 1
	eltScale  = 2
)

// eltwise calls lrt_eltwise.
func (c *CPU) eltwise(op string, code uintptr, y, x []float32, period int, k float32) {
	if len(y) == 0 {
		return
	}
	var xp unsafe.Pointer
	if x != nil {
		xp = unsafe.Pointer(&x[0])
	}
	prm := &eltParams{c: k}
	rc, _, _ := purego.SyscallN(c.lib.eltwise, c.pool, code, uintptr(unsafe.Pointer(&y[0])), uintptr(xp),
		uintptr(len(y)), uintptr(period), uintptr(unsafe.Pointer(prm)))
	must(op, rc)
}

// Add sets dst += src.
func (c *CPU) Add(dst, src []float32) {
	if len(src) < len(dst) {
		panic(fmt.Sprintf("native: Add of %d floats to %d", len(src), len(dst)))
	}
	c.eltwise("Add", eltAdd, dst, src, 0, 0)
}

// AddRows adds row to each row of x.
func (c *CPU) AddRows(x, row []float32) {
	if len(row) == 0 || len(x)%len(row) != 0 {
		panic(fmt.Sprintf("native: AddRows of a row of %d to %d floats", len(row), len(x)))
	}
	c.eltwise("AddRows", eltAddRow, x, row, len(row), 0)
}

// Scale sets x *= k.
func (c *CPU) Scale(x []float32, k float32) { c.eltwise("Scale", eltScale, x, nil, 0, k) }

// NewKVCache allocates a cache in Go memory, which the C kernels read
// through pointers.
func (c *CPU) NewKVCache(t ggml.DType, ctxLen, width int) (*KVCache, error) {
	return NewKVCache(t, ctxLen, width)
}

// Alloc returns make([]float32, n): the C kernels work on Go memory.
func (c *CPU) Alloc(n int) []float32 { return make([]float32, n) }

var _ Backend = (*CPU)(nil)
