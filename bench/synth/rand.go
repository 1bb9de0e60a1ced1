package synth

import (
	"hash/fnv"
	"math/rand/v2"
)

// newStream returns the PRNG of one chunk of one tensor: a PCG stream keyed
// by the seed, the tensor's name and the chunk index.
func newStream(seed uint64, name string, chunk int) *rand.PCG {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.NewPCG(seed^h.Sum64(), uint64(chunk)*0x9e3779b97f4a7c15+1)
}

// irwinHallScale turns the sum of four uniform 16-bit values into a variable
// of unit variance: each has variance 65536²/12.
const irwinHallScale = 1.7320508075688772 / 65536 // √3 / 65536

// normals fills out with mean + std·z, z approximately standard normal: the
// centred sum of four uniform 16-bit draws (Irwin–Hall), one 64-bit PCG
// output per value, which is several times faster than exact sampling.
func normals(src *rand.PCG, out []float32, mean, std float32) {
	scale := std * irwinHallScale
	for i := range out {
		r := src.Uint64()
		s := int64(r&0xffff) + int64(r>>16&0xffff) + int64(r>>32&0xffff) + int64(r>>48) - 2*65535
		out[i] = mean + float32(s)*scale
	}
}
