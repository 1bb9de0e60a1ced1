package native

import "syscall"

// osYield gives the core to another runnable thread, if any (sched_yield):
// a spinning thread must not hold a core that the thread it waits for
// needs, as happens when other processes load the machine.
func osYield() {
	syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}
