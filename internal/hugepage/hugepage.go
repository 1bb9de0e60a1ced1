// Package hugepage allocates memory meant to be streamed by the CPU
// kernels: anonymous, outside the Go heap, aligned to 2 MB and, on Linux,
// advised for transparent huge pages (MADV_HUGEPAGE), so a pass over it
// takes a TLB entry per 2 MB instead of per 4 KB page. Model weights read
// into memory (gguf.ReadPrivate) and the bandwidth probe their decode
// speed is measured against (native.MeasureReadBandwidth) both use it.
package hugepage

import (
	"fmt"
	"syscall"
	"unsafe"
)

// Size is the transparent huge page size Alloc aligns to (x86-64, and
// arm64 with 4 KB base pages).
const Size = 2 << 20

// Alloc returns n zeroed bytes of memory as the package comment says, and
// the function that releases them.
func Alloc(n int) ([]byte, func() error, error) {
	if n <= 0 {
		return nil, nil, fmt.Errorf("hugepage: %d bytes", n)
	}
	mem, err := syscall.Mmap(-1, 0, n+Size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, nil, fmt.Errorf("hugepage: %d bytes: %w", n, err)
	}
	// start at a huge-page boundary, so every 2 MB can be one page
	off := 0
	if a := Addr(mem) % Size; a != 0 {
		off = int(Size - a)
	}
	b := mem[off : off+n]
	advise(b)
	return b, func() error { return syscall.Munmap(mem) }, nil
}

// Addr is the address of b's first byte.
func Addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
