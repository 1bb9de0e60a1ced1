//go:build !linux

package gguf

// adviseHugePages does nothing: transparent huge pages are Linux's.
func adviseHugePages([]byte) {}
