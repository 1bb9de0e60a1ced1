package native

import (
	"encoding/binary"
	"fmt"

	"github.com/litert-go/litert-go/models/ggml"
)

// Interleaved weights. Decode streams every weight once per token, and a
// row-major Q4_0, Q5_0 or Q8_0 row is 18-, 22- or 34-byte blocks whose
// scale, quants and horizontal sum each cost instructions per row: on one
// core the product becomes compute-bound below the memory's pace.
// Interleave16 rewrites a weight once, at load, so that a group of 16 rows
// shares each block column: the 16 rows' F16 scales (32 bytes), then
// 64-byte chunks whose 4-byte lane r holds four bytes of row r. For Q4_0,
// chunk c (0..3) is row r's qs[4c:4c+4] (low nibbles elements 4c.., high
// ones 16+4c..); Q5_0 has a chunk of the rows' qh (their 32 fifth bits)
// before Q4_0's; for Q8_0, chunk c (0..7) is qs[4c:4c+4] XOR 0x80,
// unsigned. One VPDPBUSD against a broadcast activation word then advances
// 16 rows, and the group takes exactly the bytes its rows took (288, 352
// and 544 per block column): the layout of ggml's repacked Q4_0x8
// buffers, built for AVX-512 VNNI (csrc/quants_x86.inc, "interleaved
// weights", is the C twin; its AVX2 set runs them too, two registers a
// chunk, and reads this layout back for its batch panels: il_layout).
//
// F16 and BF16 weights interleave in element pairs: a block column is one
// 64-byte chunk whose lane r holds elements 2k and 2k+1 of row r. The
// group is then one sequential stream (row-major decode reads 16 rows
// side by side, which the prefetchers follow less well: 37 against 45
// GB/s from memory on one Zen 5 core), its products need no horizontal
// sums, and for BF16 it is already the pair panel the batch kernels
// multiply (panel_mul_bf16, panelMul12BF16), which batches use in place.

// ilRows is the rows of one interleaved group.
const ilRows = 16

// Interleaver is implemented by backends whose kernels multiply weights
// laid out Interleaved16: Interleaves reports whether MatMul runs weights
// of type t faster that way. Every backend accepts interleaved weights of
// any type Interleave16 makes (the others convert them back per call).
type Interleaver interface {
	Interleaves(t ggml.DType) bool
}

// ilField is a run of a block's bytes that an interleaved block column
// holds as chunks: chunk c takes bytes [src+4c, src+4c+4) of each row,
// XORed with 0x80 where flip is set.
type ilField struct {
	src, chunks int
	flip        bool
}

// ilLayout is how a type's blocks lie in an interleaved block column: its
// 2-byte fields (d, then dmin for Q4_K and Q5_K or scales_h for IQ4_XS;
// block offsets in halves) first as 16 rows' F16 each (32 bytes a field),
// then the chunked fields. Arrays, not slices: Embed reads a layout per
// block and must not allocate.
type ilLayout struct {
	nhalves, nfields int
	halves           [2]int
	fields           [3]ilField
}

