package litert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core/api"
	"github.com/firebase/genkit/go/genkit"
	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/session"
)

// Provider is the namespace of the models this plugin defines:
// "litert/NAME".
const Provider = "litert"

// ModelOptions configure a model defined with DefineModel. The zero value
// is usable.
type ModelOptions struct {
	// Label is the model's display name (default "litert-go NAME").
	Label string
	// Sampler is the default sampler; a request's Config overrides its
	// fields. The zero value is greedy decoding.
	Sampler session.Sampler
	// MaxTokens caps each reply when the request does not
	// (default conversation.DefaultMaxTokens).
	MaxTokens int
	// ToolFormat names the tool-call syntax ("" detects it from the chat
	// template).
	ToolFormat string
	// Conversations is how many idle conversations (each with its own KV
	// cache) are kept for reuse (default 2).
	Conversations int
}

// Config is the per-request configuration, passed with ai.WithConfig. A
// *ai.GenerationCommonConfig (or its JSON) is accepted too. Zero fields
// keep the model's defaults.
type Config struct {
	MaxOutputTokens int      `json:"maxOutputTokens,omitempty"`
	StopSequences   []string `json:"stopSequences,omitempty"`
	Temperature     float64  `json:"temperature,omitempty"`
	TopK            int      `json:"topK,omitempty"`
	TopP            float64  `json:"topP,omitempty"`
	MinP            float64  `json:"minP,omitempty"`
	Seed            uint64   `json:"seed,omitempty"`
	// MaxToolTurns forces a text reply once the request holds this many
	// rounds of tool results after its last user message (0: no limit
	// besides Genkit's own max turns).
	MaxToolTurns int `json:"maxToolTurns,omitempty"`
	// ParallelToolCalls, when set to false, allows one tool call per reply.
	ParallelToolCalls *bool `json:"parallelToolCalls,omitempty"`
}

// DefineModel registers eng with g as the model "litert/NAME" and returns
// it. The engine must stay open while g may use the model.
func DefineModel(g *genkit.Genkit, name string, eng *engine.Engine, opts *ModelOptions) ai.Model {
	m := newModel(eng, opts)
	label := "litert-go " + name
	if opts != nil && opts.Label != "" {
		label = opts.Label
	}
	return genkit.DefineModel(g, api.NewName(Provider, name), &ai.ModelOptions{
		Label: label,
		Supports: &ai.ModelSupports{
			Multiturn:   true,
			SystemRole:  true,
			Tools:       true,
			ToolChoice:  true,
			Constrained: ai.ConstrainedSupportNoTools,
			Output:      []string{"text", "json"},
		},
	}, m.generate)
}

// Model returns the model "litert/NAME" defined with DefineModel, or nil.
func Model(g *genkit.Genkit, name string) ai.Model {
	return genkit.LookupModel(g, api.NewName(Provider, name))
}

// model serves one engine.
type model struct {
	eng  *engine.Engine
	opts ModelOptions
	mu   sync.Mutex
	idle []*pooled
}

// pooled is an idle conversation and the tools it declares.
type pooled struct {
	conv *conversation.Conversation
	key  string
}

func newModel(eng *engine.Engine, opts *ModelOptions) *model {
	m := &model{eng: eng}
	if opts != nil {
		m.opts = *opts
	}
	if m.opts.MaxTokens <= 0 {
		m.opts.MaxTokens = conversation.DefaultMaxTokens
	}
	if m.opts.Conversations <= 0 {
		m.opts.Conversations = 2
	}
	return m
}

// acquire takes the idle conversation declaring these tools whose history
// shares the most messages with hist, or starts a new one.
func (m *model) acquire(ctx context.Context, decls []conversation.ToolDecl, hist []conversation.Message) (*pooled, error) {
	b, err := json.Marshal(decls)
	if err != nil {
		return nil, err
	}
	key := string(b)
	m.mu.Lock()
	best, bestN := -1, -1
	for i, p := range m.idle {
		if p.key != key {
			continue
		}
		if n := commonPrefix(p.conv.History(), hist); n > bestN {
			best, bestN = i, n
		}
	}
	if best >= 0 {
		p := m.idle[best]
		m.idle = append(m.idle[:best], m.idle[best+1:]...)
		m.mu.Unlock()
		return p, nil
	}
	m.mu.Unlock()
	c, err := conversation.New(ctx, m.eng, conversation.Config{
		Preface: conversation.Preface{Tools: decls}, Sampler: m.opts.Sampler,
		MaxTokens: m.opts.MaxTokens, ToolFormat: m.opts.ToolFormat,
	})
	if err != nil {
		return nil, err
	}
	return &pooled{conv: c, key: key}, nil
}

// release returns a conversation to the pool, dropping the oldest beyond
// its size.
func (m *model) release(p *pooled) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.idle = append(m.idle, p)
	if len(m.idle) > m.opts.Conversations {
		m.idle = m.idle[len(m.idle)-m.opts.Conversations:]
	}
}

func commonPrefix(a, b []conversation.Message) int {
	n := 0
	for n < len(a) && n < len(b) && reflect.DeepEqual(a[n], b[n]) {
		n++
	}
	return n
}

