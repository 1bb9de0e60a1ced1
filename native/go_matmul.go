package native

import (
	"fmt"
	"unsafe"

	"github.com/litert-go/litert-go/models/ggml"
)

// tileTokens is the batch from which MatMul dequantizes each weight row
// once and multiplies it by the activations tileTokens tokens at a time;
// smaller batches multiply the stored blocks by each token directly.
const tileTokens = 4

// matmulTask is one MatMul call. Its iterations are weight rows, split
// into contiguous chunks over the pool; within a chunk each weight row is
// read once and used for every token.
type matmulTask struct {
	g       *Go
	w       Weight
	rs      int // bytes per weight row
	x, out  []float32
	nTokens int
	// xq holds the activations quantized to 8-bit blocks, xqRow bytes a
	// token, where the weight type has kernels for them (q8Layout) and
	// the batch is below tileTokens, or where gemm is set; else nil.
	xq    []byte
	xqRow int
	// gemm: the iterations are groups of gemmRows rows, multiplied by
	// the VNNI kernels (runGemm) with the flipped q8a activations xq
	gemm bool
	// xbf: BF16 weights as pair panels (runPanelsBF16): the activations
	// as BF16, cols a token, and padBF16 the batch's last tile of fewer
	// than panelTokens512 tokens padded with copies of its last token
	xbf, padBF16 []uint16
	// il: the weight is Interleaved16 and the iterations are its groups;
	// with gemm unset, xq holds each token's q8a blocks (runIL)
	il bool
	// bytes and floats are the pooled buffers behind xq or xbf and x,
	// given back by endMatMul
	bytes  *[]byte
	floats *[]float32
}

// takeBytes takes a buffer from the backend's pool of byte buffers for the
// task (at most one).
func (m *matmulTask) takeBytes() *[]byte {
	if m.bytes != nil {
		panic("native: matmulTask takes a second byte buffer")
	}
	m.bytes = m.g.quants.Get().(*[]byte)
	return m.bytes
}

// takeFloats takes a buffer from the backend's pool of float buffers for
// the task (at most one).
func (m *matmulTask) takeFloats() *[]float32 {
	if m.floats != nil {
		panic("native: matmulTask takes a second float buffer")
	}
	m.floats = m.g.acts.Get().(*[]float32)
	return m.floats
}

// maxProducts is the most products a MatMuls call runs in one pass.
const maxProducts = 8

// multiTask runs the iterations of several matmul tasks as one range:
// iteration i is iteration i-start[e] of ms[e], for the e with start[e] ≤
// i < start[e+1].
type multiTask struct {
	ms    [maxProducts]*matmulTask
	start [maxProducts + 1]int
	n     int
}

// add appends task m of iters iterations.
func (mt *multiTask) add(m *matmulTask, iters int) {
	mt.ms[mt.n] = m
	mt.start[mt.n+1] = mt.start[mt.n] + iters
	mt.n++
}

func (mt *multiTask) run(lo, hi int) {
	for e := 0; e < mt.n && lo < hi; e++ {
		a, b := max(lo, mt.start[e]), min(hi, mt.start[e+1])
		if a < b {
			mt.ms[e].run(a-mt.start[e], b-mt.start[e])
		}
	}
}

// panelPairs reports whether the batch runs as float panels on AVX-512
// (runPanels), whose iterations are then pairs of panels.
func (m *matmulTask) panelPairs() bool {
	return havePanels512 && !m.g.noPanels512 && m.nTokens >= panelMinTokens && !m.gemm && m.xbf == nil &&
		(m.il && m.w.Type == ggml.F16 || !m.il && havePanels)
}

