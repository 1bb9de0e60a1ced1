package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bars reads the bars of a chart back: panel, row, who and value, and the
// drawn width.
type bar struct {
	panel, row int
	who        string
	value      float64
	width      float64
}

func barsOf(t *testing.T, svg []byte) []bar {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var out []bar
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the SVG is well-formed XML")
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "rect" {
			continue
		}
		a := map[string]string{}
		for _, at := range se.Attr {
			a[at.Name.Local] = at.Value
		}
		if a["class"] != "bar" {
			continue
		}
		var b bar
		b.panel, _ = strconv.Atoi(a["data-panel"])
		b.row, _ = strconv.Atoi(a["data-row"])
		b.who = a["data-who"]
		b.value, _ = strconv.ParseFloat(a["data-value"], 64)
		b.width, _ = strconv.ParseFloat(a["width"], 64)
		out = append(out, b)
	}
	return out
}

// TestREADMEChart draws the README's measured table and checks every bar
// against its number; the committed bench/chart.svg, which the README
// shows, must be exactly that drawing.
func TestREADMEChart(t *testing.T) {
	f, err := os.Open("../../README.md")
	require.NoError(t, err)
	defer f.Close()
	tab, err := parse(f)
	require.NoError(t, err)
	require.Len(t, tab.rows, 20)
	assert.Equal(t, row{model: "smollm2-135m", typ: "f16", threads: "1", pp: 511.6, llamaPP: 293.2, tg: 49.3, llamaTG: 22.8}, tab.rows[0])
	assert.Equal(t, "pp512", tab.ppName)
	assert.Equal(t, "tg128", tab.tgName)

	var buf bytes.Buffer
	require.NoError(t, tab.svg(&buf))
	bars := barsOf(t, buf.Bytes())
	require.Len(t, bars, 4*len(tab.rows), "two panels, litert-go and llama.cpp in each")
	maxOf := [2]float64{}
	for _, r := range tab.rows {
		maxOf[0] = max(maxOf[0], r.pp, r.llamaPP)
		maxOf[1] = max(maxOf[1], r.tg, r.llamaTG)
	}
	for _, b := range bars {
		r := tab.rows[b.row]
		want := map[[2]any]float64{{0, "litert-go"}: r.pp, {0, "llama.cpp"}: r.llamaPP, {1, "litert-go"}: r.tg, {1, "llama.cpp"}: r.llamaTG}[[2]any{b.panel, b.who}]
		assert.Equal(t, want, b.value, "row %d panel %d %s", b.row, b.panel, b.who)
		assert.InDelta(t, want/maxOf[b.panel]*barMaxW, b.width, 0.051, "bar length is proportional to its number")
	}

	committed, err := os.ReadFile("../chart.svg")
	require.NoError(t, err)
	assert.True(t, bytes.Equal(buf.Bytes(), committed),
		"bench/chart.svg is not the README's table: regenerate it with go run ./bench/chart -o bench/chart.svg < README.md")
}

// TestParseRunOutput reads run.sh's table without llama.cpp columns, and
// refuses what is not a speed.
func TestParseRunOutput(t *testing.T) {
	out := `| model | type | threads | backend | pp64 | tg16 | decode after pp64 | % of bandwidth bound | load ms | peak RSS MB |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
| smollm2-135m | q8_0 | 2 | cpu-avx2 | 512.3 | 101.0 | 90.1 | 55 | 14 | 200 |
| qwen2.5-0.5b | q4_k_m | 2 | go | 200.5 | 40.2 | 38.0 | 50 | 60 | 470 |
`
	tab, err := parse(strings.NewReader(out))
	require.NoError(t, err)
	require.Len(t, tab.rows, 2)
	assert.Equal(t, row{model: "qwen2.5-0.5b", typ: "q4_k_m", threads: "2", pureGo: true, pp: 200.5, tg: 40.2}, tab.rows[1])
	var buf bytes.Buffer
	require.NoError(t, tab.svg(&buf))
	bars := barsOf(t, buf.Bytes())
	assert.Len(t, bars, 4, "litert-go bars only")
	assert.NotContains(t, buf.String(), "llama.cpp")
	assert.Contains(t, buf.String(), "prefill pp64")
	assert.Contains(t, buf.String(), "qwen2.5-0.5b q4_k_m, 2 threads, pure Go", "the Go backend's rows say so")
	assert.Contains(t, buf.String(), "smollm2-135m q8_0, 2 threads<", "the C backend's rows name no backend")

	_, err = parse(strings.NewReader(strings.Replace(out, "512.3", "fast", 1)))
	assert.EqualError(t, err, `line 3: column 5: "fast" is not a speed`)
	_, err = parse(strings.NewReader("no table here\n"))
	assert.ErrorContains(t, err, "no results table")
}
