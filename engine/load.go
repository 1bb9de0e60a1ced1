package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/litert-go/litert-go/models/gguf"
)

// Load says how Open holds a model file's weights in memory.
type Load int

const (
	// LoadAuto reads the weights into private memory (LoadRead) for the
	// CPU backends on Linux when the file takes at most half the memory
	// the kernel reports available, and maps the file otherwise (or when
	// the read runs out of memory).
	LoadAuto Load = iota
	// LoadMmap memory-maps the file (gguf.Open): the fastest open, pages
	// shared with the page cache and other processes, and decode that
	// streams the weights through 4 KB pages.
	LoadMmap
	// LoadRead reads the file into private memory backed by transparent
	// huge pages (gguf.ReadPrivate): a copy of the file in resident memory,
	// and CPU decode up to 1.35× faster (README, Performance).
	LoadRead
)

// String returns the load mode as the CLI spells it.
func (l Load) String() string {
	switch l {
	case LoadAuto:
		return "auto"
	case LoadMmap:
		return "mmap"
	case LoadRead:
		return "read"
	}
	return fmt.Sprintf("Load(%d)", int(l))
}

// ParseLoad parses "auto", "mmap" or "read".
func ParseLoad(s string) (Load, error) {
	for l := LoadAuto; l <= LoadRead; l++ {
		if l.String() == s {
			return l, nil
		}
	}
	return 0, fmt.Errorf("engine: unknown load mode %q (want auto, mmap or read)", s)
}

// openFile opens the model file as mode says (LoadAuto decided for the
// backend kind) and returns the mode it used.
func openFile(ctx context.Context, path string, mode Load, kind Backend) (*gguf.File, Load, error) {
	return openWith(ctx, path, mode, kind, gguf.ReadPrivate)
}

// openWith is openFile with the private read as a parameter (a test
// injects one that runs out of memory). LoadAuto that chose to read falls
// back to mapping the file when the read runs out of memory: MemAvailable
// counts caches the kernel may not give back as huge pages, or a cgroup
// limit may be lower. An explicit LoadRead returns the error, with the
// way out.
func openWith(ctx context.Context, path string, mode Load, kind Backend,
	read func(context.Context, string) (*gguf.File, error)) (*gguf.File, Load, error) {
	auto := mode == LoadAuto
	if auto {
		mode = LoadMmap
		if st, err := os.Stat(path); err == nil && kind != GPU && runtime.GOOS == "linux" {
			if avail, ok := availableMemory(); ok && st.Size() <= avail/2 {
				mode = LoadRead
			}
		}
	}
	switch mode {
	case LoadMmap:
		f, err := gguf.Open(path)
		return f, mode, err
	case LoadRead:
		f, err := read(ctx, path)
		if errors.Is(err, syscall.ENOMEM) {
			if auto {
				f, err := gguf.Open(path)
				return f, LoadMmap, err
			}
			err = fmt.Errorf("%w (Settings.Load = LoadMmap, --load mmap, maps the file instead of copying it)", err)
		}
		return f, mode, err
	}
	return nil, mode, fmt.Errorf("engine: unknown load mode %v", mode)
}

// availableMemory returns MemAvailable of /proc/meminfo in bytes: memory
// the kernel can give without swapping (free plus reclaimable caches).
func availableMemory() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		return kb << 10, err == nil
	}
	return 0, false
}
