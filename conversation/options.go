package conversation

import (
	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/session"
	"github.com/litert-go/litert-go/tools"
)

// ToolChoice says whether the model may, must or must not call tools.
type ToolChoice string

// Tool choices, as in the OpenAI API. Any other value names the one tool
// the model must call.
const (
	ToolChoiceAuto     ToolChoice = "auto"
	ToolChoiceNone     ToolChoice = "none"
	ToolChoiceRequired ToolChoice = "required"
)

// sendOptions are the per-message settings.
type sendOptions struct {
	sampler          *session.Sampler
	maxTokens        int
	stop             []string
	extra            map[string]any
	constraint       *constrain.Grammar
	tools            []*tools.Tool
	maxToolTurns     int
	returnRequests   bool
	toolChoice       ToolChoice
	constrainedCalls *bool
	singleCall       bool
	report           session.TokenReport
}

// Option configures one SendMessage call.
type Option func(*sendOptions)

// WithSampler sets the sampler for this message's reply.
func WithSampler(s session.Sampler) Option { return func(o *sendOptions) { o.sampler = &s } }

// WithMaxTokens caps the tokens of each reply (0: the conversation's default).
func WithMaxTokens(n int) Option { return func(o *sendOptions) { o.maxTokens = n } }

// WithStop ends a reply at any of the strings (not included in the reply).
func WithStop(s ...string) Option { return func(o *sendOptions) { o.stop = append(o.stop, s...) } }

// WithExtra adds template context for this message (e.g. "enable_thinking").
func WithExtra(key string, value any) Option {
	return func(o *sendOptions) {
		if o.extra == nil {
			o.extra = map[string]any{}
		}
		o.extra[key] = value
	}
}

// WithConstraint constrains the reply to a grammar (regex, JSON schema,
// GBNF or Lark, compiled by package constrain).
func WithConstraint(g *constrain.Grammar) Option { return func(o *sendOptions) { o.constraint = g } }

// WithTools makes tools available for this message: the model sees their
// declarations, and calls it makes are run automatically (unless
// WithReturnToolRequests), their results sent back, until it answers in
// text.
func WithTools(t ...*tools.Tool) Option {
	return func(o *sendOptions) { o.tools = append(o.tools, t...) }
}

// WithMaxToolTurns bounds the rounds of tool calls in one message (default
// 5). When the limit is reached the next reply is constrained to text.
func WithMaxToolTurns(n int) Option { return func(o *sendOptions) { o.maxToolTurns = n } }

// WithReturnToolRequests returns tool calls to the caller instead of
// running them; the caller sends RoleTool messages back.
func WithReturnToolRequests() Option { return func(o *sendOptions) { o.returnRequests = true } }

// WithToolChoice sets whether the first reply may, must or must not call a
// tool, or which tool it must call. Replies after tool results are "auto".
func WithToolChoice(c ToolChoice) Option { return func(o *sendOptions) { o.toolChoice = c } }

// WithConstrainedToolCalls turns grammar-forced tool-call syntax on or off
// (default: on where the model's format is known to package constrain).
func WithConstrainedToolCalls(on bool) Option {
	return func(o *sendOptions) { o.constrainedCalls = &on }
}

// WithParallelToolCalls allows (the default) or forbids several tool calls
// in one reply. When forbidden, a constrained reply ends after its first
// call.
func WithParallelToolCalls(on bool) Option { return func(o *sendOptions) { o.singleCall = !on } }

// WithTokenReport has each generated token of the reply reported to
// r.Func as it is generated, with its log-probabilities if r asks (see
// session.TokenReport): for logprobs and token timing.
func WithTokenReport(r session.TokenReport) Option { return func(o *sendOptions) { o.report = r } }
