package native

import (
	"encoding/binary"
	"math"
	"unsafe"
)

// f32s views little-endian float32 data as a []float32 without copying.
// On a big-endian machine, or for data not aligned to 4 bytes, it decodes
// a copy instead.
func f32s(b []byte) []float32 {
	n := len(b) / 4
	if n == 0 {
		return nil
	}
	if littleEndian && uintptr(unsafe.Pointer(&b[0]))%4 == 0 {
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
	}
	f := make([]float32, n)
	for i := range f {
		f[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return f
}

// littleEndian reports the byte order of the machine.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()
