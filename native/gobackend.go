package native

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/litert-go/litert-go/models/ggml"
)

// Go is the pure-Go backend: the specification of every operation and the
// fallback when no native library is loaded. Loops are split over a fixed
// pool of goroutines; calls allocate nothing in the steady state.
//
// On amd64 CPUs with AVX2, FMA and F16C the hot loops run Go assembly
// (go_*_amd64.s, with AVX-512 variants where the CPU has it): weights are
// unpacked in registers and multiplied by the float32 activations, so
// results match the generic Go code (ggml.Dot) up to summation order,
// except that products of Q8_0, Q4_0, Q5_0, Q4_K, Q5_K and Q6_K weights
// first round the activations to 8-bit blocks, once per call, as ggml and
// the C kernels do (matrix-vector products then multiply integers);
// NewGoFloat returns a backend without that rounding. The exponentials of
// softmax and SwiGLU are within 2 ulp of math.Exp. Build with -tags purego
// to leave the assembly out.
type Go struct {
	pool     *pool
	matmuls  sync.Pool // *matmulTask
	multis   sync.Pool // *multiTask
	attends  sync.Pool // *attendTask
	rows     sync.Pool // *[]float32, dequantized weight rows
	quants   sync.Pool // *[]byte, activations quantized to 8 bits
	acts     sync.Pool // *[]float32, activations rounded to 8 bits
	attnWork sync.Pool // *attnScratch, an attention job's scores and queries
	ssm      sync.Pool // *ssmTask (go_ssm.go)
	packs    sync.Pool // *[]byte, weight rows repacked for the gemm kernels
	// noGemm keeps batches off the gemm kernels (go_gemm.go,
	// go_gemm_avx2.go), for tests of the float path
	noGemm bool
	// noPanels512 keeps float batches off the AVX-512 panel kernel
	// (go_panel.go), for tests of the AVX2 one
	noPanels512 bool
	// noTiles keeps prefill attention off the tiles (go_attend_tile.go),
	// for tests of attendRow
	noTiles bool
	// float keeps the activations float32 in every product (NewGoFloat)
	float bool
	// pairsBF16 batches BF16 weights as pair panels (panelMul12BF16):
	// bf16PairsPay, or set by tests where the CPU has them
	pairsBF16 bool
}

// NewGo returns a pure-Go backend that runs each operation on up to threads
// goroutines; 0 or less means GOMAXPROCS.
func NewGo(threads int) *Go {
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	g := &Go{pool: newPool(threads), pairsBF16: bf16PairsPay}
	g.matmuls.New = func() any { return new(matmulTask) }
	g.multis.New = func() any { return new(multiTask) }
	g.attends.New = func() any { return new(attendTask) }
	g.rows.New = func() any { return new([]float32) }
	g.quants.New = func() any { return new([]byte) }
	g.acts.New = func() any { return new([]float32) }
	g.attnWork.New = func() any { return new(attnScratch) }
	g.packs.New = func() any { return new([]byte) }
	return g
}

// NewGoFloat returns a pure-Go backend like NewGo that multiplies the
// float32 activations in every product: slower decode of Q8_0, Q4_0, Q5_0,
// Q4_K, Q5_K and Q6_K weights, and results that equal ggml.Dot's up to
// summation order. It is the reference for checking model code against
// runs on dequantized weights.
func NewGoFloat(threads int) *Go {
	g := NewGo(threads)
	g.float = true
	return g
}

// Name returns "go".
func (g *Go) Name() string { return "go" }

// Threads is the number of goroutines a call may use.
func (g *Go) Threads() int { return g.pool.n }

// Close stops the worker goroutines. The backend must not be used after.
func (g *Go) Close() error {
	g.pool.close()
	return nil
}

// Supports reports whether MatMul accepts weights of type t: every type
// ggml.Dot implements.
func (g *Go) Supports(t ggml.DType) bool { return ggml.CanDequantize(t) }

