package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/litert-go/litert-go/conversation/toolcall"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/session"
	"github.com/litert-go/litert-go/template"
	"github.com/litert-go/litert-go/tokenizer"
)

// DefaultMaxTokens caps a reply when neither Config nor the message says.
const DefaultMaxTokens = 1024

// Config configures a Conversation.
type Config struct {
	// Preface is the conversation's start: system prompt, few-shot
	// messages, tool declarations, extra template context.
	Preface Preface
	// Sampler is the default sampler of replies (the zero value is greedy).
	Sampler session.Sampler
	// MaxTokens caps each reply; 0 means DefaultMaxTokens.
	MaxTokens int
	// ToolFormat names the tool-call syntax ("hermes", "llama3", …); ""
	// detects it from the chat template.
	ToolFormat string
	// ChatTemplate replaces the model's chat template (Jinja source), as
	// for a fine-tune whose GGUF carries the base model's template; ""
	// uses the model's own.
	ChatTemplate string
	// PrefillPreface prefills the preface when the conversation is made,
	// so the first reply starts sooner.
	PrefillPreface bool
	// Session configures the underlying session (batch size).
	Session session.Config
	// Encoder encodes image and audio parts; nil uses the engine's
	// (engine.Settings.MMProj), if it has one.
	Encoder Encoder
	// MediaCache keeps the encoded media; conversations serving the same
	// requests (a server's pool and its Prompter) share one so each media
	// input is encoded once. nil: the conversation keeps its own, of
	// DefaultMediaCacheBytes.
	MediaCache *MediaCache
}

// Preface is what a conversation starts with.
type Preface struct {
	Messages []Message
	Tools    []ToolDecl     // tools declared to the model in every turn
	Extra    map[string]any // extra template variables, e.g. "enable_thinking"
}

// ToolDecl declares a function the model may call: its name, what it does
// and its parameters as a JSON schema.
type ToolDecl struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Usage counts the tokens of one SendMessage call.
type Usage struct {
	PromptTokens     int // tokens of the prompt(s), cached ones included
	CachedTokens     int // prompt tokens already in the KV cache
	CompletionTokens int // tokens generated
}

// Timings says where a reply's time went, summed over the rounds of a
// tool loop; llama.cpp's server reports the same split as "timings" beside
// "usage" (prompt_ms, predicted_ms).
type Timings struct {
	Prefill time.Duration // prefilling the uncached prompt tokens
	Decode  time.Duration // generating, from the first token sampled to the last
}

// ToolRun records one tool call run by the automatic loop.
type ToolRun struct {
	Call   ToolCall
	Result string // JSON result, or the error message shown to the model
	Err    error
}

// FinishReason says why a generation ended.
type FinishReason string

// Finish reasons, as the OpenAI API names them where it has a name.
const (
	FinishStop      FinishReason = "stop"       // the model ended its reply (or a stop string matched)
	FinishLength    FinishReason = "length"     // the token limit cut the reply
	FinishToolCalls FinishReason = "tool_calls" // the reply asked for tool calls that the caller runs
	FinishCancelled FinishReason = "cancelled"  // the context was cancelled
)

// ToolCallDelta is a piece of a tool call as the model writes it, in a
// stream: the first delta of a call carries its Index, ID and Name, the
// following ones pieces of its Arguments, which concatenate to the
// call's final Arguments.
type ToolCallDelta struct {
	Index     int    // the call's position among the reply's calls
	ID        string // set on the call's first delta
	Name      string // set on the call's first delta
	Arguments string // the next piece of the arguments' JSON text
}

// Reply is the result of SendMessage: the final assistant message and what
// happened on the way.
type Reply struct {
	Message
	// FinishReason says why the last generation of the turn ended.
	FinishReason FinishReason
	// Truncated is the tool call the token limit cut off (FinishReason
	// "length"), with the arguments written so far; the calls before it
	// are in ToolCalls.
	Truncated *ToolCall
	// Added is every message this call appended to the history, in order:
	// the user message, assistant messages with tool calls, tool results
	// and the final reply.
	Added []Message
	// ToolRuns lists the tools the automatic loop ran.
	ToolRuns []ToolRun
	// ToolLimitReached reports that the tool-turn limit forced a text reply.
	ToolLimitReached bool
	// ToolCallErr is set when the final reply held a tool call that does
	// not parse (a *ToolCallError); Message then holds the text before it.
	ToolCallErr error
	Usage       Usage
	Timings     Timings
}

