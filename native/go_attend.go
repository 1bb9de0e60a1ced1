package native

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/litert-go/litert-go/models/ggml"
)

// attBlock is how many cache positions the scores and the weighted sums
// take at a time for every query head: a block's rows (every cache head's
// keys, or values, of those positions: contiguous memory) are read from
// memory once, head after head while the block's first lines are still
// near, and stay in L1 for each GQA group's other heads.
const attBlock = 64

// groupBlock is attBlock for attendGroups: its blocks go through
// every cache head's rows in turn as well, and shorter blocks keep the
// cache's rows in order in memory more nearly (decode at depth 576,
// SmolLM2 Q8_0, one thread: 16 rows 199-204 tok/s against 187-199 for 64).
const groupBlock = 16

// minSpanKeys is the fewest keys a span of a split decode job covers: a
// span costs a combine of ng·(hd+2) floats, so shorter ones are not worth
// a thread.
const minSpanKeys = 256

// attendSpans is how many spans to split the keys of each of jobs query
// rows into, on threads threads, when each row sees at least keys keys:
// enough that every thread gets work, none shorter than minSpanKeys; 1 (no
// split) where the rows alone are enough.
func attendSpans(threads, jobs, keys int) int {
	if threads <= 1 || jobs >= threads*chunksPerThread || keys < 2*minSpanKeys {
		return 1
	}
	return min((threads*chunksPerThread+jobs-1)/jobs, keys/minSpanKeys)
}

// attendTask is one Attend call. Its jobs are (query row, key span): each
// covers every query head, so each GQA group reads each key and value row
// once (as the C backend's att_rows does), and a block of positions is
// read for all cache heads at once: a cache row holds every head, and
// walking one head through the whole context (a 128-byte run every
// 384 bytes for SmolLM2) kept the prefetchers from streaming it (decode
// attention at depth 576, cache from memory, one Zen 5 core: 10-11.5 GB/s
// of cache read that way). A batch with fewer rows than the threads
// want — decode — splits each row's visible keys into spans, whose partial
// softmax results (max, sum, unnormalized output: the combine of flash
// decoding) Attend merges afterwards.
type attendTask struct {
	g      *Go
	q, out []float32
	c      *KVCache
	pos0   int
	n      int // query rows
	a      Attention
	spans  int       // key spans per (row, cache head)
	part   []float32 // spans > 1: per job, each head's max and sum, then outputs
	// spans > 1 over a quantized cache: each row's queries, quantized
	// once for its spans (prepare)
	rows []rowQueries
	// tiles (go_attend_tile.go): the phase run does, the packed keys and
	// values of positions [kf, kf+nkp)
	phase   attendPhase
	tile    tileKernel
	kf, nkp int
	kp, vp  []float32
}

// attendPhase is what attendTask.run does with its jobs.
type attendPhase int

const (
	phaseRows  attendPhase = iota // (query row, key span) jobs: attendRow
	phasePack                     // packing jobs of the tiles: packRange
	phaseTiles                    // tile jobs: tileRange
)

// prepare quantizes the query rows for their spans where the spans of a
// row would otherwise each quantize them (a quantized cache, split
// rows).
func (at *attendTask) prepare() {
	if at.spans == 1 || !at.c.quantized() {
		return
	}
	nh, hd := at.a.NHeads, at.a.HeadDim
	at.rows = grow(at.rows, at.n)
	for t := range at.n {
		at.rows[t].set(at.c, at.a, at.q[t*nh*hd:][:nh*hd])
	}
}

// keys returns the cache positions [first, last] query row t sees.
func (at *attendTask) keys(t int) (first, last int) {
	pos := at.pos0 + t
	last = pos // causal: keys up to the query's own position
	if at.a.NonCausal {
		last = at.pos0 + at.n - 1 // the whole batch
	}
	if at.a.Window > 0 {
		first = max(0, pos-at.a.Window+1)
	}
	return first, last
}

// partSize is the floats of one split job's partial result: a maximum, a
// sum and an unnormalized output per head.
func (at *attendTask) partSize() int {
	return at.a.NHeads * (2 + at.a.HeadDim)
}

