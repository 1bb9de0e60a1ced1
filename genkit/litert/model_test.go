package litert

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testdata = "../../../shared/testdata"

var testModelPath string

func TestMain(m *testing.M) {
	code := m.Run()
	if testModelPath != "" {
		os.RemoveAll(filepath.Dir(testModelPath))
	}
	os.Exit(code)
}

// testGenkit defines the synthetic tiny Qwen2.5 (real vocabulary and chat
// template, random weights) as "litert/tiny" on a new Genkit.
func testGenkit(t *testing.T) (*genkit.Genkit, ai.Model) {
	t.Helper()
	vocab := filepath.Join(testdata, "vocab", "ggml-vocab-qwen2.gguf")
	tmpl := filepath.Join(testdata, "templates", "Qwen-Qwen2.5-7B-Instruct.jinja")
	for _, p := range []string{vocab, tmpl} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("test data absent (%v); it lives in ../shared/testdata", err)
		}
	}
	if testModelPath == "" {
		src, err := os.ReadFile(tmpl)
		require.NoError(t, err)
		dir, err := os.MkdirTemp("", "litert-genkit-test")
		require.NoError(t, err)
		testModelPath = filepath.Join(dir, "tiny.gguf")
		require.NoError(t, synth.WriteFile(testModelPath, "tiny-qwen2.5-0.5b", synth.Options{Seed: 1, Type: ggml.F32, VocabFile: vocab, ChatTemplate: string(src)}))
	}
	eng, err := engine.Open(context.Background(), testModelPath, engine.Settings{ContextLength: 2048})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	g := genkit.Init(context.Background())
	m := DefineModel(g, "tiny", eng, &ModelOptions{MaxTokens: 16})
	require.Equal(t, m.Name(), Model(g, "tiny").Name())
	return g, m
}

// WeatherInput is the weather tool's input; the enum keeps the random
// model's forced call short.
type WeatherInput struct {
	City string `json:"city" jsonschema:"enum=Paris,enum=Rome"`
}

func defineWeather(g *genkit.Genkit, calls *[]string, mu *sync.Mutex) ai.Tool {
	return genkit.DefineTool(g, "getWeather", "Gets the weather in a city",
		func(ctx *ai.ToolContext, in WeatherInput) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			*calls = append(*calls, in.City)
			return "sunny in " + in.City, nil
		})
}

// The Genkit automatic tool loop, unchanged, on a local model: the forced
// call runs the tool, the result goes back, the model answers in text.
func TestGenerateToolLoop(t *testing.T) {
	g, m := testGenkit(t)
	var calls []string
	var mu sync.Mutex
	weather := defineWeather(g, &calls, &mu)
	var streamed strings.Builder
	resp, err := genkit.Generate(context.Background(), g,
		ai.WithModel(m),
		ai.WithSystem("You are a weather bot."),
		ai.WithPrompt("What is the weather in Paris?"),
		ai.WithTools(weather),
		ai.WithToolChoice(ai.ToolChoiceRequired),
		ai.WithConfig(&Config{MaxOutputTokens: 64, Temperature: 1, Seed: 3, MaxToolTurns: 1, ParallelToolCalls: new(false)}),
		ai.WithStreaming(func(ctx context.Context, c *ai.ModelResponseChunk) error {
			if c.Role == ai.RoleModel {
				for _, p := range c.Content {
					if p.IsText() {
						streamed.WriteString(p.Text)
					}
				}
			}
			return nil
		}),
	)
	require.NoError(t, err)
	mu.Lock()
	require.Len(t, calls, 1, "the forced call ran the tool once")
	assert.Contains(t, []string{"Paris", "Rome"}, calls[0])
	mu.Unlock()
	hist := resp.History()
	var roles []ai.Role
	for _, msg := range hist {
		roles = append(roles, msg.Role)
	}
	require.Equal(t, []ai.Role{ai.RoleSystem, ai.RoleUser, ai.RoleModel, ai.RoleTool, ai.RoleModel}, roles)
	req := hist[2].Content[0].ToolRequest
	require.NotNil(t, req)
	assert.Equal(t, "getWeather", req.Name)
	assert.Equal(t, map[string]any{"city": calls[0]}, req.Input)
	assert.Equal(t, "sunny in "+calls[0], hist[3].Content[0].ToolResponse.Output)
	assert.Empty(t, resp.ToolRequests(), "after MaxToolTurns rounds the reply is text")
	assert.NotEmpty(t, resp.Text())
	assert.Equal(t, resp.Text(), strings.TrimSpace(streamed.String()))
	require.NotNil(t, resp.Usage)
	assert.Greater(t, resp.Usage.CachedContentTokens, 0, "the second turn continued the first's conversation")
}

