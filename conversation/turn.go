package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/conversation/toolcall"
	"github.com/litert-go/litert-go/session"
	"github.com/litert-go/litert-go/tools"
)

// defaultMaxToolTurns bounds tool rounds per message.
const defaultMaxToolTurns = 5

// ErrNoEncoder is wrapped by errors about media the model cannot read.
var ErrNoEncoder = errors.New("no encoder for this input")

// turn runs one SendMessage: it appends msg, generates replies and runs
// tools until a text answer. The new messages are committed to the
// history when the turn succeeds, and also when it fails after tools ran
// (their side effects happened; the error is then a *TurnError). emit, if
// not nil, receives streamed chunks; it returns false to stop.
func (c *Conversation) turn(ctx context.Context, msg Message, opts []Option, emit func(Chunk) bool) (*Reply, error) {
	o := sendOptions{maxTokens: c.cfg.MaxTokens, maxToolTurns: defaultMaxToolTurns, toolChoice: ToolChoiceAuto}
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxTokens <= 0 {
		o.maxTokens = c.cfg.MaxTokens
	}
	if msg.Role == RoleModel {
		msg.Role = RoleAssistant
	}
	if err := c.checkMessage(msg); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("conversation: %w", err)
	}
	sampler := c.cfg.Sampler
	if o.sampler != nil {
		sampler = *o.sampler
	}
	decls := append([]ToolDecl(nil), c.cfg.Preface.Tools...)
	// The Set refuses failed definitions and duplicate names.
	toolset, err := tools.NewSet(o.tools...)
	if err != nil {
		return nil, fmt.Errorf("conversation: %w", err)
	}
	for _, t := range o.tools {
		if hasDecl(decls, t.Name()) {
			return nil, fmt.Errorf("conversation: tool %q is declared twice", t.Name())
		}
		decls = append(decls, ToolDecl{Name: t.Name(), Description: t.Description(), Parameters: t.Parameters()})
	}
	if o.toolChoice != ToolChoiceAuto && o.toolChoice != ToolChoiceNone && o.toolChoice != ToolChoiceRequired {
		if !hasDecl(decls, string(o.toolChoice)) {
			return nil, fmt.Errorf("conversation: tool choice %q names no declared tool", o.toolChoice)
		}
	}
	t := &turnState{c: c, hist: append(append([]Message(nil), c.history...), msg), reply: &Reply{Added: []Message{msg}}}
	textOnly := false
	for round := 0; ; round++ {
		choice := o.toolChoice
		if round > 0 && choice != ToolChoiceNone {
			choice = ToolChoiceAuto
		}
		if textOnly {
			choice = ToolChoiceNone
		}
		prompt, err := c.render(ctx, t.hist, true, o.extra, decls)
		if err != nil {
			return t.fail("render", fmt.Errorf("conversation: chat template: %w", err))
		}
		media, err := mediaOf(t.hist)
		if err != nil {
			return t.fail("prefill", fmt.Errorf("conversation: %w", err))
		}
		var genPrompt string // a turn boundary on recurrent models (sync)
		if c.sess.HasRecurrentState() {
			if base, err := c.render(ctx, t.hist, false, o.extra, decls); err == nil && strings.HasPrefix(prompt, base) {
				genPrompt = prompt[len(base):]
			}
		}
		prefillStart := time.Now()
		promptTokens, cached, err := c.sync(ctx, prompt, media, genPrompt)
		t.reply.Timings.Prefill += time.Since(prefillStart)
		if err != nil {
			return t.fail("prefill", fmt.Errorf("conversation: prefill: %w", err))
		}
		t.reply.Usage.PromptTokens += promptTokens
		t.reply.Usage.CachedTokens += cached
		grammar, err := c.constraintFor(o, decls, choice)
		if err != nil {
			return t.fail("constraint", err)
		}
		// With tool choice "none" the reply is text even where no grammar
		// keeps tool calls out of it.
		callsAllowed := len(decls) > 0 && choice != ToolChoiceNone
		format := toolcall.WithTools(c.format, toolsOf(decls))
		if !callsAllowed {
			format = c.textFormat
		}
		st := &streamer{emit: emit, format: format, nextID: c.callID}
		decodeStart := time.Now()
		gen, err := c.generate(ctx, sampler, o, grammar, st)
		t.reply.Timings.Decode += time.Since(decodeStart)
		t.reply.Usage.CompletionTokens += gen.tokens
		if err != nil {
			c.kvText = "" // the session holds a partial reply
			t.reply.FinishReason = gen.finish
			p := st.partial()
			t.reply.Message = Message{Role: RoleAssistant, Text: p.Content, ReasoningContent: p.Reasoning}
			return t.fail("generate", err)
		}
		parsed, perr := format.Parse(gen.raw)
		calls := parsed.Calls
		var truncated *ToolCall
		if gen.finish == FinishLength && callsAllowed {
			// The token limit may have cut a call: keep the calls
			// written before it, and report the cut one.
			p := format.ParsePartial(gen.raw)
			if perr != nil || len(p.Calls) < len(calls) || p.Pending != nil || len(p.Content) < len(parsed.Content) {
				calls, truncated, perr = p.Calls, p.Pending, nil
				if truncated == nil {
					truncated = &ToolCall{} // cut before its name was complete
				}
				parsed.Content = p.Content
			}
		}
		calls = st.finish(parsed, calls)
		assistant := Message{Role: RoleAssistant, Text: parsed.Content, ReasoningContent: parsed.Reasoning, ToolCalls: calls}
		t.add(assistant)
		c.closeTurn(ctx, t.hist, prompt+gen.raw, o.extra, decls)
		if o.constraint != nil && gen.incomplete {
			t.reply.Message, t.reply.FinishReason = assistant, gen.finish
			return t.reply, &IncompleteError{Reason: gen.finish, Text: gen.raw}
		}
		if perr != nil && toolset.Len() > 0 && !o.returnRequests && round < o.maxToolTurns {
			// Show the model its malformed call so it can try again; the
			// stream shows it as the result of a call named "error".
			t.add(Message{Role: RoleTool, Name: "error", Text: perr.Error()})
			if emit != nil {
				emit(Chunk{ToolResult: &ToolRun{Call: ToolCall{Name: "error"}, Result: perr.Error(), Err: perr}})
			}
			continue
		}
		t.reply.Message, t.reply.FinishReason, t.reply.Truncated = assistant, gen.finish, truncated
		if perr != nil || len(calls) == 0 || o.returnRequests || toolset.Len() == 0 {
			t.reply.ToolCallErr = perr
			if len(calls) > 0 && gen.finish == FinishStop {
				t.reply.FinishReason = FinishToolCalls
			}
			break
		}
		for _, r := range c.runTools(ctx, calls, toolset, emit) {
			t.reply.ToolRuns = append(t.reply.ToolRuns, r)
			t.add(ToolResult(r.Call, r.Result))
			t.ran = true
		}
		if err := ctx.Err(); err != nil {
			return t.fail("tools", fmt.Errorf("conversation: %w", err))
		}
		if truncated != nil {
			break // the token limit cut this round: report it after running what was complete
		}
		if round+1 >= o.maxToolTurns {
			textOnly = true
			t.reply.ToolLimitReached = true
		}
	}
	c.history = t.hist
	return t.reply, nil
}

