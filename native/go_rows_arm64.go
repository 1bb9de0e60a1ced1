//go:build arm64 && !purego

package native

import "unsafe"

// The multi-row matrix-vector products of decode (amd64 runs the row loop
// in assembly): a loop over the NEON row kernels.

// dotRows sets out[r] to dot(w + r*rs, y, nb) for r < nrows.
func dotRows(dot func(w, y *byte, nb int) float32, w *byte, rs, nrows int, y *byte, nb int, out *float32) {
	o := unsafe.Slice(out, nrows)
	for r := range o {
		o[r] = dot((*byte)(unsafe.Add(unsafe.Pointer(w), r*rs)), y, nb)
	}
}

func dotRowsQ8_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) {
	dotRows(dotQ8_0Q8SIMD, w, rs, nrows, y, nb, out)
}

func dotRowsQ4_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) {
	dotRows(dotQ4_0Q8SIMD, w, rs, nrows, y, nb, out)
}

func dotRowsQ5_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) {
	dotRows(dotQ5_0Q8SIMD, w, rs, nrows, y, nb, out)
}

func dotRowsQ4KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) {
	dotRows(dotQ4KQ8KSIMD, w, rs, nrows, y, nb, out)
}

func dotRowsQ5KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) {
	dotRows(dotQ5KQ8KSIMD, w, rs, nrows, y, nb, out)
}

func dotRowsQ6KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) {
	dotRows(dotQ6KQ8KSIMD, w, rs, nrows, y, nb, out)
}

// dotRowsF16SIMD sets out[r] to the dot product of the n binary16
// elements of weight row r (at w + r*rs bytes) with the n floats at x,
// for r < nrows; n is a multiple of 8.
func dotRowsF16SIMD(w *byte, rs, nrows int, x *float32, n int, out *float32) {
	o := unsafe.Slice(out, nrows)
	for r := range o {
		o[r] = dotF16SIMD((*byte)(unsafe.Add(unsafe.Pointer(w), r*rs)), x, n)
	}
}

// dotsQ8_0SIMD sets s[j] to the dot product of key row j (nb Q8_0 blocks at
// k + j*kstride bytes) with the query's nb q8a blocks at y, for j < nrows
// (amd64 reduces four rows together).
func dotsQ8_0SIMD(s *float32, y *byte, k *byte, kstride, nrows, nb int) {
	dotRowsQ8_0Q8SIMD(k, kstride, nrows, y, nb, s)
}

// dotsQ4_0SIMD is dotsQ8_0SIMD for a Q4_0 cache.
func dotsQ4_0SIMD(s *float32, y *byte, k *byte, kstride, nrows, nb int) {
	dotRowsQ4_0Q8SIMD(k, kstride, nrows, y, nb, s)
}