func (at *attendTask) run(lo, hi int) {
	switch at.phase {
	case phasePack:
		at.packRange(lo, hi)
		return
	case phaseTiles:
		at.tileRange(lo, hi)
		return
	}
	a, hd, nh := at.a, at.a.HeadDim, at.a.NHeads
	w := at.g.attnWork.Get().(*attnScratch)
	defer at.g.attnWork.Put(w)
	// the most keys a span of these jobs covers: a share of its first or
	// last row's (the counts grow along a causal batch and shrink along a
	// non-causal one with a window)
	f0, l0 := at.keys(lo / at.spans)
	f1, l1 := at.keys((hi - 1) / at.spans)
	w.reserve(nh, groupSlots(at.c, a), max(l0-f0, l1-f1)/at.spans+2)
	for i := lo; i < hi; i++ {
		span, t := i%at.spans, i/at.spans
		first, last := at.keys(t)
		nk := last - first + 1
		p0, p1 := first+span*nk/at.spans, first+(span+1)*nk/at.spans
		q := at.q[t*nh*hd:][:nh*hd]
		var rq *rowQueries // a quantized cache's queries
		switch {
		case len(at.rows) > 0:
			rq = &at.rows[t]
		case at.c.quantized():
			rq = &w.rq
			rq.set(at.c, a, q)
		}
		if at.spans == 1 {
			o := at.out[t*nh*hd:][:nh*hd]
			w.attendRow(at.c, a, o, w.m, w.l, q, rq, p0, p1)
			for h := range nh {
				at.normalize(o[h*hd:(h+1)*hd], w.l[h], w.m[h], h)
			}
			continue
		}
		p := at.part[i*at.partSize():][:at.partSize()]
		w.attendRow(at.c, a, p[2*nh:], p[:nh], p[nh:2*nh], q, rq, p0, p1)
	}
}

// combine merges the spans' partial results into out: per head, with M the
// largest span max, out = Σ o_s·e^(m_s-M) / (Σ l_s·e^(m_s-M) + e^(sink-M)).
func (at *attendTask) combine() {
	a, hd := at.a, at.a.HeadDim
	nh, ps := a.NHeads, at.partSize()
	for t := range at.n {
		parts := at.part[t*at.spans*ps:][:at.spans*ps]
		for h := range nh {
			m := float32(math.Inf(-1))
			for s := range at.spans {
				m = max(m, parts[s*ps+h])
			}
			o := at.out[(t*nh+h)*hd:][:hd]
			clear(o)
			var sum float32
			for s := range at.spans {
				p := parts[s*ps:][:ps]
				if p[nh+h] == 0 { // an empty span
					continue
				}
				r := float32(math.Exp(float64(p[h] - m)))
				sum += p[nh+h] * r
				axpy(o, r, p[2*nh+h*hd:][:hd])
			}
			at.normalize(o, sum, m, h)
		}
	}
}

// normalize divides head h's unnormalized output o by its softmax
// denominator: sum, the Σ e^(s-m) of its scores with m their max, and
// e^(sink-m) for a sink.
func (at *attendTask) normalize(o []float32, sum, m float32, h int) {
	if at.a.Sinks != nil {
		sum += float32(math.Exp(float64(at.a.Sinks[h] - m)))
	}
	at.g.Scale(o, 1/sum)
}

// attnScratch is one attention job's room: the row's maxima and sums and
// its scores (a row of a span's keys per head, or per slot of
// attendGroups' padded groups), carved from one buffer f so that a
// fresh scratch costs few allocations; for a quantized cache a row's
// quantized queries (rq) and a value row (vr, without SIMD kernels); for
// attendGroups the padded queries and outputs (qp, op).
type attnScratch struct {
	f       []float32
	m, l, s []float32
	rq      rowQueries
	vr      []float32
	qp, op  []float32
	// a tile's (go_attend_tile.go): packing rows (tk, tv), queries (tq,
	// tqb rounded), scores, outputs, maxima and sums
	tk, tv, tq, ts, to, tm, tl []float32
	tqb                        []byte
}