// minWork is the number of multiply-adds below which a loop is not worth
// handing to another goroutine.
const minWork = 1 << 14

// rowsTask runs a batch's per-row work (activation quantization, norms,
// rotations, cache stores, element-wise ops) on the pool: serial, these
// took a tenth of a 2-thread prefill's CPU time while the other thread
// waited (smollm2-135m Q8_0 pp512, one Sapphire Rapids core each).
type rowsTask struct{ f func(lo, hi int) }

func (t *rowsTask) run(lo, hi int) { t.f(lo, hi) }

// shareRows reports whether pool.run would share rows rows of about work
// operations each (chunks of at least minWork) with helpers, and the grain
// to pass it. Callers build their rowsTask, a closure that allocates, only
// then: a decode step's single row runs on the caller and allocates nothing.
func (g *Go) shareRows(rows, work int) (grain int, ok bool) {
	grain = max(1, minWork/max(1, work))
	_, helpers := g.pool.split(rows, grain)
	return grain, helpers > 0
}

// MatMul multiplies the rows of w by each of the nTokens rows of x; see
// matmulTask for how the work is split.
func (g *Go) MatMul(out []float32, w Weight, x []float32, nTokens int) {
	checkMatMul(out, w, x, nTokens)
	if w.Rows == 0 || nTokens <= 0 {
		return
	}
	m, iters, grain := g.newMatMul(out, w, x, nTokens)
	g.pool.run(iters, grain, m)
	g.endMatMul(m)
}

// MatMuls is MatMul for each product, in one pass of the pool for decode
// (Backend.MatMuls).
func (g *Go) MatMuls(ps []Product, x []float32, nTokens int) {
	if productsApart(ps, x, nTokens, g.MatMul) {
		return
	}
	mt := g.multis.Get().(*multiTask)
	grain := math.MaxInt // the finest of the products'
	for _, p := range ps {
		if p.W.Rows == 0 {
			continue
		}
		m, iters, gr := g.newMatMul(p.Out, p.W, x, nTokens)
		mt.add(m, iters)
		grain = min(grain, gr)
	}
	g.pool.run(mt.start[mt.n], grain, mt)
	for _, m := range mt.ms[:mt.n] {
		g.endMatMul(m)
	}
	*mt = multiTask{}
	g.multis.Put(mt)
}

// productsApart checks ps against x (one input: every weight as wide)
// and, where they do not run in one pass (a batch fills the threads
// alone; more than maxProducts), runs them one by one with mul. It
// reports whether it ran them.
func productsApart(ps []Product, x []float32, nTokens int, mul func(out []float32, w Weight, x []float32, nTokens int)) bool {
	for _, p := range ps {
		checkMatMul(p.Out, p.W, x, nTokens)
		if p.W.Cols != ps[0].W.Cols {
			panic(fmt.Sprintf("native: MatMuls of one input by weights %d and %d wide", ps[0].W.Cols, p.W.Cols))
		}
	}
	if nTokens == 1 && len(ps) <= maxProducts {
		return false
	}
	for _, p := range ps {
		mul(p.Out, p.W, x, nTokens)
	}
	return true
}

// checkMatMul panics unless out = w·x fits the slices (a programming
// error: models validate shapes when they load).
func checkMatMul(out []float32, w Weight, x []float32, nTokens int) {
	rs := w.RowBytes()
	if rs == 0 || len(w.Data) < rs*w.Rows || len(x) < nTokens*w.Cols || len(out) < nTokens*w.Rows || nTokens < 0 {
		panic(fmt.Sprintf("native: MatMul %d×%d %s (%d bytes) by %d×%d (%d floats) into %d floats",
			w.Rows, w.Cols, w.Type, len(w.Data), nTokens, w.Cols, len(x), len(out)))
	}
}

