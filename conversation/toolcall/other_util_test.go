package toolcall

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/litert-go/litert-go/template"
	"github.com/stretchr/testify/require"
)

const otherTemplateDir = "../../../shared/testdata/templates"

// otherTemplateInfo is one entry of templates.json.
type otherTemplateInfo struct {
	Template string  `json:"template"`
	BOS      *string `json:"bos_token"`
	EOS      *string `json:"eos_token"`
}

// otherLoadTemplate parses a testdata template and returns it with its
// special tokens; it skips the test when the test data is absent.
func otherLoadTemplate(t testing.TB, name string) (*template.Template, otherTemplateInfo) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(otherTemplateDir, name+".jinja"))
	if os.IsNotExist(err) {
		t.Skipf("template test data %s absent (%s)", name, otherTemplateDir)
	}
	require.NoError(t, err)
	info := otherTemplateInfo{Template: name + ".jinja"}
	if raw, err := os.ReadFile(filepath.Join(otherTemplateDir, "templates.json")); err == nil {
		var all []otherTemplateInfo
		require.NoError(t, json.Unmarshal(raw, &all))
		for _, e := range all {
			if e.Template == info.Template {
				info = e
			}
		}
	}
	tmpl, err := template.Parse(string(src))
	require.NoError(t, err)
	return tmpl, info
}

// otherRender renders messages (and tools) through a template.
func otherRender(t testing.TB, tmpl *template.Template, info otherTemplateInfo, messages []any, tools []any, genPrompt bool, kwargs map[string]any) (string, error) {
	t.Helper()
	if kwargs == nil {
		kwargs = map[string]any{}
	}
	req := map[string]any{"messages": messages, "tools": tools, "add_generation_prompt": genPrompt, "kwargs": kwargs}
	if info.BOS != nil {
		req["bos_token"] = *info.BOS
	}
	if info.EOS != nil {
		req["eos_token"] = *info.EOS
	}
	raw, err := json.Marshal(req)
	require.NoError(t, err)
	return tmpl.RenderJSON(context.Background(), raw)
}