// reserve makes room for nh heads over spans of up to keys keys, with
// score rows for the slots of a grouped attention (slots ≥ nh).
func (w *attnScratch) reserve(nh, slots, keys int) {
	n := 2*nh + max(nh, slots)*keys
	if cap(w.f) < n {
		// the context grows a token at a time: leave room
		w.f = make([]float32, n, max(n, 2*cap(w.f), 1024))
	}
	w.f = w.f[:n]
	w.m, w.l, w.s = w.f[:nh], w.f[nh:2*nh], w.f[2*nh:]
}

// attendRow runs the nh = len(q)/hd query heads of one query row over the
// cache positions [p0, p1) in two passes: the scaled (and soft-capped)
// scores of each head, their softmax weights (m and l get each head's max
// and sum of e^(s-max)), then the weighted value rows, unnormalized, into
// o (nh heads of hd). Both passes walk the positions in blocks of
// attBlock, each block through every head (head h reads cache head
// h/(a.NHeads/a.NKVHeads)). With no positions, o is 0, l 0 and m -∞.
// w.reserve must have made room for nh heads of p1-p0 keys; rq holds the
// queries quantized (set) for a quantized cache.
func (w *attnScratch) attendRow(c *KVCache, a Attention, o, m, l, q []float32, rq *rowQueries, p0, p1 int) {
	hd, n := a.HeadDim, p1-p0
	nh, ng := len(q)/hd, a.NHeads/a.NKVHeads
	clear(o)
	if n <= 0 {
		for h := range nh {
			m[h], l[h] = float32(math.Inf(-1)), 0
		}
		return
	}
	if groupSlots(c, a) > 0 {
		w.attendGroups(c, a, o, m, l, q, rq, p0, n)
		return
	}
	simd := haveSIMD && hd%8 == 0
	for j := 0; j < n; j += attBlock {
		nb := min(attBlock, n-j)
		for h := range nh {
			keyDots(c, w.s[h*n+j:][:nb], q[h*hd:(h+1)*hd], rq, h, h/ng, p0+j)
		}
	}
	for h := range nh {
		l[h], m[h] = softmaxScores(w.s[h*n:(h+1)*n], a.Scale, a.SoftCap, simd)
	}
	for j := 0; j < n; j += attBlock {
		nb := min(attBlock, n-j)
		for h := range nh {
			w.valueSum(c, o[h*hd:(h+1)*hd], w.s[h*n+j:][:nb], h/ng, p0+j)
		}
	}
}

// groupSlots is, where attendGroups serves a, the score rows it uses:
// each cache head's group of query heads padded to a multiple of the
// kernels' heads (groupHeads); 0 elsewhere. It serves the caches this CPU
// has group kernels for (groupKernelsFor), for GQA (a group of one gains
// nothing from sharing a widened row).
func groupSlots(c *KVCache, a Attention) int {
	ng := a.NHeads / a.NKVHeads
	kern, ok := groupKernelsFor(c.typ, a.HeadDim)
	if !ok || ng < 2 {
		return 0
	}
	return a.NKVHeads * kern.padded(ng)
}

// groupSlot is query head h's slot in groups of ng heads padded to ngp.
func groupSlot(h, ng, ngp int) int { return h/ng*ngp + h%ng }

// groupKernels is attendGroups' kernels: weighted sums of value rows for
// four query heads and for three (wsum, wsum3), and for an F16 cache the
// scores likewise (dots takes key rows in multiples of rows) and one
// head's scores for a block's last rows. A quantized cache's scores are
// those of dotsQ and dotsQ3 where this CPU has them, the per-head integer
// dots of keyDots for the rest.
type groupKernels struct {
	dots  func(s, q *float32, k *byte, kstride, nrows, hd, sstride int)
	wsum  func(o, w *float32, v *byte, vstride, nrows, hd, wstride int)
	dots3 func(s, q *float32, k *byte, kstride, nrows, hd, sstride int)
	wsum3 func(o, w *float32, v *byte, vstride, nrows, hd, wstride int)
	dots1 func(s, q *float32, k *byte, kstride, nrows, hd int)
	rows  int
	// a quantized cache's scores on VNNI (hd a multiple of 64): the
	// queries as packGroupQuery lays them out, rows in multiples of 4
	dotsQ, dotsQ3 func(s *float32, q *byte, k *byte, kstride, nrows, hd, sstride int)
}

