package hugepage

import "syscall"

// advise asks the kernel to back b with transparent huge pages (honored
// where /sys/kernel/mm/transparent_hugepage/enabled is "always" or
// "madvise"); a refusal only leaves the 4 KB pages.
func advise(b []byte) { _ = syscall.Madvise(b, syscall.MADV_HUGEPAGE) }