func (m *matmulTask) run(lo, hi int) {
	if m.gemm {
		m.runGemm(lo, hi)
		return
	}
	if m.xbf != nil {
		m.runPanelsBF16(lo, hi)
		return
	}
	if m.panelPairs() {
		m.runPanels(lo*2*panelRows, min(hi*2*panelRows, m.w.Rows))
		return
	}
	if m.il {
		if m.w.Type == ggml.F16 && m.nTokens >= panelMinTokens {
			m.runPanels(lo*ilRows, hi*ilRows) // whole groups
			return
		}
		m.runIL(lo, hi)
		return
	}
	if panelsFor(m.w.Cols) && m.nTokens >= panelMinTokens {
		m.runPanels(lo, hi)
		return
	}
	if m.nTokens >= tileTokens {
		m.runBatch(lo, hi)
		return
	}
	cols, rows := m.w.Cols, m.w.Rows
	if m.xq != nil {
		nb := cols / m.w.Type.BlockSize()
		if m.nTokens == 1 { // decode: the row loop in the kernel
			dotRowsQ8(m.w.Type, m.w.Data[lo*m.rs:], m.rs, hi-lo, m.xq, nb, m.out[lo:hi])
			return
		}
		for r := lo; r < hi; r++ {
			row := m.w.Data[r*m.rs : (r+1)*m.rs]
			for t := range m.nTokens {
				m.out[t*rows+r] = dotRowQ8(m.w.Type, row, m.xq[t*m.xqRow:(t+1)*m.xqRow], nb)
			}
		}
		return
	}
	if m.nTokens == 1 && m.w.Type == ggml.BF16 && haveAVX512 && cols%8 == 0 {
		// decode: the row loop in the kernel (activations rounded to BF16)
		dotRowsBF16AVX512(&m.w.Data[lo*m.rs], m.rs, hi-lo, &m.x[0], cols, &m.out[lo])
		return
	}
	if m.nTokens == 1 && m.w.Type == ggml.F16 && haveSIMD && cols%8 == 0 {
		// decode: the row loop in the kernel
		if haveAVX512 {
			dotRowsF16AVX512(&m.w.Data[lo*m.rs], m.rs, hi-lo, &m.x[0], cols, &m.out[lo])
			return
		}
		dotRowsF16SIMD(&m.w.Data[lo*m.rs], m.rs, hi-lo, &m.x[0], cols, &m.out[lo])
		return
	}
	for r := lo; r < hi; r++ {
		row := m.w.Data[r*m.rs : (r+1)*m.rs]
		for t := range m.nTokens {
			m.out[t*rows+r] = dotRow(m.w.Type, row, m.x[t*cols:(t+1)*cols])
		}
	}
}

// batchBlockBytes bounds the dequantized weight rows a batch multiplies
// at once, so they stay in L2 while the tiles of tokens pass over them.
const batchBlockBytes = 128 << 10

// runBatch dequantizes the rows of [lo, hi) a block at a time (F32 rows
// are used in place) and multiplies each block by the tokens, tiles of 2
// rows × 4 tokens at a time (4 × 4 with AVX-512), so a tile's 4 activation rows stay in L1
// while the block streams past them.
func (m *matmulTask) runBatch(lo, hi int) {
	cols := m.w.Cols
	rb := max(2, min(hi-lo, batchBlockBytes/(4*cols)))
	inPlace := m.w.Type == ggml.F32 && littleEndian &&
		(haveSIMD || uintptr(unsafe.Pointer(&m.w.Data[0]))%4 == 0)
	var buf *[]float32
	if !inPlace {
		buf = m.g.rows.Get().(*[]float32)
		if cap(*buf) < rb*cols {
			*buf = make([]float32, rb*cols)
		}
		defer m.g.rows.Put(buf)
	}
	for r0 := lo; r0 < hi; r0 += rb {
		r1 := min(hi, r0+rb)
		var block []float32
		if inPlace {
			// the kernels need no alignment; the generic code was checked
			block = unsafe.Slice((*float32)(unsafe.Pointer(&m.w.Data[r0*m.rs])), (r1-r0)*cols)
		} else {
			block = (*buf)[:(r1-r0)*cols]
			m.dequantRows(block, r0, r1)
		}
		m.mulBlock(block, r0, r1)
	}
}