// groupHeads is the query heads a kernel call takes for groups of ng:
// three where ng is a multiple of 3 but not of 4 (smollm2's groups of 3
// padded to 4 spent a quarter of the products on a zero query), else four.
func (k groupKernels) groupHeads(ng int) int {
	if ng%3 == 0 && ng%4 != 0 {
		return 3
	}
	return 4
}

// padded is ng rounded up to a multiple of groupHeads(ng).
func (k groupKernels) padded(ng int) int {
	step := k.groupHeads(ng)
	return (ng + step - 1) / step * step
}

// groupKernelsFor returns the group kernels (four and three heads) this
// CPU runs for a cache of type typ and head size hd: for F16, AVX-512's
// for multiples of 16, else AVX2's for multiples of 8; for Q8_0 and Q4_0,
// AVX-512's value sums (head sizes are whole blocks) and, with VNNI and
// head sizes a multiple of 64, its scores.
func groupKernelsFor(typ ggml.DType, hd int) (groupKernels, bool) {
	switch {
	case typ == ggml.F16 && haveAVX512 && hd%16 == 0:
		return groupKernels{dots: dotsF16G4AVX512, wsum: wsumF16G4AVX512, dots3: dotsF16G3AVX512, wsum3: wsumF16G3AVX512,
			dots1: dotsF16AVX512, rows: 4}, true
	case typ == ggml.F16 && haveX86SIMD && hd%8 == 0:
		return groupKernels{dots: dotsF16G4AVX2, wsum: wsumF16G4AVX2, dots3: dotsF16G3AVX2, wsum3: wsumF16G3AVX2,
			dots1: dotsF16SIMD, rows: 2}, true
	case typ == ggml.Q8_0 && haveAVX512 && hd%qk == 0:
		k := groupKernels{wsum: wsumQ8_0G4AVX512, wsum3: wsumQ8_0G3AVX512}
		if haveVNNI && hd%64 == 0 {
			k.dotsQ, k.dotsQ3 = dotsQ8_0G4VNNI, dotsQ8_0G3VNNI
		}
		return k, true
	case typ == ggml.Q4_0 && haveAVX512 && hd%qk == 0:
		k := groupKernels{wsum: wsumQ4_0G4AVX512, wsum3: wsumQ4_0G3AVX512}
		if haveVNNI && hd%64 == 0 {
			k.dotsQ, k.dotsQ3 = dotsQ4_0G4VNNI, dotsQ4_0G3VNNI
		}
		return k, true
	}
	return groupKernels{}, false
}

