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
}

func (m *matmulTask) run(lo, hi int) {
	if m.nTokens >= tileTokens {
		m.runBatch(lo, hi)
		return
	}
	cols, rows := m.w.Cols, m.w.Rows
	for r := lo; r < hi; r++ {
		row := m.w.Data[r*m.rs : (r+1)*m.rs]
		for t := range m.nTokens {
			m.out[t*rows+r] = dotRow(m.w.Type, row, m.x[t*cols:(t+1)*cols])
		}
	}
}

// runBatch dequantizes each row of [lo, hi) into a scratch row (F32 rows
// are used in place) and multiplies it by the tokens, four at a time.
func (m *matmulTask) runBatch(lo, hi int) {
	cols, rows := m.w.Cols, m.w.Rows
	var buf *[]float32
	if m.w.Type != ggml.F32 || !haveSIMD {
		buf = m.g.rows.Get().(*[]float32)
		if cap(*buf) < cols {
			*buf = make([]float32, cols)
		}
		defer m.g.rows.Put(buf)
	}
	for r := lo; r < hi; r++ {
		data := m.w.Data[r*m.rs : (r+1)*m.rs]
		var row []float32
		switch {
		case buf == nil: // F32 with SIMD kernels, which need no alignment
			row = unsafe.Slice((*float32)(unsafe.Pointer(&data[0])), cols)
		case m.w.Type == ggml.F32 && uintptr(unsafe.Pointer(&data[0]))%4 == 0 && littleEndian:
			row = unsafe.Slice((*float32)(unsafe.Pointer(&data[0])), cols)
		default:
			row = (*buf)[:cols]
			if err := dequantRow(m.w.Type, data, row); err != nil {
				panic(fmt.Sprintf("native: MatMul: row %d: %v", r, err))
			}
		}
		t := 0
		for ; t+tileTokens <= m.nTokens; t += tileTokens {
			var o [4]float32
			dotF32x4(row, m.x[t*cols:(t+tileTokens)*cols], cols, &o)
			for i, v := range o {
				m.out[(t+i)*rows+r] = v
			}
		}
		for ; t < m.nTokens; t++ {
			m.out[t*rows+r] = dotF32s(row, m.x[t*cols:(t+1)*cols])
		}
	}
}