// ilLayoutOf returns type t's interleaved layout; false if t cannot be
// interleaved.
func ilLayoutOf(t ggml.DType) (ilLayout, bool) {
	switch t {
	case ggml.Q4_0, ggml.IQ4_NL: // IQ4_NL: Q4_0's bytes, the nibbles index levels
		return ilLayout{1, 1, [2]int{0}, [3]ilField{{src: 2, chunks: 4}}}, true
	case ggml.Q5_0: // qh, then qs
		return ilLayout{1, 2, [2]int{0}, [3]ilField{{src: 2, chunks: 1}, {src: 6, chunks: 4}}}, true
	case ggml.Q8_0:
		return ilLayout{1, 1, [2]int{0}, [3]ilField{{src: 2, chunks: 8, flip: true}}}, true
	case ggml.Q4_K: // d, dmin; 12 bytes of scales, 128 of quants
		return ilLayout{2, 2, [2]int{0, 2}, [3]ilField{{src: 4, chunks: 3}, {src: 16, chunks: 32}}}, true
	case ggml.Q5_K: // d, dmin; 12 bytes of scales, 32 of qh, 128 of quants
		return ilLayout{2, 3, [2]int{0, 2}, [3]ilField{{src: 4, chunks: 3}, {src: 16, chunks: 8}, {src: 48, chunks: 32}}}, true
	case ggml.Q3_K: // d (last); 12 bytes of scales, 32 of hmask, 64 of qs
		return ilLayout{1, 3, [2]int{108}, [3]ilField{{src: 96, chunks: 3}, {src: 0, chunks: 8}, {src: 32, chunks: 16}}}, true
	case ggml.IQ4_XS: // d, scales_h; 4 bytes of scales_l, 128 of quants
		return ilLayout{2, 2, [2]int{0, 2}, [3]ilField{{src: 4, chunks: 1}, {src: 8, chunks: 32}}}, true
	case ggml.Q6_K: // d (last); 16 scales, 128 bytes of ql, 64 of qh
		return ilLayout{1, 3, [2]int{208}, [3]ilField{{src: 192, chunks: 4}, {src: 0, chunks: 32}, {src: 128, chunks: 16}}}, true
	case ggml.F16, ggml.BF16: // an element pair
		return ilLayout{0, 1, [2]int{}, [3]ilField{{src: 0, chunks: 1}}}, true
	}
	return ilLayout{}, false
}

// ilUnit returns the elements and bytes of the unit a block column of
// type t holds per row: the type's block, or an element pair for F16 and
// BF16.
func ilUnit(t ggml.DType) (elems, size int) {
	if t == ggml.F16 || t == ggml.BF16 {
		return 2, 4
	}
	return t.BlockSize(), t.TypeSize()
}

// ilCopyLanes copies the blocks of lanes [lo, hi) of the interleaved
// block column col to or from rows, lane r's block at rows[(r-lo)*stride:],
// a field's chunk at a time, 2 and 4 bytes a lane (a load of a large
// model rewrites every weight byte this way).
func ilCopyLanes(l *ilLayout, col, rows []byte, stride, lo, hi int, toCol bool) {
	le := binary.LittleEndian
	for h, src := range l.halves[:l.nhalves] {
		c := (*[32]byte)(col[32*h:])
		for r := lo; r < hi; r++ {
			b := rows[(r-lo)*stride+src:][:2]
			if toCol {
				le.PutUint16(c[2*r:], le.Uint16(b))
			} else {
				le.PutUint16(b, le.Uint16(c[2*r:]))
			}
		}
	}
	chunk := 32 * l.nhalves
	for _, f := range l.fields[:l.nfields] {
		var flip uint32
		if f.flip {
			flip = 0x80808080
		}
		for c := range f.chunks {
			cw, off := (*[64]byte)(col[chunk+64*c:]), f.src+4*c
			if toCol {
				for r := lo; r < hi; r++ {
					le.PutUint32(cw[4*r:], le.Uint32(rows[(r-lo)*stride+off:][:4])^flip)
				}
			} else {
				for r := lo; r < hi; r++ {
					le.PutUint32(rows[(r-lo)*stride+off:][:4], le.Uint32(cw[4*r:])^flip)
				}
			}
		}
		chunk += 64 * f.chunks
	}
}

// CanInterleave reports whether Interleave16 takes w: a row-major matrix
// of a type ilLayoutOf lays out, in whole groups of 16 rows and whole
// units of columns (blocks, or element pairs for F16 and BF16).
func CanInterleave(w Weight) bool { return interleaveProblem(w) == "" }

// interleaveProblem says why Interleave16 does not take w; "" if it does.
func interleaveProblem(w Weight) string {
	_, ok := ilLayoutOf(w.Type)
	ue, _ := ilUnit(w.Type)
	switch {
	case w.Layout != RowMajor:
		return "it is not row-major (interleaved already?)"
	case !ok:
		return "the type has no interleaved layout (it stays row-major, which every backend multiplies)"
	case w.Rows <= 0 || w.Rows%ilRows != 0:
		return fmt.Sprintf("%d rows are not whole groups of %d", w.Rows, ilRows)
	case w.Cols <= 0 || w.Cols%ue != 0:
		return fmt.Sprintf("%d columns are not whole units of %d elements", w.Cols, ue)
	}
	if err := w.Check(); err != nil {
		return err.Error()
	}
	return ""
}

