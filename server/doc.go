// Package server is an OpenAI-compatible HTTP server for one engine, as run
// by `litert-go serve`.
//
// Routes:
//
//	GET  /v1/models              the served model
//	GET  /v1/models/{id}
//	POST /v1/chat/completions    messages (text; image_url and input_audio parts with an mmproj:
//	                             data: URLs, http(s) with Config.AllowRemoteMedia),
//	                             tools, tool_choice, parallel_tool_calls, response_format
//	                             (json_object, json_schema), temperature, top_p, top_k, min_p,
//	                             frequency/presence penalties, max_tokens / max_completion_tokens,
//	                             stop, seed, n, logprobs, top_logprobs, stream with
//	                             stream_options.include_usage
//	POST /v1/completions         a plain prompt, same sampling fields, n, logprobs
//	GET  /health                 200 {"status":"ok",…}; 503 while shutting down; no key needed
//	                             unless Config.HealthNeedsKey (`serve --health-key`)
//	GET  /metrics                Prometheus metrics, with Config.Metrics (`serve --metrics`)
//	GET  /                       the chat page (package webui), unless Config.NoWebUI
//
// With an API key set every route needs it but /health and the chat page,
// which holds no data (it asks for the key and sends it with its calls).
// Any model name is accepted, or none, as llama-server does, and answered
// with the served model's id; Config.StrictModel (`serve --strict-model`)
// refuses other names with 404 model_not_found.
//
// logprobs (chat: logprobs true and top_logprobs up to 20; completions:
// logprobs = the number of alternatives, up to 20) are the log-softmax of
// the model's logits at each step, the distribution before repetition
// penalties, a grammar's mask and temperature, as OpenAI and llama-server
// report them; they cover every generated token in order (reasoning and
// tool-call markup included), each with its text and bytes. Streamed, a
// content piece carries the tokens that spelled it.
//
// n (up to MaxChoices = 8) runs the choices one after another on the
// request's session: the first prefills the prompt, the next ones find it
// in the KV cache and run only its last token again. Choice 0 samples with
// the request's seed (so it is the reply n = 1 would give), choice i with a
// seed derived from it: with a seed the choices are reproducible and differ.
// Streamed, the choices come one after another, each chunk with its index.
// usage counts the prompt once and the tokens of every choice.
//
// Audio output and predicted outputs are refused with 400, as are
// logit_bias, echo, suffix and best_of.
//
// Errors use OpenAI's shape, {"error": {"message", "type", "param",
// "code"}}, with the matching status: 400 bad request, 401 wrong or missing
// API key, 404 unknown route (or model, with StrictModel), 413 body too large, 429 (with
// Retry-After) when the queue is full, 503 while shutting down, 504 past the
// request timeout.
//
// Limits, each checked before the work it guards: a request is admitted
// before its body is read, and at most Config.Parallel + Config.Queue are
// inside the server at once (reading, decoding, rendering, tokenizing,
// waiting or generating); the next gets 429 with Retry-After. The body limit
// (Config.MaxBodyBytes, `serve --max-body-mib`) defaults to
// DefaultBodyBytesPerToken (1 KiB) per token of the context, at least 1 MiB:
// a body announced larger is refused with 413 at once, one sent chunked when
// it passes the limit. A prompt whose text has more bytes than the context
// could hold (context × the longest token) is refused with 400 before it is
// rendered; any other prompt over the context after tokenizing, before
// waiting for a slot. max_tokens is capped by Config.MaxTokens (`serve
// --max-tokens`, default DefaultMaxTokens = 4096), as llama-server caps
// n_predict: a request asking for more gets the cap and finish_reason
// "length". So the memory of requests in flight is bounded by Parallel +
// Queue bodies and what decoding one costs; 40 concurrent 15 MB requests
// take the heap up by about 40 MB with the defaults (TestLargeBodies).
//
// Requests run on a pool of conversations (each a session with its own KV
// cache) on the shared engine: Config.Parallel generate at once, the others
// admitted wait for a slot. The pool is the prompt cache: a request takes the idle
// conversation whose cached tokens share the longest prefix with its prompt
// and prefills only the rest, so the second turn of a chat prefills only
// its new messages; usage.prompt_tokens_details.cached_tokens reports the
// reused tokens.
//
// Tool calls come back as OpenAI tool_calls with ids and finish_reason
// "tool_calls"; with tool_choice "required" or a named function, the call is
// forced by a grammar in the model's own tool-call format (package
// conversation/toolcall). finish_reason is the last generation's: when
// max_tokens cuts a call, the calls before it are returned, the cut-off one
// after them with the arguments written so far, and finish_reason is
// "length". Streams send OpenAI's incremental deltas: a call's first
// tool_calls delta has its index, id, type and name with empty arguments,
// the next ones pieces of the arguments, as the model writes them.
//
// With curl:
//
//	litert-go serve -m qwen2.5-0.5b-instruct-q8_0.gguf --parallel 2 --api-key sk-local &
//	curl -s http://127.0.0.1:8080/v1/chat/completions \
//	  -H 'Authorization: Bearer sk-local' -H 'Content-Type: application/json' \
//	  -d '{"model": "qwen2.5-0.5b-instruct-q8_0", "max_tokens": 64,
//	       "messages": [{"role": "user", "content": "Say hello in French."}]}'
//
// With the official Go client (github.com/openai/openai-go/v3):
//
//	client := openai.NewClient(option.WithBaseURL("http://127.0.0.1:8080/v1"), option.WithAPIKey("sk-local"))
//	resp, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
//		Model:     "qwen2.5-0.5b-instruct-q8_0", // any name; the file's (or --alias) with --strict-model
//		Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Say hello in French.")},
//		MaxTokens: openai.Int(64),
//	})
//	if err != nil {
//		return err
//	}
//	fmt.Println(resp.Choices[0].Message.Content, resp.Usage.PromptTokensDetails.CachedTokens)
//
// In a program, New builds the server and Serve runs it until its context
// is cancelled, then shuts down gracefully.
package server
