package gguf

import "fmt"

// KeyError reports a missing metadata key or one of the wrong type.
type KeyError struct {
	Key  string
	Have string // the type found; empty when the key is missing
	Want string
}

func (e *KeyError) Error() string {
	if e.Have == "" {
		return fmt.Sprintf("gguf: key %q missing", e.Key)
	}
	return fmt.Sprintf("gguf: key %q is %s, want %s", e.Key, e.Have, e.Want)
}

func (f *File) get(key, want string) (Value, error) {
	v, ok := f.Lookup(key)
	if !ok {
		return Value{}, &KeyError{Key: key, Want: want}
	}
	return v, nil
}

// String returns the string value of key.
func (f *File) String(key string) (string, error) {
	v, err := f.get(key, "string")
	if err != nil {
		return "", err
	}
	s, ok := v.Data.(string)
	if !ok {
		return "", &KeyError{Key: key, Have: v.typeName(), Want: "string"}
	}
	return s, nil
}

// Int returns the value of an integer key of any width and signedness.
func (f *File) Int(key string) (int64, error) {
	v, err := f.get(key, "integer")
	if err != nil {
		return 0, err
	}
	i, ok := v.asInt64()
	if !ok {
		return 0, &KeyError{Key: key, Have: v.typeName(), Want: "integer"}
	}
	return i, nil
}

// Uint32 returns the value of an integer key that must fit in a uint32.
func (f *File) Uint32(key string) (uint32, error) {
	i, err := f.Int(key)
	if err != nil {
		return 0, err
	}
	if i < 0 || i > 1<<32-1 {
		return 0, fmt.Errorf("gguf: key %q is %d, out of range for uint32", key, i)
	}
	return uint32(i), nil
}

// Float returns the value of a numeric key as float64.
func (f *File) Float(key string) (float64, error) {
	v, err := f.get(key, "number")
	if err != nil {
		return 0, err
	}
	x, ok := v.asFloat64()
	if !ok {
		return 0, &KeyError{Key: key, Have: v.typeName(), Want: "number"}
	}
	return x, nil
}

// Bool returns the value of a bool key.
func (f *File) Bool(key string) (bool, error) {
	v, err := f.get(key, "bool")
	if err != nil {
		return false, err
	}
	b, ok := v.Data.(bool)
	if !ok {
		return false, &KeyError{Key: key, Have: v.typeName(), Want: "bool"}
	}
	return b, nil
}

// Strings returns the value of an array-of-strings key.
func (f *File) Strings(key string) ([]string, error) {
	v, err := f.get(key, "array of string")
	if err != nil {
		return nil, err
	}
	s, ok := v.Data.([]string)
	if !ok {
		return nil, &KeyError{Key: key, Have: v.typeName(), Want: "array of string"}
	}
	return s, nil
}

// Float32s returns the value of an array-of-float32 key.
func (f *File) Float32s(key string) ([]float32, error) {
	v, err := f.get(key, "array of float32")
	if err != nil {
		return nil, err
	}
	s, ok := v.Data.([]float32)
	if !ok {
		return nil, &KeyError{Key: key, Have: v.typeName(), Want: "array of float32"}
	}
	return s, nil
}

// Ints returns the value of an array key of any integer element type.
func (f *File) Ints(key string) ([]int64, error) {
	v, err := f.get(key, "array of integer")
	if err != nil {
		return nil, err
	}
	if v.Type == TypeArray && v.Elem != TypeArray && v.Elem != TypeString && v.Elem != TypeFloat32 && v.Elem != TypeFloat64 && v.Elem != TypeBool {
		out := make([]int64, v.Len())
		for i := range out {
			out[i] = elemInt(v.Data, i)
		}
		return out, nil
	}
	return nil, &KeyError{Key: key, Have: v.typeName(), Want: "array of integer"}
}

func elemInt(data any, i int) int64 {
	switch d := data.(type) {
	case []uint8:
		return int64(d[i])
	case []int8:
		return int64(d[i])
	case []uint16:
		return int64(d[i])
	case []int16:
		return int64(d[i])
	case []uint32:
		return int64(d[i])
	case []int32:
		return int64(d[i])
	case []uint64:
		return int64(d[i])
	case []int64:
		return d[i]
	}
	return 0
}

// Has reports whether key is present.
func (f *File) Has(key string) bool { _, ok := f.kvIndex[key]; return ok }

// Architecture returns general.architecture.
func (f *File) Architecture() (string, error) { return f.String("general.architecture") }