// dequantRows sets dst to the weight rows [r0, r1) as float32.
func (m *matmulTask) dequantRows(dst []float32, r0, r1 int) {
	cols := m.w.Cols
	for r := r0; r < r1; r++ {
		if err := dequantRow(m.w.Type, m.w.Data[r*m.rs:(r+1)*m.rs], dst[(r-r0)*cols:(r-r0+1)*cols]); err != nil {
			panic(fmt.Sprintf("native: MatMul: row %d: %v", r, err))
		}
	}
}

// mulBlock multiplies the float rows [r0, r1) held in block by every token.
func (m *matmulTask) mulBlock(block []float32, r0, r1 int) {
	cols, rows := m.w.Cols, m.w.Rows
	t := 0
	for ; t+tileTokens <= m.nTokens; t += tileTokens {
		xt := m.x[t*cols : (t+tileTokens)*cols]
		r := r0
		if haveAVX512 {
			// 4-row tiles, then each tail row as a tile of itself 4 times
			// (a tile computes every row alike, so splits keep the sums)
			var o [16]float32
			for ; r+4 <= r1; r += 4 {
				dotF32r4x4(block[(r-r0)*cols:(r-r0+4)*cols], cols, xt, cols, cols, &o)
				for k, v := range o {
					m.out[(t+k%4)*rows+r+k/4] = v
				}
			}
			for ; r < r1; r++ {
				dotF32r4x4(block[(r-r0)*cols:(r-r0+1)*cols], 0, xt, cols, cols, &o)
				for i := range tileTokens {
					m.out[(t+i)*rows+r] = o[i]
				}
			}
			continue
		}
		for ; r+2 <= r1; r += 2 {
			var o [8]float32
			dotF32r2x4(block[(r-r0)*cols:(r-r0+2)*cols], xt, cols, cols, &o)
			for i := range tileTokens {
				m.out[(t+i)*rows+r] = o[i]
				m.out[(t+i)*rows+r+1] = o[4+i]
			}
		}
		if r < r1 {
			var o [4]float32
			dotF32x4(block[(r-r0)*cols:(r-r0+1)*cols], xt, cols, &o)
			for i, v := range o {
				m.out[(t+i)*rows+r] = v
			}
		}
	}
	for ; t < m.nTokens; t++ {
		xt := m.x[t*cols : (t+1)*cols]
		for r := r0; r < r1; r++ {
			m.out[t*rows+r] = dotF32s(block[(r-r0)*cols:(r-r0+1)*cols], xt)
		}
	}
}

// runIL multiplies the interleaved groups [lo, hi) by each token: the
// quantized ones (fewer than tileTokens; batches take runGemm) by their q8a
// or q8K blocks, the F16 and BF16 ones (fewer than panelMinTokens) by the
// float activations.
func (m *matmulTask) runIL(lo, hi int) {
	k, _ := ilKernelOf(m.w.Type)
	gs, cols, rows := ilRows*m.rs, m.w.Cols, m.w.Rows
	if k.floatRows != nil {
		for t := range m.nTokens {
			k.floatRows(&m.w.Data[lo*gs], hi-lo, cols/2, &m.x[t*cols], &m.out[t*rows+lo*ilRows])
		}
		return
	}
	nb := cols / m.w.Type.BlockSize()
	for t := range m.nTokens {
		k.rows(&m.w.Data[lo*gs], hi-lo, nb, &m.xq[t*m.xqRow], &m.out[t*rows+lo*ilRows])
	}
}

// ilKernel is the Go backend's kernels for an interleaved type. For the
// quantized ones: rows, the decode product of whole groups by one token's
// activation blocks (q8a, or q8K for the K-quants), and pack, a group's
// block columns as gemmPacks for the batch kernels. For F16 and BF16:
// floatRows, the product of whole groups by one token's floats; batches
// run as panels, BF16 groups in place, F16 ones widened by panel (a
// group's float panel, for packPanel).
type ilKernel struct {
	rows      func(w *byte, ng, nb int, y *byte, out *float32)
	pack      func(dst, w *byte, nb int)
	floatRows func(w *byte, ng, n2 int, x *float32, out *float32)
	panel     func(dst *float32, w *byte, n2 int)
}