// Interleave16 lays w out as Interleaved16 in place, rewriting w.Data
// (which must be writable and not shared with a reader of the row-major
// form), and returns w with its new Layout.
func Interleave16(w Weight) (Weight, error) {
	if why := interleaveProblem(w); why != "" {
		return w, fmt.Errorf("native: cannot interleave a %d×%d %s weight: %s", w.Rows, w.Cols, w.Type, why)
	}
	rs := w.RowBytes()
	ue, bs := ilUnit(w.Type)
	l, _ := ilLayoutOf(w.Type)
	group := make([]byte, ilRows*rs)
	le := binary.LittleEndian
	for g := 0; g < w.Rows/ilRows; g++ {
		dst := w.Data[g*ilRows*rs : (g+1)*ilRows*rs]
		copy(group, dst)
		if bs == 4 {
			// element pairs: ilCopyLanes's layout as a transpose of 32-bit
			// words (2.5 GB/s; 5× the per-lane copy it was measured against)
			for r := range ilRows {
				row := group[r*rs : (r+1)*rs]
				for i := range rs / 4 {
					le.PutUint32(dst[64*i+4*r:], le.Uint32(row[4*i:]))
				}
			}
			continue
		}
		for i := 0; i < w.Cols/ue; i++ {
			ilCopyLanes(&l, dst[i*ilRows*bs:(i+1)*ilRows*bs], group[i*bs:], rs, 0, ilRows, true)
		}
	}
	w.Layout = Interleaved16
	return w, nil
}

// ilBlock sets blk (the type's block size) to the row-major block of
// column i of row r of the interleaved weight w.
func ilBlock(w Weight, r, i int, blk []byte) {
	rs := w.RowBytes()
	_, bs := ilUnit(w.Type)
	g, lane := r/ilRows, r%ilRows
	col := w.Data[g*ilRows*rs+i*ilRows*bs : g*ilRows*rs+(i+1)*ilRows*bs]
	l, _ := ilLayoutOf(w.Type)
	ilCopyLanes(&l, col, blk, bs, lane, lane+1, false)
}

// ilDequantRow sets dst (w.Cols floats) to row r of the interleaved
// weight w, a block at a time (no allocation: Embed of a tied output).
func ilDequantRow(w Weight, r int, dst []float32) error {
	var blk [210]byte // the largest interleaved block, Q6_K's
	be, bs := ilUnit(w.Type)
	for i := 0; i < w.Cols/be; i++ {
		ilBlock(w, r, i, blk[:bs])
		if err := ggml.DequantizeRow(w.Type, blk[:bs], dst[i*be:(i+1)*be]); err != nil {
			return err
		}
	}
	return nil
}

// RowMajorCopy returns w laid out RowMajor: w itself if it is, else a
// converted copy (a backend without kernels for an interleaved layout
// multiplies that; tests compare the layouts with it).
func RowMajorCopy(w Weight) Weight {
	if w.Layout == RowMajor {
		return w
	}
	rs := w.RowBytes()
	out := Weight{Type: w.Type, Rows: w.Rows, Cols: w.Cols, Data: make([]byte, len(w.Data))}
	for g := 0; g < w.Rows/ilRows; g++ {
		ilUngroup(w.Type, out.Data[g*ilRows*rs:(g+1)*ilRows*rs], w.Data[g*ilRows*rs:(g+1)*ilRows*rs], rs)
	}
	return out
}

// ilUngroup sets dst to the ilRows rows (rs bytes each) of the interleaved
// group src of type t, as stored row-major.
func ilUngroup(t ggml.DType, dst, src []byte, rs int) {
	_, bs := ilUnit(t)
	l, _ := ilLayoutOf(t)
	for i := 0; i < rs/bs; i++ {
		ilCopyLanes(&l, src[i*ilRows*bs:(i+1)*ilRows*bs], dst[i*bs:], rs, 0, ilRows, false)
	}
}