// newMatMul sets up the task of out = w·x (w.Rows > 0, nTokens > 0): the
// activations converted to what the kernels take, into pooled buffers
// that endMatMul gives back, and the iterations and grain of its run.
func (g *Go) newMatMul(out []float32, w Weight, x []float32, nTokens int) (m *matmulTask, iters, grain int) {
	rs := w.RowBytes()
	il := w.Layout == Interleaved16
	if il && !g.Interleaves(w.Type) {
		// no kernels for the layout here: the product of the rows as stored
		// in the file (a copy per call; this backend never interleaves)
		w, il = RowMajorCopy(w), false
	}
	m = g.matmuls.Get().(*matmulTask)
	*m = matmulTask{g: g, w: w, rs: rs, x: x, out: out, nTokens: nTokens, il: il}
	// Where the weight type has 8-bit kernels, the activations are rounded
	// to 8-bit blocks once, as ggml does: matrix-vector products multiply
	// the blocks, batches their values as floats, so that a result does
	// not depend on how the tokens were batched. The exception is the VNNI
	// gemm kernels (go_gemm.go), which round every type's activations to
	// 32-element q8a blocks, as the C library's do: K-quant batches there
	// see finer blocks than their matrix-vector products' q8K.
	gemm := hasGemm(w.Type, w.Cols)
	if il { // an interleaved quantized type has its pack (F16 and BF16 have panels)
		k, _ := ilKernelOf(w.Type)
		gemm = k.pack != nil
	}
	if nTokens >= gemmMinTokens && !g.float && !g.noGemm && gemm {
		// the gemm kernels take q8a blocks for every type, and iterate
		// over groups of gemmRows rows
		buf := m.takeBytes()
		m.xqRow = w.Cols / qk * sizeQ8a
		*buf = grow(*buf, nTokens*m.xqRow)
		m.xq, m.gemm = *buf, true
		xq, xqRow, cols := m.xq, m.xqRow, w.Cols
		flip := !signedGemm(w.Type) // (interleaved or not: the kernel's kind)
		if grain, ok := g.shareRows(nTokens, cols); ok {
			g.pool.run(nTokens, grain, &rowsTask{func(lo, hi int) { quantizeGemmRows(xq, xqRow, x, cols, lo, hi, flip) }})
		} else {
			quantizeGemmRows(xq, xqRow, x, cols, 0, nTokens, flip)
		}
	} else if elems, size, ok := q8Layout(w.Type); ok && !g.float {
		if nTokens < tileTokens {
			buf := m.takeBytes()
			m.xqRow = w.Cols / elems * size
			*buf = grow(*buf, nTokens*m.xqRow)
			m.xq = *buf
			for t := range nTokens {
				quantizeQ8(w.Type, m.xq[t*m.xqRow:(t+1)*m.xqRow], x[t*w.Cols:(t+1)*w.Cols])
			}
		} else {
			buf := m.takeFloats()
			*buf = grow(*buf, nTokens*w.Cols)
			m.x = *buf
			xr, typ, cols := m.x, w.Type, w.Cols
			if grain, ok := g.shareRows(nTokens, cols); ok {
				g.pool.run(nTokens, grain, &rowsTask{func(lo, hi int) { roundQ8Rows(typ, xr, x, cols, lo, hi) }})
			} else {
				roundQ8Rows(typ, xr, x, cols, 0, nTokens)
			}
		}
	}
	if w.Type == ggml.BF16 && !g.float && g.pairsBF16 && !g.noPanels512 && nTokens >= panelMinTokens && w.Cols%2 == 0 {
		// BF16 weights multiply activations rounded to BF16, as ggml's do;
		// batches as pair panels take them as BF16
		buf := m.takeBytes()
		n := nTokens * w.Cols
		*buf = grow(*buf, 2*(n+panelTokens512*w.Cols)+2)
		u := unsafe.Slice((*uint16)(unsafe.Pointer(&(*buf)[0])), len(*buf)/2)
		m.xbf, m.padBF16 = u[:n], u[n:n+panelTokens512*w.Cols]
		xbf, cols := m.xbf, w.Cols
		if grain, ok := g.shareRows(nTokens, cols); ok {
			g.pool.run(nTokens, grain, &rowsTask{func(lo, hi int) { toBF16(xbf[lo*cols:hi*cols], x[lo*cols:hi*cols]) }})
		} else {
			toBF16(xbf, x[:n])
		}
		if last := nTokens % panelTokens512; last != 0 {
			tail := m.xbf[(nTokens-last)*w.Cols:]
			for t := range panelTokens512 {
				copy(m.padBF16[t*w.Cols:(t+1)*w.Cols], tail[min(t, last-1)*w.Cols:])
			}
		}
	} else if w.Type == ggml.BF16 && !g.float {
		// BF16 weights multiply activations rounded to BF16, as ggml's do
		// (and the C kernels: one rounding for decode and batches alike)
		buf := m.takeFloats()
		*buf = grow(*buf, nTokens*w.Cols)
		m.x = *buf
		xr, cols := m.x, w.Cols
		if grain, ok := g.shareRows(nTokens, cols); ok {
			g.pool.run(nTokens, grain, &rowsTask{func(lo, hi int) { roundBF16(xr[lo*cols:hi*cols], x[lo*cols:hi*cols]) }})
		} else {
			roundBF16(xr, x[:nTokens*cols])
		}
	}
	// iterations: rows, or groups of gemmRows rows for the gemm kernels,
	// or pairs of panels for the AVX-512 panel kernels (a chunk of whole
	// pairs: an odd panel goes through the AVX2 kernel) and the BF16 ones
	// (a chunk pads its last pair)
	iters, work := w.Rows, w.Cols*nTokens
	if m.panelPairs() || m.xbf != nil {
		iters, work = (w.Rows+2*panelRows-1)/(2*panelRows), 2*panelRows*w.Cols*nTokens
	} else if m.gemm || il {
		iters, work = (w.Rows+gemmRows-1)/gemmRows, gemmRows*w.Cols*nTokens
	}
	return m, iters, max(1, minWork/max(1, work))
}