// The manual loop: ai.WithReturnToolRequests(true), tool.RunRaw, and the
// response sent back with the history.
func TestGenerateManualToolLoop(t *testing.T) {
	g, m := testGenkit(t)
	var calls []string
	var mu sync.Mutex
	weather := defineWeather(g, &calls, &mu)
	ctx := context.Background()
	cfg := &Config{MaxOutputTokens: 64, Temperature: 1, Seed: 4, MaxToolTurns: 1, ParallelToolCalls: new(false)}
	resp, err := genkit.Generate(ctx, g, ai.WithModel(m), ai.WithPrompt("Weather in Rome?"),
		ai.WithTools(weather), ai.WithToolChoice(ai.ToolChoiceRequired), ai.WithReturnToolRequests(true), ai.WithConfig(cfg))
	require.NoError(t, err)
	reqs := resp.ToolRequests()
	require.Len(t, reqs, 1)
	mu.Lock()
	assert.Empty(t, calls, "nothing ran yet")
	mu.Unlock()
	var parts []*ai.Part
	for _, r := range reqs {
		out, err := weather.RunRaw(ctx, r.Input)
		require.NoError(t, err)
		parts = append(parts, ai.NewToolResponsePart(&ai.ToolResponse{Name: r.Name, Ref: r.Ref, Output: out}))
	}
	history := append(resp.History(), ai.NewMessage(ai.RoleTool, nil, parts...))
	resp, err = genkit.Generate(ctx, g, ai.WithModel(m), ai.WithMessages(history...), ai.WithTools(weather), ai.WithConfig(cfg))
	require.NoError(t, err)
	assert.Empty(t, resp.ToolRequests())
	assert.Len(t, resp.History(), 4)
	mu.Lock()
	assert.Len(t, calls, 1)
	mu.Unlock()
}

// Structured output is constrained natively by the output schema.
func TestGenerateStructured(t *testing.T) {
	g, m := testGenkit(t)
	type Verdict struct {
		Answer string `json:"answer" jsonschema:"enum=yes,enum=no"`
	}
	v, _, err := genkit.GenerateData[Verdict](context.Background(), g, ai.WithModel(m), ai.WithPrompt("Is the sky blue?"),
		ai.WithConfig(&ai.GenerationCommonConfig{MaxOutputTokens: 64}))
	require.NoError(t, err)
	assert.Contains(t, []string{"yes", "no"}, v.Answer)
}

func TestConvertErrors(t *testing.T) {
	_, err := toMessages([]*ai.Message{ai.NewUserMessage(ai.NewMediaPart("image/png", "data:image/png;base64,AAAA"))}, nil)
	assert.ErrorContains(t, err, "unsupported part (media image/png)")
	_, err = toMessages([]*ai.Message{{Role: "robot"}}, nil)
	assert.ErrorContains(t, err, `unknown role "robot"`)
	_, err = toMessages([]*ai.Message{ai.NewMessage(ai.RoleTool, nil, ai.NewTextPart("x"))}, nil)
	assert.ErrorContains(t, err, "want a tool response")
	c, err := configFrom(map[string]any{"temperature": 0.5, "seed": 9})
	require.NoError(t, err)
	assert.Equal(t, Config{Temperature: 0.5, Seed: 9}, c)
	_, err = configFrom(map[string]any{"temperature": "hot"})
	assert.ErrorContains(t, err, "config")
}

// seedWeather is the tool of Genkit's tool-calling documentation, with its
// string input.
func seedWeather(g *genkit.Genkit, calls *[]string, mu *sync.Mutex) ai.Tool {
	return genkit.DefineTool(
		g, "getWeather", "Gets the current weather in a given location",
		func(ctx *ai.ToolContext, location string) (string, error) {
			mu.Lock()
			defer mu.Unlock()
			*calls = append(*calls, location)
			return fmt.Sprintf("The current weather in %s is 63°F and sunny.", location), nil
		})
}

