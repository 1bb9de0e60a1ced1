// Package gguf reads and writes GGUF files, the single-file model format of
// ggml and llama.cpp: typed metadata, tensor descriptions and aligned tensor
// data. Open memory-maps the file and ReadPrivate reads it into huge-page
// memory; either way tensor data is never copied into the Go heap. The format is specified at
// https://github.com/ggml-org/ggml/blob/master/docs/gguf.md.
package gguf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/litert-go/litert-go/models/ggml"
)

// Magic is the first four bytes of every GGUF file.
const Magic = "GGUF"

// DefaultAlignment is the data alignment when general.alignment is absent.
const DefaultAlignment = 32

// MaxAlignment bounds general.alignment. llama.cpp writes 32; a larger
// value only pads the file (one of 2^30 once made a gigabyte of zeros).
const MaxAlignment = 1 << 20

// alignmentKey is the metadata key of the data alignment.
const alignmentKey = "general.alignment"

// alignment returns the data alignment v of general.alignment, or an error
// naming the key if it is not a power of two in [1, MaxAlignment].
func alignment(v Value) (int, error) {
	a, ok := v.asInt64()
	if !ok || a <= 0 || a > MaxAlignment || a&(a-1) != 0 {
		return 0, fmt.Errorf("key %q is %v: want a power of two no larger than %d", alignmentKey, v.Data, MaxAlignment)
	}
	return int(a), nil
}

// maxDims is ggml's GGML_MAX_DIMS.
const maxDims = 4

// maxArrayDepth bounds nesting of arrays of arrays.
const maxArrayDepth = 8

// FormatError reports a malformed file. Offset is the byte offset in the
// file where the problem was found.
type FormatError struct {
	Offset int64
	Msg    string
	Err    error // ErrTruncated when data ends early, else nil
}

func (e *FormatError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("gguf: at byte %d: %s: %v", e.Offset, e.Msg, e.Err)
	}
	return fmt.Sprintf("gguf: at byte %d: %s", e.Offset, e.Msg)
}

// Unwrap returns the underlying cause, such as ErrTruncated.
func (e *FormatError) Unwrap() error { return e.Err }

// ErrTruncated is wrapped by errors about data that ends before it should.
var ErrTruncated = errors.New("file truncated")

// TensorInfo describes one tensor. Dims are in ggml order: Dims[0] is the
// length of a row (the fastest-varying dimension).
type TensorInfo struct {
	Name   string
	Dims   []uint64
	Type   ggml.DType
	Offset uint64 // from the start of the data section
}

