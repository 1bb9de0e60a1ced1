package server

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The page and its files are served without the key; other paths under
// /webui/ are not found, and NoWebUI leaves the page out.
func TestWebUIServed(t *testing.T) {
	_, ts := startServer(t, Config{APIKey: "k"})
	for path, want := range map[string]string{"/": "<title>litert-go</title>", "/webui/app.js": "text/event-stream", "/webui/style.css": ".msg"} {
		resp, err := ts.Client().Get(ts.URL + path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		if path == "/webui/app.js" {
			want = "/v1/chat/completions"
		}
		assert.Contains(t, string(body), want, path)
		assert.NotEmpty(t, resp.Header.Get("Content-Security-Policy"), "nothing is loaded from elsewhere")
	}
	for _, path := range []string{"/webui/index.html", "/webui/nope.js", "/webui/../server.go"} {
		resp, err := ts.Client().Get(ts.URL + path)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Contains(t, []int{http.StatusNotFound, http.StatusUnauthorized}, resp.StatusCode, path)
	}
	_, off := startServer(t, Config{NoWebUI: true})
	resp, err := off.Client().Get(off.URL + "/")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// browser returns a chromedp context on a headless Chromium, or skips the
// test when none is installed (.ci/run installs Debian's chromium).
func browser(t *testing.T) context.Context {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("no Chromium installed (apt-get install chromium): the chat page's browser test needs one")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1280, 800), chromedp.Flag("headless", "new"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancelCtx := chromedp.NewContext(actx)
	t.Cleanup(cancelCtx)
	require.NoError(t, chromedp.Do(ctx), "starting %s", path) // the browser lives as long as ctx
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancelT)
	return ctx
}

// lastReply waits until the last assistant message is finished (its
// stats line written) and returns its attributes.
func lastReply(ctx context.Context) (finish string, chunks int, err error) {
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#messages .msg.assistant:last-child .stats`))); err != nil {
		return "", 0, err
	}
	attrs, err := chromedp.Run(ctx, chromedp.Attributes(chromedp.CSS(`#messages .msg.assistant:last-child`)))
	n, _ := strconv.Atoi(attrs["data-chunks"])
	return attrs["data-finish"], n, err
}

// The chat page in a real browser: a message sent streams a reply in
// pieces; a long reply stops at the stop button; a forced tool call is
// shown as it is written, its result sent back and answered. The
// screenshot is saved where LITERT_WEBUI_SCREENSHOT says (the README's is
// docs/webui.png).
func TestWebUIInBrowser(t *testing.T) {
	ctx := browser(t)

	// The random-weight model rambles to its token budget: a reply long
	// enough to stop.
	_, ts := startServer(t, Config{APIKey: "k"})
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID(`#input`)),
		chromedp.SetValue(chromedp.ID(`#api_key`), "k"),
		chromedp.SetValue(chromedp.ID(`#system`), "You are terse."),
		chromedp.SetValue(chromedp.ID(`#temperature`), "0"),
		chromedp.SetValue(chromedp.ID(`#max_tokens`), "24"),
		chromedp.SendKeys(chromedp.ID(`#input`), "Hello there\n"),
	))
	finish, chunks, err := lastReply(ctx)
	require.NoError(t, err)
	assert.Contains(t, []string{"length", "stop"}, finish)
	assert.Greater(t, chunks, 1, "the reply came in pieces")
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#messages .msg.assistant:last-child .stats`)))
	require.NoError(t, err)
	assert.Regexp(t, `\d+ tokens · [\d.]+ tok/s`, text)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID(`#max_tokens`), "1500"),
		chromedp.SendKeys(chromedp.ID(`#input`), "Now a long story\n"),
		chromedp.WaitVisible(chromedp.CSS(`#messages .msg.assistant.streaming .content`)),
		chromedp.WaitVisible(chromedp.ID(`#stop`)),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.Click(chromedp.ID(`#stop`)),
	))
	finish, _, err = lastReply(ctx)
	require.NoError(t, err)
	assert.Equal(t, "stopped", finish)
	// The server let the reply go: nothing runs any more.
	require.Eventually(t, func() bool {
		resp, err := ts.Client().Get(ts.URL + "/health")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return strings.Contains(string(b), `"running":0`)
	}, 10*time.Second, 50*time.Millisecond)
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`JSON.parse(localStorage.getItem("litert-go.conversations"))[0].messages.length`))
	require.NoError(t, err)
	assert.Equal(t, 4, n, "the conversation is kept in the browser's storage")

	// The trained demo model, its call forced by tool_choice.
	path := filepath.Join(testdata, "models", "litert-demo-tools-q8_0.gguf")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("demo tool-calling model absent (%v)", err)
	}
	demo := openReal(t, "litert-demo-tools-q8_0.gguf")
	_, dts := serveEngine(t, demo, Config{ModelID: "litert-demo-tools"})
	const tools = `[{"type": "function", "function": {"name": "get_weather", "description": "Get the current weather in a city", ` +
		`"parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}, "required": ["city"]}}}]`
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(dts.URL+"/"),
		chromedp.WaitVisible(chromedp.ID(`#input`)),
		chromedp.Click(chromedp.ID(`#new-chat`)),
		chromedp.SetValue(chromedp.ID(`#temperature`), "0"),
		chromedp.SetValue(chromedp.ID(`#max_tokens`), "96"),
		chromedp.SetValue(chromedp.ID(`#tools`), tools),
		chromedp.SetValue(chromedp.ID(`#tool_choice`), "get_weather"),
		chromedp.SendKeys(chromedp.ID(`#input`), "Is it going to rain in Lisbon today?\n"),
	))
	finish, _, err = lastReply(ctx)
	require.NoError(t, err)
	assert.Equal(t, "tool_calls", finish)
	name, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#messages .msg.assistant:last-child .tool-call .tool-head`)))
	require.NoError(t, err)
	args, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#messages .msg.assistant:last-child .tool-args`)))
	require.NoError(t, err)
	assert.Equal(t, "call get_weather", name)
	assert.Contains(t, args, `"city"`)

	// The result goes back; the model answers in text.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue(chromedp.ID(`#tool_choice`), "auto"),
		chromedp.SetValue(chromedp.CSS(`.tool-result-input`), `{"temperature": 21, "conditions": "sunny"}`),
		chromedp.Click(chromedp.CSS(`.results button`)),
		chromedp.WaitVisible(chromedp.CSS(`#messages .msg.tool .tool-result`)),
	))
	finish, _, err = lastReply(ctx)
	require.NoError(t, err)
	assert.Equal(t, "stop", finish)
	text, err = chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#messages .msg.assistant:last-child .content`)))
	require.NoError(t, err)
	assert.NotEmpty(t, strings.TrimSpace(text))

	if out := os.Getenv("LITERT_WEBUI_SCREENSHOT"); out != "" {
		png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(out, png, 0o644))
	}
}