// A string-input tool is declared wrapped in an object, its call comes back
// to Genkit unwrapped, runs, and goes back into the model's history wrapped.
func TestSeedStringInputToolConversion(t *testing.T) {
	g := genkit.Init(context.Background())
	var calls []string
	var mu sync.Mutex
	weather := seedWeather(g, &calls, &mu)
	def := weather.Definition()
	require.Equal(t, map[string]any{"type": "string"}, def.InputSchema, "Genkit's own schema for a string input")

	decls, wrapped, err := toDecls([]*ai.ToolDefinition{def})
	require.NoError(t, err)
	require.Len(t, decls, 1)
	assert.Equal(t, map[string]bool{"getWeather": true}, wrapped)
	assert.Equal(t, `{"type":"object","properties":{"input":{"type":"string"}},"required":["input"]}`, string(decls[0].Parameters))

	// The model's call, as the grammar for the wrapped schema makes it write.
	call := conversation.ToolCall{ID: "call_1", Name: "getWeather", Arguments: json.RawMessage(`{"input": "San Francisco"}`)}
	req := &ai.ModelRequest{Tools: []*ai.ToolDefinition{def}}
	resp, err := toResponse(req, &conversation.Reply{Message: conversation.Message{Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{call}}, FinishReason: conversation.FinishToolCalls}, wrapped)
	require.NoError(t, err)
	assert.Equal(t, ai.FinishReasonStop, resp.FinishReason, "Genkit reads the tool requests of a normally finished reply")
	reqs := resp.ToolRequests()
	require.Len(t, reqs, 1)
	assert.Equal(t, &ai.ToolRequest{Name: "getWeather", Ref: "call_1", Input: "San Francisco"}, reqs[0])

	out, err := weather.RunRaw(context.Background(), reqs[0].Input)
	require.NoError(t, err, "Genkit validates the unwrapped input against the string schema")
	assert.Equal(t, "The current weather in San Francisco is 63°F and sunny.", out)
	assert.Equal(t, []string{"San Francisco"}, calls)

	// The history Genkit sends back holds the unwrapped request; the model
	// sees it wrapped again, as it wrote it.
	history := []*ai.Message{
		ai.NewUserTextMessage("What is the weather in San Francisco?"),
		resp.Message,
		ai.NewMessage(ai.RoleTool, nil, ai.NewToolResponsePart(&ai.ToolResponse{Name: "getWeather", Ref: "call_1", Output: out})),
	}
	msgs, err := toMessages(history, wrapped)
	require.NoError(t, err)
	require.Len(t, msgs, 3)
	require.Len(t, msgs[1].ToolCalls, 1)
	assert.Equal(t, "getWeather", msgs[1].ToolCalls[0].Name)
	assert.JSONEq(t, `{"input":"San Francisco"}`, string(msgs[1].ToolCalls[0].Arguments))
	assert.Equal(t, conversation.RoleTool, msgs[2].Role)

	// A call whose arguments miss the wrapper is an error, not a silent nil.
	_, err = toResponse(req, &conversation.Reply{Message: conversation.Message{ToolCalls: []conversation.ToolCall{{Name: "getWeather", Arguments: json.RawMessage(`{"location":"Paris"}`)}}}}, wrapped)
	assert.ErrorContains(t, err, `tool call "getWeather" arguments`)
}

func TestFinishReasonConversion(t *testing.T) {
	req := &ai.ModelRequest{}
	for reason, want := range map[conversation.FinishReason]ai.FinishReason{
		conversation.FinishStop:      ai.FinishReasonStop,
		conversation.FinishLength:    ai.FinishReasonLength,
		conversation.FinishToolCalls: ai.FinishReasonStop,
		conversation.FinishCancelled: ai.FinishReasonInterrupted,
		"":                           ai.FinishReasonUnknown,
		"content_filter":             ai.FinishReasonOther,
	} {
		resp, err := toResponse(req, &conversation.Reply{Message: conversation.Message{Text: "hi"}, FinishReason: reason}, nil)
		require.NoError(t, err)
		assert.Equal(t, want, resp.FinishReason, "%q", reason)
	}
	// The calls before a truncated one are kept, and the response says
	// the limit cut the reply.
	resp, err := toResponse(req, &conversation.Reply{
		Message:      conversation.Message{ToolCalls: []conversation.ToolCall{{Name: "a", Arguments: json.RawMessage(`{}`)}}},
		FinishReason: conversation.FinishLength,
		Truncated:    &conversation.ToolCall{Name: "b", Arguments: json.RawMessage(`{"x":`)},
	}, nil)
	require.NoError(t, err)
	assert.Equal(t, ai.FinishReasonLength, resp.FinishReason)
	assert.Len(t, resp.ToolRequests(), 1)
	assert.Contains(t, resp.FinishMessage, `"b"`)
}

// The Genkit seed example, unchanged, on the tiny trained tool-calling
// model: the string-input tool is called (through the wrapper) and run by
// Genkit's own loop, and the model answers the result.
func TestGenerateSeedStringInputTool(t *testing.T) {
	path := filepath.Join(testdata, "models", "litert-demo-tools-q8_0.gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("test data absent (%v); it lives in ../shared/testdata", err)
	}
	eng, err := engine.Open(context.Background(), path, engine.Settings{ContextLength: 2048})
	require.NoError(t, err)
	t.Cleanup(func() { eng.Close() })
	g := genkit.Init(context.Background())
	m := DefineModel(g, "demo", eng, &ModelOptions{MaxTokens: 64})
	var calls []string
	var mu sync.Mutex
	weather := seedWeather(g, &calls, &mu)
	resp, err := genkit.Generate(context.Background(), g,
		ai.WithModel(m),
		ai.WithPrompt("What is the weather in San Francisco?"),
		ai.WithTools(weather),
		ai.WithToolChoice(ai.ToolChoiceRequired),
		ai.WithConfig(&Config{MaxToolTurns: 1}),
	)
	require.NoError(t, err)
	mu.Lock()
	require.Len(t, calls, 1, "the tool ran once with a string input")
	assert.NotEmpty(t, calls[0])
	mu.Unlock()
	hist := resp.History()
	require.GreaterOrEqual(t, len(hist), 4)
	req := hist[1].Content[0].ToolRequest
	require.NotNil(t, req)
	assert.Equal(t, calls[0], req.Input, "Genkit's history holds the bare string")
	assert.Equal(t, ai.RoleTool, hist[2].Role)
	assert.Empty(t, resp.ToolRequests())
	assert.NotEmpty(t, resp.Text())
}
