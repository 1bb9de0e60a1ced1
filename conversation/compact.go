package conversation

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// CompactMode says what happens to the older turns when a conversation is
// compacted.
type CompactMode int

const (
	// CompactSummarize replaces the older turns with a summary the model
	// writes.
	CompactSummarize CompactMode = iota
	// CompactDrop removes the older turns.
	CompactDrop
)

// String returns "summarize" or "drop".
func (m CompactMode) String() string {
	switch m {
	case CompactSummarize:
		return "summarize"
	case CompactDrop:
		return "drop"
	}
	return fmt.Sprintf("CompactMode(%d)", int(m))
}

// ParseCompactMode parses "summarize" or "drop".
func ParseCompactMode(s string) (CompactMode, error) {
	switch s {
	case "summarize":
		return CompactSummarize, nil
	case "drop":
		return CompactDrop, nil
	}
	return 0, fmt.Errorf("conversation: unknown compaction mode %q (want summarize or drop)", s)
}

// DefaultSummaryPrompt asks the model for the summary that replaces older
// turns; the transcript follows it.
const DefaultSummaryPrompt = "Summarize the conversation below in a few sentences. Keep facts, names, " +
	"decisions, file paths and open tasks; leave out pleasantries. Write only the summary."

// CompactPolicy says when a conversation is compacted and how.
type CompactPolicy struct {
	// Threshold is the fraction of the context length the history may fill
	// before it is compacted (default 0.8).
	Threshold float64
	// KeepTurns is how many of the last user turns (each user message and
	// everything after it) are kept verbatim (default 2). Fewer are kept if
	// they alone pass the threshold, but never fewer than one.
	KeepTurns int
	// Mode summarizes (the default) or drops the older turns.
	Mode CompactMode
	// SummaryPrompt replaces DefaultSummaryPrompt.
	SummaryPrompt string
	// SummaryMaxTokens caps the summary (default 256).
	SummaryMaxTokens int
	// Force compacts even below the threshold.
	Force bool
}

func (p CompactPolicy) withDefaults() CompactPolicy {
	if p.Threshold <= 0 {
		p.Threshold = 0.8
	}
	if p.KeepTurns <= 0 {
		p.KeepTurns = 2
	}
	if p.SummaryPrompt == "" {
		p.SummaryPrompt = DefaultSummaryPrompt
	}
	if p.SummaryMaxTokens <= 0 {
		p.SummaryMaxTokens = 256
	}
	return p
}

// CompactResult reports what Compact did.
type CompactResult struct {
	Compacted    bool   // the history changed
	Removed      int    // messages taken out of the history
	Summary      string // the summary that replaced them (CompactSummarize)
	TokensBefore int    // tokens of the rendered history before
	TokensAfter  int    // and after
	Limit        int    // the threshold in tokens
}

// ErrCannotCompact is returned when the history passes the threshold but
// holds nothing that may be removed: only the system prompt and the turns
// that are kept.
var ErrCannotCompact = errors.New("nothing to compact")

