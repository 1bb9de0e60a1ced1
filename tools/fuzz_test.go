package tools

import (
	"context"
	"encoding/json"
	"testing"
)

// FuzzRunRaw feeds arbitrary argument bytes to a tool with a rich input
// type: validation must never panic, errors must be argument errors, and
// accepted arguments must decode and re-encode cleanly.
func FuzzRunRaw(f *testing.F) {
	for _, seed := range []string{
		`{"location":"x"}`, `{}`, `null`, `[]`, `{"location":"x","count":1e400}`,
		`{"location":"x","small":-129}`, `{"location":"x","unsigned":1.0e2}`, `{"location":"x","quoted":"9223372036854775808"}`,
		`{"location":"x","items":[{"name":"a"},{"name":null}]}`, `{"location":"x","by_id":{"-1":"a"}}`,
		`{"location":"x","when":"2024-01-01T00:00:00+01:00"}`, `{"location":"x","pair":["a","b","c"]}`,
	} {
		f.Add([]byte(seed))
	}
	tool := Define("echo", "", echo)
	f.Fuzz(func(t *testing.T, args []byte) {
		out, err := tool.RunRaw(context.Background(), args)
		if err != nil {
			if !IsArgumentError(err) {
				t.Fatalf("non-argument error for %q: %v", args, err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid output %q", out)
		}
	})
}