// endMatMul gives back the task and its buffers.
func (g *Go) endMatMul(m *matmulTask) {
	if m.bytes != nil {
		g.quants.Put(m.bytes)
	}
	if m.floats != nil {
		g.acts.Put(m.floats)
	}
	*m = matmulTask{}
	g.matmuls.Put(m)
}

// toBF16 sets dst[i] to x[i] as BF16 (ggml's rounding).
func toBF16(dst []uint16, x []float32) {
	dst = dst[:len(x)]
	i := 0
	if n := len(x) &^ 7; haveX86SIMD && n > 0 {
		toBF16SIMD(&dst[0], &x[0], n)
		i = n
	}
	for ; i < len(x); i++ {
		dst[i] = ggml.F32ToBF16(x[i])
	}
}

// roundBF16 sets dst[i] to x[i] rounded to BF16.
func roundBF16(dst, x []float32) {
	dst = dst[:len(x)]
	i := 0
	if n := len(x) &^ 7; haveX86SIMD && n > 0 {
		roundBF16SIMD(&dst[0], &x[0], n)
		i = n
	}
	for ; i < len(x); i++ {
		dst[i] = ggml.BF16ToF32(ggml.F32ToBF16(x[i]))
	}
}

// Interleaves reports whether MatMul has kernels for weights of type t
// laid out Interleaved16 (Interleaver): Q4_0, IQ4_NL, Q5_0, Q8_0, Q3_K,
// Q4_K, Q5_K, Q6_K and IQ4_XS on AVX-512 VNNI, with 8-bit activations;
// the same but IQ4_NL on AVX2; F16 on AVX-512 and AVX2 (its batches as
// panels of either width); BF16 where batches run as pair panels
// (pairsBF16).
func (g *Go) Interleaves(t ggml.DType) bool {
	k, ok := ilKernelOf(t)
	switch {
	case !ok || g.float:
		return false
	case t == ggml.BF16:
		return havePanels512 && !g.noPanels512 && g.pairsBF16
	case k.floatRows != nil:
		return havePanels
	}
	return !g.noGemm // (their batches take the gemm kernels)
}

