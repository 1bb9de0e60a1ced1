package native

import (
	"errors"
	"fmt"
)

// ErrUnavailable is returned when a requested backend is not part of this
// build or not usable on this machine.
var ErrUnavailable = errors.New("backend not available")

// OpenCPU returns the native C backend (LoadCPUWith). When its library is
// missing or stale the error wraps ErrUnavailable, and callers that asked
// for any backend fall back to NewGo, saying so.
func OpenCPU(o CPUOptions) (Backend, error) {
	c, err := LoadCPUWith(o)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// OpenGPU returns a GPU backend, or an error wrapping ErrUnavailable when
// none is built or no device is present.
func OpenGPU() (Backend, error) {
	return nil, fmt.Errorf("native: no GPU backend in this build: %w", ErrUnavailable)
}
