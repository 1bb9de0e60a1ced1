package native

import (
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// ssmSyms are the entry points of csrc/ssm.c, looked up on first use; a
// library without them (built before they existed) leaves them 0 and the
// operations run on the Go fallback.
type ssmSyms struct {
	once               sync.Once
	conv, delta, gnorm uintptr
}

// deltaParams mirrors lrt_delta_params of csrc/ssm.c.
type deltaParams struct {
	out, q, k, v, gate, beta, state unsafe.Pointer
	nk, nv, dim, ntok               int64
	eps                             float32
	_                               int32
}

// ssmSyms resolves the symbols once. The delta-rule entry point is used
// only if the library's struct layout matches deltaParams.
func (c *CPU) ssmSyms() *ssmSyms {
	s := &c.ssm
	s.once.Do(func() {
		sym := func(name string) uintptr {
			p, err := purego.Dlsym(c.lib.handle, name)
			if err != nil {
				return 0
			}
			return p
		}
		s.conv, s.gnorm = sym("lrt_causal_conv"), sym("lrt_gated_rmsnorm")
		if size := sym("lrt_delta_params_size"); size != 0 {
			if n, _, _ := purego.SyscallN(size); int64(n) == int64(unsafe.Sizeof(deltaParams{})) {
				s.delta = sym("lrt_delta_net")
			}
		}
	})
	return s
}

// CausalConv runs the causal depthwise convolution of csrc/ssm.c (see
// Go.CausalConv).
func (c *CPU) CausalConv(out, x, state, w []float32, channels, kernel, nTokens int) {
	checkConv(out, x, state, w, channels, kernel, nTokens)
	fn := c.ssmSyms().conv
	if fn == 0 {
		c.fallback.CausalConv(out, x, state, w, channels, kernel, nTokens)
		return
	}
	if nTokens == 0 {
		return
	}
	rc, _, _ := purego.SyscallN(fn, c.pool, uintptr(unsafe.Pointer(&out[0])), uintptr(unsafe.Pointer(&x[0])),
		uintptr(unsafe.Pointer(&state[0])), uintptr(unsafe.Pointer(&w[0])), uintptr(channels), uintptr(kernel),
		uintptr(nTokens))
	must("CausalConv", rc)
}

// DeltaNet runs the gated delta rule of csrc/ssm.c (see Go.DeltaNet).
func (c *CPU) DeltaNet(out, q, k, v, gate, beta, state []float32, d DeltaNet, nTokens int) {
	d.check(out, q, k, v, gate, beta, state, nTokens)
	fn := c.ssmSyms().delta
	if fn == 0 {
		c.fallback.DeltaNet(out, q, k, v, gate, beta, state, d, nTokens)
		return
	}
	if nTokens == 0 {
		return
	}
	prm := &deltaParams{
		out: unsafe.Pointer(&out[0]), q: unsafe.Pointer(&q[0]), k: unsafe.Pointer(&k[0]), v: unsafe.Pointer(&v[0]),
		gate: unsafe.Pointer(&gate[0]), beta: unsafe.Pointer(&beta[0]), state: unsafe.Pointer(&state[0]),
		nk: int64(d.NKHeads), nv: int64(d.NVHeads), dim: int64(d.HeadDim), ntok: int64(nTokens), eps: d.Eps,
	}
	rc, _, _ := purego.SyscallN(fn, c.pool, uintptr(unsafe.Pointer(prm)))
	must("DeltaNet", rc)
}

// GatedRMSNorm runs RMSNorm(x)·weight·silu(gate) in csrc/ssm.c (see
// Go.GatedRMSNorm).
func (c *CPU) GatedRMSNorm(out, x, gate, weight []float32, eps float32) {
	fn := c.ssmSyms().gnorm
	n := len(weight)
	if fn == 0 || n == 0 || len(x)%n != 0 || len(out) < len(x) || len(gate) < len(x) {
		c.fallback.GatedRMSNorm(out, x, gate, weight, eps) // panics on bad shapes
		return
	}
	if len(x) == 0 {
		return
	}
	prm := &normParams{eps: eps}
	rc, _, _ := purego.SyscallN(fn, c.pool, uintptr(unsafe.Pointer(&out[0])), uintptr(unsafe.Pointer(&x[0])),
		uintptr(unsafe.Pointer(&gate[0])), uintptr(unsafe.Pointer(&weight[0])), uintptr(n), uintptr(len(x)/n),
		uintptr(unsafe.Pointer(prm)))
	must("GatedRMSNorm", rc)
}