// Chunk is a piece of a streamed reply. The last chunk has Done set and
// carries the Reply. During the automatic tool loop the stream also yields
// tool calls as the model writes them and tool results as tools finish.
type Chunk struct {
	Text       string         // answer text
	Reasoning  string         // thinking text, kept apart from the answer
	ToolCall   *ToolCallDelta // a piece of a tool call being written
	ToolResult *ToolRun       // a tool the automatic loop ran, with its result (Call.Name "error": a malformed call shown to the model)
	Done       bool
	Reply      *Reply
}

// Stats describes a conversation's state.
type Stats struct {
	Tokens        int // tokens in the KV cache
	ContextLength int
	Turns         int // messages in the history
	Fallbacks     int // turns whose prompt was not a prefix extension (re-prefilled from the common token prefix)
}

// Conversation is a chat with a model: a history of messages and a Session
// holding their KV cache. Methods are safe for concurrent use; turns run one
// at a time.
type Conversation struct {
	mu         sync.Mutex // held for a whole turn: serializes use of sess and history
	snap       atomic.Pointer[snapshot]
	eng        *engine.Engine
	tok        *tokenizer.Tokenizer
	tmpl       *template.Template
	format     toolcall.Format // reads replies that may call tools
	textFormat toolcall.Format // reads replies that may not (reasoning only)
	cfg        Config
	calls      *atomic.Int64 // tool-call IDs handed out, shared by clones
	sess       *session.Session
	history    []Message
	kvText     string   // the text the session's tokens spell; "" when unknown
	kvMedia    []uint64 // the keys of the media in kvText, in order
	fallbacks  int
	enc        Encoder     // nil: no media
	mediaCache *MediaCache // encoded media
	marker     string      // what the template renders for a media part
}

