package native

import (
	"math"
	"unsafe"

	"github.com/litert-go/litert-go/models/ggml"
)

// Prefill attention in tiles (tileKernelFor: AVX-512, AVX2 or NEON). A batch's
// rows each meet every key they see once per query head in attendRow;
// here a tile of rows and one cache head's group of query heads
// (tileHeads query heads in all) meet the keys together as two panel
// products, the kernels of the float batches (panelMul12AVX512: 32 lanes
// by 12 rows; panelMul6SIMD: 16 by 6; panelMul4NEON: 16 by 4): scores S = Q·Kᵀ with a call's keys
// against its query heads, then, after each row's softmax, O = P·V with a
// call's head elements against the query heads. No horizontal sums, each
// key and value element widened once per Attend rather than once per row
// and head: the call first packs every key it reads as panels of 16 keys
// (transposed: element-major) and every value as panels of 16 elements
// (position-major), as float32, whatever the cache type, and the tiles
// share them. A quantized cache's queries are rounded to Q8_0 first, as
// attendRow's integer dots take them. The C library's attention.c does
// the same with its panel_mul.

const (
	// tileHeads is the query heads of a tile (its rows × the group, the
	// last ones padded to the kernel's rows).
	tileHeads = 48
	// tileMinRows is the fewest query rows a batch takes tiles for.
	tileMinRows = 16
	// tilePackKeys is the positions of one packing job (a multiple of 32).
	tilePackKeys = 128
	// tileMaxFloats bounds the packed keys and values of one call (64
	// MB); a longer context (or a wider cache) takes attendRow.
	tileMaxFloats = 1 << 24
)

// tileKernel is a panel product of the tiles: o_t[r] = Σ_k p'[16k+r%16] ·
// y_t[k] over k < n for lanes rows r (16 a panel, the second at p+ps
// bytes) and rows activation rows y_t at y + t·ys bytes, o_t's lanes
// floats written at o + t·os bytes.
type tileKernel struct {
	mul         func(p *float32, n, ps int, y *float32, ys int, o *float32, os int)
	lanes, rows int
}

// tileKernelFor returns g's tile kernel, if this CPU has one.
func tileKernelFor(g *Go) (tileKernel, bool) {
	switch {
	case havePanels512 && !g.noPanels512:
		return tileKernel{mul: panelMul12AVX512, lanes: 2 * panelRows, rows: panelTokens512}, true
	case havePanels:
		return tileKernel{mul: panelMul6Strided, lanes: panelRows, rows: panelTokens}, true
	case haveNEONTiles:
		return tileKernel{mul: panelMul4NEON, lanes: panelRows, rows: 4}, true
	}
	return tileKernel{}, false
}

// transpose8 sets dst[16*k+r] = src[r*stride/4+k] for 8 rows of src
// (stride bytes apart) and k < n, n a multiple of 8: transpose8SIMD on
// amd64, a loop elsewhere.
func transpose8(dst, src *float32, stride, n int) {
	if havePanels {
		transpose8SIMD(dst, src, stride, n)
		return
	}
	d := unsafe.Slice(dst, 16*(n-1)+8)
	for r := range 8 {
		row := unsafe.Slice((*float32)(unsafe.Add(unsafe.Pointer(src), r*stride)), n)
		for k, v := range row {
			d[16*k+r] = v
		}
	}
}

// panelMul6Strided is panelMul6SIMD as a tileKernel (one panel: ps unused).
func panelMul6Strided(p *float32, n, _ int, y *float32, ys int, o *float32, os int) {
	var yp [panelTokens]*float32
	for t := range yp {
		yp[t] = (*float32)(unsafe.Add(unsafe.Pointer(y), t*ys))
	}
	panelMul6SIMD(p, n, &yp, o, os)
}

// tileRows is the query rows of a tile for groups of ng query heads.
func tileRows(ng int) int { return max(1, tileHeads/ng) }

// tiled reports whether Attend takes tiles for at, and sets up the kernel
// (at.tile) and the packed key range (at.kf, at.nkp) if so.
func (at *attendTask) tiled() bool {
	a, hd := at.a, at.a.HeadDim
	kern, ok := tileKernelFor(at.g)
	if !ok || at.g.noTiles || at.n < tileMinRows || hd%16 != 0 {
		return false
	}
	first, _ := at.keys(0)
	_, last := at.keys(at.n - 1)
	nkp := (last - first + 32) / 32 * 32
	if a.NKVHeads*nkp*(hd+tileDims(hd, kern)) > tileMaxFloats {
		return false
	}
	at.tile, at.kf, at.nkp = kern, first, nkp
	return true
}

