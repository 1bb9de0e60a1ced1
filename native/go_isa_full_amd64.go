//go:build amd64 && !purego && !avx2only

package native

// avx2Only caps the Go kernels at the AVX2 set when true: build with
// -tags avx2only (go_isa_avx2only_amd64.go) to run and measure on an
// AVX-512 CPU the code an AVX2-only CPU runs. Go picks its kernels once, at
// init, so this is a build choice, where the C library's set is a runtime
// one (engine.Settings.CPUKernels).
const avx2Only = false