// generate is the Genkit model function.
func (m *model) generate(ctx context.Context, req *ai.ModelRequest, cb ai.ModelStreamCallback) (*ai.ModelResponse, error) {
	decls, wrapped, err := toDecls(req.Tools)
	if err != nil {
		return nil, err
	}
	msgs, err := toMessages(req.Messages, wrapped)
	if err != nil {
		return nil, err
	}
	if len(msgs) == 0 {
		return nil, errors.New("litert: the request has no messages")
	}
	cfg, err := configFrom(req.Config)
	if err != nil {
		return nil, err
	}
	opts, err := m.options(req, cfg, len(decls) > 0)
	if err != nil {
		return nil, err
	}
	p, err := m.acquire(ctx, decls, msgs)
	if err != nil {
		return nil, fmt.Errorf("litert: %w", err)
	}
	defer m.release(p)
	if err := p.conv.Restore(msgs[:len(msgs)-1]); err != nil {
		return nil, fmt.Errorf("litert: %w", err)
	}
	last := msgs[len(msgs)-1]
	var reply *conversation.Reply
	if cb == nil {
		if reply, err = p.conv.SendMessage(ctx, last, opts...); err != nil {
			return nil, fmt.Errorf("litert: %w", err)
		}
	} else {
		for ch, serr := range p.conv.SendMessageStream(ctx, last, opts...) {
			if serr != nil {
				return nil, fmt.Errorf("litert: %w", serr)
			}
			var parts []*ai.Part
			if ch.Reasoning != "" {
				parts = append(parts, ai.NewReasoningPart(ch.Reasoning, nil))
			}
			if ch.Text != "" {
				parts = append(parts, ai.NewTextPart(ch.Text))
			}
			if len(parts) > 0 {
				if err := cb(ctx, &ai.ModelResponseChunk{Role: ai.RoleModel, Content: parts}); err != nil {
					return nil, err
				}
			}
			if ch.Done {
				reply = ch.Reply
			}
		}
		if reply == nil {
			return nil, errors.New("litert: the reply ended without a result")
		}
	}
	return toResponse(req, reply, wrapped)
}

// options turns the request's settings into conversation options.
func (m *model) options(req *ai.ModelRequest, cfg Config, tools bool) ([]conversation.Option, error) {
	smp := m.opts.Sampler
	if cfg.Temperature > 0 {
		smp.Temperature = float32(cfg.Temperature)
	}
	if cfg.TopK > 0 {
		smp.TopK = cfg.TopK
	}
	if cfg.TopP > 0 {
		smp.TopP = float32(cfg.TopP)
	}
	if cfg.MinP > 0 {
		smp.MinP = float32(cfg.MinP)
	}
	if cfg.Seed != 0 {
		smp.Seed = cfg.Seed
	}
	if err := smp.Validate(); err != nil {
		return nil, fmt.Errorf("litert: config: %w", err)
	}
	maxTokens := m.opts.MaxTokens
	if cfg.MaxOutputTokens > 0 {
		maxTokens = cfg.MaxOutputTokens
	}
	opts := []conversation.Option{conversation.WithSampler(smp), conversation.WithMaxTokens(maxTokens)}
	if len(cfg.StopSequences) > 0 {
		opts = append(opts, conversation.WithStop(cfg.StopSequences...))
	}
	if tools {
		opts = append(opts, conversation.WithReturnToolRequests(), conversation.WithToolChoice(toolChoice(req, cfg)))
		if cfg.ParallelToolCalls != nil {
			opts = append(opts, conversation.WithParallelToolCalls(*cfg.ParallelToolCalls))
		}
	}
	if o := req.Output; o != nil && o.Constrained && len(o.Schema) > 0 && !tools {
		schema, err := json.Marshal(o.Schema)
		if err != nil {
			return nil, fmt.Errorf("litert: output schema: %w", err)
		}
		g, err := constrain.JSONSchemaWith(schema, constrain.JSONOptions{Lenient: true})
		if err != nil {
			return nil, fmt.Errorf("litert: output schema: %w", err)
		}
		opts = append(opts, conversation.WithConstraint(g))
	}
	return opts, nil
}

// toolChoice applies the request's tool choice to the first reply after a
// user message; replies to tool results are "auto" (Genkit repeats the
// choice on every turn of its loop, and a forced call after every result
// would never end), or "none" once Config.MaxToolTurns rounds of results
// are in.
func toolChoice(req *ai.ModelRequest, cfg Config) conversation.ToolChoice {
	rounds := 0
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != ai.RoleUser; i-- {
		if req.Messages[i].Role == ai.RoleTool {
			rounds++
		}
	}
	switch {
	case cfg.MaxToolTurns > 0 && rounds >= cfg.MaxToolTurns:
		return conversation.ToolChoiceNone
	case req.ToolChoice == ai.ToolChoiceNone:
		return conversation.ToolChoiceNone
	case rounds > 0 || req.ToolChoice == "":
		return conversation.ToolChoiceAuto
	}
	return conversation.ToolChoice(req.ToolChoice)
}

// configFrom reads the request's config: a Config, an
// ai.GenerationCommonConfig, or a map holding either's JSON.
func configFrom(v any) (Config, error) {
	switch c := v.(type) {
	case nil:
		return Config{}, nil
	case *Config:
		if c == nil {
			return Config{}, nil
		}
		return *c, nil
	case Config:
		return c, nil
	case *ai.GenerationCommonConfig:
		if c == nil {
			return Config{}, nil
		}
		return Config{MaxOutputTokens: c.MaxOutputTokens, StopSequences: c.StopSequences, Temperature: c.Temperature, TopK: c.TopK, TopP: c.TopP}, nil
	case ai.GenerationCommonConfig:
		return configFrom(&c)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return Config{}, fmt.Errorf("litert: config %T: %w", v, err)
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("litert: config %T: %w", v, err)
	}
	return c, nil
}
