package template

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ardanlabs/jinja"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func render(t *testing.T, src, request string) (string, error) {
	t.Helper()
	tm, err := Parse(src, WithClock(referenceClock))
	require.NoError(t, err)
	return tm.RenderJSON(context.Background(), []byte(request))
}

func TestRenderVariables(t *testing.T) {
	out, err := render(t,
		`{{ bos_token }}|{{ eos_token is defined }}|{{ tools is none }}|{{ documents is none }}|{{ add_generation_prompt }}|{{ enable_thinking }}|{% for m in messages %}{{ m.role }}:{{ m.content }};{% endfor %}`,
		`{"messages":[{"role":"user","content":"hi"}],"bos_token":"<s>","eos_token":null,"kwargs":{"enable_thinking":false},"unknown":1}`)
	require.NoError(t, err)
	assert.Equal(t, "<s>|False|True|True|False|False|user:hi;", out)
}

func TestKwargsOverrideSpecialTokens(t *testing.T) {
	out, err := render(t, `{{ bos_token }}`, `{"messages":[],"bos_token":"<s>","kwargs":{"bos_token":"X"}}`)
	require.NoError(t, err)
	assert.Equal(t, "X", out)
}

func TestKeyOrderKept(t *testing.T) {
	req := `{"messages":[{"role":"user","content":"x","z":1,"a":{"q":64.4,"b":[true,null,"é<&>"]}}]}`
	out, err := render(t, `{{ messages[0] | tojson }}|{% for k, v in messages[0].items() %}{{ k }},{% endfor %}|{{ messages[0].a }}|{{ messages[0].a | tojson(indent=2) }}`, req)
	require.NoError(t, err)
	assert.Equal(t,
		`{"role": "user", "content": "x", "z": 1, "a": {"q": 64.4, "b": [true, null, "é<&>"]}}|role,content,z,a,|{'q': 64.4, 'b': [True, None, 'é<&>']}|{`+
			"\n  \"q\": 64.4,\n  \"b\": [\n    true,\n    null,\n    \"é<&>\"\n  ]\n}", out)
	out, err = render(t, `{{ messages[0] | tojson(separators=(',', ':')) }}`, `{"messages":[{"b":1,"a":[1,2]}]}`)
	require.NoError(t, err)
	assert.Equal(t, `{"b":1,"a":[1,2]}`, out)
}

func TestTrailingNewlineAndTrimming(t *testing.T) {
	out, err := render(t, "{% if true %}\n    a\n  {% endif %}\nb\n", `{"messages":[]}`)
	require.NoError(t, err)
	assert.Equal(t, "    a\nb", out)
	out, err = render(t, "a\r\nb\r\n", `{"messages":[]}`)
	require.NoError(t, err)
	assert.Equal(t, "a\nb", out)
}

func TestLoopControls(t *testing.T) {
	out, err := render(t, `{% for i in range(10) %}{% if i == 1 %}{% continue %}{% endif %}{% if i == 4 %}{% break %}{% endif %}{{ i }}{% endfor %}`, `{"messages":[]}`)
	require.NoError(t, err)
	assert.Equal(t, "023", out)
}

func TestStrftimeNow(t *testing.T) {
	out, err := render(t, `{{ strftime_now("%d %b %Y") }}|{{ strftime_now("%Y-%m-%d") }}|{{ strftime_now("%B %d, %Y") }}|{{ strftime_now("%A %H:%M:%S %p %j %%") }}`, `{"messages":[]}`)
	require.NoError(t, err)
	assert.Equal(t, "26 Jul 2024|2024-07-26|July 26, 2024|Friday 12:00:00 PM 208 %", out)
}

func TestRaiseError(t *testing.T) {
	_, err := render(t, `{% if messages[0].role == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}`,
		`{"messages":[{"role":"system","content":"x"}]}`)
	var re *RaiseError
	require.True(t, errors.As(err, &re), "got %T %v", err, err)
	assert.Equal(t, "System role not supported", re.Message)
	assert.Equal(t, "System role not supported", err.Error())
}

func TestParseErrorNamesLine(t *testing.T) {
	_, err := Parse("line one\n{% if x %}\nunclosed")
	var pe *ParseError
	require.True(t, errors.As(err, &pe), "got %T %v", err, err)
	assert.Equal(t, 2, pe.Line)
	assert.Contains(t, err.Error(), "line 2")
}

func TestBadRequest(t *testing.T) {
	tm, err := Parse(DefaultChatML)
	require.NoError(t, err)
	for _, bad := range []string{``, `[]`, `{"messages":{}}`, `{"messages":[],"bos_token":1}`, `{"messages":[],"kwargs":[]}`, `{"messages":[]} x`, `{"messages":[`} {
		_, err := tm.RenderJSON(context.Background(), []byte(bad))
		assert.Error(t, err, "request %q", bad)
	}
}

