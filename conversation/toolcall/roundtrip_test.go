package toolcall

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/template"
)

const templatesDir = "../../../shared/testdata/templates"

// testTemplate is one chat template of the test data with its tokens.
type testTemplate struct {
	Name     string  `json:"template"`
	BOS      *string `json:"bos_token"`
	EOS      *string `json:"eos_token"`
	Parses   bool    `json:"parses"`
	Family   string  `json:"family"`
	template *template.Template
}

// loadTemplates parses every template of the test data.
func loadTemplates(t testing.TB) []testTemplate {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(templatesDir, "templates.json"))
	if os.IsNotExist(err) {
		t.Skipf("chat templates absent: %s", templatesDir)
	}
	require.NoError(t, err)
	var list []testTemplate
	require.NoError(t, json.Unmarshal(data, &list))
	var out []testTemplate
	for _, tt := range list {
		if !tt.Parses {
			continue
		}
		src, err := os.ReadFile(filepath.Join(templatesDir, tt.Name))
		require.NoError(t, err)
		tt.template, err = template.Parse(string(src))
		require.NoError(t, err, tt.Name)
		out = append(out, tt)
	}
	return out
}

func (tt testTemplate) base() Request { return Request{BOS: tt.BOS, EOS: tt.EOS} }

// richCalls are the acceptance test's calls: (a) one call, (b) three
// parallel calls with unicode, quotes, backslashes, integers, booleans,
// arrays and a nested object.
func richCalls() [][]Call {
	return [][]Call{
		{{ID: "call00001", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Zürich 東京 😀", "days": 3}`)}},
		{
			{ID: "call00001", Name: "get_weather", Arguments: json.RawMessage(`{"city": "São Paulo \"SP\" \\ 東京", "days": 10}`)},
			{ID: "call00002", Name: "search_docs", Arguments: json.RawMessage(`{"query": "emoji 😀 and \"quotes\"", "limit": -2, "exact": false, "tags": ["a", "b c"], "filter": {"lang": "en", "since": {"year": 2024}}}`)},
			{ID: "call00003", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Oslo", "days": 0}`)},
		},
	}
}

func richTools() []json.RawMessage {
	return []json.RawMessage{
		json.RawMessage(`{"type":"function","function":{"name":"get_weather","description":"Get the weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string","description":"city"},"days":{"type":"integer","description":"days"}},"required":["city"]}}}`),
		json.RawMessage(`{"type":"function","function":{"name":"search_docs","description":"Search the documentation","parameters":{"type":"object","properties":{"query":{"type":"string","description":"terms"},"limit":{"type":"integer","description":"most"},"exact":{"type":"boolean","description":"exact"},"tags":{"type":"array","items":{"type":"string"},"description":"tags"},"filter":{"type":"object","description":"filter","properties":{"lang":{"type":"string"},"since":{"type":"object","properties":{"year":{"type":"integer"}}}}}},"required":["query"]}}}`),
	}
}

// renderCalls renders an assistant turn holding calls after a user
// message and returns its part.
func renderCalls(tt testTemplate, calls []Call) (string, error) {
	base := tt.base()
	base.Tools = richTools()
	base.Messages = []json.RawMessage{json.RawMessage(`{"role":"user","content":"Weather in Zürich, and search the docs."}`)}
	return RenderCalls(context.Background(), tt.template, base, "", calls)
}

// brokenParallel lists templates whose render of parallel calls no model
// could have written; for them only the one-call round trip is checked.
var brokenParallel = map[string]string{
	"deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja": "the template writes the second and later calls after <｜end▁of▁sentence｜>",
}

// TestRoundTripAllTemplates is the acceptance property: for every template
// that renders tool calls, the detected format parses the template's own
// render of one call and of three parallel calls back to the same calls.
func TestRoundTripAllTemplates(t *testing.T) {
	var passed, total int
	var noCalls, failed []string
	for _, tt := range loadTemplates(t) {
		d := Detect(context.Background(), tt.template, tt.base())
		if !d.RendersCalls {
			noCalls = append(noCalls, tt.Name)
			continue
		}
		total++
		ok := true
		for i, calls := range richCalls() {
			if i > 0 && brokenParallel[tt.Name] != "" {
				t.Logf("%s: parallel calls not checked: %s", tt.Name, brokenParallel[tt.Name])
				continue
			}
			part, err := renderCalls(tt, calls)
			if err != nil || !strings.Contains(part, calls[0].Name) {
				if i == 0 {
					ok = false
					t.Errorf("%s: one call does not render: %v", tt.Name, err)
				}
				continue // parallel calls refused by the template
			}
			got, err := d.Format.Parse(part)
			if err != nil || !SameCalls(got.Calls, calls) {
				ok = false
				t.Errorf("%s (%s): %d call(s) do not round-trip: err=%v\npart: %q\ngot: %+v", tt.Name, d.Format.Name(), len(calls), err, part, got.Calls)
			}
		}
		if ok {
			passed++
		}
		if !ok || !d.Exact {
			failed = append(failed, tt.Name+" → "+d.Format.Name())
		}
	}
	sort.Strings(failed)
	t.Logf("round trip %d/%d templates that render tool calls; failed: %v", passed, total, failed)
	t.Logf("templates that render no tool calls (%d): %v", len(noCalls), noCalls)
	assert.Equal(t, total, passed)
}

// TestDetectFamilies checks that the most common families are detected
// without an override.
func TestDetectFamilies(t *testing.T) {
	want := map[string]string{
		"meta-llama-Llama-3.2-3B-Instruct.jinja": "llama3",
		"meta-llama-Llama-3.1-8B-Instruct.jinja": "llama3",
		"Qwen-Qwen2.5-7B-Instruct.jinja":         "hermes",
		"Qwen-Qwen3-0.6B.jinja":                  "hermes",
	}
	for _, tt := range loadTemplates(t) {
		name, ok := want[tt.Name]
		if !ok {
			continue
		}
		d := Detect(context.Background(), tt.template, tt.base())
		assert.True(t, d.Exact, tt.Name)
		assert.Equal(t, name, d.Format.Name(), tt.Name)
	}
}

func TestDetectThinking(t *testing.T) {
	for _, tt := range loadTemplates(t) {
		if tt.Name != "Qwen-Qwen3-0.6B.jinja" {
			continue
		}
		d := Detect(context.Background(), tt.template, tt.base())
		assert.Equal(t, Thinking{Open: "<think>", Close: "</think>"}, d.Thinking)
		return
	}
	t.Skip("Qwen3 template absent")
}