// quantizeGemmRows sets the q8a rows [lo, hi) of xq (xqRow bytes each) to
// those of x (cols floats each) for the gemm kernels (flipped, as
// quantizeGemm, where flip is set).
func quantizeGemmRows(xq []byte, xqRow int, x []float32, cols, lo, hi int, flip bool) {
	for t := lo; t < hi; t++ {
		quantizeGemm(xq[t*xqRow:(t+1)*xqRow], x[t*cols:(t+1)*cols], flip)
	}
}

// roundQ8Rows sets the rows [lo, hi) of dst to those of x rounded to the
// 8-bit blocks of weight type t.
func roundQ8Rows(t ggml.DType, dst, x []float32, cols, lo, hi int) {
	for r := lo; r < hi; r++ {
		roundQ8(t, dst[r*cols:(r+1)*cols], x[r*cols:(r+1)*cols])
	}
}

// grow returns b resliced to n elements, reallocated if its capacity is
// less.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// RMSNorm normalizes rows of n elements, summing squares in float64 as
// ggml_compute_forward_rms_norm_f32 does, then scales by weight (if not
// nil).
func (g *Go) RMSNorm(out, x, weight []float32, n int, eps float32) {
	if n <= 0 || len(x)%n != 0 || len(out) < len(x) || (weight != nil && len(weight) != n) {
		panic(fmt.Sprintf("native: RMSNorm of %d floats in rows of %d into %d, weight %d", len(x), n, len(out), len(weight)))
	}
	rows := len(x) / n
	if grain, ok := g.shareRows(rows, n); ok {
		g.pool.run(rows, grain, &rowsTask{func(lo, hi int) { rmsNormRows(out[lo*n:hi*n], x[lo*n:hi*n], weight, n, eps) }})
		return
	}
	rmsNormRows(out, x[:rows*n], weight, n, eps)
}

// rmsNormRows is RMSNorm of the rows of x (n floats each) into out.
func rmsNormRows(out, x, weight []float32, n int, eps float32) {
	k := 0 // the elements of a row done by the SIMD kernels
	if haveX86SIMD {
		k = n &^ 7
	}
	for r := 0; r < len(x); r += n {
		xs, os := x[r:r+n], out[r:r+n]
		var sum float64
		if k > 0 {
			sum = sumSquaresSIMD(&xs[0], k)
		}
		for _, v := range xs[k:] {
			sum += float64(v * v)
		}
		scale := float32(1 / math.Sqrt(float64(float32(sum/float64(n))+eps)))
		if weight == nil {
			for i, v := range xs {
				os[i] = v * scale
			}
			continue
		}
		i := 0
		if k > 0 {
			scaleMulSIMD(&os[0], &xs[0], &weight[0], k, scale)
			i = k
		}
		for ; i < n; i++ {
			os[i] = xs[i] * scale * weight[i]
		}
	}
}

// RoPE rotates pairs of each head by pos*InvFreq[i].
func (g *Go) RoPE(x []float32, nHeads, headDim, pos0, nTokens int, r RoPE) {
	half := r.Dim / 2
	if r.Dim > headDim || r.Dim%2 != 0 || len(r.InvFreq) != half || len(x) < nTokens*nHeads*headDim {
		panic(fmt.Sprintf("native: RoPE of dim %d (%d freqs) on %d tokens × %d heads × %d in %d floats",
			r.Dim, len(r.InvFreq), nTokens, nHeads, headDim, len(x)))
	}
	if grain, ok := g.shareRows(nTokens, nHeads*headDim); ok {
		g.pool.run(nTokens, grain, &rowsTask{func(lo, hi int) { ropeRows(x, nHeads, headDim, pos0, lo, hi, r) }})
		return
	}
	ropeRows(x, nHeads, headDim, pos0, 0, nTokens, r)
}