// attendGroups is attendRow on the group kernels: each cache head's group
// of query heads, padded to a multiple of the kernels' heads (zero
// queries and weights in w.qp and the scores, outputs summed in w.op),
// meets every value chunk (and every F16 key chunk) once per three or four
// heads rather than once per head. The blocks of groupBlock positions go
// through every cache head in turn, as attendRow's do.
func (w *attnScratch) attendGroups(c *KVCache, a Attention, o, m, l, q []float32, rq *rowQueries, p0, n int) {
	hd := a.HeadDim
	ng := a.NHeads / a.NKVHeads
	kern, _ := groupKernelsFor(c.typ, hd) // groupSlots found them
	nkv, ngp, step := len(q)/hd/ng, kern.padded(ng), kern.groupHeads(ng)
	dots, wsum := kern.dots, kern.wsum
	if step == 3 {
		dots, wsum = kern.dots3, kern.wsum3
	}
	slot := func(h int) int { return groupSlot(h, ng, ngp) }
	s := w.s[:nkv*ngp*n]
	w.op = grow(w.op, nkv*ngp*hd)
	clear(w.op)
	if c.quantized() {
		for g := range nkv * ngp {
			if g%ngp >= ng { // a padding slot: zero weights
				clear(s[g*n : (g+1)*n])
			}
		}
		groupDotsQuantized(c, kern, step, s, ng, ngp, hd, q, rq, p0, n)
	} else {
		w.qp = grow(w.qp, nkv*ngp*hd)
		clear(w.qp)
		for h := range len(q) / hd {
			copy(w.qp[slot(h)*hd:][:hd], q[h*hd:(h+1)*hd])
		}
		w.groupDotsF16(c, kern, dots, step, s, nkv, ngp, hd, p0, n)
	}
	for h := range len(q) / hd {
		l[h], m[h] = softmaxScores(s[slot(h)*n:][:n], a.Scale, a.SoftCap, true)
	}
	// the value rows: position p's for cache head kvh at row(p, kvh),
	// vstride bytes apart
	var row func(p, kvh int) unsafe.Pointer
	var vstride int
	if c.quantized() {
		hb := hd / qk * c.typ.TypeSize()
		_ = c.vq[(p0+n-1)*c.rowBytes+nkv*hb-1]
		row = func(p, kvh int) unsafe.Pointer { return unsafe.Pointer(&c.vq[p*c.rowBytes+kvh*hb]) }
		vstride = c.rowBytes
	} else {
		_ = c.v16[(p0+n-1)*c.width+nkv*hd-1]
		row = func(p, kvh int) unsafe.Pointer { return unsafe.Pointer(&c.v16[p*c.width+kvh*hd]) }
		vstride = 2 * c.width
	}
	for j := 0; j < n; j += groupBlock {
		nb := min(groupBlock, n-j)
		for kvh := range nkv {
			v := (*byte)(row(p0+j, kvh))
			for g := kvh * ngp; g < (kvh+1)*ngp; g += step {
				wsum(&w.op[g*hd], &s[g*n+j], v, vstride, nb, hd, 4*n)
			}
		}
	}
	for h := range len(q) / hd {
		copy(o[h*hd:(h+1)*hd], w.op[slot(h)*hd:][:hd])
	}
}

// groupDotsQuantized sets the scores s (n per slot, ngp slots for each
// cache head's ng heads) of the row's queries q (quantized in rq) against
// the quantized keys at positions [p0, p0+n): with kern.dotsQ, step heads
// at once over each block's rows in fours (rq.qg, packed by slot), else
// and for a block's last rows head by head (keyDots).
func groupDotsQuantized(c *KVCache, kern groupKernels, step int, s []float32, ng, ngp, hd int, q []float32, rq *rowQueries, p0, n int) {
	nh := len(q) / hd
	slot := func(h int) int { return groupSlot(h, ng, ngp) }
	dots := kern.dotsQ
	if step == 3 {
		dots = kern.dotsQ3
	}
	if dots == nil { // head by head
		for j := 0; j < n; j += groupBlock {
			nb := min(groupBlock, n-j)
			for h := range nh {
				keyDots(c, s[slot(h)*n+j:][:nb], q[h*hd:(h+1)*hd], rq, h, h/ng, p0+j)
			}
		}
		return
	}
	nkv, qbytes := nh/ng, groupQueryBytes(hd)
	kb := hd / qk * c.typ.TypeSize() // a cache head's bytes in a row
	_ = c.kq[(p0+n-1)*c.rowBytes+nkv*kb-1]
	_ = rq.qg[nkv*ngp*qbytes-1]
	for j := 0; j < n; j += groupBlock {
		nb := min(groupBlock, n-j)
		n4 := nb - nb%4
		for kvh := range nkv {
			for g := kvh * ngp; g < (kvh+1)*ngp; g += step {
				if n4 > 0 {
					dots(&s[g*n+j], &rq.qg[g*qbytes], &c.kq[(p0+j)*c.rowBytes+kvh*kb], c.rowBytes, n4, hd, 4*n)
				}
			}
			if nb > n4 { // the block's last rows, head by head
				for h := kvh * ng; h < (kvh+1)*ng; h++ {
					keyDots(c, s[slot(h)*n+j+n4:][:nb-n4], q[h*hd:(h+1)*hd], rq, h, kvh, p0+j+n4)
				}
			}
		}
	}
}