// turnState is the history and reply a turn builds.
type turnState struct {
	c     *Conversation
	hist  []Message
	reply *Reply
	ran   bool // tools ran: their calls and results must survive a failure
}

func (t *turnState) add(m Message) {
	t.hist = append(t.hist, m)
	t.reply.Added = append(t.reply.Added, m)
}

// fail ends the turn with err. After tools ran, the history keeps what
// happened up to the failure and the error is a *TurnError; the reply so
// far is returned with it.
func (t *turnState) fail(stage string, err error) (*Reply, error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.reply.FinishReason = FinishCancelled
	}
	if !t.ran {
		return t.reply, err
	}
	t.c.history = t.hist
	return t.reply, &TurnError{Stage: stage, Kept: len(t.reply.Added), Err: err}
}

// toolsOf returns what formats and grammars know of the declared tools.
func toolsOf(decls []ToolDecl) []toolcall.Tool {
	out := make([]toolcall.Tool, len(decls))
	for i, d := range decls {
		out[i] = toolcall.Tool{Name: d.Name, Parameters: d.Parameters}
	}
	return out
}

func hasDecl(decls []ToolDecl, name string) bool {
	for _, d := range decls {
		if d.Name == name {
			return true
		}
	}
	return false
}

// checkMessage refuses what the model cannot take before anything is
// prefilled.
func (c *Conversation) checkMessage(msg Message) error {
	switch msg.Role {
	case RoleUser, RoleSystem, RoleTool, RoleAssistant, RoleModel:
	default:
		return fmt.Errorf("conversation: unknown role %q", msg.Role)
	}
	for i, p := range msg.Parts {
		if p.Type == "text" {
			continue
		}
		m, err := LoadMedia(p)
		if err != nil {
			return fmt.Errorf("conversation: part %d: %w", i, err)
		}
		if err := c.checkMedia(m); err != nil {
			return err
		}
	}
	return nil
}