// tileDims is hd padded to the kernel's lanes.
func tileDims(hd int, kern tileKernel) int { return (hd + kern.lanes - 1) / kern.lanes * kern.lanes }

// attendTiles is Attend in tiles: pack the keys and values, then run the
// tiles (tileRows rows × one cache head each).
func (at *attendTask) attendTiles() {
	a, hd := at.a, at.a.HeadDim
	nkv := a.NKVHeads
	at.kp = grow(at.kp, nkv*at.nkp*hd)
	at.vp = grow(at.vp, nkv*at.nkp*tileDims(hd, at.tile))
	at.phase = phasePack
	jobs := (at.nkp + tilePackKeys - 1) / tilePackKeys
	at.g.pool.run(nkv*jobs, 1, at)
	at.phase = phaseTiles
	tiles := (at.n + tileRows(a.NHeads/nkv) - 1) / tileRows(a.NHeads/nkv)
	at.g.pool.run(nkv*tiles, 1, at)
}

// packRange packs the keys and values of the jobs [lo, hi): job i is cache
// head i/jobs's positions [at.kf+j*tilePackKeys, +tilePackKeys), j =
// i%jobs; positions past the batch's last pack as zeros. Keys go to at.kp
// as panels of 16 positions, element-major (panel j of head g at
// (g*nkp+16j)*hd, element d of its position r at +16d+r); values to at.vp
// as panels of 16 elements, position-major (head g's elements [16i,
// 16i+16) at (g*dp+16i)*nkp, position p's at +16p), dp = tileDims, the
// elements past hd zero.
func (at *attendTask) packRange(lo, hi int) {
	hd, dp, nkp := at.a.HeadDim, tileDims(at.a.HeadDim, at.tile), at.nkp
	jobs := (nkp + tilePackKeys - 1) / tilePackKeys
	_, last := at.keys(at.n - 1)
	w := at.g.attnWork.Get().(*attnScratch)
	defer at.g.attnWork.Put(w)
	w.tk = grow(w.tk, 16*hd)
	w.tv = grow(w.tv, dp)
	clear(w.tv[hd:])
	for i := lo; i < hi; i++ {
		g, j := i/jobs, i%jobs
		kp := at.kp[g*nkp*hd:][:nkp*hd]
		vp := at.vp[g*nkp*dp:][:nkp*dp]
		for p0 := j * tilePackKeys; p0 < min(nkp, (j+1)*tilePackKeys); p0 += 16 {
			for r := range 16 {
				p, k := p0+r, w.tk[r*hd:][:hd]
				if at.kf+p > last {
					clear(k)
					clear(w.tv[:hd])
				} else {
					at.c.headRow(k, false, at.kf+p, g)
					at.c.headRow(w.tv[:hd], true, at.kf+p, g)
				}
				for e := 0; e < dp; e += 16 {
					copy(vp[e*nkp+16*p:][:16], w.tv[e:e+16])
				}
			}
			transpose8(&kp[p0*hd], &w.tk[0], 4*hd, hd)
			transpose8(&kp[p0*hd+8], &w.tk[8*hd], 4*hd, hd)
		}
	}
}