// groupDotsF16 sets the scores s (n per slot, ngp slots for each of nkv
// cache heads) of the padded queries w.qp (hd floats a slot) against the
// F16 keys at positions [p0, p0+n): dots takes step heads, kern.dots1 a
// block's last rows head by head.
func (w *attnScratch) groupDotsF16(c *KVCache, kern groupKernels, dots func(s, q *float32, k *byte, kstride, nrows, hd, sstride int),
	step int, s []float32, nkv, ngp, hd, p0, n int) {
	stride := 2 * c.width // bytes between positions
	_ = c.k16[(p0+n-1)*c.width+nkv*hd-1]
	for j := 0; j < n; j += groupBlock {
		nb := min(groupBlock, n-j)
		n4 := nb - nb%kern.rows
		for kvh := range nkv {
			k := unsafe.Pointer(&c.k16[(p0+j)*c.width+kvh*hd])
			for g := kvh * ngp; g < (kvh+1)*ngp; g += step {
				if n4 > 0 {
					dots(&s[g*n+j], &w.qp[g*hd], (*byte)(k), stride, n4, hd, 4*n)
				}
				if nb > n4 { // the block's last rows, head by head
					for i := range step {
						kern.dots1(&s[(g+i)*n+j+n4], &w.qp[(g+i)*hd], (*byte)(unsafe.Add(k, n4*stride)), stride, nb-n4, hd)
					}
				}
			}
		}
	}
}

// rowQueries is a query row's heads quantized for a quantized cache:
// rounded to Q8_0 blocks (qb, every head's), K's vec_dot_type as
// llama.cpp's CPU flash attention over a quantized cache has it; as q8a
// activations for the SIMD kernels (qa) or as float values (qr); and,
// where attendGroups has group dots for the cache, packed by slot for them
// (qg, padding slots zero).
type rowQueries struct {
	qb, qa, qg []byte
	qr         []float32
}

// set quantizes the row's queries q for cache c and attention a.
func (rq *rowQueries) set(c *KVCache, a Attention, q []float32) {
	hd := a.HeadDim
	nb := hd / qk
	nh := len(q) / hd
	hb := nb * ggml.Q8_0.TypeSize()
	rq.qb = grow(rq.qb, nh*hb)
	if haveSIMD {
		rq.qa = grow(rq.qa, nh*nb*sizeQ8a)
	} else {
		rq.qr = grow(rq.qr, nh*hd)
	}
	for h := range nh {
		qb := rq.qb[h*hb : (h+1)*hb]
		_ = ggml.Quantize(ggml.Q8_0, q[h*hd:(h+1)*hd], qb)
		if haveSIMD {
			q8aFromQ8_0(rq.qa[h*nb*sizeQ8a:(h+1)*nb*sizeQ8a], qb)
		} else {
			// the query as Q8_0 values d·q: the blocks' products are
			// then those of ggml's integer dot, up to float rounding
			_ = dequantRow(ggml.Q8_0, qb, rq.qr[h*hd:(h+1)*hd])
		}
	}
	kern, _ := groupKernelsFor(c.typ, hd)
	if kern.dotsQ == nil || groupSlots(c, a) == 0 {
		return
	}
	ng := a.NHeads / a.NKVHeads
	ngp, qbytes := kern.padded(ng), groupQueryBytes(hd)
	rq.qg = grow(rq.qg, nh/ng*ngp*qbytes)
	clear(rq.qg)
	for h := range nh {
		packGroupQuery(rq.qg[groupSlot(h, ng, ngp)*qbytes:][:qbytes], rq.qb[h*hb:(h+1)*hb], c.typ)
	}
}

// groupQueryBytes is the bytes of one head's query of hd elements as
// packGroupQuery lays it out.
func groupQueryBytes(hd int) int { return 3 * hd }

