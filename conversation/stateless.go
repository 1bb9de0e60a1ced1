package conversation

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/conversation/toolcall"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/session"
)

// The stateless API serves requests that carry their whole history, as
// OpenAI-style servers receive them. A Conversation is then a reusable KV
// cache: Respond replaces the history and re-syncs the session by prefilling
// only what differs from the tokens it already holds, so a pool of
// conversations is a prompt cache (pick the one with the longest
// CommonPrefix).

// Respond replaces the history with history[:len(history)-1] and the
// declared tools with decls, and replies to the last message. Tool calls are
// returned, never run (WithReturnToolRequests is implied). On success the
// history holds the request's messages and the reply.
func (c *Conversation) Respond(ctx context.Context, history []Message, decls []ToolDecl, opts ...Option) (*Reply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.publish()
	last, opts, err := c.replace(history, decls, opts)
	if err != nil {
		return nil, err
	}
	return c.turn(ctx, last, opts, nil)
}

// RespondStream is Respond yielding the reply in chunks as SendMessageStream
// does; the last chunk has Done set and carries the Reply.
func (c *Conversation) RespondStream(ctx context.Context, history []Message, decls []ToolDecl, opts ...Option) iter.Seq2[Chunk, error] {
	return c.stream(ctx, func(ctx context.Context, emit func(Chunk) bool) (*Reply, error) {
		last, opts, err := c.replace(history, decls, opts)
		if err != nil {
			return nil, err
		}
		return c.turn(ctx, last, opts, emit)
	})
}

// Complete continues prompt, a raw text prompt (special-token text such as
// "<|im_start|>" is parsed as those tokens; BOS is added when the model
// wants one), without a chat template or tool-call parsing. The history is
// cleared. Options that apply: WithSampler, WithMaxTokens, WithStop,
// WithConstraint. Reply.Text holds the generated text.
func (c *Conversation) Complete(ctx context.Context, prompt string, opts ...Option) (*Reply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.publish()
	return c.complete(ctx, prompt, opts, nil)
}

// CompleteStream is Complete yielding the text as it is generated; the last
// chunk has Done set and carries the Reply.
func (c *Conversation) CompleteStream(ctx context.Context, prompt string, opts ...Option) iter.Seq2[Chunk, error] {
	return c.stream(ctx, func(ctx context.Context, emit func(Chunk) bool) (*Reply, error) {
		return c.complete(ctx, prompt, opts, emit)
	})
}

// CommonPrefix is the number of leading positions of p that the KV cache
// already holds (tokens, and media chunks whole): what a request with that
// prompt would not prefill again.
func (c *Conversation) CommonPrefix(p session.Prompt) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.publish()
	return c.sess.Common(p)
}

// replace swaps in a request's history and tools. c.mu is held.
func (c *Conversation) replace(history []Message, decls []ToolDecl, opts []Option) (Message, []Option, error) {
	if len(history) == 0 {
		return Message{}, nil, errors.New("conversation: respond needs at least one message")
	}
	c.history = append([]Message(nil), history[:len(history)-1]...)
	c.cfg.Preface.Tools = append([]ToolDecl(nil), decls...)
	opts = append(opts[:len(opts):len(opts)], WithReturnToolRequests())
	return history[len(history)-1], opts, nil
}

// complete runs one raw completion. c.mu is held.
func (c *Conversation) complete(ctx context.Context, prompt string, opts []Option, emit func(Chunk) bool) (*Reply, error) {
	o := sendOptions{maxTokens: c.cfg.MaxTokens}
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxTokens <= 0 {
		o.maxTokens = c.cfg.MaxTokens
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("conversation: %w", err)
	}
	if len(c.encodePrompt(prompt, true)) == 0 {
		return nil, errors.New("conversation: the prompt has no tokens")
	}
	smp := c.cfg.Sampler
	if o.sampler != nil {
		smp = *o.sampler
	}
	c.history = nil
	prefillStart := time.Now()
	promptTokens, cached, err := c.sync(ctx, prompt, nil, "")
	prefillTime := time.Since(prefillStart)
	if err != nil {
		return nil, fmt.Errorf("conversation: prefill: %w", err)
	}
	// The generated tokens need not re-encode to the same ids, so the
	// next request compares tokens instead of text.
	c.kvText = ""
	reply := &Reply{Usage: Usage{PromptTokens: promptTokens, CachedTokens: cached}, Timings: Timings{Prefill: prefillTime}}
	st := &streamer{emit: emit, format: rawText{}, nextID: c.callID}
	decodeStart := time.Now()
	gen, err := c.generate(ctx, smp, o, o.constraint, st)
	reply.Timings.Decode = time.Since(decodeStart)
	reply.Usage.CompletionTokens = gen.tokens
	reply.FinishReason = gen.finish
	if err != nil {
		reply.Message = Message{Role: RoleAssistant, Text: st.partial().Content}
		return reply, err
	}
	st.finish(toolcall.Parsed{Content: gen.raw}, nil)
	reply.Message = Message{Role: RoleAssistant, Text: gen.raw}
	if o.constraint != nil && gen.incomplete {
		return reply, &IncompleteError{Reason: gen.finish, Text: gen.raw}
	}
	return reply, nil
}