// tileRange runs the tile jobs [lo, hi): job i is tile i/nkv (query rows
// [T·R, T·R+R), R = tileRows) over cache head i%nkv and the query heads
// of its group.
func (at *attendTask) tileRange(lo, hi int) {
	a, hd, nh, nkv := at.a, at.a.HeadDim, at.a.NHeads, at.a.NKVHeads
	kern := at.tile
	ng, dp, nkp := nh/nkv, tileDims(hd, kern), at.nkp
	rows, kr, kl := tileRows(ng), kern.rows, kern.lanes
	w := at.g.attnWork.Get().(*attnScratch)
	defer at.g.attnWork.Put(w)
	for i := lo; i < hi; i++ {
		g := i % nkv
		t0 := i / nkv * rows
		t1 := min(at.n, t0+rows)
		nq := (t1 - t0) * ng           // query heads
		nqp := (nq + kr - 1) / kr * kr // padded to the kernel's rows
		f0, _ := at.keys(t0)
		_, l1 := at.keys(t1 - 1)
		c0 := (f0 - at.kf) / 32 * 32 // the tile's packed positions [c0, c1)
		c1 := (l1 - at.kf + 32) / 32 * 32
		ns := c1 - c0
		w.tq = grow(w.tq, nqp*hd)
		w.ts = grow(w.ts, nqp*ns)
		w.to = grow(w.to, nqp*dp)
		w.tm, w.tl = grow(w.tm, nq), grow(w.tl, nq)
		w.tqb = grow(w.tqb, hd/qk*sizeQ8_0)
		clear(w.tq[nq*hd:])
		for t := t0; t < t1; t++ {
			for x := range ng {
				q := at.q[(t*nh+g*ng+x)*hd:][:hd]
				dst := w.tq[((t-t0)*ng+x)*hd:][:hd]
				if at.c.quantized() { // Q8_0 values, as the integer dots see them
					_ = ggml.Quantize(ggml.Q8_0, q, w.tqb)
					_ = dequantRow(ggml.Q8_0, w.tqb, dst)
				} else {
					copy(dst, q)
				}
			}
		}
		// the scores: the kernel's lanes of positions by its rows of query
		// heads a call
		kp := at.kp[g*nkp*hd:][:nkp*hd]
		for c := c0; c < c1; c += kl {
			for r := 0; r < nqp; r += kr {
				kern.mul(&kp[c*hd], hd, 4*16*hd, &w.tq[r*hd], 4*hd, &w.ts[r*ns+c-c0], 4*ns)
			}
		}
		// each row's softmax over the positions it sees, the rest zero;
		// where the tile's scores leave room, a row's last few positions
		// pad to the SIMD kernels' 8 with -Inf (weight e^-87 at most, which
		// the sum, at least 1, does not see; cleared after), so no row
		// ends in the scalar loop
		for t := t0; t < t1; t++ {
			f, l := at.keys(t)
			lo, hi := f-at.kf-c0, l-at.kf-c0+1
			hp := hi
			if a.SoftCap == 0 && a.Scale > 0 {
				if p := lo + (hi-lo+7)&^7; p <= ns {
					hp = p
				}
			}
			for x := range ng {
				row := (t-t0)*ng + x
				s := w.ts[row*ns:][:ns]
				clear(s[:lo])
				for j := hi; j < hp; j++ {
					s[j] = float32(math.Inf(-1))
				}
				w.tl[row], w.tm[row] = softmaxScores(s[lo:hp], a.Scale, a.SoftCap, haveSIMD)
				clear(s[hi:])
			}
		}
		clear(w.ts[nq*ns : nqp*ns])
		// the weighted values: lanes head elements by rows query heads a
		// call
		vp := at.vp[g*nkp*dp:][:nkp*dp]
		for e := 0; e < dp; e += kl {
			for r := 0; r < nqp; r += kr {
				kern.mul(&vp[e*nkp+16*c0], ns, 4*16*nkp, &w.ts[r*ns], 4*ns, &w.to[r*dp+e], 4*dp)
			}
		}
		for t := t0; t < t1; t++ {
			for x := range ng {
				row, h := (t-t0)*ng+x, g*ng+x
				o := at.out[(t*nh+h)*hd:][:hd]
				copy(o, w.to[row*dp:][:hd])
				at.normalize(o, w.tl[row], w.tm[row], h)
			}
		}
	}
}

// headRow writes cache head kvh's keys (its values, if v) at position p
// to dst, len(dst) of them, as float32.
func (c *KVCache) headRow(dst []float32, v bool, p, kvh int) {
	hd := len(dst)
	switch {
	case c.quantized():
		hb := hd / qk * c.typ.TypeSize()
		b := c.kq
		if v {
			b = c.vq
		}
		_ = dequantRow(c.typ, b[p*c.rowBytes+kvh*hb:][:hb], dst)
	case c.typ == ggml.F16:
		h := c.k16
		if v {
			h = c.v16
		}
		h = h[p*c.width+kvh*hd:][:hd]
		_ = dequantRow(ggml.F16, unsafe.Slice((*byte)(unsafe.Pointer(&h[0])), 2*hd), dst)
	default:
		f := c.k32
		if v {
			f = c.v32
		}
		copy(dst, f[p*c.width+kvh*hd:][:hd])
	}
}
