package native

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// Float batches as packed panels, on AVX2 (havePanels), the design of the
// C library's panel kernels (csrc/quants_x86.inc): the weight rows of a
// block, dequantized to float32 as runBatch does, are transposed into
// panels of panelRows rows stored column by column, and panelMul6SIMD
// multiplies a panel by panelTokens tokens with 12 accumulators that each
// hold 8 rows of one token: no horizontal sums, each FMA fed by a column
// load and a broadcast activation. With AVX-512 (havePanels512) pairs of
// panels go by panelTokens512 tokens through panelMul12AVX512, 24
// accumulators of 16 rows; the rest (a block's last odd panel, a batch's
// last tokens) through panelMul6SIMD. On arm64 the tiles' NEON kernel
// (panelMul4NEON, 16 rows by 4 tokens) multiplies the same panels.

const (
	panelRows      = 16
	panelTokens    = 6
	panelTokens512 = 12
	// panelMinTokens is the batch from which MatMul uses panels; smaller
	// ones take the 2×4 tiles (a 6-token tile would idle).
	panelMinTokens = 2 * tileTokens
)

// panelsFor reports whether float batches of cols columns run as panels
// here: on AVX2 (havePanels), or on NEON by 4 tokens (cols a multiple of
// 4).
func panelsFor(cols int) bool { return havePanels || haveNEONTiles && cols%4 == 0 }

// runPanels multiplies the rows [lo, hi) by every token a block of whole
// panels at a time (at least one panel — a pair with AVX-512 — else about
// batchBlockBytes of float rows, so the block stays in L2 while the
// tokens pass over it).
func (m *matmulTask) runPanels(lo, hi int) {
	cols, rows := m.w.Cols, m.w.Rows
	wide := havePanels512 && !m.g.noPanels512
	step := panelRows
	if wide {
		step = 2 * panelRows
	}
	rb := max(step, batchBlockBytes/(4*cols)/step*step)
	deq := m.g.rows.Get().(*[]float32)
	defer m.g.rows.Put(deq)
	*deq = grow(*deq, panelRows*cols)
	pan := m.g.rows.Get().(*[]float32)
	defer m.g.rows.Put(pan)
	*pan = grow(*pan, rb*cols)
	var o [panelRows * panelTokens]float32
	var o512 [2 * panelRows * panelTokens512]float32
	for r0 := lo; r0 < hi; r0 += rb {
		r1 := min(hi, r0+rb)
		for p0 := r0; p0 < r1; p0 += panelRows {
			m.packPanel((*pan)[(p0-r0)*cols:(p0-r0+panelRows)*cols], *deq, p0, min(r1, p0+panelRows))
		}
		t0 := 0
		// AVX-512: pairs of panels by full 12-token tiles
		for ; wide && t0+panelTokens512 <= m.nTokens; t0 += panelTokens512 {
			p0 := r0
			for ; p0+panelRows < r1; p0 += 2 * panelRows {
				nr := min(2*panelRows, r1-p0)
				p := &(*pan)[(p0-r0)*cols]
				if nr == 2*panelRows { // into the output rows
					_ = m.out[(t0+panelTokens512-1)*rows+p0+nr-1]
					panelMul12AVX512(p, cols, 4*panelRows*cols, &m.x[t0*cols], 4*cols, &m.out[t0*rows+p0], 4*rows)
					continue
				}
				panelMul12AVX512(p, cols, 4*panelRows*cols, &m.x[t0*cols], 4*cols, &o512[0], 4*2*panelRows)
				for t := range panelTokens512 {
					copy(m.out[(t0+t)*rows+p0:(t0+t)*rows+p0+nr], o512[t*2*panelRows:t*2*panelRows+nr])
				}
			}
			if p0 < r1 { // the block's last, odd panel
				for t := t0; t < t0+panelTokens512; t += panelTokens {
					m.mulPanel6(&o, (*pan)[(p0-r0)*cols:], t, panelTokens, p0, r1)
				}
			}
		}
		if !havePanels { // NEON
			for ; t0 < m.nTokens; t0 += 4 {
				for p0 := r0; p0 < r1; p0 += panelRows {
					m.mulPanel4(&o, (*pan)[(p0-r0)*cols:], t0, p0, r1)
				}
			}
			continue
		}
		for ; t0 < m.nTokens; t0 += panelTokens {
			nt := min(panelTokens, m.nTokens-t0)
			for p0 := r0; p0 < r1; p0 += panelRows {
				m.mulPanel6(&o, (*pan)[(p0-r0)*cols:], t0, nt, p0, r1)
			}
		}
	}
}

// mulPanel4 is mulPanel6 on NEON (panelMul4NEON): the panel by the tokens
// [t0, t0+4) (a batch's last tile, of fewer, redoes some of the one before:
// batches of panels have at least panelMinTokens).
func (m *matmulTask) mulPanel4(o *[panelRows * panelTokens]float32, p []float32, t0, p0, r1 int) {
	cols, rows := m.w.Cols, m.w.Rows
	t := min(t0, m.nTokens-4)
	nr := min(panelRows, r1-p0)
	panelMul4NEON(&p[0], cols, 0, &m.x[t*cols], 4*cols, &o[0], 4*panelRows)
	for k := t0; k < min(t+4, m.nTokens); k++ {
		copy(m.out[k*rows+p0:k*rows+p0+nr], o[(k-t)*panelRows:(k-t)*panelRows+nr])
	}
}