func TestDefaultChatML(t *testing.T) {
	out, err := render(t, DefaultChatML, `{"messages":[{"role":"system","content":"S"},{"role":"user","content":"U"}],"add_generation_prompt":true}`)
	require.NoError(t, err)
	assert.Equal(t, "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU<|im_end|>\n<|im_start|>assistant\n", out)
}

func TestMentionsTools(t *testing.T) {
	assert.True(t, MentionsTools(`{% if tools %}{{ tools | tojson }}{% endif %}`))
	assert.True(t, MentionsTools(`{%- for t in tools -%}`))
	assert.False(t, MentionsTools(`You can use tools. {{ messages[0]['tools'] }}{{ x.tools }}{# tools #}`))
	assert.False(t, MentionsTools(DefaultChatML))
	for _, f := range []string{"Qwen-Qwen3-0.6B.jinja", "google-gemma-2-2b-it.jinja"} {
		src, err := os.ReadFile(filepath.Join(refDir, f))
		if err != nil {
			t.Skipf("reference templates absent: %v", err)
		}
		assert.Equal(t, f == "Qwen-Qwen3-0.6B.jinja", MentionsTools(string(src)), f)
	}
}

func TestRenderDoesNotMutateRequest(t *testing.T) {
	tm, err := Parse(`{% set _ = messages[0].update({'role': 'x'}) %}{{ messages[0].role }}`)
	require.NoError(t, err)
	req, err := DecodeRequest([]byte(`{"messages":[{"role":"user"}]}`))
	require.NoError(t, err)
	_, _ = tm.Render(context.Background(), req)
	role, _ := req.Messages[0].AsDict().Get("role")
	assert.Equal(t, "user", role.AsString())
}

func TestRenderCanceled(t *testing.T) {
	tm, err := Parse(DefaultChatML)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = tm.Render(ctx, Request{})
	assert.ErrorIs(t, err, context.Canceled)
}

