package models

import "github.com/litert-go/litert-go/native"

// kvRotate rotates, for a quantized cache c, the queries q of heads of hd
// elements and the keys k and values v about to be stored in it (nil when
// the layer stores none: a shared cache), as llama.cpp's build_attn does
// with attn_rot_k / attn_rot_v (native.KVRotation). It returns the size of
// the values' rotation, which kvUnrotate undoes on the attention output;
// 0 when c is not quantized.
func kvRotate(c *native.KVCache, hd int, q, k, v []float32) (rotV int) {
	rotK, rotV := native.KVRotation(c.Type(), hd)
	if rotK > 0 {
		native.Hadamard(q, rotK)
		if k != nil {
			native.Hadamard(k, rotK)
		}
	}
	if rotV > 0 && v != nil {
		native.Hadamard(v, rotV)
	}
	return rotV
}

// kvUnrotate turns the attention output att over rotated values back
// (the rotation is its own inverse).
func kvUnrotate(att []float32, rotV int) {
	if rotV > 0 {
		native.Hadamard(att, rotV)
	}
}