// New starts a conversation on eng.
func New(ctx context.Context, eng *engine.Engine, cfg Config) (*Conversation, error) {
	cf, err := chatFormat(ctx, eng, cfg)
	if err != nil {
		return nil, err
	}
	if err := cfg.Sampler.Validate(); err != nil {
		return nil, fmt.Errorf("conversation: %w", err)
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	sess, err := session.New(eng, cfg.Session)
	if err != nil {
		return nil, fmt.Errorf("conversation: %w", err)
	}
	c := newConversation(eng, cfg, cf)
	c.sess, c.history = sess, append([]Message(nil), cfg.Preface.Messages...)
	if cfg.PrefillPreface && len(c.history) > 0 {
		text, err := c.render(ctx, c.history, false, nil, cfg.Preface.Tools)
		if err != nil {
			return nil, fmt.Errorf("conversation: preface: %w", err)
		}
		media, err := mediaOf(c.history)
		if err != nil {
			return nil, fmt.Errorf("conversation: preface: %w", err)
		}
		if _, _, err := c.sync(ctx, text, media, ""); err != nil {
			return nil, fmt.Errorf("conversation: preface: %w", err)
		}
	}
	c.publish()
	return c, nil
}

// newConversation returns a conversation on eng without a session or
// history: what New and NewPrompter share.
func newConversation(eng *engine.Engine, cfg Config, cf chatSetup) *Conversation {
	c := &Conversation{eng: eng, tok: eng.Tokenizer(), tmpl: cf.tmpl, format: cf.format, textFormat: cf.text, cfg: cfg,
		calls: new(atomic.Int64), enc: cfg.Encoder, mediaCache: cfg.MediaCache, marker: newMarker()}
	if c.enc == nil {
		c.enc = engineEncoder(eng)
	}
	if c.mediaCache == nil {
		c.mediaCache = NewMediaCache(DefaultMediaCacheBytes)
	}
	return c
}

// chatSetup is a conversation's template and how it reads replies.
type chatSetup struct {
	tmpl         *template.Template
	format, text toolcall.Format
}

// chatFormat returns the chat template (cfg.ChatTemplate, or the model's)
// and the tool-call format: cfg.ToolFormat, or the one detected by
// rendering probe calls through the template. Either way the reasoning
// markup is the one the template writes.
func chatFormat(ctx context.Context, eng *engine.Engine, cfg Config) (chatSetup, error) {
	var tmpl *template.Template
	var err error
	if cfg.ChatTemplate != "" {
		tmpl, err = template.Parse(cfg.ChatTemplate)
		if err != nil {
			err = fmt.Errorf("chat template override: %w", err)
		}
	} else {
		tmpl, err = eng.ChatTemplate()
	}
	if err != nil {
		return chatSetup{}, fmt.Errorf("conversation: %w", err)
	}
	base := toolcall.Request{Kwargs: cfg.Preface.Extra}
	base.BOS, base.EOS = eng.Tokenizer().TemplateTokens()
	d := toolcall.Detect(ctx, tmpl, base)
	cs := chatSetup{tmpl: tmpl, format: d.Format, text: toolcall.WithThinking(toolcall.Plain(), d.Thinking)}
	if cfg.ToolFormat != "" {
		f, err := toolcall.Lookup(cfg.ToolFormat)
		if err != nil {
			return chatSetup{}, fmt.Errorf("conversation: %w", err)
		}
		cs.format = toolcall.WithThinking(f, d.Thinking)
	}
	return cs, nil
}

// callID returns a new tool-call ID: nine alphanumerics, as some
// templates (Mistral's) require.
func (c *Conversation) callID() string {
	return fmt.Sprintf("call%05d", c.calls.Add(1)%100000)
}

// snapshot is the state readers see: it is published at the end of every
// operation, so History and Stats never wait for a turn in progress (and
// may be called from inside a streaming loop).
type snapshot struct {
	history []Message
	stats   Stats
}

// publish records the current state for readers. Callers hold c.mu.
func (c *Conversation) publish() {
	snap := &snapshot{history: append([]Message(nil), c.history...), stats: Stats{Turns: len(c.history), Fallbacks: c.fallbacks}}
	if c.sess != nil {
		snap.stats.Tokens, snap.stats.ContextLength = c.sess.TokenCount(), c.sess.ContextLength()
	}
	c.snap.Store(snap)
}

// state returns the last published snapshot.
func (c *Conversation) state() *snapshot {
	if s := c.snap.Load(); s != nil {
		return s
	}
	return &snapshot{}
}

// History returns a copy of the messages as of the last completed turn.
func (c *Conversation) History() []Message {
	return append([]Message(nil), c.state().history...)
}

// TokenCount is the number of tokens in the KV cache after the last
// completed turn.
func (c *Conversation) TokenCount() int { return c.state().stats.Tokens }

// Stats describes the conversation's state after the last completed turn.
func (c *Conversation) Stats() Stats { return c.state().stats }

// ToolFormat is the tool-call syntax the conversation parses.
func (c *Conversation) ToolFormat() toolcall.Format { return c.format }

// Clone returns an independent copy that continues from the same state.
func (c *Conversation) Clone() (*Conversation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, err := c.sess.Clone()
	if err != nil {
		return nil, fmt.Errorf("conversation: clone: %w", err)
	}
	d := &Conversation{eng: c.eng, tok: c.tok, tmpl: c.tmpl, format: c.format, textFormat: c.textFormat, cfg: c.cfg, sess: s, calls: c.calls,
		history: append([]Message(nil), c.history...), kvText: c.kvText, kvMedia: c.kvMedia, fallbacks: c.fallbacks,
		enc: c.enc, mediaCache: c.mediaCache, marker: c.marker}
	d.publish()
	return d, nil
}

// Reset clears the history back to the preface.
func (c *Conversation) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.publish()
	c.history = append([]Message(nil), c.cfg.Preface.Messages...)
}

// SendMessage sends msg and returns the model's reply, running tools if
// asked (WithTools). If the turn fails before any tool ran the history is
// unchanged; after tools ran it keeps their calls and results and the
// error is a *TurnError. With an error, the reply so far (FinishReason
// "cancelled" on cancellation) may be returned too.
func (c *Conversation) SendMessage(ctx context.Context, msg Message, opts ...Option) (*Reply, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.publish()
	return c.turn(ctx, msg, opts, nil)
}

// SendMessageStream sends msg and yields the reply in chunks as it is
// generated; the last chunk has Done set and carries the Reply. Tool-call
// text is not yielded as answer text. Breaking out of the loop cancels the
// reply; the history is then unchanged.
func (c *Conversation) SendMessageStream(ctx context.Context, msg Message, opts ...Option) iter.Seq2[Chunk, error] {
	return c.stream(ctx, func(ctx context.Context, emit func(Chunk) bool) (*Reply, error) {
		return c.turn(ctx, msg, opts, emit)
	})
}

