package native

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unsafe"

	"github.com/ebitengine/purego"
)

// abiVersion is the LRT_ABI_VERSION of csrc/lrt.h this package speaks.
const abiVersion = 11

// LibEnv is the environment variable naming the native kernel library. When
// it is set, only that file is tried.
const LibEnv = "LITERT_NATIVE_LIB"

// libName is the file name of the native library on this system.
func libName() string {
	if runtime.GOOS == "darwin" {
		return "liblitert.dylib"
	}
	return "liblitert.so"
}

// lib is the loaded native kernel library: the addresses of the lrt_*
// functions of csrc/lrt.h, called through purego.SyscallN with integer and
// pointer arguments only (float parameters travel in structs).
type lib struct {
	path   string
	handle uintptr
	isas   []string // kernel sets this CPU runs, best first
	types  [40]bool // weight types lrt_matmul multiplies, by ggml id (MXFP4 is 39)

	poolNew, poolFree, poolISA uintptr
	supports                   uintptr
	matmul, rmsnorm, rope, glu uintptr
	matmulIL16, poolIL16       uintptr
	matmuls                    uintptr
	softmax, attention         uintptr
	eltwise, getRows           uintptr
}

// LibCandidates returns the paths tried, in order, for the native library:
// $LITERT_NATIVE_LIB alone if set; otherwise the library beside the
// executable, then in the lib/ directory of its install prefix (PREFIX/bin/
// litert-go → PREFIX/lib/liblitert.so). Only places the user chose or
// installed are searched, never the working directory or a path derived
// from it: running litert-go inside an untrusted checkout must not load
// that checkout's code. To use a library elsewhere (a build/ tree), set the
// variable or CPUOptions.Path.
func LibCandidates() []string {
	if p := os.Getenv(LibEnv); p != "" {
		return []string{p}
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved // where the binary is installed, not a link to it
	}
	return libCandidatesFor(exe)
}

// libCandidatesFor returns the places searched beside the executable exe.
func libCandidatesFor(exe string) []string {
	dir := filepath.Dir(exe)
	return []string{
		filepath.Join(dir, libName()),
		filepath.Join(filepath.Dir(dir), "lib", libName()),
	}
}

// findLib opens the first candidate that exists. A searched candidate
// (not one named by $LITERT_NATIVE_LIB) that others may write, or whose
// directory they may write (/tmp), is skipped: anyone could have put it
// there. The error wraps ErrUnavailable and names every path tried and why
// each failed, on one line.
func findLib() (*lib, error) {
	explicit := os.Getenv(LibEnv) != ""
	var tried []string
	for _, p := range LibCandidates() {
		if _, err := os.Stat(p); err != nil {
			tried = append(tried, p+": not found")
			continue
		}
		if !explicit {
			if why := othersMayWrite(p); why != "" {
				tried = append(tried, p+": skipped: "+why)
				continue
			}
		}
		l, err := openLib(p)
		if err == nil {
			return l, nil
		}
		tried = append(tried, strings.TrimSuffix(err.Error(), ": "+ErrUnavailable.Error()))
	}
	if len(tried) == 0 {
		tried = append(tried, "no place to look")
	}
	return nil, fmt.Errorf("native: C kernel library unavailable (%s; build it with `make bin`, which puts it beside bin/litert-go, or set %s): %w",
		strings.Join(tried, "; "), LibEnv, ErrUnavailable)
}

// othersMayWrite says why a library at path could have been written by
// other users: the file or its directory is writable by all. "" if not.
func othersMayWrite(path string) string {
	for _, p := range []string{path, filepath.Dir(path)} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o002 != 0 {
			return p + " is writable by all users"
		}
	}
	return ""
}

// openLib loads the library at path and checks its ABI version and struct
// layouts. The error wraps ErrUnavailable: a stale or foreign library is a
// reason to fall back, not to fail.
func openLib(path string) (*lib, error) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w", path, err, ErrUnavailable)
	}
	l := &lib{path: path, handle: h}
	fail := func(err error) (*lib, error) {
		purego.Dlclose(h)
		return nil, fmt.Errorf("%s: %w: %w", path, err, ErrUnavailable)
	}
	sym := func(name string) uintptr {
		if err != nil {
			return 0
		}
		var p uintptr
		p, err = purego.Dlsym(h, name)
		if err != nil {
			err = fmt.Errorf("symbol %s: %w", name, err)
		}
		return p
	}
	abi := sym("lrt_abi_version")
	structSize := sym("lrt_struct_size")
	isaList := sym("lrt_isa_list")
	l.poolNew, l.poolFree, l.poolISA = sym("lrt_pool_new"), sym("lrt_pool_free"), sym("lrt_pool_isa")
	l.supports, l.matmul = sym("lrt_supports"), sym("lrt_matmul")
	l.matmulIL16, l.poolIL16 = sym("lrt_matmul_il16"), sym("lrt_pool_il16")
	l.matmuls = sym("lrt_matmuls")
	l.rmsnorm, l.rope = sym("lrt_rmsnorm"), sym("lrt_rope")
	l.glu, l.softmax = sym("lrt_glu"), sym("lrt_softmax")
	l.attention = sym("lrt_attention")
	l.eltwise, l.getRows = sym("lrt_eltwise"), sym("lrt_get_rows")
	if err != nil {
		return fail(err)
	}
	// The version symbol exists in every ABI, so this check comes first.
	if v, _, _ := purego.SyscallN(abi); int32(v) != abiVersion {
		return fail(fmt.Errorf("ABI version %d, want %d (rebuild with `make native`)", int32(v), abiVersion))
	}
	for _, s := range []struct {
		id   uintptr
		name string
		size uintptr
	}{
		{2, "lrt_attn_params", unsafe.Sizeof(attnParams{})},
		{3, "lrt_norm_params", unsafe.Sizeof(normParams{})},
		{4, "lrt_elt_params", unsafe.Sizeof(eltParams{})},
		{5, "lrt_product", unsafe.Sizeof(product{})},
	} {
		if n, _, _ := purego.SyscallN(structSize, s.id); int64(n) != int64(s.size) {
			return fail(fmt.Errorf("struct %s is %d bytes in C, %d in Go", s.name, int64(n), s.size))
		}
	}
	for t := range l.types {
		r, _, _ := purego.SyscallN(l.supports, uintptr(t))
		l.types[t] = int32(r) != 0
	}
	var buf [128]byte
	n, _, _ := purego.SyscallN(isaList, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	l.isas = strings.Split(string(buf[:min(int(n), len(buf))]), ",")
	return l, nil
}

// status turns an lrt status code into an error naming the operation.
func status(op string, rc uintptr) error {
	switch int32(rc) {
	case 0:
		return nil
	case -1:
		return fmt.Errorf("native: %s: invalid argument", op)
	case -2:
		return fmt.Errorf("native: %s: unsupported", op)
	case -3:
		return fmt.Errorf("native: %s: out of memory", op)
	}
	return fmt.Errorf("native: %s: status %d", op, int32(rc))
}

// normParams mirrors lrt_norm_params.
type normParams struct {
	eps    float32
	addOne int32
}

// eltParams mirrors lrt_elt_params.
type eltParams struct {
	c float32
}

// attnParams mirrors lrt_attn_params field for field.
type attnParams struct {
	q, k, v, out unsafe.Pointer
	pos0, ntok   int64
	nKV          int64
	nHeads       int32
	nKVHeads     int32
	headDim      int32
	kvType       int32
	kvStride     int64
	scale        float32
	softcap      float32
	window       int32
	causal       int32
	sinks        unsafe.Pointer // [nHeads] float32, or nil
}
