package modelinfo

import (
	"errors"

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
