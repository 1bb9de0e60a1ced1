package server

import (
	"testing"
)

func TestDbgOut(t *testing.T) {
	_, ts := startServer(t, Config{})
	_, data := postChat(t, ts.Client(), ts.URL, `{"model":"tiny-qwen","max_tokens":40,"temperature":0,"messages":[{"role":"user","content":"Go on forever"}]}`)
	t.Logf("%s", data)
}