// Elements is the number of elements of the tensor.
func (t TensorInfo) Elements() uint64 {
	n := uint64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// Bytes is the size of the tensor's data.
func (t TensorInfo) Bytes() uint64 {
	bs := uint64(t.Type.BlockSize())
	if bs == 0 {
		return 0
	}
	return t.Elements() / bs * uint64(t.Type.TypeSize())
}

// Rows is the number of rows (elements / Dims[0]).
func (t TensorInfo) Rows() int {
	if len(t.Dims) == 0 || t.Dims[0] == 0 {
		return 0
	}
	return int(t.Elements() / t.Dims[0])
}

// File is a parsed GGUF file. Metadata is decoded into Go values; tensor data
// stays in the mapped file.
type File struct {
	Version   uint32
	KV        []KV
	Tensors   []TensorInfo
	Alignment int
	DataStart int64 // file offset of the data section
	Size      int64 // file size in bytes

	kvIndex     map[string]int
	tensorIndex map[string]int
	data        []byte // the whole file (mapped or in memory)
	unmap       func() error
	private     bool // data is this File's own memory (ReadPrivate)
	rewritten   bool // a loader rewrote tensor data in place (MarkRewritten)
}

// Private reports whether the tensor data is memory of this File alone
// (ReadPrivate), which a model loader may rewrite in place (interleaving
// weights for its kernels) when it is the File's only loader: see
// MarkRewritten.
func (f *File) Private() bool { return f.private }

// MarkRewritten records that a loader rewrote tensor data in place, so
// that a second loader refuses the File instead of reading the rewritten
// bytes as GGUF's; Rewritten reports it.
func (f *File) MarkRewritten() { f.rewritten = true }

// Rewritten reports whether MarkRewritten was called.
func (f *File) Rewritten() bool { return f.rewritten }

// decoder reads little-endian values from a byte slice with bounds checks.
type decoder struct {
	b   []byte
	pos int
}

func (d *decoder) fail(format string, args ...any) error {
	return &FormatError{Offset: int64(d.pos), Msg: fmt.Sprintf(format, args...)}
}

// truncated reports data that ends before what it announces.
func (d *decoder) truncated(format string, args ...any) error {
	return &FormatError{Offset: int64(d.pos), Msg: fmt.Sprintf(format, args...), Err: ErrTruncated}
}

func (d *decoder) need(n uint64, what string) error {
	if n > uint64(len(d.b)-d.pos) {
		return d.truncated("%s needs %d bytes, %d left", what, n, len(d.b)-d.pos)
	}
	return nil
}

func (d *decoder) u8(what string) (uint8, error) {
	if err := d.need(1, what); err != nil {
		return 0, err
	}
	v := d.b[d.pos]
	d.pos++
	return v, nil
}

func (d *decoder) u16(what string) (uint16, error) {
	if err := d.need(2, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint16(d.b[d.pos:])
	d.pos += 2
	return v, nil
}

func (d *decoder) u32(what string) (uint32, error) {
	if err := d.need(4, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint32(d.b[d.pos:])
	d.pos += 4
	return v, nil
}

func (d *decoder) u64(what string) (uint64, error) {
	if err := d.need(8, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint64(d.b[d.pos:])
	d.pos += 8
	return v, nil
}

func (d *decoder) str(what string) (string, error) {
	n, err := d.u64(what + " length")
	if err != nil {
		return "", err
	}
	if err := d.need(n, what); err != nil {
		return "", err
	}
	s := string(d.b[d.pos : d.pos+int(n)])
	d.pos += int(n)
	return s, nil
}

// Parse parses a GGUF file held in memory. The File refers to data, which
// must not be modified while the File is in use.
func Parse(data []byte) (*File, error) {
	d := &decoder{b: data}
	f := &File{data: data, Size: int64(len(data)), Alignment: DefaultAlignment}
	if len(data) < 4 {
		return nil, d.truncated("file of %d bytes is too short for the GGUF magic", len(data))
	}
	if string(data[:4]) != Magic {
		return nil, d.fail("bad magic %q, want %q (not a GGUF file)", data[:4], Magic)
	}
	d.pos = 4
	v, err := d.u32("version")
	if err != nil {
		return nil, err
	}
	switch {
	case v == 2 || v == 3:
	case v&0xFFFF == 0 && bits.ReverseBytes32(v) <= 3:
		return nil, d.fail("big-endian GGUF (version %d byte-swapped) is not supported", bits.ReverseBytes32(v))
	case v == 1:
		return nil, d.fail("GGUF version 1 is not supported (only 2 and 3)")
	default:
		return nil, d.fail("unsupported GGUF version %d (only 2 and 3)", v)
	}
	f.Version = v
	nTensors, err := d.u64("tensor count")
	if err != nil {
		return nil, err
	}
	nKV, err := d.u64("metadata count")
	if err != nil {
		return nil, err
	}
	// Each KV takes at least 8+4+1 bytes and each tensor info 8+4+4+8 bytes:
	// cap counts by what the file can hold before allocating.
	if nKV > uint64(len(data))/13 {
		return nil, d.truncated("metadata count %d is larger than the file can hold", nKV)
	}
	if nTensors > uint64(len(data))/24 {
		return nil, d.truncated("tensor count %d is larger than the file can hold", nTensors)
	}
	f.KV = make([]KV, 0, nKV)
	f.kvIndex = make(map[string]int, nKV)
	for i := uint64(0); i < nKV; i++ {
		start := d.pos
		key, err := d.str(fmt.Sprintf("metadata key #%d", i))
		if err != nil {
			return nil, err
		}
		if _, dup := f.kvIndex[key]; dup {
			return nil, &FormatError{Offset: int64(start), Msg: fmt.Sprintf("duplicate metadata key %q", key)}
		}
		t, err := d.u32(fmt.Sprintf("type of key %q", key))
		if err != nil {
			return nil, err
		}
		val, err := d.value(ValueType(t), key, 0)
		if err != nil {
			return nil, err
		}
		f.kvIndex[key] = len(f.KV)
		f.KV = append(f.KV, KV{Key: key, Value: val})
	}
	if i, ok := f.kvIndex[alignmentKey]; ok {
		a, err := alignment(f.KV[i].Value)
		if err != nil {
			return nil, d.fail("%v", err)
		}
		f.Alignment = a
	}
	f.Tensors = make([]TensorInfo, 0, nTensors)
	f.tensorIndex = make(map[string]int, nTensors)
	for i := uint64(0); i < nTensors; i++ {
		ti, err := d.tensorInfo(i)
		if err != nil {
			return nil, err
		}
		if _, dup := f.tensorIndex[ti.Name]; dup {
			return nil, d.fail("duplicate tensor name %q", ti.Name)
		}
		f.tensorIndex[ti.Name] = len(f.Tensors)
		f.Tensors = append(f.Tensors, ti)
	}
	f.DataStart = alignUp(int64(d.pos), int64(f.Alignment))
	dataLen := int64(len(data)) - f.DataStart
	for _, t := range f.Tensors {
		if t.Offset%uint64(f.Alignment) != 0 {
			return nil, &FormatError{Offset: f.DataStart, Msg: fmt.Sprintf("tensor %q: data offset %d is not a multiple of the alignment %d", t.Name, t.Offset, f.Alignment)}
		}
		if dataLen < 0 || t.Offset > uint64(dataLen) || t.Bytes() > uint64(dataLen)-t.Offset {
			return nil, &FormatError{Offset: f.DataStart, Msg: fmt.Sprintf("tensor %q: data [%d, +%d) lies outside the file's %d data bytes", t.Name, t.Offset, t.Bytes(), max(dataLen, 0)), Err: ErrTruncated}
		}
	}
	return f, nil
}

func alignUp(n, a int64) int64 { return (n + a - 1) / a * a }

func (d *decoder) tensorInfo(i uint64) (TensorInfo, error) {
	var ti TensorInfo
	name, err := d.str(fmt.Sprintf("tensor #%d name", i))
	if err != nil {
		return ti, err
	}
	ti.Name = name
	nDims, err := d.u32(fmt.Sprintf("tensor %q dimension count", name))
	if err != nil {
		return ti, err
	}
	if nDims == 0 || nDims > maxDims {
		return ti, d.fail("tensor %q has %d dimensions (want 1..%d)", name, nDims, maxDims)
	}
	ti.Dims = make([]uint64, nDims)
	total := uint64(1)
	for j := range ti.Dims {
		n, err := d.u64(fmt.Sprintf("tensor %q dimension %d", name, j))
		if err != nil {
			return ti, err
		}
		if n == 0 || n > math.MaxInt64 {
			return ti, d.fail("tensor %q: dimension %d is %d", name, j, n)
		}
		hi, lo := bits.Mul64(total, n)
		if hi != 0 || lo > math.MaxInt64 {
			return ti, d.fail("tensor %q: element count overflows (dims %v)", name, ti.Dims[:j+1])
		}
		total = lo
		ti.Dims[j] = n
	}
	typ, err := d.u32(fmt.Sprintf("tensor %q type", name))
	if err != nil {
		return ti, err
	}
	ti.Type = ggml.DType(typ)
	if !ti.Type.Known() {
		return ti, d.fail("tensor %q has unknown type %d", name, typ)
	}
	if ti.Dims[0]%uint64(ti.Type.BlockSize()) != 0 {
		return ti, d.fail("tensor %q: row length %d is not a multiple of the %s block size %d", name, ti.Dims[0], ti.Type, ti.Type.BlockSize())
	}
	if ti.Offset, err = d.u64(fmt.Sprintf("tensor %q offset", name)); err != nil {
		return ti, err
	}
	return ti, nil
}

// value decodes a value of type t for key.
func (d *decoder) value(t ValueType, key string, depth int) (Value, error) {
	what := fmt.Sprintf("value of key %q", key)
	switch t {
	case TypeUint8:
		v, err := d.u8(what)
		return Value{Type: t, Data: v}, err
	case TypeInt8:
		v, err := d.u8(what)
		return Value{Type: t, Data: int8(v)}, err
	case TypeBool:
		v, err := d.u8(what)
		if err == nil && v > 1 {
			return Value{}, d.fail("key %q: bool byte is %d", key, v)
		}
		return Value{Type: t, Data: v == 1}, err
	case TypeUint16:
		v, err := d.u16(what)
		return Value{Type: t, Data: v}, err
	case TypeInt16:
		v, err := d.u16(what)
		return Value{Type: t, Data: int16(v)}, err
	case TypeUint32:
		v, err := d.u32(what)
		return Value{Type: t, Data: v}, err
	case TypeInt32:
		v, err := d.u32(what)
		return Value{Type: t, Data: int32(v)}, err
	case TypeFloat32:
		v, err := d.u32(what)
		return Value{Type: t, Data: math.Float32frombits(v)}, err
	case TypeUint64:
		v, err := d.u64(what)
		return Value{Type: t, Data: v}, err
	case TypeInt64:
		v, err := d.u64(what)
		return Value{Type: t, Data: int64(v)}, err
	case TypeFloat64:
		v, err := d.u64(what)
		return Value{Type: t, Data: math.Float64frombits(v)}, err
	case TypeString:
		s, err := d.str(what)
		return Value{Type: t, Data: s}, err
	case TypeArray:
		return d.array(key, depth)
	}
	return Value{}, d.fail("key %q has unknown value type %d", key, uint32(t))
}

func (d *decoder) array(key string, depth int) (Value, error) {
	if depth >= maxArrayDepth {
		return Value{}, d.fail("key %q: arrays nested deeper than %d", key, maxArrayDepth)
	}
	et, err := d.u32(fmt.Sprintf("array type of key %q", key))
	if err != nil {
		return Value{}, err
	}
	elem := ValueType(et)
	n, err := d.u64(fmt.Sprintf("array length of key %q", key))
	if err != nil {
		return Value{}, err
	}
	minSize := uint64(elem.fixedSize())
	switch elem {
	case TypeString:
		minSize = 8
	case TypeArray:
		minSize = 12
	}
	if minSize == 0 {
		return Value{}, d.fail("key %q: array has unknown element type %d", key, et)
	}
	if n > uint64(len(d.b)-d.pos)/minSize {
		return Value{}, d.truncated("key %q: array of %d %s elements runs past the end of the file", key, n, elem)
	}
	v := Value{Type: TypeArray, Elem: elem}
	b := d.b[d.pos:]
	switch elem {
	case TypeUint8:
		v.Data = append([]uint8(nil), b[:n]...)
	case TypeInt8:
		s := make([]int8, n)
		for i := range s {
			s[i] = int8(b[i])
		}
		v.Data = s
	case TypeBool:
		s := make([]bool, n)
		for i := range s {
			s[i] = b[i] != 0
		}
		v.Data = s
	case TypeUint16, TypeInt16:
		u := make([]uint16, n)
		for i := range u {
			u[i] = binary.LittleEndian.Uint16(b[2*i:])
		}
		if elem == TypeInt16 {
			s := make([]int16, n)
			for i := range s {
				s[i] = int16(u[i])
			}
			v.Data = s
		} else {
			v.Data = u
		}
	case TypeUint32:
		s := make([]uint32, n)
		for i := range s {
			s[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		v.Data = s
	case TypeInt32:
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
		}
		v.Data = s
	case TypeFloat32:
		s := make([]float32, n)
		for i := range s {
			s[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		v.Data = s
	case TypeUint64:
		s := make([]uint64, n)
		for i := range s {
			s[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		v.Data = s
	case TypeInt64:
		s := make([]int64, n)
		for i := range s {
			s[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
		}
		v.Data = s
	case TypeFloat64:
		s := make([]float64, n)
		for i := range s {
			s[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
		v.Data = s
	case TypeString:
		s := make([]string, n)
		// First pass: validate lengths and total size; second: one copy.
		start, pos := d.pos, d.pos
		for i := range s {
			if uint64(len(d.b)-pos) < 8 {
				d.pos = pos
				return Value{}, d.truncated("element %d of key %q length needs 8 bytes", i, key)
			}
			l := binary.LittleEndian.Uint64(d.b[pos:])
			pos += 8
			if l > uint64(len(d.b)-pos) {
				d.pos = pos
				return Value{}, d.truncated("element %d of key %q needs %d bytes", i, key, l)
			}
			pos += int(l)
		}
		all := string(d.b[start:pos])
		p := 0
		for i := range s {
			l := int(binary.LittleEndian.Uint64(d.b[start+p:]))
			p += 8
			s[i] = all[p : p+l]
			p += l
		}
		d.pos = pos
		v.Data = s
		return v, nil
	case TypeArray:
		s := make([]Value, n)
		for i := range s {
			if s[i], err = d.array(key, depth+1); err != nil {
				return Value{}, err
			}
		}
		v.Data = s
		return v, nil
	}
	if elem == TypeBool {
		for i := uint64(0); i < n; i++ {
			if b[i] > 1 {
				return Value{}, d.fail("key %q: bool element %d is %d", key, i, b[i])
			}
		}
	}
	d.pos += int(n * minSize)
	return v, nil
}

// Tensor returns the description of the named tensor.
func (f *File) Tensor(name string) (TensorInfo, bool) {
	i, ok := f.tensorIndex[name]
	if !ok {
		return TensorInfo{}, false
	}
	return f.Tensors[i], true
}

// TensorData returns the bytes of a tensor: a slice of the mapped file, valid
// until Close. It must not be modified, except by a loader of a Private
// File (see MarkRewritten).
func (f *File) TensorData(t TensorInfo) []byte {
	start := f.DataStart + int64(t.Offset)
	return f.data[start : start+int64(t.Bytes()) : start+int64(t.Bytes())]
}

// Lookup returns the value of key.
func (f *File) Lookup(key string) (Value, bool) {
	i, ok := f.kvIndex[key]
	if !ok {
		return Value{}, false
	}
	return f.KV[i].Value, true
}

// Close releases the mapping. Tensor data slices are invalid afterwards.
func (f *File) Close() error {
	if f.unmap == nil {
		return nil
	}
	err := f.unmap()
	f.unmap = nil
	f.data = nil
	return err
}
