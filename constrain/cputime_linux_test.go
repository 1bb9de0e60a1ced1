//go:build linux

package constrain

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU returns the CPU time consumed by the calling OS thread. The
// benchmarks lock the goroutine to its thread and use it instead of wall
// time, so numbers stay meaningful on a loaded machine.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}
