package native

import (
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// moeSyms is the entry point of csrc/moe.c, looked up on first use; a
// library without it (built before it existed) leaves it 0 and
// MatMulGrouped runs a MatMul per group.
type moeSyms struct {
	once    sync.Once
	grouped uintptr
}

// groupedSym resolves lrt_matmul_grouped once.
func (c *CPU) groupedSym() uintptr {
	s := &c.moe
	s.once.Do(func() {
		if p, err := purego.Dlsym(c.lib.handle, "lrt_matmul_grouped"); err == nil {
			s.grouped = p
		}
	})
	return s.grouped
}

// groupedStack is the number of non-empty groups whose pointers and counts
// live on the stack: a decode step's chosen experts.
const groupedStack = 16

// MatMulGrouped runs every group's product in one call of csrc/moe.c, the
// pool's threads sharing the (expert, row chunk) pairs (see
// Backend.MatMulGrouped).
func (c *CPU) MatMulGrouped(out []float32, ws []Weight, x []float32, groups []int) {
	rows := checkGrouped(out, ws, x, groups)
	if len(ws) == 0 || rows == 0 {
		return
	}
	w0 := ws[0]
	fn := c.groupedSym()
	if fn == 0 || !c.nativeType(w0.Type) || w0.Rows == 0 || w0.Cols == 0 || unsafe.Sizeof(int(0)) != 8 {
		o := 0
		for e, n := range groups {
			c.MatMul(out[o*w0.Rows:(o+n)*w0.Rows], ws[e], x[o*w0.Cols:(o+n)*w0.Cols], n)
			o += n
		}
		return
	}
	// the non-empty groups only, in order: C reads their weights' data
	var pbuf [groupedStack]unsafe.Pointer
	var nbuf [groupedStack]int64
	ptrs, counts := pbuf[:0], nbuf[:0]
	for e, n := range groups {
		if n == 0 {
			continue
		}
		p := unsafe.Pointer(&ws[e].Data[0])
		ptrs, counts = append(ptrs, p), append(counts, int64(n))
	}
	rc, _, _ := purego.SyscallN(fn, c.pool, uintptr(w0.Type), uintptr(unsafe.Pointer(&ptrs[0])),
		uintptr(unsafe.Pointer(&counts[0])), uintptr(len(ptrs)), uintptr(w0.Rows), uintptr(w0.Cols),
		uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&out[0])))
	// the heap does not move; the arrays and weights must outlive the call
	runtime.KeepAlive(ptrs)
	runtime.KeepAlive(counts)
	runtime.KeepAlive(ws)
	must("MatMulGrouped", rc)
}