// rawText reads a completion as it is, whitespace included.
type rawText struct{}

func (rawText) Name() string                            { return "raw" }
func (rawText) Parse(s string) (toolcall.Parsed, error) { return toolcall.Parsed{Content: s}, nil }
func (rawText) ParsePartial(s string) toolcall.Partial  { return toolcall.Partial{Content: s} }
func (rawText) Pattern(toolcall.GrammarOptions) (constrain.Pattern, error) {
	return constrain.Pattern{}, toolcall.ErrNoGrammar
}

// Prompter renders and tokenizes prompts exactly as a Conversation with the
// same engine and Config does, without a KV cache: a server uses it to
// check a request and to pick the pooled conversation sharing the longest
// prefix with it before any prefill. It is safe for concurrent use.
type Prompter struct{ c *Conversation }

// NewPrompter returns a Prompter for conversations made with eng and cfg.
func NewPrompter(eng *engine.Engine, cfg Config) (*Prompter, error) {
	cf, err := chatFormat(context.Background(), eng, cfg)
	if err != nil {
		return nil, err
	}
	return &Prompter{c: newConversation(eng, cfg, cf)}, nil
}

// ToolFormat is the tool-call syntax of the conversations.
func (p *Prompter) ToolFormat() toolcall.Format { return p.c.format }

// Chat returns the prompt Respond(history, decls, opts...) prefills, after
// checking every message (roles, and media the model has no encoder for,
// which wraps ErrNoEncoder); its media are encoded (into Config.MediaCache,
// where Respond finds them). Of the options only WithExtra matters.
func (p *Prompter) Chat(ctx context.Context, history []Message, decls []ToolDecl, opts ...Option) (session.Prompt, error) {
	if len(history) == 0 {
		return nil, errors.New("conversation: no messages")
	}
	for i, m := range history {
		if err := p.c.checkMessage(m); err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
	}
	var o sendOptions
	for _, opt := range opts {
		opt(&o)
	}
	text, err := p.c.render(ctx, history, true, o.extra, decls)
	if err != nil {
		return nil, fmt.Errorf("conversation: chat template: %w", err)
	}
	media, err := mediaOf(history)
	if err != nil {
		return nil, fmt.Errorf("conversation: %w", err)
	}
	prompt, err := p.c.prompt(ctx, text, media, true)
	if err != nil {
		return nil, err
	}
	if prompt.Len() == 0 {
		return nil, errors.New("conversation: the chat template rendered an empty prompt")
	}
	return prompt, nil
}

// TextWithMedia returns the prompt of a raw text prompt in which each
// occurrence of marker stands for the next of media, as llama.cpp's
// mtmd_tokenize reads a prompt holding mtmd_default_marker() ("<__media__>"):
// the text between markers tokenized piece by piece (special-token text
// parsed, BOS added as Complete adds it) and each media's encoder pieces
// in its place.
func (p *Prompter) TextWithMedia(ctx context.Context, text, marker string, media []Part) (session.Prompt, error) {
	if marker == "" {
		return nil, errors.New("conversation: empty media marker")
	}
	loaded := make([]Media, len(media))
	for i, part := range media {
		m, err := LoadMedia(part)
		if err != nil {
			return nil, fmt.Errorf("conversation: media %d: %w", i, err)
		}
		loaded[i] = m
	}
	if n := strings.Count(text, marker); n != len(media) {
		return nil, fmt.Errorf("conversation: the prompt holds %d media markers %q for %d media", n, marker, len(media))
	}
	prompt, err := p.c.prompt(ctx, strings.ReplaceAll(text, marker, p.c.marker), loaded, true)
	if err != nil {
		return nil, err
	}
	if prompt.Len() == 0 {
		return nil, errors.New("conversation: the prompt has no tokens")
	}
	return prompt, nil
}

// Text returns the prompt Complete(prompt) prefills.
func (p *Prompter) Text(prompt string) session.Prompt {
	return session.TokenPrompt(p.c.encodePrompt(prompt, true))
}
