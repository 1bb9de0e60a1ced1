package native

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLibCandidates(t *testing.T) {
	t.Setenv(LibEnv, "/somewhere/liblitert.so")
	assert.Equal(t, []string{"/somewhere/liblitert.so"}, LibCandidates(), "the variable alone is tried")

	t.Setenv(LibEnv, "")
	c := LibCandidates()
	require.NotEmpty(t, c)
	exe, err := os.Executable()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(filepath.Dir(exe), libName()), c[0], "beside the executable first")
	wd, err := os.Getwd()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(filepath.Dir(wd), "build", libName()), c[len(c)-1],
		"then build/ of the module root (this test runs in native/)")
}

func TestLoadCPUMissingLibrary(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "liblitert.so")
	t.Setenv(LibEnv, missing)
	_, err := LoadCPU(1)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrUnavailable, "a missing library means falling back, not failing")
	assert.Contains(t, err.Error(), missing, "the error names the path tried")
	assert.Contains(t, err.Error(), "make native")
}

func TestLoadCPUForeignLibrary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses glibc's libm.so.6")
	}
	_, err := LoadCPUWith(CPUOptions{Path: "libm.so.6"})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "lrt_abi_version", "names the missing symbol")
}

func TestLoadCPUUnknownISA(t *testing.T) {
	c := cpuKernelSets(t, 1)[0]
	_, err := LoadCPUWith(CPUOptions{Path: c.Path(), ISA: "sse9"})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrUnavailable)
	assert.Contains(t, err.Error(), "sse9")
}

func TestCPUBackendInfo(t *testing.T) {
	cpus := cpuKernelSets(t, 1000)
	c := cpus[0]
	assert.Equal(t, runtime.NumCPU(), c.Threads(), "threads are capped at the core count")
	assert.Equal(t, "cpu-"+c.ISA(), c.Name())
	assert.Equal(t, c.ISAs()[0], c.ISA(), "the best kernel set by default")
	assert.Contains(t, c.ISAs(), "generic")
	for _, typ := range nativeTypes {
		assert.True(t, c.nativeType(typ), typ)
	}
	t.Logf("library %s, kernel sets %v", c.Path(), c.ISAs())
	require.NoError(t, c.Close())
	require.NoError(t, c.Close(), "Close twice is harmless")
}

// TestLoadCPUFromEnv checks the path make test uses: LITERT_NATIVE_LIB set to
// the built library, which must then load (a stale build fails here).
func TestLoadCPUFromEnv(t *testing.T) {
	p := os.Getenv(LibEnv)
	if p == "" {
		t.Skipf("%s not set", LibEnv)
	}
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s=%s: library not built: %v", LibEnv, p, err)
	}
	c, err := LoadCPU(1)
	require.NoError(t, err, "%s=%s must load", LibEnv, p)
	defer c.Close()
	assert.Equal(t, p, c.Path())
	assert.True(t, c.Supports(ggml.Q4_K))
}
