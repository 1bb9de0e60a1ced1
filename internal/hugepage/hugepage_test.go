package hugepage

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAlloc checks alignment, size, zeroing and writability, and on a
// Linux with transparent huge pages that the kernel has the mapping
// marked for them (whether it finds
// free 2 MB pages for it depends on the machine's state, so that is not
// asserted).
func TestAlloc(t *testing.T) {
	const n = 3*Size + 12345
	b, free, err := Alloc(n)
	require.NoError(t, err)
	assert.Len(t, b, n)
	assert.Zero(t, Addr(b)%Size, "aligned to a huge page")
	for i := 0; i < n; i += 4096 {
		require.Zero(t, b[i])
		b[i] = byte(i)
	}
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err == nil && runtime.GOOS == "linux" {
		assert.Contains(t, vmFlags(t, Addr(b)), "hg", "the mapping is advised for huge pages (MADV_HUGEPAGE)")
	}
	require.NoError(t, free())
	_, _, err = Alloc(0)
	assert.ErrorContains(t, err, "0 bytes")
}

// vmFlags returns the VmFlags line of /proc/self/smaps for the mapping
// that holds address addr ("hg" marks MADV_HUGEPAGE).
func vmFlags(t *testing.T, addr uintptr) string {
	t.Helper()
	smaps, err := os.ReadFile("/proc/self/smaps")
	require.NoError(t, err)
	in := false
	for _, line := range strings.Split(string(smaps), "\n") {
		// a mapping's header line starts with its range, "lo-hi"
		if lo, hi, ok := strings.Cut(strings.Fields(line + " x")[0], "-"); ok {
			l, err1 := strconv.ParseUint(lo, 16, 64)
			h, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(addr) >= l && uint64(addr) < h
				continue
			}
		}
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return flags
		}
	}
	t.Fatalf("no mapping holds %#x in /proc/self/smaps", addr)
	return ""
}