// packGroupQuery lays out a head's query, its Q8_0 blocks qb, for the
// group dots kernels over a cache of type typ (dotsQ8_0G4VNNI and the
// rest): per pair of blocks, 64 query bytes in the order the kernel reads
// the key chunk's (Q8_0: block 0's quants, block 1's; Q4_0: quants 0-15 of
// block 0, of block 1, quants 16-31 of block 0, of block 1), then per
// dword lane of those bytes the int32 correction of the key's unsigned
// bytes (a Q8_0 key byte is its quant+128, so -16·Σq of the lane's block;
// a Q4_0 nibble its quant+8, so -Σq) and the float32 scale dq.
func packGroupQuery(dst, qb []byte, typ ggml.DType) {
	bs := ggml.Q8_0.TypeSize()
	for p := range len(qb) / bs / 2 {
		out := dst[p*192 : (p+1)*192]
		blocks := [2][]byte{qb[2*p*bs : (2*p+1)*bs], qb[(2*p+1)*bs : (2*p+2)*bs]}
		var sums [2]int32
		for b, blk := range blocks {
			for _, x := range blk[2:] {
				sums[b] += int32(int8(x))
			}
		}
		for j := range 64 {
			blk, e := j/32, j%32 // Q8_0
			if typ == ggml.Q4_0 {
				blk, e = j/16%2, j%16+16*(j/32)
			}
			out[j] = blocks[blk][2+e]
		}
		for i := range 16 {
			blk, corr := i/8, -16*sums[i/8]
			if typ == ggml.Q4_0 {
				blk, corr = i/4%2, -sums[i/4%2]
			}
			d := ggml.F16ToF32(binary.LittleEndian.Uint16(blocks[blk]))
			binary.LittleEndian.PutUint32(out[64+4*i:], uint32(corr))
			binary.LittleEndian.PutUint32(out[128+4*i:], math.Float32bits(d))
		}
	}
}

// keyDots sets s[j] = q·k for the len(s) keys of cache head kvh from
// position p; h is q's head in the row (its quantized copy in rq, for a
// quantized cache).
func keyDots(c *KVCache, s, q []float32, rq *rowQueries, h, kvh, p int) {
	hd := len(q)
	if c.quantized() {
		nb := hd / qk
		hb := nb * c.typ.TypeSize() // bytes of a head in a row
		base := p*c.rowBytes + kvh*hb
		if haveSIMD {
			qa := rq.qa[h*nb*sizeQ8a : (h+1)*nb*sizeQ8a]
			_ = c.kq[base+(len(s)-1)*c.rowBytes+hb-1]
			if c.typ == ggml.Q8_0 {
				dotsQ8_0SIMD(&s[0], &qa[0], &c.kq[base], c.rowBytes, len(s), nb)
			} else {
				dotsQ4_0SIMD(&s[0], &qa[0], &c.kq[base], c.rowBytes, len(s), nb)
			}
			return
		}
		for j := range s {
			b := base + j*c.rowBytes
			s[j] = dotRow(c.typ, c.kq[b:b+hb], rq.qr[h*hd:(h+1)*hd])
		}
		return
	}
	base := p*c.width + kvh*hd
	switch {
	case haveSIMD && hd%8 == 0 && c.typ == ggml.F16:
		_ = c.k16[base+(len(s)-1)*c.width+hd-1]
		k := (*byte)(unsafe.Pointer(&c.k16[base]))
		if haveAVX512 && hd%16 == 0 {
			dotsF16AVX512(&s[0], &q[0], k, 2*c.width, len(s), hd)
		} else {
			dotsF16SIMD(&s[0], &q[0], k, 2*c.width, len(s), hd)
		}
	case haveSIMD && hd%8 == 0:
		_ = c.k32[base+(len(s)-1)*c.width+hd-1]
		dotsF32SIMD(&s[0], &q[0], &c.k32[base], 4*c.width, len(s), hd)
	default:
		for j := range s {
			b := base + j*c.width
			if c.typ == ggml.F16 {
				s[j] = dotF16(c.k16[b:b+hd], q)
			} else {
				s[j] = dot(c.k32[b:b+hd], q)
			}
		}
	}
}

