package gguf

import (
	"fmt"
	"os"
	"syscall"
)

// Open memory-maps the GGUF file at path and parses its header. Tensor data
// is read from the mapping on demand; Close releases it.
func Open(path string) (*File, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return nil, fmt.Errorf("gguf: %s: %w", path, err)
	}
	if st.IsDir() {
		return nil, fmt.Errorf("gguf: %s is a directory", path)
	}
	size := st.Size()
	if size == 0 {
		return nil, fmt.Errorf("gguf: %s: empty file", path)
	}
	data, err := syscall.Mmap(int(fd.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("gguf: mmap %s: %w", path, err)
	}
	f, err := Parse(data)
	if err != nil {
		_ = syscall.Munmap(data)
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.unmap = func() error { return syscall.Munmap(data) }
	return f, nil
}
