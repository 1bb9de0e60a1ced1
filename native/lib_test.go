package native

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLibCandidates(t *testing.T) {
	t.Setenv(LibEnv, "/somewhere/liblitert.so")
	assert.Equal(t, []string{"/somewhere/liblitert.so"}, LibCandidates(), "the variable alone is tried")

	t.Setenv(LibEnv, "")
	exe, err := os.Executable()
	require.NoError(t, err)
	exe, err = filepath.EvalSymlinks(exe)
	require.NoError(t, err)
	dir := filepath.Dir(exe)
	assert.Equal(t, []string{filepath.Join(dir, libName()), filepath.Join(filepath.Dir(dir), "lib", libName())}, LibCandidates(),
		"beside the executable, then its prefix's lib/, and nothing else")
	assert.Equal(t, []string{"/opt/litert/bin/" + libName(), "/opt/litert/lib/" + libName()}, libCandidatesFor("/opt/litert/bin/litert-go"))
}

// plantLibrary writes a library where the working directory used to lead
// the search (build/ of a directory with go.mod, and the directory itself):
// a copy of the real library when one is built, so that loading it would
// succeed and show in CPU.Path, else a file that fails to load and would
// show in the error.
func plantLibrary(t *testing.T, dir string) {
	t.Helper()
	lib := []byte("not a shared object: a planted library must never be opened")
	if p := os.Getenv(LibEnv); p != "" {
		if b, err := os.ReadFile(p); err == nil {
			lib = b
		}
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "build"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module evil\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "build", libName()), lib, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, libName()), lib, 0o755))
}

// TestPlantedLibraryNotLoaded runs in a working directory that looks like
// a checkout with a built library (issue 14): the search never goes there.
func TestPlantedLibraryNotLoaded(t *testing.T) {
	wd := t.TempDir()
	plantLibrary(t, wd)
	t.Chdir(filepath.Join(wd, "build"))
	t.Setenv(LibEnv, "")
	for _, p := range LibCandidates() {
		assert.False(t, strings.HasPrefix(p, wd), "candidate %s is under the working directory", p)
	}
	c, err := LoadCPU(1)
	if err == nil {
		defer c.Close()
		assert.False(t, strings.HasPrefix(c.Path(), wd), "loaded the planted %s", c.Path())
		return
	}
	assert.ErrorIs(t, err, ErrUnavailable)
	assert.NotContains(t, err.Error(), wd, "the planted library was tried")
}

// TestLibBesideExecutable runs a copy of this test binary from a temporary
// install tree, with the built library beside it or in its prefix's lib/,
// from a working directory with a planted library: the installed one
// loads.
func TestLibBesideExecutable(t *testing.T) {
	built := os.Getenv(LibEnv)
	lib, err := os.ReadFile(built)
	if built == "" || err != nil {
		t.Skipf("needs the built library in %s (make test sets it): %v", LibEnv, err)
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	bin, err := os.ReadFile(exe)
	require.NoError(t, err)
	wd := t.TempDir()
	plantLibrary(t, wd)
	for _, layout := range []struct {
		name, lib string
		dirMode   os.FileMode // of bin/ and lib/
		loads     bool
	}{
		{"beside", filepath.Join("bin", libName()), 0o755, true},
		{"prefix", filepath.Join("lib", libName()), 0o755, true},
		// Anyone may write a world-writable directory (like /tmp): a
		// library there is skipped.
		{"world-writable", filepath.Join("bin", libName()), 0o777, false},
	} {
		t.Run(layout.name, func(t *testing.T) {
			root := t.TempDir()
			test := filepath.Join(root, "bin", "native.test")
			require.NoError(t, os.MkdirAll(filepath.Dir(test), 0o755))
			require.NoError(t, os.MkdirAll(filepath.Join(root, "lib"), 0o755))
			require.NoError(t, os.WriteFile(test, bin, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, layout.lib), lib, 0o755))
			for _, d := range []string{"bin", "lib"} {
				require.NoError(t, os.Chmod(filepath.Join(root, d), layout.dirMode))
			}
			// Started through a symbolic link elsewhere, the executable is
			// still where it is installed.
			link := filepath.Join(t.TempDir(), "litert-go")
			require.NoError(t, os.Symlink(test, link))
			cmd := exec.Command(link, "-test.run=^TestLibHelper$", "-test.v")
			cmd.Dir = wd
			cmd.Env = append(os.Environ(), LibEnv+"=", helperEnv+"=1")
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			want, err := filepath.EvalSymlinks(filepath.Join(root, layout.lib))
			require.NoError(t, err)
			if layout.loads {
				assert.Contains(t, string(out), "loaded "+want+"\n")
			} else {
				assert.Contains(t, string(out), "unavailable: ")
				assert.Contains(t, string(out), want+": skipped: "+filepath.Dir(want)+" is writable by all users")
			}
			assert.NotContains(t, string(out), wd, "the planted library was tried")
		})
	}
}

// helperEnv makes TestLibHelper report which library LoadCPU loads.
const helperEnv = "LITERT_TEST_LIB_HELPER"

func TestLibHelper(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("the helper process of TestLibBesideExecutable")
	}
	c, err := LoadCPU(1)
	if err != nil {
		fmt.Printf("unavailable: %v\n", err)
		return
	}
	defer c.Close()
	fmt.Printf("loaded %s\n", c.Path())
}

func TestLoadCPUMissingLibrary(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "liblitert.so")
	t.Setenv(LibEnv, missing)
	_, err := LoadCPU(1)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrUnavailable, "a missing library means falling back, not failing")
	assert.Contains(t, err.Error(), missing, "the error names the path tried")
	assert.Contains(t, err.Error(), "make bin")
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