// ropeRows is RoPE of the token rows [lo, hi) of x.
func ropeRows(x []float32, nHeads, headDim, pos0, lo, hi int, r RoPE) {
	half := r.Dim / 2
	var cosBuf, sinBuf [256]float32
	cs, sn := cosBuf[:0], sinBuf[:0]
	if half > len(cosBuf) {
		cs, sn = make([]float32, 0, half), make([]float32, 0, half)
	}
	cs, sn = cs[:half], sn[:half]
	// on AVX2 the heads rotate 8 elements a step
	simd := haveX86SIMD && (r.Neox && half%8 == 0 || !r.Neox && r.Dim%8 == 0)
	for t := lo; t < hi; t++ {
		pos := float64(pos0 + t)
		for i, f := range r.InvFreq {
			s, c := math.Sincos(pos * float64(f))
			cs[i], sn[i] = float32(c), float32(s)
		}
		row := x[t*nHeads*headDim : (t+1)*nHeads*headDim]
		for h := range nHeads {
			v := row[h*headDim : h*headDim+r.Dim]
			switch {
			case simd && r.Neox:
				ropeHalvesSIMD(&v[0], &cs[0], &sn[0], half)
			case simd:
				ropePairsSIMD(&v[0], &cs[0], &sn[0], r.Dim)
			case r.Neox:
				for i := range half {
					x0, x1 := v[i], v[i+half]
					v[i] = x0*cs[i] - x1*sn[i]
					v[i+half] = x0*sn[i] + x1*cs[i]
				}
			default:
				for i := range half {
					x0, x1 := v[2*i], v[2*i+1]
					v[2*i] = x0*cs[i] - x1*sn[i]
					v[2*i+1] = x0*sn[i] + x1*cs[i]
				}
			}
		}
	}
}

// StoreKV copies keys and values into the cache, converting to F16 if the
// cache holds F16, or quantizing each row as ggml's reference quantizers
// do for a Q8_0 or Q4_0 cache.
func (g *Go) StoreKV(c *KVCache, pos0 int, k, v []float32, nTokens int) {
	n := nTokens * c.width
	if pos0 < 0 || pos0+nTokens > c.ctxLen || len(k) < n || len(v) < n {
		panic(fmt.Sprintf("native: StoreKV of %d tokens at %d into a cache of %d positions (k %d, v %d floats)",
			nTokens, pos0, c.ctxLen, len(k), len(v)))
	}
	if c.quantized() || c.typ == ggml.F16 {
		if grain, ok := g.shareRows(nTokens, 2*c.width); ok {
			g.pool.run(nTokens, grain, &rowsTask{func(lo, hi int) { c.storeRows(pos0, k, v, lo, hi) }})
		} else {
			c.storeRows(pos0, k, v, 0, nTokens)
		}
		return
	}
	off := pos0 * c.width
	copy(c.k32[off:off+n], k[:n])
	copy(c.v32[off:off+n], v[:n])
}

