package hugepage

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAlloc checks alignment, size, zeroing and writability, and, where
// the kernel grants transparent huge pages on request, that this
// process's AnonHugePages grows once the memory is touched.
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
	// where the kernel grants huge pages to advised memory and compacts
	// for them at the fault (its defaults)
	granted := func(knob string) bool {
		b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/" + knob)
		return err == nil && (strings.Contains(string(b), "[madvise]") || strings.Contains(string(b), "[always]"))
	}
	if runtime.GOOS == "linux" && granted("enabled") && granted("defrag") {
		smaps, err := os.ReadFile("/proc/self/smaps_rollup")
		require.NoError(t, err)
		assert.NotContains(t, string(smaps), "AnonHugePages:         0 kB", "the touched memory is backed by huge pages")
	}
	require.NoError(t, free())
	_, _, err = Alloc(0)
	assert.ErrorContains(t, err, "0 bytes")
}
