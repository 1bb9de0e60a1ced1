package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type weatherOutput struct {
	Location    string  `json:"location"`
	Temperature float64 `json:"temperature"`
	Unit        string  `json:"unit"`
}

func weatherTool() *Tool {
	return Define("get_weather", "Current weather for a city",
		func(_ context.Context, in weatherInput) (weatherOutput, error) {
			unit := in.Unit
			if unit == "" {
				unit = "celsius"
			}
			return weatherOutput{Location: in.Location, Temperature: 21.5, Unit: unit}, nil
		})
}

func TestRunRawRoundTrip(t *testing.T) {
	tool := weatherTool()
	require.NoError(t, tool.Err())
	assert.Equal(t, "get_weather", tool.Name())
	assert.Equal(t, "Current weather for a city", tool.Description())
	out, err := tool.RunRaw(context.Background(), json.RawMessage(`{"location":"Paris","unit":"fahrenheit"}`))
	require.NoError(t, err)
	assert.JSONEq(t, `{"location":"Paris","temperature":21.5,"unit":"fahrenheit"}`, string(out))
}

func TestStringResultStaysJSONString(t *testing.T) {
	tool := Define("greet", "", func(_ context.Context, in struct {
		Name string `json:"name"`
	}) (string, error) {
		return "hello \"" + in.Name + "\"\n", nil
	})
	out, err := tool.RunRaw(context.Background(), json.RawMessage(`{"name":"Ana"}`))
	require.NoError(t, err)
	assert.Equal(t, `"hello \"Ana\"\n"`, string(out))
	var s string
	require.NoError(t, json.Unmarshal(out, &s))
	assert.Equal(t, "hello \"Ana\"\n", s)
}

func TestRawMessageResultPassesThrough(t *testing.T) {
	tool := Define("raw", "", func(_ context.Context, _ struct{}) (json.RawMessage, error) {
		return json.RawMessage(`{"a": [1, 2]}`), nil
	})
	out, err := tool.RunRaw(context.Background(), nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":[1,2]}`, string(out))
}

func TestUnencodableResult(t *testing.T) {
	tool := Define("bad", "", func(_ context.Context, _ struct{}) (chan int, error) { return nil, nil })
	_, err := tool.RunRaw(context.Background(), nil)
	assert.ErrorContains(t, err, `tool "bad": encoding result`)
}

func TestPanicRecovered(t *testing.T) {
	tool := Define("panics", "", func(_ context.Context, in struct {
		N int `json:"n"`
	}) (int, error) {
		var m map[string]int
		if in.N > 0 {
			m["x"] = 1 // nil map write
		}
		panic(fmt.Sprintf("n=%d", in.N))
	})
	_, err := tool.RunRaw(context.Background(), json.RawMessage(`{"n":0}`))
	require.Error(t, err)
	assert.Equal(t, `tool "panics": panic: n=0`, err.Error())
	var pe *PanicError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, string(pe.Stack), "TestPanicRecovered")

	_, err = tool.RunRaw(context.Background(), json.RawMessage(`{"n":1}`))
	require.ErrorAs(t, err, &pe)
	assert.ErrorContains(t, err, "assignment to entry in nil map")
	var rtErr interface{ RuntimeError() }
	assert.True(t, errors.As(err, &rtErr), "runtime error is reachable via Unwrap")
}

func TestCanceledContext(t *testing.T) {
	called := false
	tool := Define("t", "", func(_ context.Context, _ struct{}) (int, error) { called = true; return 1, nil })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := tool.RunRaw(ctx, nil)
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, called)
}

func TestContextReachesTool(t *testing.T) {
	type key struct{}
	tool := Define("ctx", "", func(ctx context.Context, _ struct{}) (string, error) {
		return ctx.Value(key{}).(string), nil
	})
	out, err := tool.RunRaw(context.WithValue(context.Background(), key{}, "v"), nil)
	require.NoError(t, err)
	assert.Equal(t, `"v"`, string(out))
}

func TestConcurrentRunRaw(t *testing.T) {
	type in struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	add := Define("add", "", func(_ context.Context, x in) (int, error) { return x.A + x.B, nil })
	set, err := NewSet(add, weatherTool())
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Go(func() {
			for i := range 200 {
				out, err := set.RunRaw(context.Background(), "add", json.RawMessage(fmt.Sprintf(`{"a":%d,"b":%d}`, g, i)))
				if err != nil {
					errs <- err
					return
				}
				if string(out) != fmt.Sprint(g+i) {
					errs <- fmt.Errorf("got %s want %d", out, g+i)
					return
				}
				if _, err := set.RunRaw(context.Background(), "add", json.RawMessage(`{"a":"x"}`)); err == nil {
					errs <- errors.New("bad args accepted")
					return
				}
				_ = add.Schema()
				_ = set.Names()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestSet(t *testing.T) {
	w := weatherTool()
	greet := Define("greet", "Say hello", noop[struct{}])
	set, err := NewSet(w, greet)
	require.NoError(t, err)
	assert.Equal(t, 2, set.Len())
	assert.Equal(t, []string{"get_weather", "greet"}, set.Names())
	assert.Equal(t, []*Tool{w, greet}, set.Tools())

	got, err := set.Lookup("greet")
	require.NoError(t, err)
	assert.Same(t, greet, got)

	_, err = set.Lookup("x")
	require.ErrorIs(t, err, ErrUnknownTool)
	assert.EqualError(t, err, `tool "x" is not defined; defined tools: get_weather, greet`)
	_, err = set.RunRaw(context.Background(), "x", nil)
	assert.ErrorIs(t, err, ErrUnknownTool)

	assert.ErrorContains(t, set.Add(Define("greet", "", noop[struct{}])), `tool "greet" is already defined`)
	assert.ErrorContains(t, set.Add(nil), "nil tool")
	dup := Define("dup", "", noop[struct{}])
	assert.Error(t, set.Add(dup, dup))
	assert.Equal(t, 2, set.Len(), "failed Add adds nothing")

	var empty Set
	_, err = empty.Lookup("x")
	assert.EqualError(t, err, `tool "x" is not defined; no tools are defined`)
	require.NoError(t, empty.Add(greet))
	assert.Equal(t, 1, empty.Len())
}

func TestDeclarations(t *testing.T) {
	greet := Define("greet", "Say \"hello\"", noop[struct {
		Name string `json:"name"`
	}])
	assert.Equal(t,
		`{"type":"function","function":{"name":"greet","description":"Say \"hello\"","parameters":`+
			`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}}}`,
		string(greet.Declaration()))
	set, err := NewSet(greet, weatherTool())
	require.NoError(t, err)
	var decls []map[string]any
	require.NoError(t, json.Unmarshal(set.Declarations(), &decls))
	require.Len(t, decls, 2)
	assert.Equal(t, "get_weather", decls[1]["function"].(map[string]any)["name"])
	assert.JSONEq(t, string(greet.Parameters()), string(greet.Schema()))
}

func TestSchemaIsACopy(t *testing.T) {
	tool := weatherTool()
	s := tool.Schema()
	s[0] = 'X'
	assert.Equal(t, byte('{'), tool.Schema()[0])
}
