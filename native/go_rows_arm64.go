//go:build arm64 && !purego

package native

import "unsafe"

// The multi-row matrix-vector products of decode (amd64 runs the row loop
// in assembly): a loop over the NEON row kernels.

// dotRowsQ8_0Q8SIMD sets out[r] to dotQ8_0Q8SIMD(w + r*rs, y, nb) for r < nrows.
func dotRowsQ8_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) {
	o := unsafe.Slice(out, nrows)
	for r := range o {
		o[r] = dotQ8_0Q8SIMD((*byte)(unsafe.Add(unsafe.Pointer(w), r*rs)), y, nb)
	}
}

// dotRowsQ4_0Q8SIMD sets out[r] to dotQ4_0Q8SIMD(w + r*rs, y, nb) for r < nrows.
func dotRowsQ4_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) {
	o := unsafe.Slice(out, nrows)
	for r := range o {
		o[r] = dotQ4_0Q8SIMD((*byte)(unsafe.Add(unsafe.Pointer(w), r*rs)), y, nb)
	}
}

// dotRowsQ5_0Q8SIMD sets out[r] to dotQ5_0Q8SIMD(w + r*rs, y, nb) for r < nrows.
func dotRowsQ5_0Q8SIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) {
	o := unsafe.Slice(out, nrows)
	for r := range o {
		o[r] = dotQ5_0Q8SIMD((*byte)(unsafe.Add(unsafe.Pointer(w), r*rs)), y, nb)
	}
}

// dotRowsQ4KQ8KSIMD sets out[r] to dotQ4KQ8KSIMD(w + r*rs, y, nb) for r < nrows.
func dotRowsQ4KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) {
	o := unsafe.Slice(out, nrows)
	for r := range o {
		o[r] = dotQ4KQ8KSIMD((*byte)(unsafe.Add(unsafe.Pointer(w), r*rs)), y, nb)
	}
}

// dotRowsQ5KQ8KSIMD sets out[r] to dotQ5KQ8KSIMD(w + r*rs, y, nb) for r < nrows.
func dotRowsQ5KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) {
	o := unsafe.Slice(out, nrows)
	for r := range o {
		o[r] = dotQ5KQ8KSIMD((*byte)(unsafe.Add(unsafe.Pointer(w), r*rs)), y, nb)
	}
}

// dotRowsQ6KQ8KSIMD sets out[r] to dotQ6KQ8KSIMD(w + r*rs, y, nb) for r < nrows.
func dotRowsQ6KQ8KSIMD(w *byte, rs, nrows int, y *byte, nb int, out *float32) {
	o := unsafe.Slice(out, nrows)
	for r := range o {
		o[r] = dotQ6KQ8KSIMD((*byte)(unsafe.Add(unsafe.Pointer(w), r*rs)), y, nb)
	}
}
