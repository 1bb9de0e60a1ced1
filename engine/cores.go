package engine

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// physicalCores counts distinct (package, core) pairs in Linux sysfs,
// capped by GOMAXPROCS; elsewhere, or if sysfs is unreadable, it returns
// GOMAXPROCS. Hyper-threads share a core's arithmetic units, so matrix
// kernels gain little from them.
func physicalCores() int {
	procs := runtime.GOMAXPROCS(0)
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*/topology")
	cores := map[string]bool{}
	for _, d := range dirs {
		pkg, err1 := os.ReadFile(filepath.Join(d, "physical_package_id"))
		core, err2 := os.ReadFile(filepath.Join(d, "core_id"))
		if err1 != nil || err2 != nil {
			return procs
		}
		cores[strings.TrimSpace(string(pkg))+"/"+strings.TrimSpace(string(core))] = true
	}
	if len(cores) == 0 {
		return procs
	}
	return max(1, min(len(cores), procs))
}
