package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

// Renderer renders a chat-template request given as JSON (see
// template.DecodeRequest); *template.Template is one.
type Renderer interface {
	RenderJSON(ctx context.Context, request []byte) (string, error)
}

// Request is the part of a render request that detection varies: the
// model's special tokens and extra template variables stay as given.
type Request struct {
	Messages []json.RawMessage
	Tools    []json.RawMessage
	BOS, EOS *string
	Kwargs   map[string]any
}

func (r Request) marshal(addGen bool) ([]byte, error) {
	req := map[string]any{"messages": r.Messages, "add_generation_prompt": addGen}
	if len(r.Tools) > 0 {
		req["tools"] = r.Tools
	}
	if r.BOS != nil {
		req["bos_token"] = *r.BOS
	}
	if r.EOS != nil {
		req["eos_token"] = *r.EOS
	}
	if r.Kwargs != nil {
		req["kwargs"] = r.Kwargs
	}
	return json.Marshal(req)
}

// AssistantPart renders base.Messages followed by assistant and returns the
// assistant's part as the model would generate it: the render with the
// message (no generation prompt) minus the render up to the generation
// prompt. When the first is not an extension of the second (a template
// that rewrites the end of the prompt), the part after their common
// prefix, backed up to a marker boundary, is returned.
func AssistantPart(ctx context.Context, r Renderer, base Request, assistant json.RawMessage) (string, error) {
	before, err := base.marshal(true)
	if err != nil {
		return "", err
	}
	prompt, err := r.RenderJSON(ctx, before)
	if err != nil {
		return "", err
	}
	with := base
	with.Messages = append(append([]json.RawMessage(nil), base.Messages...), assistant)
	after, err := with.marshal(false)
	if err != nil {
		return "", err
	}
	full, err := r.RenderJSON(ctx, after)
	if err != nil {
		return "", err
	}
	n := 0
	for n < len(prompt) && n < len(full) && prompt[n] == full[n] {
		n++
	}
	if n < len(prompt) {
		// The prompt's tail was rewritten (a "<think>" opener becomes
		// "</think>" once the turn is history): start the part at a
		// marker boundary, not inside the rewritten marker.
		for n > 0 && !strings.ContainsRune(">]} \n", rune(full[n-1])) {
			n--
		}
	}
	return full[n:], nil
}

// Detection is what Detect learned about a template.
type Detection struct {
	// Format reads the template's tool calls (and reasoning); when
	// RendersCalls is false or no format round-trips, it is the hermes
	// format, the most common.
	Format Format
	// RendersCalls says the template writes assistant tool calls at all.
	RendersCalls bool
	// Exact says Format parsed the template's own renders of the probe
	// calls back exactly.
	Exact bool
	// Thinking is the reasoning markup the template writes, if any.
	Thinking Thinking
}

// ProbeTools returns the tool declarations of the probe renders (two
// tools: get_weather and search_docs).
func ProbeTools() []json.RawMessage {
	return []json.RawMessage{
		json.RawMessage(`{"type":"function","function":{"name":"get_weather","description":"Get the weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string","description":"city name"},"days":{"type":"integer","description":"forecast days"}},"required":["city"]}}}`),
		json.RawMessage(`{"type":"function","function":{"name":"search_docs","description":"Search the documentation","parameters":{"type":"object","properties":{"query":{"type":"string","description":"search terms"},"limit":{"type":"integer","description":"most results"},"exact":{"type":"boolean","description":"exact match"}},"required":["query"]}}}`),
	}
}

