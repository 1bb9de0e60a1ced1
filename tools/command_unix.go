//go:build unix

package tools

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// setProcessGroup starts the command in its own process group and makes
// cancellation kill the whole group, so children of the program die too.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// dirPath returns a path for the child's working directory that refers to
// the already-opened (and so already-confined) directory: on Linux the
// /proc/self/fd link of the descriptor, which the child inherits until it
// executes; elsewhere the directory's path.
func dirPath(dir *os.File, fallback string) string {
	p := fmt.Sprintf("/proc/self/fd/%d", dir.Fd())
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return fallback
}
