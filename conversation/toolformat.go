package conversation

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/litert-go/litert-go/constrain"
)

// ToolFormat is one model family's tool-call syntax: how a reply marks a
// call and how the call is written. Formats are immutable values.
type ToolFormat struct {
	// Name identifies the format: "hermes", "llama3", "gemma3", "functiongemma", "gemma4", "mistral".
	Name string
	// Markers open a tool-call region; answer text ends at the first one.
	Markers []string
	// LeadingJSON marks formats (Llama 3) where a reply that starts with a
	// JSON object is a call, without a marker.
	LeadingJSON bool
	// parse reads the calls in the region that starts at a marker (or at
	// the leading JSON object).
	parse func(region string) ([]ToolCall, error)
}

// ToolCallError reports a tool call the model wrote but that does not parse.
// It is a value the caller (or the automatic tool loop) can show the model so
// it can correct itself.
type ToolCallError struct {
	Format string
	Text   string // the offending text
	Err    error
}

func (e *ToolCallError) Error() string {
	return fmt.Sprintf("malformed %s tool call %q: %v", e.Format, truncate(e.Text, 200), e.Err)
}

func (e *ToolCallError) Unwrap() error { return e.Err }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// toolFormats lists the known formats by name.
func toolFormats() map[string]ToolFormat {
	return map[string]ToolFormat{
		"hermes":        hermesFormat(),
		"llama3":        llama3Format(),
		"gemma3":        gemma3Format(),
		"functiongemma": callFormat("functiongemma", "<start_function_call>", "<end_function_call>", "<escape>"),
		"gemma4":        callFormat("gemma4", "<|tool_call>", "<tool_call|>", `<|"|>`),
		"mistral":       mistralFormat(),
	}
}

// LookupToolFormat returns the named format, or an error listing the known ones.
func LookupToolFormat(name string) (ToolFormat, error) {
	all := toolFormats()
	if f, ok := all[name]; ok {
		return f, nil
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	return ToolFormat{}, fmt.Errorf("unknown tool-call format %q (known: %s)", name, strings.Join(names, ", "))
}

// DetectToolFormat picks the tool-call format a chat template writes; Hermes
// (`<tool_call>{json}</tool_call>`) is the default, as the most common.
func DetectToolFormat(chatTemplate string) ToolFormat {
	all := toolFormats()
	switch {
	case strings.Contains(chatTemplate, "<tool_call>"):
		return all["hermes"]
	case strings.Contains(chatTemplate, "[TOOL_CALLS]"):
		return all["mistral"]
	case strings.Contains(chatTemplate, "start_function_call"):
		return all["functiongemma"]
	case strings.Contains(chatTemplate, "<|tool_call>"):
		return all["gemma4"]
	case strings.Contains(chatTemplate, "tool_code"):
		return all["gemma3"]
	case strings.Contains(chatTemplate, "<|python_tag|>"), strings.Contains(chatTemplate, "<|eom_id|>"):
		return all["llama3"]
	}
	return all["hermes"]
}

// Constrained reports whether package constrain has a grammar for the
// format, so that tool choices "required" and a named tool can force a
// well-formed call.
func (f ToolFormat) Constrained() bool {
	_, ok := f.grammarFormat()
	return ok
}

// grammarFormat returns package constrain's name for the format.
func (f ToolFormat) grammarFormat() (constrain.ToolFormat, bool) {
	switch f.Name {
	case "hermes":
		return constrain.ToolFormatHermes, true
	case "llama3":
		return constrain.ToolFormatLlama3JSON, true
	}
	return 0, false
}

// regionStart returns where the tool-call region of text begins, or -1.
func (f ToolFormat) regionStart(text string) int {
	best := -1
	for _, m := range f.Markers {
		if i := strings.Index(text, m); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	if f.LeadingJSON {
		trimmed := strings.TrimLeft(text, " \t\r\n")
		if strings.HasPrefix(trimmed, "{") && (best < 0 || len(text)-len(trimmed) < best) {
			best = len(text) - len(trimmed)
		}
	}
	return best
}

// Parse splits a complete reply into its answer text and tool calls. A
// region that does not parse gives a *ToolCallError; the text is still
// returned.
func (f ToolFormat) Parse(text string) (content string, calls []ToolCall, err error) {
	i := f.regionStart(text)
	if i < 0 {
		return text, nil, nil
	}
	content = strings.TrimRight(text[:i], " \t\r\n")
	calls, err = f.parse(text[i:])
	if err != nil {
		var tce *ToolCallError
		if !errors.As(err, &tce) {
			err = &ToolCallError{Format: f.Name, Text: text[i:], Err: err}
		}
		return content, nil, err
	}
	for j := range calls {
		if calls[j].ID == "" {
			calls[j].ID = fmt.Sprintf("call_%d", j)
		}
	}
	return content, calls, nil
}

// Visible returns how many leading bytes of a reply being streamed can be
// shown as answer text: everything before a tool-call region, holding back
// a tail that could be the start of a marker.
func (f ToolFormat) Visible(text string) int {
	if i := f.regionStart(text); i >= 0 {
		if strings.TrimSpace(text[:i]) == "" {
			return 0
		}
		return i
	}
	if f.LeadingJSON && strings.TrimLeft(text, " \t\r\n") == "" {
		return 0
	}
	n := len(text)
	for _, m := range f.Markers {
		for k := min(len(m)-1, len(text)); k > 0; k-- {
			if strings.HasSuffix(text, m[:k]) {
				n = min(n, len(text)-k)
				break
			}
		}
	}
	return n
}