// stream runs fn under the turn lock, yielding its chunks, then releases
// the lock and yields the final chunk (or the error, with the Reply so far
// when there is one: its usage and finish reason), so the caller's loop
// body may read History or Stats when the reply is done. Breaking out of
// the loop cancels fn's context.
func (c *Conversation) stream(ctx context.Context, fn func(context.Context, func(Chunk) bool) (*Reply, error)) iter.Seq2[Chunk, error] {
	return func(yield func(Chunk, error) bool) {
		c.mu.Lock()
		locked := true
		defer func() {
			if locked { // a panic in the caller's loop body
				c.mu.Unlock()
			}
		}()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stopped := false
		emit := func(ch Chunk) bool {
			if stopped {
				return false
			}
			if !yield(ch, nil) {
				stopped = true
				cancel()
				return false
			}
			return true
		}
		reply, err := fn(ctx, emit)
		c.publish()
		c.mu.Unlock()
		locked = false
		switch {
		case stopped:
		case err != nil:
			yield(Chunk{Reply: reply}, err) // the reply so far, if any (usage, finish reason)
		default:
			yield(Chunk{Done: true, Reply: reply}, nil)
		}
	}
}

// SendMessageAsync sends msg in the background. callback receives each
// chunk of the reply as an assistant message, then a final empty message
// (or the error), as LiteRT-LM's SendMessageAsync does. A piece of a tool
// call comes as an assistant message with one ToolCall holding the
// ToolCallDelta (Arguments: the next piece of the arguments' text); a tool
// result of the automatic loop as a tool message.
func (c *Conversation) SendMessageAsync(ctx context.Context, msg Message, callback func(Message, error), opts ...Option) {
	go func() {
		for ch, err := range c.SendMessageStream(ctx, msg, opts...) {
			switch {
			case err != nil:
				callback(Message{}, err)
				return
			case ch.Done:
				callback(Message{}, nil)
				return
			case ch.ToolCall != nil:
				d := ch.ToolCall
				callback(Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: d.ID, Name: d.Name, Arguments: json.RawMessage(d.Arguments)}}}, nil)
			case ch.ToolResult != nil:
				callback(ToolResult(ch.ToolResult.Call, ch.ToolResult.Result), nil)
			case ch.Text != "" || ch.Reasoning != "":
				callback(Message{Role: RoleAssistant, Text: ch.Text, ReasoningContent: ch.Reasoning}, nil)
			}
		}
	}()
}

// render formats messages with the chat template, media parts as the
// conversation's marker (see prompt).
func (c *Conversation) render(ctx context.Context, msgs []Message, addGen bool, extra map[string]any, decls []ToolDecl) (string, error) {
	req := template.Request{AddGenerationPrompt: addGen, Kwargs: map[string]template.Value{}}
	for i, m := range msgs {
		b, err := json.Marshal(c.forTemplate(m))
		if err == nil {
			b, err = escapeJSON(b, c.tok.EscapeSpecial)
		}
		if err != nil {
			return "", fmt.Errorf("message %d: %w", i, err)
		}
		v, err := template.DecodeOrdered(b)
		if err != nil {
			return "", fmt.Errorf("message %d: %w", i, err)
		}
		req.Messages = append(req.Messages, v)
	}
	for _, d := range decls {
		b, err := escapeJSON(d.openAIJSON(), c.tok.EscapeSpecial)
		if err != nil {
			return "", fmt.Errorf("tool %q: %w", d.Name, err)
		}
		v, err := template.DecodeOrdered(b)
		if err != nil {
			return "", fmt.Errorf("tool %q: %w", d.Name, err)
		}
		req.Tools = append(req.Tools, v)
	}
	req.BOSToken, req.EOSToken = c.tok.TemplateTokens()
	for _, src := range []map[string]any{c.cfg.Preface.Extra, extra} {
		for k, v := range src {
			b, err := json.Marshal(v)
			if err == nil {
				b, err = escapeJSON(b, c.tok.EscapeSpecial)
			}
			if err != nil {
				return "", fmt.Errorf("template context %q: %w", k, err)
			}
			if req.Kwargs[k], err = template.DecodeOrdered(b); err != nil {
				return "", fmt.Errorf("template context %q: %w", k, err)
			}
		}
	}
	return c.tmpl.Render(ctx, req)
}

