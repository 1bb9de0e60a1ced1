package toolcall

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestOtherDump(t *testing.T) {
	names := os.Getenv("OTHER_DUMP")
	if names == "" {
		t.Skip()
	}
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "get_weather", "description": "Get weather.", "parameters": map[string]any{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string", "description": "City"}, "days": map[string]any{"type": "integer", "description": "Days"}}, "required": []any{"location"}}}}}
	hist := []any{map[string]any{"role": "system", "content": "SYS"}, map[string]any{"role": "user", "content": "USERQ"}}
	calls := []any{
		map[string]any{"id": "call00001", "type": "function", "function": map[string]any{"name": "get_weather", "arguments": map[string]any{"location": "Zürich \"q\" \\ 東京", "days": 3, "ok": true, "n": nil, "arr": []any{1, "x"}, "obj": map[string]any{"a": "b"}}}},
		map[string]any{"id": "call00002", "type": "function", "function": map[string]any{"name": "get_time", "arguments": map[string]any{"tz": "UTC"}}},
	}
	for _, name := range strings.Split(names, ",") {
		tmpl, info := otherLoadTemplate(t, name)
		gp, err := otherRender(t, tmpl, info, hist, tools, true, nil)
		fmt.Printf("===== %s gen prompt (err %v):\n%s\n", name, err, tail(gp))
		full, err := otherRender(t, tmpl, info, append(append([]any{}, hist...), map[string]any{"role": "assistant", "content": "CONTENT", "reasoning_content": "THINKING", "tool_calls": calls}), tools, false, nil)
		fmt.Printf("----- %s with calls (err %v):\n%s\n", name, err, cutDump(full, gp))
		full1, err := otherRender(t, tmpl, info, append(append([]any{}, hist...), map[string]any{"role": "assistant", "content": "", "tool_calls": calls[:1]}), tools, false, nil)
		fmt.Printf("----- %s with one call, no content (err %v):\n%s\n", name, err, cutDump(full1, gp))
		full2, err := otherRender(t, tmpl, info, append(append([]any{}, hist...), map[string]any{"role": "assistant", "content": "ANSWER", "reasoning_content": "THINKING"}), tools, false, nil)
		fmt.Printf("----- %s answer (err %v):\n%s\n", name, err, cutDump(full2, gp))
	}
}

func tail(s string) string {
	if len(s) > 300 {
		return "…" + s[len(s)-300:]
	}
	return s
}

func cutDump(full, gp string) string {
	i := 0
	for i < len(full) && i < len(gp) && full[i] == gp[i] {
		i++
	}
	if i == len(gp) {
		return "[GP-PREFIX]" + full[i:]
	}
	j := max(0, i-80)
	return "[COMMON…" + full[j:i] + "|DIVERGE]" + full[i:]
}
