package tools

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWrapSchema(t *testing.T) {
	wrapped := map[string]string{
		"string":       `{"type":"string"}`,
		"number":       `{"type":"number","minimum":0}`,
		"array":        `{"type":"array","items":{"type":"integer"}}`,
		"nullable":     `{"type":["string","null"]}`,
		"enum":         `{"enum":["a","b"]}`,
		"typeless":     `{"items":{"type":"string"}}`,
		"anyOf scalar": `{"anyOf":[{"type":"object"},{"type":"string"}]}`,
		"ref scalar":   `{"$ref":"#/$defs/City","$defs":{"City":{"type":"string"}}}`,
	}
	for name, schema := range wrapped {
		t.Run(name, func(t *testing.T) {
			got, ok := WrapSchema(json.RawMessage(schema))
			require.True(t, ok)
			require.True(t, json.Valid(got), "%s", got)
			var w struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			require.NoError(t, json.Unmarshal(got, &w))
			assert.Equal(t, "object", w.Type)
			assert.Equal(t, []string{"input"}, w.Required)
			require.Contains(t, w.Properties, "input")
			assert.Len(t, w.Properties, 1)
		})
	}

	got, ok := WrapSchema(json.RawMessage(`{"type":"string","description":"City"}`))
	require.True(t, ok)
	assert.Equal(t, `{"type":"object","properties":{"input":{"type":"string","description":"City"}},"required":["input"]}`, string(got),
		"the inner schema keeps its key order")

	got, ok = WrapSchema(json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"#/$defs/C","$defs":{"C":{"type":"string"}}}`))
	require.True(t, ok)
	assert.Equal(t, `{"type":"object","properties":{"input":{"$ref":"#/$defs/C"}},"required":["input"],`+
		`"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"C":{"type":"string"}}}`, string(got),
		"$defs move to the root, where the reference resolves")

	unchanged := []string{
		``, `null`, `true`, `{}`, `{"description":"anything"}`,
		`{"type":"object","properties":{"city":{"type":"string"}}}`,
		`{"type":["object","null"]}`,
		`{"properties":{"a":{}}}`,
		`{"additionalProperties":{"type":"string"}}`,
		`{"anyOf":[{"type":"object"},{"properties":{}}]}`,
		`{"allOf":[{"type":"object"},{"minLength":1}]}`,
		`{"$ref":"#/$defs/P","$defs":{"P":{"type":"object"}}}`,
		`{"$ref":"https://example.com/remote.json"}`,
		`{"enum":[{"a":1}]}`,
		`not json`,
	}
	for _, schema := range unchanged {
		got, ok := WrapSchema(json.RawMessage(schema))
		assert.False(t, ok, "%s", schema)
		assert.Equal(t, schema, string(got))
	}
}

func TestUnwrapArguments(t *testing.T) {
	v, err := UnwrapArguments(json.RawMessage(` {"input": "Paris"} `))
	require.NoError(t, err)
	assert.Equal(t, `"Paris"`, string(v))

	v, err = UnwrapArguments(json.RawMessage(`[1,2]`))
	require.NoError(t, err)
	assert.Equal(t, `[1,2]`, string(v), "a bare value passes through")

	_, err = UnwrapArguments(json.RawMessage(`{"location":"Paris"}`))
	var ae *ArgumentError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "input", ae.Path)
	assert.Equal(t, "missing", ae.Problem)

	_, err = UnwrapArguments(json.RawMessage(`{"input":1,"extra":2}`))
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "extra", ae.Path)

	_, err = UnwrapArguments(json.RawMessage(`{"input":`))
	assert.ErrorContains(t, err, "invalid JSON")
	_, err = UnwrapArguments(nil)
	assert.ErrorContains(t, err, "missing")

	assert.Equal(t, `{"input":"Paris"}`, string(WrapArguments(json.RawMessage(` "Paris" `))))
	v, err = UnwrapArguments(WrapArguments(json.RawMessage(`{"nested":true}`)))
	require.NoError(t, err)
	assert.Equal(t, `{"nested":true}`, string(v), "an object value round-trips")
}

// Define wraps a non-object input for the model and hands the function the
// bare value.
func TestDefineWrapsNonObjectInput(t *testing.T) {
	var got string
	weather := Define("getWeather", "Gets the current weather in a given location",
		func(ctx context.Context, location string) (string, error) {
			got = location
			return "63°F and sunny in " + location, nil
		})
	require.NoError(t, weather.Err())
	assert.Equal(t, `{"type":"object","properties":{"input":{"type":"string"}},"required":["input"]}`, string(weather.Schema()))
	assert.Contains(t, string(weather.Declaration()), `"parameters":{"type":"object","properties":{"input":{"type":"string"}}`)

	out, err := weather.RunRaw(context.Background(), json.RawMessage(`{"input":"Paris"}`))
	require.NoError(t, err)
	assert.Equal(t, "Paris", got)
	assert.Equal(t, `"63°F and sunny in Paris"`, string(out))

	_, err = weather.RunRaw(context.Background(), json.RawMessage(`"Rome"`))
	require.NoError(t, err, "a model that wrote the bare value is understood")
	assert.Equal(t, "Rome", got)

	_, err = weather.RunRaw(context.Background(), json.RawMessage(`{"input":3}`))
	require.Error(t, err)
	assert.True(t, IsArgumentError(err))
	assert.Contains(t, err.Error(), `argument "input"`)

	_, err = weather.RunRaw(context.Background(), json.RawMessage(`{"location":"Paris"}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `argument "input": missing`)

	sum := Define("sum", "adds numbers", func(ctx context.Context, xs []int) (int, error) {
		n := 0
		for _, x := range xs {
			n += x
		}
		return n, nil
	})
	out, err = sum.RunRaw(context.Background(), json.RawMessage(`{"input":[1,2,3]}`))
	require.NoError(t, err)
	assert.Equal(t, "6", string(out))

	// Structs and maps stay as they are.
	type in struct {
		City string `json:"city"`
	}
	assert.JSONEq(t, `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`,
		string(Define("s", "", noop[in]).Schema()))
	assert.JSONEq(t, `{"type":"object","additionalProperties":{"type":"integer"}}`,
		string(Define("m", "", noop[map[string]int]).Schema()))
}

func TestWithParameters(t *testing.T) {
	type in struct {
		Path string `json:"path"`
	}
	var got string
	tool := Define("read", "reads", func(ctx context.Context, x in) (string, error) { got = x.Path; return "ok", nil })
	narrow, err := tool.WithParameters(json.RawMessage(`{"type": "object",
		"properties": {"path": {"enum": ["a.txt"]}}, "required": ["path"]}`))
	require.NoError(t, err)
	assert.Equal(t, `{"type":"object","properties":{"path":{"enum":["a.txt"]}},"required":["path"]}`, string(narrow.Parameters()))
	assert.Equal(t, "read", narrow.Name())
	assert.NotEqual(t, tool.Schema(), narrow.Schema(), "the original is unchanged")
	_, err = narrow.RunRaw(context.Background(), json.RawMessage(`{"path":"a.txt"}`))
	require.NoError(t, err)
	assert.Equal(t, "a.txt", got)
	_, err = narrow.RunRaw(context.Background(), json.RawMessage(`{"path":1}`))
	assert.True(t, IsArgumentError(err), "arguments are still checked against the Go type")

	_, err = tool.WithParameters(json.RawMessage(`[1]`))
	assert.ErrorContains(t, err, "want a JSON Schema object")
	_, err = Define[in, string]("bad name!", "", nil).WithParameters(json.RawMessage(`{}`))
	assert.Error(t, err)
}
