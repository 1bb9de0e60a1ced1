package conversation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/session"
	"github.com/litert-go/litert-go/tools"
)

// defaultMaxToolTurns bounds tool rounds per message.
const defaultMaxToolTurns = 5

// ErrNoEncoder is wrapped by errors about media the model cannot read.
var ErrNoEncoder = errors.New("no encoder for this input")

// turn runs one SendMessage: it appends msg, generates replies and runs
// tools until a text answer, and commits the new messages to the history
// only when everything succeeded. emit, if not nil, receives streamed
// chunks; it returns false to stop.
func (c *Conversation) turn(ctx context.Context, msg Message, opts []Option, emit func(Chunk) bool) (*Reply, error) {
	o := sendOptions{maxTokens: c.cfg.MaxTokens, maxToolTurns: defaultMaxToolTurns, toolChoice: ToolChoiceAuto}
	for _, opt := range opts {
		opt(&o)
	}
	if o.maxTokens <= 0 {
		o.maxTokens = c.cfg.MaxTokens
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
	hist := append(append([]Message(nil), c.history...), msg)
	reply := &Reply{Added: []Message{msg}}
	textOnly := false
	for round := 0; ; round++ {
		choice := o.toolChoice
		if round > 0 && choice != ToolChoiceNone {
			choice = ToolChoiceAuto
		}
		if textOnly {
			choice = ToolChoiceNone
		}
		prompt, err := c.render(hist, true, o.extra, decls)
		if err != nil {
			return nil, fmt.Errorf("conversation: chat template: %w", err)
		}
		promptTokens, cached, err := c.sync(ctx, prompt)
		if err != nil {
			return nil, fmt.Errorf("conversation: prefill: %w", err)
		}
		reply.Usage.PromptTokens += promptTokens
		reply.Usage.CachedTokens += cached
		grammar, err := c.constraintFor(o, decls, choice)
		if err != nil {
			return nil, err
		}
		// With tool choice "none" the reply is text even where no grammar
		// keeps tool calls out of it.
		calls := len(decls) > 0 && choice != ToolChoiceNone
		raw, n, err := c.generate(ctx, sampler, o, grammar, calls, emit)
		reply.Usage.CompletionTokens += n
		if err != nil {
			c.kvText = "" // the session holds a partial reply
			return nil, err
		}
		assistant, perr := c.parseReply(raw, calls)
		hist = append(hist, assistant)
		reply.Added = append(reply.Added, assistant)
		c.closeTurn(ctx, hist, prompt+raw, o.extra, decls)
		if perr != nil && toolset.Len() > 0 && !o.returnRequests && round < o.maxToolTurns {
			// Show the model its malformed call so it can try again.
			errMsg := Message{Role: RoleTool, Name: "error", Text: perr.Error()}
			hist = append(hist, errMsg)
			reply.Added = append(reply.Added, errMsg)
			continue
		}
		if perr != nil || len(assistant.ToolCalls) == 0 || o.returnRequests || toolset.Len() == 0 {
			reply.Message = assistant
			reply.ToolCallErr = perr
			break
		}
		results := c.runTools(ctx, assistant.ToolCalls, toolset)
		for _, r := range results {
			reply.ToolRuns = append(reply.ToolRuns, r)
			tm := ToolResult(r.Call, r.Result)
			hist = append(hist, tm)
			reply.Added = append(reply.Added, tm)
		}
		if round+1 >= o.maxToolTurns {
			textOnly = true
			reply.ToolLimitReached = true
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("conversation: %w", err)
		}
	}
	c.history = hist
	return reply, nil
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
	case RoleUser, RoleSystem, RoleTool, RoleAssistant:
	default:
		return fmt.Errorf("conversation: unknown role %q", msg.Role)
	}
	for i, p := range msg.Parts {
		if p.Type == "text" {
			continue
		}
		if _, err := LoadMedia(p); err != nil {
			return fmt.Errorf("conversation: part %d: %w", i, err)
		}
		kind := map[string]string{"image": "vision", "audio": "audio"}[p.Type]
		return fmt.Errorf("conversation: model %q has no %s encoder: %w", c.eng.Info().Name, kind, ErrNoEncoder)
	}
	return nil
}

// constraintFor picks the grammar of a reply: the caller's, or the
// tool-call grammar of the model's format for the tool choice.
func (c *Conversation) constraintFor(o sendOptions, decls []ToolDecl, choice ToolChoice) (*constrain.Grammar, error) {
	if o.constraint != nil {
		return o.constraint, nil
	}
	if len(decls) == 0 {
		return nil, nil
	}
	format, ok := c.format.grammarFormat()
	if o.constrainedCalls != nil && !*o.constrainedCalls {
		ok = false
	}
	if !ok {
		// "none" needs no grammar: the reply is read as plain text (see
		// turn), whatever it holds.
		if choice == ToolChoiceAuto || choice == ToolChoiceNone {
			return nil, nil
		}
		return nil, fmt.Errorf("conversation: tool choice %q needs a constrained tool-call format; %q is not supported by package constrain", choice, c.format.Name)
	}
	mode := constrain.TextOrToolCalls
	var allowed []constrain.Tool
	for _, d := range decls {
		if choice != ToolChoiceAuto && choice != ToolChoiceNone && choice != ToolChoiceRequired && d.Name != string(choice) {
			continue
		}
		allowed = append(allowed, constrain.Tool{Name: d.Name, Parameters: d.Parameters})
	}
	switch choice {
	case ToolChoiceNone:
		mode = constrain.TextOnly
	case ToolChoiceAuto:
	default:
		mode = constrain.ToolCallsOnly
	}
	// Single-line JSON as models write it (and templates render it), so a
	// forced call is short and re-renders as a prefix.
	g, err := constrain.ToolCallsWith(format, allowed, mode, constrain.JSONOptions{Whitespace: constrain.WhitespaceSpaced})
	if err != nil {
		return nil, fmt.Errorf("conversation: tool-call grammar: %w", err)
	}
	return g, nil
}