// valueSum adds to o the Σ_j s[j]·v_j over the len(s) value rows of cache
// head kvh from position p.
func (w *attnScratch) valueSum(c *KVCache, o, s []float32, kvh, p int) {
	hd := len(o)
	if c.quantized() {
		nb := hd / qk
		hb := nb * c.typ.TypeSize()
		base := p*c.rowBytes + kvh*hb
		if haveSIMD {
			_ = c.vq[base+(len(s)-1)*c.rowBytes+hb-1]
			if c.typ == ggml.Q8_0 {
				wsumQ8_0SIMD(&o[0], &s[0], &c.vq[base], c.rowBytes, len(s), nb)
			} else {
				wsumQ4_0SIMD(&o[0], &s[0], &c.vq[base], c.rowBytes, len(s), nb)
			}
			return
		}
		w.vr = grow(w.vr, hd)
		for j, x := range s {
			b := base + j*c.rowBytes
			_ = dequantRow(c.typ, c.vq[b:b+hb], w.vr)
			axpy(o, x, w.vr)
		}
		return
	}
	base := p*c.width + kvh*hd
	switch {
	case haveSIMD && hd%8 == 0 && c.typ == ggml.F16:
		_ = c.v16[base+(len(s)-1)*c.width+hd-1]
		v := (*byte)(unsafe.Pointer(&c.v16[base]))
		if haveAVX512 && hd%16 == 0 {
			wsumF16AVX512(&o[0], &s[0], v, 2*c.width, len(s), hd)
		} else {
			wsumF16SIMD(&o[0], &s[0], v, 2*c.width, len(s), hd)
		}
	case haveSIMD && hd%8 == 0:
		_ = c.v32[base+(len(s)-1)*c.width+hd-1]
		wsumF32SIMD(&o[0], &s[0], &c.v32[base], 4*c.width, len(s), hd)
	default:
		for j, x := range s {
			b := base + j*c.width
			if c.typ == ggml.F16 {
				axpyF16(o, x, c.v16[b:b+hd])
			} else {
				axpy(o, x, c.v32[b:b+hd])
			}
		}
	}
}

// q8aFromQ8_0 rewrites the Q8_0 blocks b as q8a blocks in dst (d widened
// to float32, s = d·Σq), the activations the integer dots take.
func q8aFromQ8_0(dst, b []byte) {
	bs := ggml.Q8_0.TypeSize()
	for i := range len(b) / bs {
		blk, out := b[i*bs:(i+1)*bs], dst[i*sizeQ8a:(i+1)*sizeQ8a]
		d := ggml.F16ToF32(binary.LittleEndian.Uint16(blk))
		sum := 0
		for j, q := range blk[2:] {
			sum += int(int8(q))
			out[8+j] = q
		}
		binary.LittleEndian.PutUint32(out, math.Float32bits(d))
		binary.LittleEndian.PutUint32(out[4:], math.Float32bits(d*float32(sum)))
	}
}

// softmaxScores scales the scores s (and soft-caps them if softCap > 0),
// replaces them by e^(s-max) and returns their sum and the max.
func softmaxScores(s []float32, scale, softCap float32, simd bool) (sum, m float32) {
	n := len(s)
	k := 0 // scores done by the SIMD kernels
	if simd && softCap == 0 {
		k = n &^ 7
	}
	m = float32(math.Inf(-1))
	if k > 0 {
		m = scaleMaxSIMD(&s[0], k, scale)
	}
	for j := k; j < n; j++ {
		v := s[j] * scale
		if softCap > 0 {
			v = softCap * float32(math.Tanh(float64(v/softCap)))
		}
		s[j] = v
		m = max(m, v)
	}
	if k > 0 {
		sum = expSubSIMD(&s[0], k, m)
	}
	for j := k; j < n; j++ {
		e := float32(math.Exp(float64(s[j] - m)))
		s[j] = e
		sum += e
	}
	return sum, m
}