// Attend runs attention (causal unless a.NonCausal): for each query row
// and head, the scores against every visible key, their softmax, and the
// weighted sum of the values (attendRow). Query rows, and for decode
// spans of a row's keys, are split over threads.
func (g *Go) Attend(out, q []float32, c *KVCache, pos0, nTokens int, a Attention) {
	hd := a.HeadDim
	if a.NKVHeads <= 0 || a.NHeads%a.NKVHeads != 0 || a.NKVHeads*hd != c.width || (a.Sinks != nil && len(a.Sinks) != a.NHeads) ||
		(c.quantized() && hd%qk != 0) ||
		pos0 < 0 || pos0+nTokens > c.ctxLen || len(q) < nTokens*a.NHeads*hd || len(out) < nTokens*a.NHeads*hd {
		panic(fmt.Sprintf("native: Attend %d tokens at %d, %d heads / %d KV heads × %d, cache %d×%d, q %d, out %d",
			nTokens, pos0, a.NHeads, a.NKVHeads, hd, c.ctxLen, c.width, len(q), len(out)))
	}
	at := g.attends.Get().(*attendTask)
	part, rows, kp, vp := at.part, at.rows, at.kp, at.vp
	*at = attendTask{g: g, q: q, out: out, c: c, pos0: pos0, n: nTokens, a: a, spans: 1, kp: kp, vp: vp}
	defer func() {
		*at = attendTask{part: at.part, rows: at.rows, kp: at.kp, vp: at.vp}
		g.attends.Put(at)
	}()
	if at.tiled() {
		at.attendTiles()
		return
	}
	first, last := at.keys(0) // the fewest keys a row sees
	if at.spans = attendSpans(g.pool.n, nTokens, last-first+1); at.spans > 1 {
		at.part = grow(part, nTokens*at.spans*at.partSize())
		at.rows = rows[:0]
		at.prepare()
	}
	g.pool.run(nTokens*at.spans, max(1, minWork/max(1, 2*a.NHeads*hd*(pos0+nTokens)/at.spans)), at)
	if at.spans > 1 {
		at.combine()
	}
}

func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dotF16(a []uint16, b []float32) float32 {
	b = b[:len(a)]
	var s float32
	for i, h := range a {
		s += ggml.F16ToF32(h) * b[i]
	}
	return s
}

// axpy sets y += a*x.
func axpy(y []float32, a float32, x []float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] += a * x[i]
	}
}

func axpyF16(y []float32, a float32, x []uint16) {
	x = x[:len(y)]
	for i := range y {
		y[i] += a * ggml.F16ToF32(x[i])
	}
}

// SwiGLU sets gate = silu(gate) * up, silu(x) = x/(1+e^-x).
func (g *Go) SwiGLU(gate, up []float32) {
	up = up[:len(gate)]
	if grain, ok := g.shareRows(len(gate)/eltChunk, 4*eltChunk); ok {
		g.pool.run(len(gate)/eltChunk, grain, &rowsTask{func(lo, hi int) {
			a, b := eltSpan(len(gate), lo, hi)
			swiglu(gate[a:b], up[a:b])
		}})
		return
	}
	swiglu(gate, up)
}

// eltChunk is the floats of one row of an element-wise op shared over the
// pool (shareRows).
const eltChunk = 4096

// eltSpan is the elements [a, b) of the chunks [lo, hi) of an element-wise
// op over n elements: the last of the n/eltChunk chunks takes the rest.
func eltSpan(n, lo, hi int) (a, b int) {
	if hi == n/eltChunk {
		return lo * eltChunk, n
	}
	return lo * eltChunk, hi * eltChunk
}

// swiglu is SwiGLU on one goroutine.
func swiglu(gate, up []float32) {
	k := 0 // elements done by the SIMD kernel
	if haveSIMD && len(gate) >= 8 {
		k = len(gate) &^ 7
		swigluSIMD(&gate[0], &up[0], k)
	}
	for i := k; i < len(gate); i++ {
		x := gate[i]
		gate[i] = x / (1 + float32(math.Exp(float64(-x)))) * up[i]
	}
}

// GeGLU sets gate = gelu(gate) * up with the tanh approximation of GELU,
// 0.5x(1+tanh(√(2/π)(x+0.044715x³))), as ggml_gelu.
func (g *Go) GeGLU(gate, up []float32) {
	up = up[:len(gate)]
	const c = 0.7978845608028654 // √(2/π)
	for i, x := range gate {
		gate[i] = 0.5 * x * (1 + float32(math.Tanh(c*float64(x)*(1+0.044715*float64(x)*float64(x))))) * up[i]
	}
}

