package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Tensor is a tensor to write: its description and its data. Info.Offset is
// ignored and computed by Write.
type Tensor struct {
	Info TensorInfo
	Data []byte
}

// Model is the content of a GGUF file to write.
type Model struct {
	Version uint32 // 0 means 3
	KV      []KV
	Tensors []Tensor
}

// Model returns the file's content in writable form; tensor data refers to
// the mapping and is valid until Close.
func (f *File) Model() *Model {
	m := &Model{Version: f.Version, KV: append([]KV(nil), f.KV...)}
	for _, t := range f.Tensors {
		m.Tensors = append(m.Tensors, Tensor{Info: t, Data: f.TensorData(t)})
	}
	return m
}

// Set replaces the value of key, or appends it.
func (m *Model) Set(key string, v Value) {
	for i := range m.KV {
		if m.KV[i].Key == key {
			m.KV[i].Value = v
			return
		}
	}
	m.KV = append(m.KV, KV{Key: key, Value: v})
}

// Get returns the value of key.
func (m *Model) Get(key string) (Value, bool) {
	for _, kv := range m.KV {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return Value{}, false
}

// Write encodes m as a GGUF file. Tensor data is laid out in order, each
// tensor aligned to general.alignment (32 when absent), as llama.cpp does.
func Write(w io.Writer, m *Model) error {
	version := m.Version
	if version == 0 {
		version = 3
	}
	if version != 2 && version != 3 {
		return fmt.Errorf("gguf: cannot write version %d", version)
	}
	align := uint64(DefaultAlignment)
	if v, ok := m.Get(alignmentKey); ok {
		a, err := alignment(v)
		if err != nil {
			return fmt.Errorf("gguf: %w", err)
		}
		align = uint64(a)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	e := &encoder{w: bw}
	e.bytes([]byte(Magic))
	e.u32(version)
	e.u64(uint64(len(m.Tensors)))
	e.u64(uint64(len(m.KV)))
	seen := make(map[string]bool, len(m.KV))
	for _, kv := range m.KV {
		if seen[kv.Key] {
			return fmt.Errorf("gguf: duplicate metadata key %q", kv.Key)
		}
		seen[kv.Key] = true
		e.str(kv.Key)
		e.u32(uint32(kv.Value.Type))
		if err := e.value(kv.Value); err != nil {
			return fmt.Errorf("gguf: key %q: %w", kv.Key, err)
		}
	}
	var offset uint64
	names := make(map[string]bool, len(m.Tensors))
	for _, t := range m.Tensors {
		ti := t.Info
		if names[ti.Name] {
			return fmt.Errorf("gguf: duplicate tensor name %q", ti.Name)
		}
		names[ti.Name] = true
		if !ti.Type.Known() {
			return fmt.Errorf("gguf: tensor %q has unknown type %d", ti.Name, uint32(ti.Type))
		}
		if len(ti.Dims) == 0 || len(ti.Dims) > maxDims {
			return fmt.Errorf("gguf: tensor %q has %d dimensions", ti.Name, len(ti.Dims))
		}
		if uint64(len(t.Data)) != ti.Bytes() {
			return fmt.Errorf("gguf: tensor %q: %d data bytes, shape %v of %s needs %d", ti.Name, len(t.Data), ti.Dims, ti.Type, ti.Bytes())
		}
		e.str(ti.Name)
		e.u32(uint32(len(ti.Dims)))
		for _, d := range ti.Dims {
			e.u64(d)
		}
		e.u32(uint32(ti.Type))
		e.u64(offset)
		offset += (ti.Bytes() + align - 1) / align * align
	}
	e.pad(align)
	for _, t := range m.Tensors {
		e.bytes(t.Data)
		e.pad(align)
	}
	if e.err != nil {
		return fmt.Errorf("gguf: write: %w", e.err)
	}
	return bw.Flush()
}

type encoder struct {
	w   *bufio.Writer
	n   uint64
	err error
	buf [8]byte
}

func (e *encoder) bytes(b []byte) {
	if e.err != nil {
		return
	}
	var n int
	n, e.err = e.w.Write(b)
	e.n += uint64(n)
}

func (e *encoder) u8(v uint8)   { e.buf[0] = v; e.bytes(e.buf[:1]) }
func (e *encoder) u16(v uint16) { binary.LittleEndian.PutUint16(e.buf[:], v); e.bytes(e.buf[:2]) }
func (e *encoder) u32(v uint32) { binary.LittleEndian.PutUint32(e.buf[:], v); e.bytes(e.buf[:4]) }
func (e *encoder) u64(v uint64) { binary.LittleEndian.PutUint64(e.buf[:], v); e.bytes(e.buf[:8]) }
func (e *encoder) str(s string) { e.u64(uint64(len(s))); e.bytes([]byte(s)) }

func (e *encoder) pad(align uint64) {
	var zero [64]byte
	for e.n%align != 0 && e.err == nil {
		k := align - e.n%align
		if k > uint64(len(zero)) {
			k = uint64(len(zero))
		}
		e.bytes(zero[:k])
	}
}

func (e *encoder) value(v Value) error {
	bad := func() error { return fmt.Errorf("value of type %s holds Go %T", v.Type, v.Data) }
	switch v.Type {
	case TypeArray:
		return e.array(v)
	case TypeString:
		s, ok := v.Data.(string)
		if !ok {
			return bad()
		}
		e.str(s)
		return nil
	}
	return e.scalar(v.Type, v.Data, bad)
}

func (e *encoder) scalar(t ValueType, data any, bad func() error) error {
	switch d := data.(type) {
	case uint8:
		if t != TypeUint8 {
			return bad()
		}
		e.u8(d)
	case int8:
		if t != TypeInt8 {
			return bad()
		}
		e.u8(uint8(d))
	case bool:
		if t != TypeBool {
			return bad()
		}
		if d {
			e.u8(1)
		} else {
			e.u8(0)
		}
	case uint16:
		if t != TypeUint16 {
			return bad()
		}
		e.u16(d)
	case int16:
		if t != TypeInt16 {
			return bad()
		}
		e.u16(uint16(d))
	case uint32:
		if t != TypeUint32 {
			return bad()
		}
		e.u32(d)
	case int32:
		if t != TypeInt32 {
			return bad()
		}
		e.u32(uint32(d))
	case float32:
		if t != TypeFloat32 {
			return bad()
		}
		e.u32(math.Float32bits(d))
	case uint64:
		if t != TypeUint64 {
			return bad()
		}
		e.u64(d)
	case int64:
		if t != TypeInt64 {
			return bad()
		}
		e.u64(uint64(d))
	case float64:
		if t != TypeFloat64 {
			return bad()
		}
		e.u64(math.Float64bits(d))
	default:
		return bad()
	}
	return nil
}

func (e *encoder) array(v Value) error {
	e.u32(uint32(v.Elem))
	e.u64(uint64(v.Len()))
	bad := func() error { return fmt.Errorf("array of %s holds Go %T", v.Elem, v.Data) }
	switch d := v.Data.(type) {
	case []string:
		if v.Elem != TypeString {
			return bad()
		}
		for _, s := range d {
			e.str(s)
		}
	case []Value:
		if v.Elem != TypeArray {
			return bad()
		}
		for _, x := range d {
			if x.Type != TypeArray {
				return bad()
			}
			if err := e.array(x); err != nil {
				return err
			}
		}
	case []uint8:
		return forEach(d, v.Elem, TypeUint8, e, bad)
	case []int8:
		return forEach(d, v.Elem, TypeInt8, e, bad)
	case []bool:
		return forEach(d, v.Elem, TypeBool, e, bad)
	case []uint16:
		return forEach(d, v.Elem, TypeUint16, e, bad)
	case []int16:
		return forEach(d, v.Elem, TypeInt16, e, bad)
	case []uint32:
		return forEach(d, v.Elem, TypeUint32, e, bad)
	case []int32:
		return forEach(d, v.Elem, TypeInt32, e, bad)
	case []float32:
		return forEach(d, v.Elem, TypeFloat32, e, bad)
	case []uint64:
		return forEach(d, v.Elem, TypeUint64, e, bad)
	case []int64:
		return forEach(d, v.Elem, TypeInt64, e, bad)
	case []float64:
		return forEach(d, v.Elem, TypeFloat64, e, bad)
	default:
		return bad()
	}
	return nil
}

func forEach[T any](s []T, elem, want ValueType, e *encoder, bad func() error) error {
	if elem != want {
		return bad()
	}
	for _, x := range s {
		if err := e.scalar(elem, x, bad); err != nil {
			return err
		}
	}
	return nil
}