// ilKernelOf returns the kernels of interleaved type t, the one list of
// the types the Go backend interleaves; false for the others, and for the
// quantized types whose kernels this CPU cannot run (VNNI's, or on AVX2
// CPUs without it avx2ILKernel's; F16's on AVX-512 or AVX2). BF16 is the
// backend's to check (Interleaves: the AVX-512 pair panels).
func ilKernelOf(t ggml.DType) (ilKernel, bool) {
	if k, ok := avx2ILKernel(t); ok && !haveVNNI {
		return k, haveX86SIMD
	}
	switch t {
	case ggml.Q4_0:
		return ilKernel{rows: ilRowsQ4_0, pack: packILQ4_0}, haveVNNI
	case ggml.IQ4_NL:
		return ilKernel{rows: ilRowsIQ4NL, pack: packILIQ4NL}, haveVNNI
	case ggml.Q5_0:
		return ilKernel{rows: ilRowsQ5_0, pack: packILQ5_0}, haveVNNI
	case ggml.Q8_0:
		return ilKernel{rows: ilRowsQ8_0, pack: packILQ8_0}, haveVNNI
	case ggml.Q3_K:
		return ilKernel{rows: ilRowsQ3K, pack: packILQ3K}, haveVNNI
	case ggml.Q4_K:
		return ilKernel{rows: ilRowsQ4K, pack: packILQ4K}, haveVNNI
	case ggml.Q5_K:
		return ilKernel{rows: ilRowsQ5K, pack: packILQ5K}, haveVNNI
	case ggml.IQ4_XS:
		return ilKernel{rows: ilRowsIQ4XS, pack: packILIQ4XS}, haveVNNI
	case ggml.Q6_K:
		return ilKernel{rows: ilRowsQ6K, pack: packILQ6K}, haveVNNI
	case ggml.F16:
		if !haveAVX512 {
			return ilKernel{floatRows: ilRowsF16AVX2, panel: ilPanelF16AVX2}, haveX86SIMD
		}
		return ilKernel{floatRows: ilRowsF16, panel: ilPanelF16}, true
	case ggml.BF16:
		return ilKernel{floatRows: ilRowsBF16}, true
	}
	return ilKernel{}, false
}

// avx2ILKernel returns the AVX2 kernels of interleaved type t, whatever
// the CPU (the tests hold them to the VNNI ones where it has both): every
// quantized type but IQ4_NL, their packs written in place (the chunks of
// a column are already the packs' lanes).
func avx2ILKernel(t ggml.DType) (ilKernel, bool) {
	switch t {
	case ggml.Q4_0:
		return ilKernel{rows: ilRowsQ4_0AVX2, pack: packILQ4_0AVX2}, true
	case ggml.Q5_0:
		return ilKernel{rows: ilRowsQ5_0AVX2, pack: packILQ5_0AVX2}, true
	case ggml.Q8_0:
		return ilKernel{rows: ilRowsQ8_0AVX2, pack: packILQ8_0AVX2}, true
	case ggml.Q3_K:
		return ilKernel{rows: ilRowsQ3KAVX2, pack: packILQ3KAVX2}, true
	case ggml.Q4_K:
		return ilKernel{rows: ilRowsQ4KAVX2, pack: packILQ4KAVX2}, true
	case ggml.Q5_K:
		return ilKernel{rows: ilRowsQ5KAVX2, pack: packILQ5KAVX2}, true
	case ggml.Q6_K:
		return ilKernel{rows: ilRowsQ6KAVX2, pack: packILQ6KAVX2}, true
	case ggml.IQ4_XS:
		return ilKernel{rows: ilRowsIQ4XSAVX2, pack: packILIQ4XSAVX2}, true
	}
	return ilKernel{}, false
}
