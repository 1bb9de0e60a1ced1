package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/litert-go/litert-go/session"
)

// FuzzChatRequest feeds arbitrary bodies through the checks a chat request
// passes before generation: JSON decoding, planning (messages, tools,
// tool_choice, response_format, sampling, n, logprobs) and the prompt's
// rendering. None may panic, every refusal is a 4xx API error, n and
// top_logprobs are within their limits, the reply's budget is within the
// server's cap, and the prompt has at least as many tokens as the
// early length check assumes.
func FuzzChatRequest(f *testing.F) {
	for _, seed := range []string{
		`{"model":"tiny-qwen","messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"tiny-qwen","messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}`,
		`{"model":"tiny-qwen","messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},{"role":"tool","tool_call_id":"c","content":"1"}]}`,
		`{"model":"tiny-qwen","tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"a":{"type":"integer"}}}}}],"tool_choice":{"type":"function","function":{"name":"f"}},"messages":[{"role":"user","content":"x"}]}`,
		`{"model":"tiny-qwen","response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"array","items":{"enum":[1,"a",null]}}}},"messages":[{"role":"developer","content":null}]}`,
		`{"model":"tiny-qwen","stop":"x","seed":-1,"temperature":0.5,"top_p":0,"messages":[{"role":"user","content":""}]}`,
		`{"model":"other","n":3,"logprobs":true,"top_logprobs":5,"messages":[{"role":"user","content":"hi"}]}`,
		`{"messages":5}`, `[]`, `null`, `{"model":"tiny-qwen","messages":[{"role":"user","content":{"a":1}}]}`,
	} {
		f.Add([]byte(seed))
	}
	s, _ := startServer(f, Config{})
	f.Fuzz(func(t *testing.T, body []byte) {
		var req chatRequest
		if json.Unmarshal(body, &req) != nil {
			return
		}
		plan, aerr := s.planChat(context.Background(), &req)
		if aerr != nil {
			if aerr.Status < 400 || aerr.Status >= 500 || aerr.Message == "" {
				t.Fatalf("bad refusal %d %q for %s", aerr.Status, aerr.Message, body)
			}
			return
		}
		if plan.n < 1 || plan.n > MaxChoices || plan.top < 0 || plan.top > session.MaxTopLogprobs || plan.top > 0 && !plan.logprobs {
			t.Fatalf("planned n %d, logprobs %v, top %d outside the limits for %s", plan.n, plan.logprobs, plan.top, body)
		}
		if prompt, err := s.prompter.Chat(context.Background(), plan.history, plan.decls, plan.extra...); err == nil {
			n, aerr := s.maxTokens(req.MaxTokens, prompt.Len())
			if aerr != nil && aerr.Status != 400 {
				t.Fatalf("bad refusal %d for %s", aerr.Status, body)
			}
			if aerr == nil && (n < 1 || n > s.cfg.MaxTokens) {
				t.Fatalf("max_tokens %d outside [1, %d] for %s", n, s.cfg.MaxTokens, body)
			}
			// The early refusal by length in bytes is sound: the prompt
			// holds the messages' text, so it has at least text/tokenBytes
			// tokens.
			if text := historyText(plan.history); prompt.Len()*s.tokenBytes < text {
				t.Fatalf("%d bytes of message text became %d tokens of at most %d bytes: %s", text, prompt.Len(), s.tokenBytes, body)
			}
		} else if requestError("messages", err).Status != 400 {
			t.Fatalf("prompt error %v is not a 400", err)
		}
	})
}