// generate samples one reply and streams its visible text through emit.
func (c *Conversation) generate(ctx context.Context, smp session.Sampler, o sendOptions, g *constrain.Grammar, tools bool, emit func(Chunk) bool) (string, int, error) {
	gopts := session.GenerateOptions{Sampler: smp, MaxTokens: o.maxTokens, StopStrings: o.stop}
	if g != nil {
		v, err := c.eng.ConstraintVocab()
		if err != nil {
			return "", 0, fmt.Errorf("conversation: constraint: %w", err)
		}
		gopts.Constraint = g.NewMatcher(v)
		if o.singleCall && c.format.Name == "hermes" {
			// End the reply at its first call; the parser accepts the
			// unclosed tag.
			gopts.StopStrings = append(gopts.StopStrings[:len(gopts.StopStrings):len(gopts.StopStrings)], "</tool_call>")
		}
	}
	dec := c.tok.NewStreamDecoder()
	var raw strings.Builder
	var sent streamState
	n := 0
	for id, err := range c.sess.Generate(ctx, gopts) {
		if err != nil {
			return "", n, fmt.Errorf("conversation: generate: %w", err)
		}
		n++
		piece, err := dec.Add(id)
		if err != nil {
			return "", n, fmt.Errorf("conversation: detokenize: %w", err)
		}
		raw.WriteString(piece)
		if emit != nil && !sent.emit(raw.String(), c.format, tools, false, emit) {
			return "", n, context.Canceled
		}
	}
	raw.WriteString(dec.Flush())
	if emit != nil && !sent.emit(raw.String(), c.format, tools, true, emit) {
		return "", n, context.Canceled
	}
	return raw.String(), n, nil
}

// streamState tracks how much of a reply's reasoning and answer was sent.
type streamState struct{ reasoning, answer int }

// emit sends the newly visible reasoning and answer text of raw.
func (s *streamState) emit(raw string, f ToolFormat, tools, final bool, emit func(Chunk) bool) bool {
	reasoning, answer, inThinking := splitThinking(raw)
	var ch Chunk
	if len(reasoning) > s.reasoning {
		ch.Reasoning = reasoning[s.reasoning:]
		s.reasoning = len(reasoning)
	}
	if !inThinking {
		visible := len(answer)
		if tools {
			visible = f.Visible(answer)
			if final && f.regionStart(answer) < 0 {
				visible = len(answer)
			}
		} else if !final {
			visible = len(strings.TrimRight(answer, " \n")) // hold trailing space the final parse trims
		}
		if visible > s.answer {
			ch.Text = answer[s.answer:visible]
			s.answer = visible
		}
	}
	if ch.Text == "" && ch.Reasoning == "" {
		return true
	}
	return emit(ch)
}

// splitThinking separates a leading <think>…</think> block from the answer.
func splitThinking(raw string) (reasoning, answer string, open bool) {
	trimmed := strings.TrimLeft(raw, " \n")
	if !strings.HasPrefix(trimmed, "<think>") {
		if i := strings.Index(raw, "</think>"); i >= 0 { // template opened <think> itself
			return strings.TrimSpace(raw[:i]), strings.TrimLeft(raw[i+len("</think>"):], " \n"), false
		}
		return "", raw, false
	}
	body := trimmed[len("<think>"):]
	if i := strings.Index(body, "</think>"); i >= 0 {
		return strings.TrimSpace(body[:i]), strings.TrimLeft(body[i+len("</think>"):], " \n"), false
	}
	return strings.TrimLeft(body, "\n"), "", true
}

// parseReply turns raw model output into an assistant message.
func (c *Conversation) parseReply(raw string, tools bool) (Message, error) {
	reasoning, answer, _ := splitThinking(raw)
	m := Message{Role: RoleAssistant, ReasoningContent: reasoning, Text: answer}
	if !tools {
		return m, nil
	}
	content, calls, err := c.format.Parse(answer)
	m.Text = strings.TrimSpace(content)
	m.ToolCalls = calls
	return m, err
}

// closeTurn prefills the template's end-of-turn text after a reply, when
// the re-rendered history extends what the session holds; otherwise the
// next turn falls back to the common token prefix.
func (c *Conversation) closeTurn(ctx context.Context, hist []Message, held string, extra map[string]any, decls []ToolDecl) {
	c.kvText = ""
	closed, err := c.render(hist, false, extra, decls)
	if err != nil || !strings.HasPrefix(closed, held) {
		return
	}
	have := c.sess.TokenCount()
	if suffix := closed[len(held):]; suffix != "" {
		if err := c.sess.Append(ctx, c.encodePrompt(suffix, false)); err != nil {
			_ = c.sess.Rewind(c.sess.TokenCount() - have)
			return
		}
	}
	c.kvText = closed
}

// runTools runs calls concurrently; failures (an unknown tool, bad
// arguments, an error from the tool) become results the model can read.
func (c *Conversation) runTools(ctx context.Context, calls []ToolCall, set *tools.Set) []ToolRun {
	runs := make([]ToolRun, len(calls))
	var wg sync.WaitGroup
	for i, call := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i].Call = call
			out, err := set.RunRaw(ctx, call.Name, call.Arguments)
			runs[i].Err = err
			if err != nil {
				runs[i].Result = errorResult(err)
			} else {
				runs[i].Result = string(out)
			}
		}()
	}
	wg.Wait()
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