// constraintFor picks the grammar of a reply: the caller's, or the
// tool-call grammar of the model's format for the tool choice.
func (c *Conversation) constraintFor(o sendOptions, decls []ToolDecl, choice ToolChoice) (*constrain.Grammar, error) {
	if o.constraint != nil {
		return o.constraint, nil
	}
	if len(decls) == 0 || (o.constrainedCalls != nil && !*o.constrainedCalls) {
		if choice == ToolChoiceAuto || choice == ToolChoiceNone || len(decls) == 0 {
			return nil, nil
		}
		return nil, fmt.Errorf("conversation: tool choice %q needs grammar-constrained tool calls, which are turned off", choice)
	}
	opts := toolcall.GrammarOptions{Mode: toolcall.TextOrCalls, Parallel: !o.singleCall,
		// Single-line JSON as models write it (and templates render it),
		// so a forced call is short and re-renders as a prefix.
		JSON: constrain.JSONOptions{Whitespace: constrain.WhitespaceSpaced}}
	for _, t := range toolsOf(decls) {
		if choice != ToolChoiceAuto && choice != ToolChoiceNone && choice != ToolChoiceRequired && t.Name != string(choice) {
			continue
		}
		opts.Tools = append(opts.Tools, t)
	}
	switch choice {
	case ToolChoiceNone:
		opts.Mode = toolcall.TextOnly
	case ToolChoiceAuto:
	default:
		opts.Mode = toolcall.CallsOnly
	}
	g, err := toolcall.Grammar(c.format, opts)
	if errors.Is(err, toolcall.ErrNoGrammar) && (choice == ToolChoiceAuto || choice == ToolChoiceNone) {
		// Unforced replies need no grammar: "none" reads the reply as
		// plain text (see turn), whatever it holds.
		return nil, nil
	}
	if errors.Is(err, toolcall.ErrNoGrammar) {
		return nil, fmt.Errorf("conversation: tool choice %q needs a grammar-forced call; the %q tool-call format has none: %w", choice, c.format.Name(), err)
	}
	if err != nil {
		return nil, fmt.Errorf("conversation: tool-call grammar: %w", err)
	}
	return g, nil
}

// generation is the outcome of one generate call.
type generation struct {
	raw        string
	tokens     int
	finish     FinishReason
	incomplete bool // a constraint was set and is not satisfied
}