// TestConcurrentRender renders one parsed template from many goroutines
// (run with -race) and checks every result against a serial render.
func TestConcurrentRender(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(refDir, "Qwen-Qwen3-0.6B.jinja"))
	if err != nil {
		t.Skipf("reference templates absent: %v", err)
	}
	tm, err := Parse(string(src), WithClock(func() time.Time { return time.Unix(0, 0) }))
	require.NoError(t, err)
	req := benchRequest(t, nil, strp("<|im_end|>"))
	want, err := tm.Render(context.Background(), req)
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for range 20 {
				got, err := tm.Render(context.Background(), req)
				if err != nil || got != want {
					errs <- errors.Join(err, errors.New("concurrent render differs"))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func jsonRaw(s string) json.RawMessage { return json.RawMessage(s) }

func TestFromGo(t *testing.T) {
	v, err := FromGo(jsonRaw(`{"b":1,"a":2}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a"}, v.AsDict().Keys)
	v, err = FromGo(jinja.NewString("x"))
	require.NoError(t, err)
	assert.Equal(t, "x", v.AsString())
}

func TestRunawayRecursionFails(t *testing.T) {
	for _, src := range []string{
		"{% macro m(x) %}{{ m(1) }} x }}{% endmacro %}{{ m(1) }}",
		"{% set ns = namespace(c=[]) %}{% set ns.c = [ns] %}{% for x in [ns] recursive %}{{ loop(x.c) }}{% endfor %}",
	} {
		start := time.Now()
		_, err := render(t, src, `{"messages":[]}`)
		var le *LimitError
		require.ErrorAs(t, err, &le, src)
		assert.Equal(t, LimitDepth, le.Limit, src)
		assert.Equal(t, int64(DefaultMaxDepth), le.Max, src)
		assert.Equal(t, 1, le.Line, src)
		t.Logf("%s: failed after %v", src, time.Since(start))
	}
}

func TestMacroWhitespaceUnchanged(t *testing.T) {
	out, err := render(t, "{% macro m(a) %}\n  [{{ a }}]\n{% endmacro %}\n{%- macro n() -%}\n  x  \n{%- endmacro -%}\n{{ m(1) }}|{{ n() }}|", `{"messages":[]}`)
	require.NoError(t, err)
	assert.Equal(t, "  [1]\n|x|", out)
}

func TestSandboxForbidsMutation(t *testing.T) {
	_, err := render(t, `{% set l = [] %}{% set _ = l.append(1) %}{{ l }}`, `{"messages":[]}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "SecurityError")
	_, err = render(t, `{% for t in tools %}{% endfor %}`, `{"messages":[]}`)
	require.ErrorContains(t, err, "'NoneType' object is not iterable")
	_, err = render(t, `{{ messages | map(attribute='role') | tojson }}`, `{"messages":[]}`)
	require.ErrorContains(t, err, "generator")
	out, err := render(t, `{{ messages | map(attribute='role') | list | tojson }}{{ messages | selectattr('role') | list | length }}`, `{"messages":[{"role":"a"}]}`)
	require.NoError(t, err)
	assert.Equal(t, `["a"]1`, out)
}

func TestNamespaceOnlyAssignment(t *testing.T) {
	out, err := render(t, `{% set ns = namespace(b=1, a=2) %}{% set ns.c = ns.a + ns.b %}{{ ns.c }}|{{ ns | tojson }}`, `{"messages":[]}`)
	require.NoError(t, err)
	assert.Equal(t, `3|{"b": 1, "a": 2, "c": 3}`, out)
	_, err = render(t, `{% for m in messages %}{% set m.role = 'x' %}{% endfor %}`, `{"messages":[{"role":"user"}]}`)
	require.ErrorContains(t, err, "non-namespace")
	_, err = render(t, `{% set f = messages.pop %}{{ f() }}`, `{"messages":[{"role":"user"}]}`)
	require.Error(t, err)
}

func TestSafeRange(t *testing.T) {
	out, err := render(t, `{{ range(3) | list }}{{ range(1, 7, 2) | list }}{{ range(5, 0, -2) | list }}{{ range(2, 1) | list }}`, `{"messages":[]}`)
	require.NoError(t, err)
	assert.Equal(t, "[0, 1, 2][1, 3, 5][5, 3, 1][]", out)
	_, err = render(t, `{% for i in range(100001) %}{% endfor %}`, `{"messages":[]}`)
	require.ErrorContains(t, err, "range too big")
}

// A request's Now pins strftime_now for that render only; the template's
// clock is used again by the next request without one.
func TestRequestNow(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(refDir, "meta-llama-Llama-3.2-3B-Instruct.jinja"))
	if err != nil {
		t.Skipf("reference templates absent: %v", err)
	}
	tm, err := Parse(string(src), WithClock(func() time.Time { return time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC) }))
	require.NoError(t, err)
	msgs := `"messages":[{"role":"user","content":"Hi"}],"add_generation_prompt":true`

	out, err := tm.RenderJSON(context.Background(), []byte(`{`+msgs+`,"now":"2024-07-26T12:00:00"}`))
	require.NoError(t, err)
	assert.Contains(t, out, "Today Date: 26 Jul 2024\n")
	out, err = tm.RenderJSON(context.Background(), []byte(`{`+msgs+`,"now":"1999-12-31T23:59:59+09:00"}`))
	require.NoError(t, err)
	assert.Contains(t, out, "Today Date: 31 Dec 1999\n", "an RFC 3339 time keeps its own zone")
	out, err = tm.RenderJSON(context.Background(), []byte(`{`+msgs+`}`))
	require.NoError(t, err)
	assert.Contains(t, out, "Today Date: 03 Feb 2001\n", "without now the template's clock is read")

	now := time.Date(2030, 1, 15, 8, 0, 0, 0, time.UTC)
	req, err := DecodeRequest([]byte(`{` + msgs + `}`))
	require.NoError(t, err)
	assert.Nil(t, req.Now)
	req.Now = &now
	out, err = tm.Render(context.Background(), req)
	require.NoError(t, err)
	assert.Contains(t, out, "Today Date: 15 Jan 2030\n")

	// Renders with different times at once do not see each other's.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			day := time.Date(2020, 3, i+1, 0, 0, 0, 0, time.UTC)
			r := req
			r.Now = &day
			for range 10 {
				got, err := tm.Render(context.Background(), r)
				assert.NoError(t, err)
				assert.Contains(t, got, "Today Date: "+day.Format("02 Jan 2006")+"\n")
			}
		})
	}
	wg.Wait()

	for _, bad := range []string{`"now":"yesterday"`, `"now":12`, `"now":"2024-07-26"`} {
		_, err := DecodeRequest([]byte(`{` + msgs + `,` + bad + `}`))
		assert.ErrorContains(t, err, "now", bad)
	}
	_, err = DecodeRequest([]byte(`{` + msgs + `,"now":null}`))
	assert.NoError(t, err)
}

func TestParseTime(t *testing.T) {
	got, err := ParseTime("2024-07-26T12:00:00Z")
	require.NoError(t, err)
	assert.True(t, got.Equal(time.Date(2024, 7, 26, 12, 0, 0, 0, time.UTC)))
	got, err = ParseTime("2024-07-26T12:00:00")
	require.NoError(t, err)
	assert.Equal(t, time.Date(2024, 7, 26, 12, 0, 0, 0, time.Local), got)
	_, err = ParseTime("26/07/2024")
	assert.ErrorContains(t, err, "RFC 3339")
}
