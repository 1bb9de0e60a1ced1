//go:build !linux

package native

import "runtime"

// osYield lets other goroutines run; elsewhere than Linux, the pool's
// spinning does not yield the OS thread.
func osYield() { runtime.Gosched() }