// Compact shrinks the history when it fills more than p.Threshold of the
// context: the leading system messages and the last p.KeepTurns user turns
// are kept, and the turns between them are summarized by the model or
// dropped. Cuts fall only before user messages, so a tool call is never
// separated from its result. Below the threshold (and without p.Force) it
// does nothing. If the turn fails the history is unchanged.
//
// Call it before SendMessage, as the chat command does after every turn.
func (c *Conversation) Compact(ctx context.Context, p CompactPolicy) (CompactResult, error) {
	p = p.withDefaults()
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.publish()
	limit := int(p.Threshold * float64(c.sess.ContextLength()))
	res := CompactResult{Limit: limit}
	before, err := c.historyTokens(ctx, c.history)
	if err != nil {
		return res, err
	}
	res.TokensBefore, res.TokensAfter = before, before
	if before <= limit && !p.Force {
		return res, nil
	}
	head := 0
	for head < len(c.history) && c.history[head].Role == RoleSystem {
		head++
	}
	var turns []int // indexes of user messages after the head
	for i := head; i < len(c.history); i++ {
		if c.history[i].Role == RoleUser {
			turns = append(turns, i)
		}
	}
	keep := min(p.KeepTurns, len(turns))
	// Keep fewer turns while the kept ones alone pass the threshold.
	for keep > 1 {
		n, err := c.historyTokens(ctx, append(append([]Message(nil), c.history[:head]...), c.history[turns[len(turns)-keep]:]...))
		if err != nil {
			return res, err
		}
		if n <= limit {
			break
		}
		keep--
	}
	cut := len(c.history)
	if keep > 0 {
		cut = turns[len(turns)-keep]
	}
	if cut <= head {
		return res, fmt.Errorf("conversation: compact: %d tokens over the limit of %d: %w", before, limit, ErrCannotCompact)
	}
	old := c.history[head:cut]
	hist := append([]Message(nil), c.history[:head]...)
	if p.Mode == CompactSummarize {
		summary, err := c.summarize(ctx, old, p)
		if err != nil {
			return res, err
		}
		res.Summary = summary
		note := "Summary of the earlier conversation:\n" + summary
		if head > 0 {
			last := &hist[head-1]
			last.Text = strings.TrimRight(last.Content(), "\n") + "\n\n" + note
			last.Parts = nil
		} else {
			// Templates that want user and assistant to alternate still
			// accept a user/assistant pair before the kept turns.
			hist = append(hist, UserText(note), Message{Role: RoleAssistant, Text: "Understood."})
		}
	} else if p.Mode != CompactDrop {
		return res, fmt.Errorf("conversation: compact: unknown mode %v", p.Mode)
	}
	hist = append(hist, c.history[cut:]...)
	after, err := c.historyTokens(ctx, hist)
	if err != nil {
		return res, err
	}
	c.history = hist
	res.Compacted, res.Removed, res.TokensAfter = true, len(old), after
	return res, nil
}

// HistoryTokens is the number of tokens of the whole history as the chat
// template renders it, the measure Compact compares with the threshold.
// The render runs under the template's own time limit.
func (c *Conversation) HistoryTokens() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.publish()
	return c.historyTokens(context.Background(), c.history)
}

func (c *Conversation) historyTokens(ctx context.Context, msgs []Message) (int, error) {
	if len(msgs) == 0 {
		return 0, nil
	}
	text, err := c.render(ctx, msgs, false, nil, c.cfg.Preface.Tools)
	if err != nil {
		return 0, fmt.Errorf("conversation: chat template: %w", err)
	}
	media, err := mediaOf(msgs)
	if err != nil {
		return 0, fmt.Errorf("conversation: %w", err)
	}
	p, err := c.prompt(ctx, text, media, true)
	if err != nil {
		return 0, err
	}
	return p.Len(), nil
}

// summarize asks the model, in this conversation's session, for a summary
// of msgs. The session is left holding the summary prompt; the next turn
// re-prefills from the common token prefix.
func (c *Conversation) summarize(ctx context.Context, msgs []Message, p CompactPolicy) (string, error) {
	var b strings.Builder
	b.WriteString(p.SummaryPrompt)
	b.WriteString("\n\n<transcript>\n")
	for _, m := range msgs {
		writeTranscript(&b, m)
	}
	b.WriteString("</transcript>")
	prompt, err := c.render(ctx, []Message{UserText(b.String())}, true, nil, nil)
	if err != nil {
		return "", fmt.Errorf("conversation: compact: chat template: %w", err)
	}
	if _, _, err := c.sync(ctx, prompt, nil, ""); err != nil {
		return "", fmt.Errorf("conversation: compact: prefill: %w", err)
	}
	o := sendOptions{maxTokens: p.SummaryMaxTokens}
	gen, err := c.generate(ctx, c.cfg.Sampler, o, nil, &streamer{format: c.textFormat})
	c.kvText = "" // the session holds the summary, not a render of the history
	if err != nil {
		return "", fmt.Errorf("conversation: compact: %w", err)
	}
	parsed, _ := c.textFormat.Parse(gen.raw)
	summary := strings.TrimSpace(parsed.Content)
	if summary == "" {
		return "", errors.New("conversation: compact: the model wrote an empty summary")
	}
	return summary, nil
}

// writeTranscript writes one message as a line of a plain-text transcript.
func writeTranscript(b *strings.Builder, m Message) {
	switch m.Role {
	case RoleTool:
		fmt.Fprintf(b, "tool %s result: %s\n", m.Name, clip(m.Content(), 2000))
	default:
		if text := strings.TrimSpace(m.Content()); text != "" {
			fmt.Fprintf(b, "%s: %s\n", m.Role, text)
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(b, "%s called %s(%s)\n", m.Role, tc.Name, tc.Arguments)
		}
	}
}

// clip cuts s to n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
