//go:build !linux

package constrain

import "time"

// threadCPU falls back to wall time outside Linux.
func threadCPU() time.Duration { return time.Duration(time.Now().UnixNano()) }
