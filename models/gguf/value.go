package gguf

import (
	"fmt"
	"math"
)

// ValueType is the type tag of a metadata value, numbered as in the GGUF spec.
type ValueType uint32

// The GGUF metadata value types.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

var typeNames = [...]string{"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string", "array", "uint64", "int64", "float64"}

// String returns the spec's name of the type, such as "uint32".
func (t ValueType) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// fixedSize is the encoded size of a scalar type, 0 for string and array.
func (t ValueType) fixedSize() int {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

// Value is one metadata value. Scalars hold the Go type of the same width
// (uint8 … float64, bool, string). Arrays hold a typed slice ([]uint32,
// []string, []float32, …) of their element type, or []Value for arrays of
// arrays; Elem is the element type.
type Value struct {
	Type ValueType
	Elem ValueType // element type when Type is TypeArray
	Data any
}

// KV is one metadata entry, in file order.
type KV struct {
	Key   string
	Value Value
}

// Constructors for values, for writing files.

// String makes a string value.
func String(s string) Value { return Value{Type: TypeString, Data: s} }

// Uint32 makes a uint32 value.
func Uint32(v uint32) Value { return Value{Type: TypeUint32, Data: v} }

// Int32 makes an int32 value.
func Int32(v int32) Value { return Value{Type: TypeInt32, Data: v} }

// Uint64 makes a uint64 value.
func Uint64(v uint64) Value { return Value{Type: TypeUint64, Data: v} }

// Float32 makes a float32 value.
func Float32(v float32) Value { return Value{Type: TypeFloat32, Data: v} }

// Bool makes a bool value.
func Bool(v bool) Value { return Value{Type: TypeBool, Data: v} }

// Strings makes an array-of-strings value.
func Strings(v []string) Value { return Value{Type: TypeArray, Elem: TypeString, Data: v} }

// Float32s makes an array-of-float32 value.
func Float32s(v []float32) Value { return Value{Type: TypeArray, Elem: TypeFloat32, Data: v} }

// Int32s makes an array-of-int32 value.
func Int32s(v []int32) Value { return Value{Type: TypeArray, Elem: TypeInt32, Data: v} }

// Len is the number of elements of an array value, 0 for a scalar.
func (v Value) Len() int {
	switch d := v.Data.(type) {
	case []uint8:
		return len(d)
	case []int8:
		return len(d)
	case []uint16:
		return len(d)
	case []int16:
		return len(d)
	case []uint32:
		return len(d)
	case []int32:
		return len(d)
	case []float32:
		return len(d)
	case []bool:
		return len(d)
	case []string:
		return len(d)
	case []uint64:
		return len(d)
	case []int64:
		return len(d)
	case []float64:
		return len(d)
	case []Value:
		return len(d)
	}
	return 0
}

// typeName describes v's type for error messages, e.g. "array of string".
func (v Value) typeName() string {
	if v.Type == TypeArray {
		return "array of " + v.Elem.String()
	}
	return v.Type.String()
}

// asInt64 converts any integer scalar to int64.
func (v Value) asInt64() (int64, bool) {
	switch d := v.Data.(type) {
	case uint8:
		return int64(d), true
	case int8:
		return int64(d), true
	case uint16:
		return int64(d), true
	case int16:
		return int64(d), true
	case uint32:
		return int64(d), true
	case int32:
		return int64(d), true
	case uint64:
		if d > math.MaxInt64 {
			return 0, false
		}
		return int64(d), true
	case int64:
		return d, true
	}
	return 0, false
}

// asFloat64 converts any numeric scalar to float64.
func (v Value) asFloat64() (float64, bool) {
	switch d := v.Data.(type) {
	case float32:
		return float64(d), true
	case float64:
		return d, true
	}
	if i, ok := v.asInt64(); ok {
		return float64(i), true
	}
	return 0, false
}
