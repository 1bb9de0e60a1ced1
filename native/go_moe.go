package native

import "fmt"

// checkGrouped panics unless ws are weights of one type and shape, groups
// has one count per weight, and x and out hold the sum of the counts rows
// (of Cols and Rows elements).
func checkGrouped(out []float32, ws []Weight, x []float32, groups []int) (rows int) {
	if len(ws) != len(groups) {
		panic(fmt.Sprintf("native: MatMulGrouped of %d weights with %d groups", len(ws), len(groups)))
	}
	for _, n := range groups {
		if n < 0 {
			panic(fmt.Sprintf("native: MatMulGrouped group of %d rows", n))
		}
		rows += n
	}
	if len(ws) == 0 {
		return rows
	}
	w0 := ws[0]
	rs := w0.RowBytes()
	for e, w := range ws {
		if w.Type != w0.Type || w.Rows != w0.Rows || w.Cols != w0.Cols || rs == 0 || len(w.Data) < rs*w.Rows {
			panic(fmt.Sprintf("native: MatMulGrouped weight %d is %d×%d %s (%d bytes), weight 0 %d×%d %s",
				e, w.Rows, w.Cols, w.Type, len(w.Data), w0.Rows, w0.Cols, w0.Type))
		}
	}
	if len(x) < rows*w0.Cols || len(out) < rows*w0.Rows {
		panic(fmt.Sprintf("native: MatMulGrouped %d×%d by %d rows (%d floats) into %d floats",
			w0.Rows, w0.Cols, rows, len(x), len(out)))
	}
	return rows
}

// MatMulGrouped is MatMul for each weight in turn on its group of rows:
// the specification of the grouped product (see Backend.MatMulGrouped).
func (g *Go) MatMulGrouped(out []float32, ws []Weight, x []float32, groups []int) {
	checkGrouped(out, ws, x, groups)
	o := 0
	for e, n := range groups {
		if n == 0 {
			continue
		}
		w := ws[e]
		g.MatMul(out[o*w.Rows:(o+n)*w.Rows], w, x[o*w.Cols:(o+n)*w.Cols], n)
		o += n
	}
}