// probeCalls are the probes' calls: one call, then two parallel calls.
func probeCalls() [][]Call {
	weather := Call{ID: "call00001", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris", "days": 3}`)}
	search := Call{ID: "call00002", Name: "search_docs", Arguments: json.RawMessage(`{"query": "rain \"gear\"", "limit": 5, "exact": true}`)}
	return [][]Call{{weather}, {weather, search}}
}

const probeContent = "Let me check that."

// AssistantMessage returns an OpenAI-shaped assistant message with calls,
// as chat templates expect it (arguments as JSON objects).
func AssistantMessage(content *string, reasoning string, calls []Call) json.RawMessage {
	return assistantMessage(content, reasoning, calls, false)
}

// RenderCalls returns the assistant part (see AssistantPart) of a turn
// holding calls after content ("" for none). Templates differ in what they
// accept, so it tries an empty and a null content, and arguments as JSON
// objects and as JSON strings (as the OpenAI API sends them), and returns
// the first render that shows the calls (else the first that succeeds).
func RenderCalls(ctx context.Context, r Renderer, base Request, content string, calls []Call) (string, error) {
	var first string
	var firstErr error
	ok := false
	for _, stringArgs := range []bool{false, true} {
		for _, null := range []bool{false, true} {
			c := &content
			if null {
				if content != "" {
					continue
				}
				c = nil
			}
			part, err := AssistantPart(ctx, r, base, assistantMessage(c, "", calls, stringArgs))
			switch {
			case err == nil && (len(calls) == 0 || strings.Contains(part, calls[0].Name)):
				return part, nil
			case err == nil && !ok:
				first, ok = part, true
			case err != nil && firstErr == nil:
				firstErr = err
			}
		}
	}
	if ok {
		return first, nil
	}
	return "", firstErr
}

func assistantMessage(content *string, reasoning string, calls []Call, stringArgs bool) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"role":"assistant","content":`)
	if content == nil {
		b.WriteString("null")
	} else {
		writeString(&b, *content)
	}
	if reasoning != "" {
		b.WriteString(`,"reasoning_content":`)
		writeString(&b, reasoning)
	}
	if len(calls) > 0 {
		b.WriteString(`,"tool_calls":[`)
		for i, c := range calls {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`{"id":`)
			writeString(&b, c.ID)
			b.WriteString(`,"type":"function","function":{"name":`)
			writeString(&b, c.Name)
			b.WriteString(`,"arguments":`)
			if stringArgs {
				writeString(&b, string(c.Arguments))
			} else {
				b.Write(c.Arguments)
			}
			b.WriteString(`}}`)
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return b.Bytes()
}

func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1)
}

// Detect finds the tool-call format a chat template writes by analysis of
// its own output: it renders probe conversations (one call, two parallel
// calls, text before a call, an answer with reasoning) and picks the first
// known format that parses every probe back to exactly the calls and text
// rendered. base supplies the special tokens and template variables.
func Detect(ctx context.Context, r Renderer, base Request) Detection {
	d := Detection{Format: fallback()}
	base.Tools = ProbeTools()
	base.Messages = []json.RawMessage{json.RawMessage(`{"role":"user","content":"What is the weather in Paris?"}`)}
	var thinkPart string
	d.Thinking, thinkPart = detectThinking(ctx, r, base)

	type probe struct {
		part    string
		content string
		calls   []Call
	}
	var probes []probe
	calls0 := probeCalls()[0]
	for i, calls := range probeCalls() {
		part, err := RenderCalls(ctx, r, base, "", calls)
		if err != nil || !strings.Contains(part, calls[0].Name) {
			if i == 0 {
				return d // the template does not render tool calls
			}
			continue // e.g. a template that allows one call at a time
		}
		if !strings.Contains(part, calls[len(calls)-1].Name) {
			continue // a template that renders only the first call
		}
		probes = append(probes, probe{part: part, calls: calls})
	}
	if part, err := RenderCalls(ctx, r, base, probeContent, calls0); err == nil && strings.Contains(part, probeContent) && strings.Contains(part, calls0[0].Name) {
		probes = append(probes, probe{part: part, content: probeContent, calls: calls0})
	}
	d.RendersCalls = true
	for _, f := range formats() {
		// A format that reads the family's reasoning itself (harmony's
		// analysis channel, Command R's thinking) is not wrapped.
		if p, err := f.Parse(thinkPart); thinkPart == "" || err != nil || p.Reasoning != probeReasoning {
			f = WithThinking(f, d.Thinking)
		}
		ok := true
		cand := Detection{Format: f, Thinking: d.Thinking}
		for _, p := range probes {
			got, err := f.Parse(cand.AsGenerated(p.part))
			// gpt-oss writes the text before a call in its analysis
			// channel: that text may come back as reasoning.
			text := strings.TrimSpace(got.Content)
			if text == "" && p.content != "" {
				text = strings.TrimSpace(got.Reasoning)
			}
			if err != nil || !SameCalls(got.Calls, p.calls) || text != p.content {
				ok = false
				break
			}
		}
		if ok {
			d.Format, d.Exact = f, true
			return d
		}
	}
	d.Format = WithThinking(d.Format, d.Thinking)
	return d
}

const probeReasoning, probeAnswer = "PROBE_REASONING_TEXT", "PROBE_ANSWER_TEXT"

// AsGenerated returns the text a model writes for an assistant part that
// the template rendered: where the generation prompt opens the reasoning
// and the part does not close it (no reasoning was rendered), the model
// first closes its (empty) reasoning. Formats that read their family's
// reasoning themselves get the part as rendered.
func (d Detection) AsGenerated(part string) string {
	if _, wrapped := d.Format.(thinkingFormat); !wrapped {
		return part // the format reads the family's reasoning itself
	}
	if d.Thinking.Opened && !strings.Contains(part, d.Thinking.Close) {
		return d.Thinking.Close + "\n\n" + strings.TrimLeft(part, space)
	}
	return part
}

// detectThinking renders an answer with reasoning and reads the markers
// around the reasoning, and whether the generation prompt opens them. It
// also returns the rendered part ("" when the template drops reasoning).
func detectThinking(ctx context.Context, r Renderer, base Request) (Thinking, string) {
	content := probeAnswer
	part, err := AssistantPart(ctx, r, base, AssistantMessage(&content, probeReasoning, nil))
	if err != nil {
		return Thinking{}, ""
	}
	i := strings.Index(part, probeReasoning)
	j := strings.Index(part, probeAnswer)
	if i < 0 || j < i {
		return Thinking{}, ""
	}
	open := lastWord(part[:i])
	closeTag := firstWord(part[i+len(probeReasoning) : j])
	gen, err := base.marshal(true)
	if err != nil || closeTag == "" {
		return Thinking{}, part
	}
	prompt, err := r.RenderJSON(ctx, gen)
	if err != nil {
		prompt = ""
	}
	if open == "" {
		// The generation prompt opened the reasoning itself (Qwen 3.5,
		// GLM 4.7): the opener is the prompt's last word, if the word
		// after the reasoning closes it.
		open = lastWord(prompt)
		if open == "" || !closes(closeTag) {
			return Thinking{}, part
		}
	}
	t := Thinking{Open: open, Close: closeTag}
	t.Opened = strings.HasSuffix(strings.TrimRight(prompt, space), open)
	return t, part
}

// closes reports whether a marker reads as a closing one: "</think>",
// "[/THINK]", "<|END_THINKING|>".
func closes(marker string) bool {
	return strings.Contains(marker, "/") || strings.Contains(strings.ToUpper(marker), "END")
}

// fallback is the format of templates whose calls no format reads:
// hermes, the most common syntax, where it is registered.
func fallback() Format {
	if f, err := Lookup("hermes"); err == nil {
		return f
	}
	return plainFormat{}
}

// plainFormat reads every reply as text, exactly as written (so that the
// re-rendered history spells what the model generated).
type plainFormat struct{}

func (plainFormat) Name() string { return "none" }

func (plainFormat) Parse(reply string) (Parsed, error) { return Parsed{Content: reply}, nil }

func (plainFormat) ParsePartial(reply string) Partial { return Partial{Content: reply} }

func (plainFormat) Pattern(GrammarOptions) (constrain.Pattern, error) {
	return constrain.Pattern{}, fmt.Errorf("toolcall: format \"none\": %w", ErrNoGrammar)
}

// lastWord returns the last run of non-space text of s; firstWord the first.
func lastWord(s string) string {
	s = strings.TrimRight(s, space)
	return s[strings.LastIndexAny(s, space)+1:]
}

func firstWord(s string) string {
	s = strings.TrimLeft(s, space)
	if i := strings.IndexAny(s, space); i >= 0 {
		return s[:i]
	}
	return s
}

// SameCalls reports whether two call lists name the same functions in the
// same order with JSON-equal arguments (IDs are not compared).
func SameCalls(a, b []Call) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !sameJSON(a[i].Arguments, b[i].Arguments) {
			return false
		}
	}
	return true
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// Plain returns the format that reads every reply as text (no calls):
// with WithThinking, replies that may not call tools.
func Plain() Format { return plainFormat{} }
