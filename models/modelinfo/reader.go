package modelinfo

import (
	"errors"
	"strconv"

	"github.com/litert-go/litert-go/models/gguf"
)

// reader reads optional metadata: a missing key reads as zero, a key of the
// wrong type records the first error.
type reader struct {
	f   *gguf.File
	err error
}

func (r *reader) keep(err error) bool {
	if err == nil {
		return true
	}
	var ke *gguf.KeyError
	if errors.As(err, &ke) && ke.Have == "" {
		return false // missing: not an error
	}
	if r.err == nil {
		r.err = err
	}
	return false
}

func (r *reader) str(key string) string {
	s, err := r.f.String(key)
	if !r.keep(err) {
		return ""
	}
	return s
}

func (r *reader) int(key string) int64 {
	i, err := r.f.Int(key)
	if !r.keep(err) {
		return 0
	}
	return i
}

func (r *reader) optInt(key string) *int64 {
	if !r.f.Has(key) {
		return nil
	}
	i := r.int(key)
	return &i
}

func (r *reader) float(key string) float64 {
	x, err := r.f.Float(key)
	if !r.keep(err) {
		return 0
	}
	if v, _ := r.f.Lookup(key); v.Type == gguf.TypeFloat32 {
		// Print float32 values with float32 precision (1e-5, not 9.99999974e-06).
		x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', -1, 32), 64)
	}
	return x
}

// intOrFirst reads an integer key that some architectures store per layer as
// an array; for an array it returns the first element.
func (r *reader) intOrFirst(key string) int64 {
	v, ok := r.f.Lookup(key)
	if !ok {
		return 0
	}
	if v.Type == gguf.TypeArray {
		xs, err := r.f.Ints(key)
		if !r.keep(err) || len(xs) == 0 {
			return 0
		}
		return xs[0]
	}
	return r.int(key)
}
