package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files")

type weatherInput struct {
	Location string `json:"location" description:"City name, e.g. Paris"`
	Unit     string `json:"unit,omitempty" enum:"celsius,fahrenheit" description:"Temperature unit"`
	Days     int    `json:"days,omitempty" description:"Forecast length in days"`
}

type address struct {
	Street string `json:"street"`
	Zip    string `json:"zip,omitempty"`
}

type Base struct {
	ID      string `json:"id" description:"Record id"`
	Created time.Time
}

type complexInput struct {
	Base
	Name      string             `json:"name"`
	Tags      []string           `json:"tags,omitempty" enum:"red,green"`
	Scores    map[string]float64 `json:"scores,omitempty"`
	Home      address            `json:"home"`
	Work      *address           `json:"work,omitempty"`
	Visits    []address          `json:"visits"`
	When      time.Time          `json:"when" description:"Appointment time"`
	Ratio     float32            `json:"ratio"`
	Count     uint8              `json:"count"`
	Level     int                `json:"level" enum:"1,2,3"`
	Blob      []byte             `json:"blob,omitempty"`
	Extra     any                `json:"extra,omitempty" description:"Anything"`
	Raw       json.RawMessage    `json:"raw,omitzero"`
	Pair      [2]int             `json:"pair"`
	ByID      map[int]string     `json:"by_id,omitempty"`
	Quoted    int64              `json:"quoted,string"`
	Flag      bool               `json:"flag"`
	Skipped   string             `json:"-"`
	unexposed string
	Untagged  string
}

type emptyInput struct{}

func goldenCompare(t *testing.T, name string, got []byte) {
	t.Helper()
	var pretty bytes.Buffer
	require.NoError(t, json.Indent(&pretty, got, "", "  "))
	pretty.WriteByte('\n')
	path := filepath.Join("testdata", name+".golden.json")
	if *update {
		require.NoError(t, os.WriteFile(path, pretty.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing; run go test -run %s -update", t.Name())
	assert.Equal(t, string(want), pretty.String())
}

func noop[In any](context.Context, In) (string, error) { return "", nil }

func TestSchemaGolden(t *testing.T) {
	cases := map[string]*Tool{
		"weather": Define("get_weather", "weather", noop[weatherInput]),
		"complex": Define("complex", "complex", noop[complexInput]),
		"empty":   Define("empty", "no arguments", noop[emptyInput]),
		"pointer": Define("pointer", "pointer input", noop[*address]),
		"string":  Define("string", "bare string input", noop[string]),
		"slice":   Define("slice", "bare slice input", noop[[]int]),
	}
	for name, tool := range cases {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, tool.Err())
			schema := tool.Schema()
			require.True(t, json.Valid(schema), "%s", schema)
			goldenCompare(t, "schema_"+name, schema)
		})
	}
}

func TestSchemaWeatherExact(t *testing.T) {
	tool := Define("get_weather", "weather", noop[weatherInput])
	assert.Equal(t,
		`{"type":"object","properties":{"location":{"type":"string","description":"City name, e.g. Paris"},`+
			`"unit":{"type":"string","description":"Temperature unit","enum":["celsius","fahrenheit"]},`+
			`"days":{"type":"integer","description":"Forecast length in days"}},"required":["location"],"additionalProperties":false}`,
		string(tool.Schema()))
}

func TestSchemaStable(t *testing.T) {
	first := Define("c", "", noop[complexInput]).Schema()
	for range 20 {
		assert.Equal(t, first, Define("c", "", noop[complexInput]).Schema())
	}
}

type recursive struct {
	Name     string       `json:"name"`
	Children []*recursive `json:"children"`
}

type badEnum struct {
	N int `json:"n" enum:"1,two"`
}

type ambiguousA struct{ X string }
type ambiguousB struct{ X string }
type ambiguous struct {
	ambiguousA
	ambiguousB
}

func TestDefineErrors(t *testing.T) {
	cases := []struct {
		tool *Tool
		want string
	}{
		{Define("chan", "", noop[struct{ C chan int }]), "unsupported type chan int"},
		{Define("fn", "", noop[struct{ F func() }]), "unsupported type func()"},
		{Define("rec", "", noop[recursive]), "recursive type"},
		{Define("enum", "", noop[badEnum]), `enum value "two"`},
		{Define("amb", "", noop[ambiguous]), `ambiguous JSON field name "X"`},
		{Define("bad name!", "", noop[weatherInput]), "name must be"},
		{Define[weatherInput, string]("nilfn", "", nil), "nil function"},
		{Define("boolenum", "", noop[struct {
			B bool `enum:"true"`
		}]), "enum tag is only allowed"},
	}
	for _, c := range cases {
		require.Error(t, c.tool.Err(), c.tool.Name())
		assert.Contains(t, c.tool.Err().Error(), c.want)
		_, err := c.tool.RunRaw(context.Background(), json.RawMessage(`{}`))
		assert.ErrorIs(t, err, c.tool.Err())
		_, err = NewSet(c.tool)
		assert.Error(t, err)
	}
}

type Shadow struct {
	Name  string `json:"name" description:"inner"`
	Inner int    `json:"inner"`
}

type shadowing struct {
	Shadow
	Name string `json:"name" description:"outer"`
}

func TestEmbeddedShadowing(t *testing.T) {
	tool := Define("s", "", noop[shadowing])
	require.NoError(t, tool.Err())
	assert.Equal(t,
		`{"type":"object","properties":{"inner":{"type":"integer"},"name":{"type":"string","description":"outer"}},"required":["inner","name"],"additionalProperties":false}`,
		string(tool.Schema()))
}
