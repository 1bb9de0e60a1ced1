//go:build arm64 && !purego

package native

import "golang.org/x/sys/cpu"

// haveSIMD is true: NEON (Advanced SIMD) is part of every arm64 CPU, and
// the arm64 kernels (go_kernels_arm64.s, go_quant_arm64.s,
// go_attn_arm64.s) need nothing beyond ARMv8.0 but where haveDotProd
// says so.
const haveSIMD = true

// haveDotProd reports whether the CPU has the Armv8.2 dot product
// instructions (SDOT), which the 8-bit activation dots of
// go_kernels_arm64.s then use instead of their ARMv8.0 path. It is read
// by the assembly (a variable, so tests may turn it off).
var haveDotProd = cpu.ARM64.HasASIMDDP

// dotQ8_0Q8SIMD returns the dot product of nb Q8_0 blocks with nb q8a
// blocks.
//
//go:noescape
func dotQ8_0Q8SIMD(w, y *byte, nb int) float32

// dotQ4_0Q8SIMD is dotQ8_0Q8SIMD for Q4_0 blocks.
//
//go:noescape
func dotQ4_0Q8SIMD(w, y *byte, nb int) float32

// dotQ4KQ8KSIMD is dotQ8_0Q8SIMD for Q4_K super-blocks and q8K blocks.
//
//go:noescape
func dotQ4KQ8KSIMD(w, y *byte, nb int) float32

// dotQ6KQ8KSIMD is dotQ8_0Q8SIMD for Q6_K super-blocks and q8K blocks.
//
//go:noescape
func dotQ6KQ8KSIMD(w, y *byte, nb int) float32

// dotQ5KQ8KSIMD is dotQ8_0Q8SIMD for Q5_K super-blocks and q8K blocks.
//
//go:noescape
func dotQ5KQ8KSIMD(w, y *byte, nb int) float32

// dotQ5_0Q8SIMD is dotQ8_0Q8SIMD for Q5_0 blocks.
//
//go:noescape
func dotQ5_0Q8SIMD(w, y *byte, nb int) float32
