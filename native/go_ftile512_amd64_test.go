//go:build amd64 && !purego

package native

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDotF32r4x4 checks the AVX-512 float tile against float64 sums, for
// lengths with and without a tail, and that a row repeated (wstride 0)
// gives bit for bit the sum it gets inside a tile of 4 distinct rows.
func TestDotF32r4x4(t *testing.T) {
	if !haveAVX512 {
		t.Skip("no AVX-512 on this CPU")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 15, 16, 17, 48, 100, 576, 1536} {
		w := randFloats(r, 4*n, 1)
		x := randFloats(r, 4*n, 1)
		var o [16]float32
		dotF32r4x4(w, n, x, n, n, &o)
		for row := range 4 {
			for tok := range 4 {
				var want float64
				for k := range n {
					want += float64(w[row*n+k]) * float64(x[tok*n+k])
				}
				require.InDelta(t, want, float64(o[4*row+tok]), 1e-5*math.Sqrt(float64(n))+1e-6, "n=%d row %d token %d", n, row, tok)
			}
			var one [16]float32
			dotF32r4x4(w[row*n:(row+1)*n], 0, x, n, n, &one)
			for tok := range 4 {
				require.Equal(t, o[4*row+tok], one[tok], "n=%d row %d token %d: a repeated row differs from the tile", n, row, tok)
			}
		}
	}
}

// TestNoLegacySSE scans the package's assembly for non-VEX SSE
// instructions on vector registers. Inside an AVX kernel (upper YMM state
// dirty) each one costs a state transition on Intel cores: one MOVQ to an
// XMM register made the Q4_K decode kernel 36x slower on Sapphire Rapids.
// The only legacy form allowed stores the result after VZEROUPPER.
func TestNoLegacySSE(t *testing.T) {
	files, err := filepath.Glob("*.s")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	vreg := regexp.MustCompile(`\b[XYZ]([0-9]|[12][0-9]|3[01])\b`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, line := range strings.Split(string(src), "\n") {
			line, _, _ = strings.Cut(line, "//")
			for _, ins := range strings.Split(line, ";") {
				ins = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(ins), `\`))
				if ins == "" || strings.HasPrefix(ins, "#") {
					continue
				}
				fields := strings.Fields(ins)
				op, args := fields[0], strings.Join(fields[1:], " ")
				if strings.Contains(op, "(") {
					continue // a macro, checked where it is defined
				}
				if strings.HasPrefix(op, "V") || !vreg.MatchString(args) || strings.Contains(args, "ret+") {
					continue
				}
				t.Errorf("%s:%d: legacy SSE instruction %q on a vector register (use its VEX form)", f, i+1, ins)
			}
		}
	}
}