// generate samples one reply, streaming it through st (st.emit may be
// nil). On error st.partial() reads the reply so far.
func (c *Conversation) generate(ctx context.Context, smp session.Sampler, o sendOptions, g *constrain.Grammar, st *streamer) (generation, error) {
	gopts := session.GenerateOptions{Sampler: smp, MaxTokens: o.maxTokens, StopStrings: o.stop, Report: o.report}
	var matcher *constrain.Matcher
	if g != nil {
		v, err := c.eng.ConstraintVocab()
		if err != nil {
			return generation{}, fmt.Errorf("conversation: constraint: %w", err)
		}
		matcher = g.NewMatcher(v)
		gopts.Constraint = matcher
	}
	dec := c.tok.NewStreamDecoder()
	var raw strings.Builder
	gen := generation{finish: FinishStop}
	for id, err := range c.sess.Generate(ctx, gopts) {
		if err != nil {
			if ctx.Err() != nil {
				gen.finish = FinishCancelled
			}
			return gen, fmt.Errorf("conversation: generate: %w", err)
		}
		gen.tokens++
		piece, err := dec.Add(id)
		if err != nil {
			return gen, fmt.Errorf("conversation: detokenize: %w", err)
		}
		raw.WriteString(piece)
		if piece != "" && !st.update(raw.String()) {
			gen.finish = FinishCancelled
			return gen, context.Canceled
		}
	}
	raw.WriteString(dec.Flush())
	gen.raw = raw.String()
	if gen.tokens >= o.maxTokens && (matcher == nil || !matcher.Done()) {
		gen.finish = FinishLength
	}
	gen.incomplete = matcher != nil && !matcher.Accepting()
	return gen, nil
}

// streamer turns a growing reply into chunks: reasoning and answer text as
// they become visible, and tool calls as the model writes them (name
// first, then pieces of the arguments). Calls get their IDs here, so the
// streamed and the returned calls agree.
type streamer struct {
	emit   func(Chunk) bool
	format toolcall.Format
	nextID func() string
	raw    string // the reply so far
	sent   struct {
		content, reasoning int
		calls              []sentCall // per call: ID and argument bytes sent
	}
	stopped bool
}

type sentCall struct {
	id   string
	args int
}

// update reads raw (the reply so far) and emits what became visible; it
// returns false when the consumer stopped the stream.
func (s *streamer) update(raw string) bool {
	s.raw = raw
	if s.emit == nil {
		return true // nothing to show: parse once, at the end
	}
	p := s.partial()
	calls := p.Calls
	if p.Pending != nil && p.Pending.Name != "" {
		calls = append(calls[:len(calls):len(calls)], *p.Pending)
	}
	return s.send(p.Content, p.Reasoning, calls)
}

// partial parses the reply so far, for a reply that ends early.
func (s *streamer) partial() toolcall.Partial {
	return s.format.ParsePartial(s.raw)
}

// finish emits the rest of the final parse and returns the calls with
// their IDs.
func (s *streamer) finish(p toolcall.Parsed, calls []ToolCall) []ToolCall {
	if len(calls) == 0 {
		if s.emit != nil && !s.stopped {
			s.send(p.Content, p.Reasoning, nil)
		}
		return nil
	}
	out := make([]ToolCall, len(calls))
	copy(out, calls)
	if s.emit != nil && !s.stopped {
		s.send(p.Content, p.Reasoning, out)
	}
	for i := range out {
		out[i].ID = s.id(i, out[i].ID)
	}
	return out
}

// id returns the ID of call i: the one streamed, else the model's, else a
// new one.
func (s *streamer) id(i int, own string) string {
	for len(s.sent.calls) <= i {
		s.sent.calls = append(s.sent.calls, sentCall{})
	}
	if s.sent.calls[i].id == "" {
		s.sent.calls[i].id = own
		if own == "" {
			s.sent.calls[i].id = s.nextID()
		}
	}
	return s.sent.calls[i].id
}

func (s *streamer) send(content, reasoning string, calls []ToolCall) bool {
	var ch Chunk
	if len(reasoning) > s.sent.reasoning {
		ch.Reasoning = reasoning[s.sent.reasoning:]
		s.sent.reasoning = len(reasoning)
	}
	if len(content) > s.sent.content {
		ch.Text = content[s.sent.content:]
		s.sent.content = len(content)
	}
	if (ch.Text != "" || ch.Reasoning != "") && !s.out(ch) {
		return false
	}
	for i, call := range calls {
		first := i >= len(s.sent.calls) || s.sent.calls[i].id == ""
		id := s.id(i, call.ID)
		args := string(call.Arguments)
		var delta string
		if sent := s.sent.calls[i].args; len(args) > sent {
			delta = args[sent:]
			s.sent.calls[i].args = len(args)
		}
		if first {
			if !s.out(Chunk{ToolCall: &ToolCallDelta{Index: i, ID: id, Name: call.Name, Arguments: delta}}) {
				return false
			}
		} else if delta != "" && !s.out(Chunk{ToolCall: &ToolCallDelta{Index: i, Arguments: delta}}) {
			return false
		}
	}
	return true
}

