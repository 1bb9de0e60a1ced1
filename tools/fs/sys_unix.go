//go:build unix

package fs

import (
	"os"
	"syscall"
)

// extraOpenFlags keeps opening a FIFO or a terminal from blocking or taking
// control; regular files ignore them.
const extraOpenFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// linkCount returns the number of hard links of a file.
func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
