// Command chart draws the Markdown table that bench/run.sh prints (make
// bench) as an SVG bar chart: prefill and decode tokens/s of litert-go and,
// when the table has them, llama.cpp, per model, type and thread count.
//
//	go run ./bench/chart -o chart.svg < results.md
//
// The SVG is written by hand, with no dependency, and is deterministic: the
// same table gives the same bytes.
package main

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// row is one line of the results table.
type row struct {
	model, typ, threads string
	pureGo              bool    // the backend column says "go"
	pp, tg              float64 // litert-go tokens/s
	llamaPP, llamaTG    float64 // llama.cpp tokens/s, 0 when absent
}

// table is the parsed results: the rows and the prompt and generation
// lengths the column names carry (pp512, tg128).
type table struct {
	rows   []row
	ppName string // such as "pp512"
	tgName string // such as "tg128"
}

// parse reads the first Markdown table whose header names model, type,
// threads, ppN and tgN columns; llama.cpp columns are optional. Other lines
// are skipped, so a whole README can be read.
func parse(r io.Reader) (*table, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var cols map[string]int
	t := &table{}
	line := 0
	for sc.Scan() {
		line++
		cells, ok := cellsOf(sc.Text())
		if !ok {
			if cols != nil {
				break // the table ended
			}
			continue
		}
		if cols == nil {
			c := map[string]int{}
			for i, name := range cells {
				switch {
				case strings.HasPrefix(name, "llama.cpp pp"):
					c["llamaPP"] = i
				case strings.HasPrefix(name, "llama.cpp tg"):
					c["llamaTG"] = i
				case strings.HasPrefix(name, "pp") && isDigits(name[2:]):
					c["pp"], t.ppName = i, name
				case strings.HasPrefix(name, "tg") && isDigits(name[2:]):
					c["tg"], t.tgName = i, name
				default:
					c[name] = i
				}
			}
			_, m := c["model"]
			_, ty := c["type"]
			_, th := c["threads"]
			_, pp := c["pp"]
			_, tg := c["tg"]
			if m && ty && th && pp && tg {
				cols = c
			}
			continue
		}
		if strings.Trim(strings.Join(cells, ""), "-: ") == "" {
			continue // the separator line
		}
		get := func(name string) (float64, error) {
			i, ok := cols[name]
			if !ok || i >= len(cells) || cells[i] == "-" || cells[i] == "" {
				return 0, nil
			}
			v, err := strconv.ParseFloat(cells[i], 64)
			if err != nil || v < 0 {
				return 0, fmt.Errorf("line %d: column %d: %q is not a speed", line, i+1, cells[i])
			}
			return v, nil
		}
		cell := func(name string) string {
			if i := cols[name]; i < len(cells) {
				return cells[i]
			}
			return ""
		}
		rw := row{model: cell("model"), typ: cell("type"), threads: cell("threads"), pureGo: cell("backend") == "go"}
		var err error
		for _, f := range []struct {
			name string
			dst  *float64
		}{{"pp", &rw.pp}, {"tg", &rw.tg}, {"llamaPP", &rw.llamaPP}, {"llamaTG", &rw.llamaTG}} {
			if *f.dst, err = get(f.name); err != nil {
				return nil, err
			}
		}
		t.rows = append(t.rows, rw)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(t.rows) == 0 {
		return nil, errors.New("no results table (model | type | threads | ppN | tgN …) with rows")
	}
	return t, nil
}

// cellsOf splits a Markdown table line into trimmed cells.
func cellsOf(line string) ([]string, bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
		return nil, false
	}
	parts := strings.Split(line[1:len(line)-1], "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts, true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Layout, in pixels.
const (
	labelW  = 230 // the row labels
	barMaxW = 280 // the longest bar of a panel
	valueW  = 56  // the number after a bar
	gapW    = 24  // between the panels
	barH    = 9
	rowH    = 2*barH + 8
	topH    = 64 // title and panel headings
	legendH = 34
)

// Colours: litert-go, llama.cpp.
const (
	oursColour  = "#2563eb"
	llamaColour = "#9ca3af"
)

// svg writes the chart of t.
func (t *table) svg(w io.Writer) error {
	hasLlama := false
	for _, r := range t.rows {
		hasLlama = hasLlama || r.llamaPP > 0 || r.llamaTG > 0
	}
	panelW := barMaxW + valueW
	width := labelW + 2*panelW + gapW + 8
	height := topH + len(t.rows)*rowH + legendH
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="-apple-system,Segoe UI,Helvetica,Arial,sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	title := "litert-go tokens/s"
	if hasLlama {
		title = "litert-go vs llama.cpp, tokens/s"
	}
	fmt.Fprintf(&b, `<text x="8" y="20" font-size="15" font-weight="bold">%s (longer is faster)</text>`+"\n", esc(title))
	panels := []struct {
		name       string
		ours, them func(row) float64
	}{
		{"prefill " + t.ppName, func(r row) float64 { return r.pp }, func(r row) float64 { return r.llamaPP }},
		{"decode " + t.tgName, func(r row) float64 { return r.tg }, func(r row) float64 { return r.llamaTG }},
	}
	for p, pn := range panels {
		x0 := labelW + p*(panelW+gapW)
		maxV := 0.0
		for _, r := range t.rows {
			maxV = max(maxV, pn.ours(r), pn.them(r))
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-weight="bold">%s</text>`+"\n", x0, topH-14, esc(pn.name))
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#d1d5db"/>`+"\n", x0, topH-6, x0, topH+len(t.rows)*rowH)
		for i, r := range t.rows {
			y := topH + i*rowH
			bar := func(v float64, dy int, colour, who string) {
				if v <= 0 {
					return
				}
				bw := v / max(maxV, 1e-9) * barMaxW
				fmt.Fprintf(&b, `<rect class="bar" data-panel="%d" data-row="%d" data-who="%s" data-value="%.1f" x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %.1f tokens/s</title></rect>`+"\n",
					p, i, who, v, x0, y+dy, bw, barH, colour, esc(who+" "+pn.name+", "+label(r)), v)
				fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10" fill="#374151">%.0f</text>`+"\n", float64(x0)+bw+4, y+dy+barH-1, v)
			}
			bar(pn.ours(r), 0, oursColour, "litert-go")
			bar(pn.them(r), barH+1, llamaColour, "llama.cpp")
		}
	}
	for i, r := range t.rows {
		y := topH + i*rowH + barH + 4
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", labelW-8, y, esc(label(r)))
		if i > 0 && r.model != t.rows[i-1].model {
			fmt.Fprintf(&b, `<line x1="8" y1="%d" x2="%d" y2="%d" stroke="#e5e7eb"/>`+"\n", topH+i*rowH-3, width-8, topH+i*rowH-3)
		}
	}
	ly := topH + len(t.rows)*rowH + 16
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="10" fill="%s"/><text x="%d" y="%d">litert-go</text>`+"\n", labelW, ly, oursColour, labelW+16, ly+9)
	if hasLlama {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="10" fill="%s"/><text x="%d" y="%d">llama.cpp (llama-bench, same files and threads)</text>`+"\n", labelW+100, ly, llamaColour, labelW+116, ly+9)
	}
	b.WriteString("</svg>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// label names a row: "qwen2.5-0.5b q4_k_m, 2 threads", with ", pure Go"
// for the Go backend's rows.
func label(r row) string {
	th := r.threads + " threads"
	if r.threads == "1" {
		th = "1 thread"
	}
	if r.pureGo {
		th += ", pure Go"
	}
	return r.model + " " + r.typ + ", " + th
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func main() {
	out := flag.String("o", "", "SVG `file` to write (default: standard output)")
	flag.Parse()
	if err := run(os.Stdin, *out); err != nil {
		fmt.Fprintln(os.Stderr, "chart:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out string) error {
	t, err := parse(in)
	if err != nil {
		return err
	}
	if out == "" {
		return t.svg(os.Stdout)
	}
	var b bytes.Buffer
	if err := t.svg(&b); err != nil {
		return err
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}
