//go:build !linux

package hugepage

// advise does nothing: transparent huge pages are Linux's.
func advise([]byte) {}
