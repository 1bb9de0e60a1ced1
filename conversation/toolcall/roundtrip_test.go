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

// loadTemplates parses every template of the test data.
func loadTemplates(t testing.TB) []testTemplate {
	t.Helper()
	list, err := readTemplateList()
	if os.IsNotExist(err) {
		t.Skipf("chat templates absent: %s", testTemplateDir)
	}
	require.NoError(t, err)
	var out []testTemplate
	for _, tt := range list {
		if !tt.Parses {
			continue
		}
		src, err := os.ReadFile(filepath.Join(testTemplateDir, tt.Name))
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
			part = d.AsGenerated(part)
			if err != nil || !strings.Contains(part, calls[0].Name) {
				if i == 0 {
					ok = false
					t.Errorf("%s: one call does not render: %v", tt.Name, err)
				}
				continue // parallel calls refused by the template
			}
			if !strings.Contains(part, calls[1%len(calls)].Name) {
				t.Logf("%s: renders only the first of parallel calls", tt.Name)
				continue
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

// TestDetectFamilies checks that every family is detected, without an
// override, from its own template.
func TestDetectFamilies(t *testing.T) {
	want := map[string]string{
		"Apertus-8B-Instruct.jinja":                           "apertus",
		"Apriel-1.6-15b-Thinker-fixed.jinja":                  "apriel",
		"unsloth-Apriel-1.5.jinja":                            "apriel",
		"Bielik-11B-v3.0-Instruct.jinja":                      "hermes",
		"ByteDance-Seed-OSS.jinja":                            "seed-oss",
		"Cohere2MoE.jinja":                                    "command-r7b",
		"CohereForAI-c4ai-command-r-plus-tool_use.jinja":      "command-r",
		"CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja": "command-r7b",
		"GLM-4.6.jinja":                                       "glm",
		"GLM-4.7-Flash.jinja":                                 "glm",
		"GigaChat3-10B-A1.8B.jinja":                           "gigachat3",
		"GigaChat3.1-10B-A1.8B.jinja":                         "gigachat3.1",
		"Kimi-K3.jinja":                                       "kimi-k3",
		"LFM2.5-8B-A1B.jinja":                                 "lfm2",
		"MiMo-VL.jinja":                                       "hermes",
		"MiniMax-M1.jinja":                                    "minimax-m1",
		"MiniMax-M2.jinja":                                    "minimax-m2",
		"MiniMax-M3.jinja":                                    "minimax-m3",
		"Mistral-Small-3.2-24B-Instruct-2506.jinja":           "mistral",
		"mistralai-Ministral-3-14B-Reasoning-2512.jinja":      "mistral",
		"unsloth-mistral-Devstral-Small-2507.jinja":           "mistral",
		"mistralai-Mistral-Nemo-Instruct-2407.jinja":          "mistral-v3",
		"NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja":           "qwen3-coder",
		"NVIDIA-Nemotron-Nano-v2.jinja":                       "nemotron-v2",
		"NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja": "hermes",
		"NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja":   "hermes",
		"Qwen-QwQ-32B.jinja":                                  "hermes",
		"Qwen-Qwen2.5-7B-Instruct.jinja":                      "hermes",
		"Qwen-Qwen3-0.6B.jinja":                               "hermes",
		"Qwen3-Coder.jinja":                                   "qwen3-coder",
		"Qwen3.5-4B.jinja":                                    "qwen3-coder",
		"StepFun3.5-Flash.jinja":                              "qwen3-coder",
		"Reka-Edge.jinja":                                     "hermes",
		"deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja":      "deepseek-r1",
		"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja":      "deepseek-r1",
		"deepseek-ai-DeepSeek-V3.1.jinja":                     "deepseek-v3.1",
		"deepseek-ai-DeepSeek-V3.2.jinja":                     "dsml",
		"deepseek-ai-DeepSeek-V4-Flash-0731.jinja":            "dsml-v4",
		"deepseek-ai-DeepSeek-V4.jinja":                       "dsml-v4",
		"google-gemma-4-31B-it-interleaved.jinja":             "gemma4",
		"google-gemma-4-31B-it.jinja":                         "gemma4",
		"ibm-granite-granite-4.0.jinja":                       "hermes",
		"ibm-granite-granite-4.1.jinja":                       "hermes",
		"meetkai-functionary-medium-v3.1.jinja":               "functionary-v3.1",
		"meetkai-functionary-medium-v3.2.jinja":               "functionary-v3.2",
		"meta-llama-Llama-3.1-8B-Instruct.jinja":              "llama3",
		"meta-llama-Llama-3.2-3B-Instruct.jinja":              "llama3",
		"meta-llama-Llama-3.3-70B-Instruct.jinja":             "llama3",
		"moonshotai-Kimi-K2.jinja":                            "kimi-k2",
		"muse-glimmer.jinja":                                  "muse",
		"openai-gpt-oss-120b.jinja":                           "harmony",
		"openbmb-MiniCPM5-1B.jinja":                           "minicpm5",
		"poolside-Laguna-S-2.1.jinja":                         "glm",
		"poolside-Laguna-XS-2.1.jinja":                        "glm",
		"poolside-Laguna-XS.2.jinja":                          "glm",
		"tencent-Hy3.jinja":                                   "hy3",
		"upstage-Solar-Open-100B.jinja":                       "solar-open",
	}
	seen := 0
	for _, tt := range loadTemplates(t) {
		name, ok := want[tt.Name]
		if !ok {
			continue
		}
		seen++
		d := Detect(context.Background(), tt.template, tt.base())
		assert.True(t, d.Exact, tt.Name)
		assert.Equal(t, name, d.Format.Name(), tt.Name)
	}
	assert.Equal(t, len(want), seen)
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
