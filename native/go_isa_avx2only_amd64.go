//go:build amd64 && !purego && avx2only

package native

// avx2Only: see go_isa_full_amd64.go.
const avx2Only = true