// mulPanel6 multiplies the panel at p, weight rows [p0, min(r1,
// p0+panelRows)), by the nt (at most panelTokens) tokens from t0, by way
// of o.
func (m *matmulTask) mulPanel6(o *[panelRows * panelTokens]float32, p []float32, t0, nt, p0, r1 int) {
	cols, rows := m.w.Cols, m.w.Rows
	var y [panelTokens]*float32
	for t := range y {
		y[t] = &m.x[(t0+min(t, nt-1))*cols]
	}
	nr := min(panelRows, r1-p0)
	panelMul6SIMD(&p[0], cols, &y, &o[0], 4*panelRows)
	for t := range nt {
		copy(m.out[(t0+t)*rows+p0:(t0+t)*rows+p0+nr], o[t*panelRows:t*panelRows+nr])
	}
}

// packPanel writes the weight rows [r0, r1) (at most panelRows) into the
// panel p, column by column (p[k*panelRows+r]), rows past r1 zero, by way
// of deq, room for panelRows dequantized rows.
func (m *matmulTask) packPanel(p, deq []float32, r0, r1 int) {
	cols := m.w.Cols
	if m.il { // an interleaved F16 group, rows [r0, r0+16)
		_ = p[panelRows*cols-1]
		k, _ := ilKernelOf(m.w.Type)
		k.panel(&p[0], &m.w.Data[r0*m.rs], cols/2)
		return
	}
	m.dequantRows(deq, r0, r1)
	for i := (r1 - r0) * cols; i < panelRows*cols; i++ {
		deq[i] = 0 // the missing rows of a last panel
	}
	n8 := cols &^ 7
	if n8 > 0 {
		transpose8(&p[0], &deq[0], 4*cols, n8)
		transpose8(&p[8], &deq[8*cols], 4*cols, n8)
	}
	for r := range panelRows {
		for k := n8; k < cols; k++ {
			p[k*panelRows+r] = deq[r*cols+k]
		}
	}
}

// runPanelsBF16 multiplies the BF16 rows of the panel pairs [lo, hi) (32
// rows each) by every token as pair panels (pairsBF16; the C
// library's panels_mul_bf16): a block of rows, the matrix's last pair
// padded with zero rows, is packed once (pairs of interleaved groups are
// multiplied in place), and each 12-token tile of BF16 activations (the
// last one padded) passes over it through panelMul12BF16.
func (m *matmulTask) runPanelsBF16(lo, hi int) {
	cols, rows := m.w.Cols, m.w.Rows
	n2, step := cols/2, 2*panelRows
	lo, hi = lo*step, min(hi*step, rows)
	rb := max(step, batchBlockBytes/(2*cols)/step*step)
	pan := m.g.rows.Get().(*[]float32)
	defer m.g.rows.Put(pan)
	*pan = grow(*pan, (rb+step)*n2)
	var o [2 * panelRows * panelTokens512]float32
	for r0 := lo; r0 < hi; r0 += rb {
		r1 := min(hi, r0+rb)
		for p0 := r0; p0 < r1; p0 += step {
			if !m.il || p0+step > r1 { // (two interleaved groups are a pair panel in place)
				m.packPanelBF16((*pan)[(p0-r0)*n2:], p0, min(r1, p0+panelRows))
				m.packPanelBF16((*pan)[(p0-r0+panelRows)*n2:], p0+panelRows, min(r1, p0+step))
			}
		}
		for t0 := 0; t0 < m.nTokens; t0 += panelTokens512 {
			nt := min(panelTokens512, m.nTokens-t0)
			y := &m.xbf[t0*cols]
			if nt < panelTokens512 {
				y = &m.padBF16[0]
			}
			for p0 := r0; p0 < r1; p0 += step {
				p := &(*pan)[(p0-r0)*n2]
				if m.il && p0+step <= r1 {
					p = (*float32)(unsafe.Pointer(&m.w.Data[p0*m.rs]))
				}
				panelMul12BF16(p, n2, y, 2*cols, &o)
				nr := min(step, r1-p0)
				for t := range nt {
					copy(m.out[(t0+t)*rows+p0:(t0+t)*rows+p0+nr], o[t*step:t*step+nr])
				}
			}
		}
	}
}

// packPanelBF16 writes the BF16 weight rows [r0, r1) (at most panelRows;
// none when r1 <= r0) into the pair panel p: the 32-bit word k of row r
// (elements 2k, 2k+1) at p[k*panelRows+r], rows past r1 zero. An
// interleaved group already is that panel (runPanelsBF16 multiplies pairs
// of them in place; only a weight's last, unpaired group comes here).
func (m *matmulTask) packPanelBF16(p []float32, r0, r1 int) {
	n2, rs := m.w.Cols/2, m.rs
	p = p[:panelRows*n2]
	if m.il { // an interleaved group is the pair panel of its 16 rows
		pb := unsafe.Slice((*byte)(unsafe.Pointer(&p[0])), 4*len(p))
		if r0 >= r1 {
			clear(pb)
		} else {
			copy(pb, m.w.Data[r0*rs:(r0+panelRows)*rs])
		}
		return
	}
	n8 := n2 &^ 7
	for h := 0; h < panelRows; h += 8 {
		if r0+h+8 <= r1 && n8 > 0 {
			transpose8SIMD(&p[h], (*float32)(unsafe.Pointer(&m.w.Data[(r0+h)*rs])), rs, n8)
		} else {
			for r := h; r < h+8; r++ {
				for k := range n8 {
					p[k*panelRows+r] = bf16Pair(m.w.Data, r0+r, r1, rs, k)
				}
			}
		}
		for r := h; r < h+8; r++ {
			for k := n8; k < n2; k++ {
				p[k*panelRows+r] = bf16Pair(m.w.Data, r0+r, r1, rs, k)
			}
		}
	}
}

// bf16Pair returns word k of row r (rows rs bytes apart) as the bits of a
// float32, or 0 for a row at or past r1.
func bf16Pair(data []byte, r, r1, rs, k int) float32 {
	if r >= r1 {
		return 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(data[r*rs+4*k:]))
}
