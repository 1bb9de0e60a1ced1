package encoder

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// loader reads the tensors of one tower, checking each one's shape and type
// and naming the tensor in every error. The first error sticks: later calls
// return zero values, and err reports it.
type loader struct {
	f   *gguf.File
	b   native.Backend
	hp  hparams
	err error
}

func newLoader(f *gguf.File, b native.Backend, hp hparams) *loader {
	return &loader{f: f, b: b, hp: hp}
}

func (l *loader) fail(format string, args ...any) {
	if l.err == nil {
		l.err = fmt.Errorf("encoder: %s projector: "+format, append([]any{l.hp.proj}, args...)...)
	}
}

// tensor returns the description and data of the named tensor, checking
// that its ggml dims are exactly dims. A missing optional tensor gives ok
// false and no error.
func (l *loader) tensor(name string, required bool, dims ...int) (gguf.TensorInfo, []byte, bool) {
	if l.err != nil {
		return gguf.TensorInfo{}, nil, false
	}
	t, ok := l.f.Tensor(name)
	if !ok {
		if required {
			l.fail("missing tensor %q", name)
		}
		return t, nil, false
	}
	if !sameDims(t.Dims, dims) {
		l.fail("tensor %q has shape %v, want %v", name, t.Dims, dims)
		return t, nil, false
	}
	data := l.f.TensorData(t)
	if uint64(len(data)) != t.Bytes() || t.Bytes() == 0 {
		l.fail("tensor %q: %d bytes of data for %s %v", name, len(data), t.Type, t.Dims)
		return t, nil, false
	}
	return t, data, true
}

// sameDims reports whether a tensor's dims are want, ignoring trailing 1s.
func sameDims(have []uint64, want []int) bool {
	for len(have) > 0 && have[len(have)-1] == 1 {
		have = have[:len(have)-1]
	}
	for len(want) > 0 && want[len(want)-1] == 1 {
		want = want[:len(want)-1]
	}
	if len(have) != len(want) {
		return false
	}
	for i := range have {
		if have[i] != uint64(want[i]) {
			return false
		}
	}
	return true
}

// matrix loads a weight of ggml dims [cols, rows] (a PyTorch Linear of rows
// outputs and cols inputs) for the backend's MatMul.
func (l *loader) matrix(name string, cols, rows int) native.Weight {
	w, _ := l.optMatrix(name, true, cols, rows)
	return w
}

// optMatrix is matrix for a tensor that may be absent.
func (l *loader) optMatrix(name string, required bool, cols, rows int) (native.Weight, bool) {
	t, data, ok := l.tensor(name, required, cols, rows)
	if !ok {
		return native.Weight{}, false
	}
	if !l.b.Supports(t.Type) {
		l.fail("tensor %q has type %s, which backend %s cannot multiply", name, t.Type, l.b.Name())
		return native.Weight{}, false
	}
	w := native.Weight{Type: t.Type, Rows: rows, Cols: cols, Data: data}
	if err := w.Check(); err != nil {
		l.fail("tensor %q: %v", name, err)
		return native.Weight{}, false
	}
	return w, true
}

// floats loads a tensor of the given dims as float32 values (it may be
// stored as F32, F16 or any type ggml dequantizes).
func (l *loader) floats(name string, required bool, dims ...int) []float32 {
	t, data, ok := l.tensor(name, required, dims...)
	if !ok {
		return nil
	}
	out := make([]float32, t.Elements())
	if err := ggml.Dequantize(t.Type, data, out); err != nil {
		l.fail("tensor %q: %v", name, err)
		return nil
	}
	return out
}

// vector loads a 1-D tensor of n values (a bias or a norm weight).
func (l *loader) vector(name string, n int) []float32 { return l.floats(name, true, n) }

// optVector is vector for a tensor that may be absent (nil then).
func (l *loader) optVector(name string, n int) []float32 { return l.floats(name, false, n) }

// kernelF16 loads a convolution kernel of the given ggml dims as an F16
// weight of rows = the last dim (output channels) and cols = the rest.
// ggml's conv_1d and conv_2d multiply an F16 im2col by the kernel, which
// rounds the kernel to F16 too; storing it so reproduces that.
func (l *loader) kernelF16(name string, dims ...int) native.Weight {
	t, data, ok := l.tensor(name, true, dims...)
	if !ok {
		return native.Weight{}
	}
	rows := dims[len(dims)-1]
	cols := int(t.Elements()) / rows
	switch t.Type {
	case ggml.F16:
	case ggml.F32:
		h := make([]byte, 2*t.Elements())
		for i := range t.Elements() {
			v := math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
			binary.LittleEndian.PutUint16(h[2*i:], ggml.F32ToF16(v))
		}
		data = h
	default:
		l.fail("convolution kernel %q has type %s, want F16 or F32", name, t.Type)
		return native.Weight{}
	}
	if !l.b.Supports(ggml.F16) {
		l.fail("backend %s cannot multiply F16 weights (kernel %q)", l.b.Name(), name)
		return native.Weight{}
	}
	return native.Weight{Type: ggml.F16, Rows: rows, Cols: cols, Data: data}
}

// f32Weight wraps float32 values as an F32 weight of rows×cols, for a
// matrix the encoder builds (a transposed projection, keys, values).
func f32Weight(v []float32, rows, cols int) native.Weight {
	return native.Weight{Type: ggml.F32, Rows: rows, Cols: cols, Data: f32Bytes(v)}
}

// f16Weight is f32Weight for values that are exact in F16, stored so.
func f16Weight(v []float32, rows, cols int) native.Weight {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], ggml.F32ToF16(x))
	}
	return native.Weight{Type: ggml.F16, Rows: rows, Cols: cols, Data: b}
}

// f32Bytes encodes v as little-endian bytes.
func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// outWidth returns the output width of the projection weight name, of ggml
// dims [in, out], to size the tensor's later checks; 0 after an error.
func (l *loader) outWidth(name string, in int) int {
	if l.err != nil {
		return 0
	}
	t, ok := l.f.Tensor(name)
	if !ok {
		l.fail("missing tensor %q", name)
		return 0
	}
	if len(t.Dims) != 2 || t.Dims[0] != uint64(in) || t.Dims[1] == 0 || t.Dims[1] > maxWidth {
		l.fail("tensor %q has shape %v, want [%d, text width ≤ %d]", name, t.Dims, in, maxWidth)
		return 0
	}
	return int(t.Dims[1])
}