func (s *streamer) out(ch Chunk) bool {
	if s.stopped {
		return false
	}
	if !s.emit(ch) {
		s.stopped = true
		return false
	}
	return true
}

// closeTurn prefills the template's end-of-turn text after a reply, when
// the re-rendered history extends what the session holds; otherwise the
// next turn falls back to the common token prefix.
func (c *Conversation) closeTurn(ctx context.Context, hist []Message, held string, extra map[string]any, decls []ToolDecl) {
	c.kvText = ""
	closed, err := c.render(ctx, hist, false, extra, decls)
	if err != nil || !strings.HasPrefix(closed, held) {
		return
	}
	have := c.sess.TokenCount()
	if suffix := closed[len(held):]; strings.Contains(suffix, c.marker) {
		return // media after the reply: the next turn syncs them
	} else if suffix != "" {
		if err := c.sess.Append(ctx, c.encodePrompt(suffix, false)); err != nil {
			_ = c.sess.Rewind(c.sess.TokenCount() - have)
			return
		}
	}
	c.kvText = closed
}

// runTools runs calls concurrently; failures (an unknown tool, bad
// arguments, an error from the tool) become results the model can read.
// Each result is emitted as its tool finishes; the runs are returned in
// call order.
func (c *Conversation) runTools(ctx context.Context, calls []ToolCall, set *tools.Set, emit func(Chunk) bool) []ToolRun {
	runs := make([]ToolRun, len(calls))
	done := make(chan int, len(calls))
	for i, call := range calls {
		go func() {
			runs[i].Call = call
			out, err := set.RunRaw(ctx, call.Name, call.Arguments)
			runs[i].Err = err
			if err != nil {
				runs[i].Result = errorResult(err)
			} else {
				runs[i].Result = string(out)
			}
			done <- i
		}()
	}
	for range calls {
		i := <-done
		if emit != nil {
			run := runs[i]
			emit(Chunk{ToolResult: &run})
		}
	}
	return runs
}

func errorResult(err error) string {
	b, _ := json.Marshal(map[string]string{"error": err.Error()})
	return string(b)
}

// IncompleteError is returned when a constrained reply (WithConstraint)
// ended before the grammar was satisfied, so the text is not a complete
// sentence of it (for example JSON cut off by the token limit).
type IncompleteError struct {
	Reason FinishReason // why generation ended
	Text   string       // the partial reply
}

func (e *IncompleteError) Error() string {
	return fmt.Sprintf("conversation: constrained reply incomplete (%s) after %d bytes", e.Reason, len(e.Text))
}

// TurnError is returned when a turn fails after tools already ran: the
// assistant's calls and the tool results were kept in the history (their
// side effects happened), and Stage says what failed next.
type TurnError struct {
	Stage string // "render", "prefill", "generate", …
	Kept  int    // messages this turn added to the history before failing
	Err   error
}

func (e *TurnError) Error() string {
	return fmt.Sprintf("conversation: %s failed after tools ran (%d messages kept): %v", e.Stage, e.Kept, e.Err)
}

func (e *TurnError) Unwrap() error { return e.Err }

// PrefillTokensPerSecond is the reply's prefill rate, as LiteRT-LM's
// BenchmarkInfo reports it: the prompt tokens not already cached per
// second of Timings.Prefill (0 when nothing was prefilled).
func (r *Reply) PrefillTokensPerSecond() float64 {
	return perSecond(r.Usage.PromptTokens-r.Usage.CachedTokens, r.Timings.Prefill)
}

// DecodeTokensPerSecond is the reply's decode rate: CompletionTokens per
// second of Timings.Decode (0 when nothing was generated).
func (r *Reply) DecodeTokensPerSecond() float64 {
	return perSecond(r.Usage.CompletionTokens, r.Timings.Decode)
}

// perSecond returns n per second of d, 0 when either is not positive.
func perSecond(n int, d time.Duration) float64 {
	if n <= 0 || d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