// openAIJSON is the declaration in the shape templates expect:
// {"type": "function", "function": {"name", "description", "parameters"}}.
func (d ToolDecl) openAIJSON() []byte {
	params := d.Parameters
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	name, _ := json.Marshal(d.Name)
	desc, _ := json.Marshal(d.Description)
	return []byte(`{"type":"function","function":{"name":` + string(name) + `,"description":` + string(desc) + `,"parameters":` + string(params) + `}}`)
}

// encodePrompt tokenizes template output: special tokens are parsed where
// the template wrote them, never inside message text (render escaped it
// with Tokenizer.EscapeSpecial), and BOS is added when the model
// wants one and the template did not write it.
func (c *Conversation) encodePrompt(text string, first bool) []int32 {
	ids := c.tok.EncodeEscaped(text)
	if first && c.eng.Info().AddBOS {
		if bos := c.tok.BOS(); bos >= 0 && (len(ids) == 0 || ids[0] != bos) {
			ids = append([]int32{bos}, ids...)
		}
	}
	return ids
}

// sync makes the session hold the prompt of text, the template's
// output, with media in place of its markers: by prefilling the delta when
// the session already holds a prefix of it (its text and its media), else
// by rewinding to the longest common prefix (tokens, and media chunks
// whole) and prefilling the rest. Media are encoded before anything is
// prefilled. gen, if not empty, is the generation prompt that ends text:
// on a model with recurrent state its tokens are prefilled after the rest,
// so that a checkpoint marks the end of the conversation proper (a later
// turn whose template rewrites this reply goes back to it, not to the
// start). It returns the prompt's length in positions and how many of
// them were already cached.
func (c *Conversation) sync(ctx context.Context, text string, media []Media, gen string) (prompt, cached int, err error) {
	keys := mediaKeys(media)
	have := c.sess.TokenCount()
	if c.kvText != "" && have > 0 && len(text) > len(c.kvText) && strings.HasPrefix(text, c.kvText) &&
		len(keys) >= len(c.kvMedia) && slices.Equal(keys[:len(c.kvMedia)], c.kvMedia) {
		delta, err := c.prompt(ctx, text[len(c.kvText):], media[len(c.kvMedia):], false)
		if err != nil {
			return 0, 0, err
		}
		c.kvText = ""
		if err := c.sess.PrefillPrompt(ctx, c.splitGen(delta, text, gen)); err != nil {
			_ = c.sess.Rewind(c.sess.TokenCount() - have)
			return 0, 0, err
		}
		c.kvText, c.kvMedia = text, keys
		return have + delta.Len(), have, nil
	}
	full, err := c.prompt(ctx, text, media, true)
	if err != nil {
		return 0, 0, err
	}
	if full.Len() == 0 {
		return 0, 0, errors.New("the chat template rendered an empty prompt")
	}
	n := c.sess.Common(full)
	if have > 0 {
		c.fallbacks++
	}
	c.kvText, c.kvMedia = "", nil
	if err := c.sess.Rewind(have - n); err != nil {
		return 0, 0, err
	}
	if err := c.sess.PrefillPrompt(ctx, c.splitGen(full.From(n), text, gen)); err != nil {
		return 0, 0, err
	}
	c.kvText, c.kvMedia = text, keys
	// A prompt held whole still runs its last position again for fresh logits.
	return full.Len(), min(n, full.Len()-1), nil
}

// splitGen makes the tokens of the generation prompt gen, which ends text,
// the last chunk of p of their own (sync), when the model has recurrent
// state and they tokenize alike alone and at the end of p.
func (c *Conversation) splitGen(p session.Prompt, text, gen string) session.Prompt {
	if gen == "" || !strings.HasSuffix(text, gen) || !c.sess.HasRecurrentState() {
		return p
	}
	g := c.tok.EncodeEscaped(gen)
	if len(p) == 0 {
		return p
	}
	last := p[len(p)-1].Tokens // SplitTail splits only a last run of tokens
	if len(g) == 0 || len(g) >= len(last) || !slices.Equal(last[len(last)-len(g):], g) {
		return p
	}
	return p.SplitTail(len(g))
}

// parseTemplate parses a chat template source; tests use it to swap
// templates.
func parseTemplate(src string) (*template.Template, error) { return template.Parse(src) }
