package native

import (
	"syscall"
	"time"
)

// cpuTime returns the user and system CPU time of the process so far: on a
// loaded machine it measures a one-thread benchmark better than the wall
// clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// CPUTime is cpuTime for the benchmarks of package native_test.
var CPUTime = cpuTime