// Softmax replaces x by exp(x-max)/Σ. Elements at -Inf become 0.
func (g *Go) Softmax(x []float32) { softmax(x) }

func softmax(x []float32) {
	if len(x) == 0 {
		return
	}
	m := x[0]
	for _, v := range x[1:] {
		m = max(m, v)
	}
	var sum float64
	for i, v := range x {
		e := math.Exp(float64(v - m))
		x[i] = float32(e)
		sum += e
	}
	inv := float32(1 / sum)
	for i := range x {
		x[i] *= inv
	}
}

// Embed dequantizes row ids[t] of w into row t of out.
func (g *Go) Embed(out []float32, w Weight, ids []int32) {
	rs := w.RowBytes()
	if rs == 0 || len(w.Data) < rs*w.Rows || len(out) < len(ids)*w.Cols {
		panic(fmt.Sprintf("native: Embed of %d rows of a %d×%d %s matrix (%d bytes) into %d floats",
			len(ids), w.Rows, w.Cols, w.Type, len(w.Data), len(out)))
	}
	for t, id := range ids {
		if id < 0 || int(id) >= w.Rows {
			panic(fmt.Sprintf("native: Embed of row %d of %d", id, w.Rows))
		}
		row := out[t*w.Cols : (t+1)*w.Cols]
		if w.Layout == Interleaved16 {
			if err := ilDequantRow(w, int(id), row); err != nil {
				panic(fmt.Sprintf("native: Embed of row %d: %v", id, err))
			}
			continue
		}
		if err := ggml.DequantizeRow(w.Type, w.Data[int(id)*rs:(int(id)+1)*rs], row); err != nil {
			panic(fmt.Sprintf("native: Embed of row %d: %v", id, err))
		}
	}
}

// Add sets dst += src.
func (g *Go) Add(dst, src []float32) {
	if len(src) < len(dst) {
		panic(fmt.Sprintf("native: Add of %d floats to %d", len(src), len(dst)))
	}
	src = src[:len(dst)]
	if grain, ok := g.shareRows(len(dst)/eltChunk, eltChunk); ok {
		g.pool.run(len(dst)/eltChunk, grain, &rowsTask{func(lo, hi int) {
			a, b := eltSpan(len(dst), lo, hi)
			add(dst[a:b], src[a:b])
		}})
		return
	}
	add(dst, src)
}

// add sets dst[i] += src[i] on one goroutine.
func add(dst, src []float32) {
	src = src[:len(dst)]
	i := 0
	if n := len(dst) &^ 7; haveX86SIMD && n > 0 {
		addSIMD(&dst[0], &src[0], n)
		i = n
	}
	for ; i < len(dst); i++ {
		dst[i] += src[i]
	}
}

// AddRows adds row to each row of x.
func (g *Go) AddRows(x, row []float32) {
	n := len(row)
	if n == 0 || len(x)%n != 0 {
		panic(fmt.Sprintf("native: AddRows of a row of %d to %d floats", n, len(x)))
	}
	for r := 0; r < len(x); r += n {
		xr := x[r : r+n]
		for i := range xr {
			xr[i] += row[i]
		}
	}
}

// Scale sets x *= c.
func (g *Go) Scale(x []float32, c float32) {
	i := 0
	if k := len(x) &^ 7; haveSIMD && k > 0 {
		_ = scaleMaxSIMD(&x[0], k, c) // (its maximum unused)
		i = k
	}
	for ; i < len(x); i++ {
		x[i] *= c
	}
}

// NewKVCache allocates a cache in Go memory.
func (g *Go) NewKVCache(t ggml.DType, ctxLen, width int) (*KVCache, error) {
	return NewKVCache(t, ctxLen, width)
}

// Alloc returns make([]float32, n).
func (g *Go) Alloc(n int) []float32 { return make([]float32, n) }

func pow(x, y float64) float64 { return math.Pow(x, y) }
