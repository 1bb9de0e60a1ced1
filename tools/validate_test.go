package tools

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type countInput struct {
	Location string            `json:"location"`
	Count    int               `json:"count,omitempty"`
	Small    int8              `json:"small,omitempty"`
	Unsigned uint16            `json:"unsigned,omitempty"`
	Unit     string            `json:"unit,omitempty" enum:"celsius,fahrenheit"`
	Level    int               `json:"level,omitempty" enum:"1,2,3"`
	Opts     *options          `json:"opts,omitempty"`
	Items    []item            `json:"items,omitempty"`
	Labels   map[string]int    `json:"labels,omitempty"`
	When     time.Time         `json:"when,omitzero"`
	Pair     [2]string         `json:"pair,omitzero"`
	Quoted   int               `json:"quoted,omitempty,string"`
	Blob     []byte            `json:"blob,omitempty"`
	ByID     map[uint]string   `json:"by_id,omitempty"`
	Any      any               `json:"any,omitempty"`
	Flags    map[string][]bool `json:"flags,omitempty"`
}

type options struct {
	MaxAge float64 `json:"max_age"`
}

type item struct {
	Name string `json:"name"`
}

func echo(_ context.Context, in countInput) (countInput, error) { return in, nil }

func TestArgumentErrorsNameTheField(t *testing.T) {
	tool := Define("echo", "", echo)
	require.NoError(t, tool.Err())
	cases := []struct {
		args string
		want string
	}{
		{`{}`, `argument "location": missing required field`},
		{`{"location":"x","count":"5"}`, `argument "count": want integer, got string`},
		{`{"location":"x","count":1.5}`, `argument "count": want integer, got number`},
		{`{"location":"x","count":true}`, `argument "count": want integer, got boolean`},
		{`{"location":"x","small":300}`, `argument "small": integer 300 is out of range for 8 bits`},
		{`{"location":"x","unsigned":-1}`, `argument "unsigned": want non-negative integer, got -1`},
		{`{"location":"x","unit":"kelvin"}`, `argument "unit": "kelvin" is not one of "celsius", "fahrenheit"`},
		{`{"location":"x","level":7}`, `argument "level": 7 is not one of 1, 2, 3`},
		{`{"location":"x","extra":1}`, `argument "extra": unknown field; known fields: location, count, small`},
		{`{"location":"x","opts":{}}`, `argument "opts.max_age": missing required field`},
		{`{"location":"x","opts":{"max_age":"old"}}`, `argument "opts.max_age": want number, got string`},
		{`{"location":"x","opts":[]}`, `argument "opts": want object, got array`},
		{`{"location":"x","items":[{"name":"a"},{}]}`, `argument "items[1].name": missing required field`},
		{`{"location":"x","items":{"name":"a"}}`, `argument "items": want array, got object`},
		{`{"location":"x","labels":{"a":1,"b":"2"}}`, `argument "labels[\"b\"]": want integer, got string`},
		{`{"location":"x","when":"tomorrow"}`, `argument "when": want date-time string (RFC 3339`},
		{`{"location":"x","pair":["a"]}`, `argument "pair": want exactly 2 items, got 1`},
		{`{"location":"x","quoted":5}`, `argument "quoted": want string, got integer`},
		{`{"location":"x","quoted":"five"}`, `argument "quoted": want integer in a string, got "five"`},
		{`{"location":"x","blob":"***"}`, `argument "blob": want base64 string`},
		{`{"location":"x","by_id":{"x":"y"}}`, `argument "by_id[\"x\"]": map key must be an integer`},
		{`{"location":"x","flags":{"a":[true,1]}}`, `argument "flags[\"a\"][1]": want boolean, got integer`},
		{`{"location":null}`, `argument "location": want string, got null`},
		{`[1,2]`, `arguments: want object, got array`},
		{`"x"`, `arguments: want object, got string`},
		{`{"location":`, `arguments: invalid JSON`},
		{`{"location":"x"} {}`, `arguments: invalid JSON: unexpected data`},
	}
	for _, c := range cases {
		t.Run(c.args, func(t *testing.T) {
			_, err := tool.RunRaw(context.Background(), json.RawMessage(c.args))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.Contains(t, err.Error(), `tool "echo": `)
			assert.True(t, IsArgumentError(err))
			var ae *ArgumentError
			require.ErrorAs(t, err, &ae)
		})
	}
}

func TestArgumentErrorsAllReported(t *testing.T) {
	tool := Define("echo", "", echo)
	_, err := tool.RunRaw(context.Background(), json.RawMessage(`{"count":"x","unit":"k","zzz":1}`))
	require.Error(t, err)
	var errs ArgumentErrors
	require.ErrorAs(t, err, &errs)
	require.Len(t, errs, 4)
	assert.Equal(t, "location", errs[0].Path)
	assert.Equal(t, "count", errs[1].Path)
	assert.Equal(t, "unit", errs[2].Path)
	assert.Equal(t, "zzz", errs[3].Path)
}

func TestArgumentNormalization(t *testing.T) {
	tool := Define("echo", "", echo)
	out, err := tool.RunRaw(context.Background(), json.RawMessage(
		`{"location":"Paris","count":2.0,"unsigned":1e3,"unit":null,"opts":null,"quoted":"7","level":3,`+
			`"when":"2024-05-01T10:00:00Z","pair":["a","b"],"blob":"aGk=","by_id":{"4":"four"},"any":{"k":[1]}}`))
	require.NoError(t, err)
	var got countInput
	require.NoError(t, json.Unmarshal(out, &got))
	assert.Equal(t, "Paris", got.Location)
	assert.Equal(t, 2, got.Count)
	assert.Equal(t, uint16(1000), got.Unsigned)
	assert.Equal(t, "", got.Unit)
	assert.Nil(t, got.Opts)
	assert.Equal(t, 7, got.Quoted)
	assert.Equal(t, 3, got.Level)
	assert.Equal(t, time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), got.When)
	assert.Equal(t, [2]string{"a", "b"}, got.Pair)
	assert.Equal(t, []byte("hi"), got.Blob)
	assert.Equal(t, map[uint]string{4: "four"}, got.ByID)
	assert.Equal(t, map[string]any{"k": []any{1.0}}, got.Any)
}

func TestEmptyArgumentsMeanEmptyObject(t *testing.T) {
	tool := Define("noargs", "", func(_ context.Context, _ struct{}) (string, error) { return "ok", nil })
	for _, args := range []string{``, `null`, `{}`, "  \n"} {
		out, err := tool.RunRaw(context.Background(), json.RawMessage(args))
		require.NoError(t, err, "%q", args)
		assert.JSONEq(t, `"ok"`, string(out))
	}
	_, err := tool.RunRaw(context.Background(), json.RawMessage(`{"x":1}`))
	assert.ErrorContains(t, err, `argument "x": unknown field; no fields are accepted`)
}

func TestToolErrorIsNotArgumentError(t *testing.T) {
	boom := errors.New("boom")
	tool := Define("fail", "", func(_ context.Context, _ struct{}) (int, error) { return 0, boom })
	_, err := tool.RunRaw(context.Background(), nil)
	require.ErrorIs(t, err, boom)
	assert.False(t, IsArgumentError(err))
	assert.Equal(t, `tool "fail": boom`, err.Error())
}
