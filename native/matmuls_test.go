package native

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/require"
)

// TestMatMulsMatchesMatMul checks MatMuls against MatMul of each product on
// every backend (the Go one and every C kernel set): the same kernels on
// the same rows, so the same bits, for a layer's shapes (Q, K and V of
// different widths; products of different types, as a Q4_K_M file's Q4_K
// Q and Q6_K V; a weight of no rows), row-major and interleaved, decode
// and a batch.
func TestMatMulsMatchesMatMul(t *testing.T) {
	backends := []Backend{NewGo(1), NewGo(3)}
	for _, be := range backends {
		defer be.Close()
	}
	if c, err := LoadCPU(2); err == nil {
		c.Close()
		for _, c := range cpuKernelSets(t, 2) {
			backends = append(backends, c)
		}
	} else {
		t.Logf("C kernels not checked: %v", err)
	}
	r := rand.New(rand.NewPCG(41, 42))
	const cols = 2 * ggml.QKK
	sets := [][]ggml.DType{
		{ggml.F16, ggml.F16, ggml.F16},
		{ggml.Q4_K, ggml.Q4_K, ggml.Q6_K},
		{ggml.Q8_0, ggml.Q4_0},
		{ggml.BF16, ggml.BF16},
		{ggml.F32, ggml.Q5_K, ggml.IQ4_XS},
	}
	for _, types := range sets {
		for _, il := range []bool{false, true} {
			ws := make([]Weight, len(types))
			for i, typ := range types {
				rows := []int{64, 16, 48}[i%3]
				if i == 1 && typ == ggml.Q4_0 {
					rows = 0 // a product of no rows
				}
				ws[i] = randWeight(t, r, typ, rows, cols)
				if il && CanInterleave(ws[i]) {
					var err error
					ws[i], err = Interleave16(ws[i])
					require.NoError(t, err)
				}
			}
			for _, ntok := range []int{1, 3} {
				x := randFloats(r, ntok*cols, 2)
				for _, be := range backends {
					name := fmt.Sprintf("%s t%d %v il=%v %d tokens", be.Name(), be.Threads(), types, il, ntok)
					ps := make([]Product, len(ws))
					want := make([][]float32, len(ws))
					for i, w := range ws {
						want[i] = make([]float32, ntok*w.Rows)
						be.MatMul(want[i], w, x, ntok)
						ps[i] = Product{Out: make([]float32, ntok*w.Rows), W: w}
					}
					// another input through the same weights first, so that
					// activations a scratch buffer keeps are not x's
					other := randFloats(r, ntok*cols, 2)
					for _, w := range ws {
						be.MatMul(make([]float32, ntok*w.Rows), w, other, ntok)
					}
					be.MatMuls(ps, x, ntok)
					for i, p := range ps {
						require.Equal(t, want[i], p.Out, "%s: product %d (%s)", name, i, p.W.Type)
					}
				}
			}
		}
	}
}

// TestMatMulsRefusesWidths checks that weights of different widths, which
// cannot share one input, are a programming error on every backend.
func TestMatMulsRefusesWidths(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	backends := []Backend{NewGo(1)}
	if c, err := LoadCPU(1); err == nil {
		backends = append(backends, c)
	}
	a, b := randWeight(t, r, ggml.F32, 16, 64), randWeight(t, r, ggml.F32, 16, 32)
	x := randFloats(r, 64, 1)
	for _, be := range backends {
		require.Panics(t, func() {
			be.MatMuls([]Product{{make([]float32, 16), a}, {make([]float32, 16), b}}, x, 1)
		}, be.Name())
		be.Close()
	}
}
