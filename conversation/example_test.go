package conversation_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"

	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/tools"
)

// A conversation formats turns with the model's chat template (ChatML when
// the model has none, as this tiny story model) and keeps the KV cache
// between turns, prefilling only what each turn adds.
func Example() {
	ctx := context.Background()
	eng, err := engine.Open(ctx, "../../shared/testdata/models/stories260K.gguf", engine.Settings{})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	c, err := conversation.New(ctx, eng, conversation.Config{MaxTokens: 8})
	if err != nil {
		log.Fatal(err)
	}
	reply, err := c.SendMessage(ctx, conversation.UserText("Once upon a time"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(reply.Usage.PromptTokens > 0, reply.Usage.CompletionTokens)
	for chunk, err := range c.SendMessageStream(ctx, conversation.UserText("Tell me more")) {
		if err != nil {
			log.Fatal(err)
		}
		if chunk.Done {
			fmt.Println(chunk.Reply.Usage.CachedTokens > 0, len(c.History()))
		}
	}
	// Output:
	// true 8
	// true 4
}

// The automatic tool loop, streamed: the model writes a call (its name
// first, then the arguments in pieces), the Go function runs, its result
// goes back to the model, and the model answers. The model here is a tiny
// trained one from the test data that writes Qwen2.5-style calls by
// itself (it picks tools well and copies arguments badly).
func ExampleConversation_SendMessageStream_tools() {
	ctx := context.Background()
	eng, err := engine.Open(ctx, "../../shared/testdata/models/litert-demo-tools-q8_0.gguf", engine.Settings{})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	type weatherIn struct {
		City string `json:"city" description:"the city"`
	}
	weather := tools.Define("get_weather", "Get the current weather in a city",
		func(ctx context.Context, in weatherIn) (string, error) { return "sunny, 21 °C", nil })
	c, err := conversation.New(ctx, eng, conversation.Config{MaxTokens: 96})
	if err != nil {
		log.Fatal(err)
	}
	var args, answer strings.Builder
	for ch, err := range c.SendMessageStream(ctx, conversation.UserText("What's the weather in Paris?"), conversation.WithTools(weather)) {
		switch {
		case err != nil:
			log.Fatal(err)
		case ch.ToolCall != nil:
			if ch.ToolCall.Name != "" {
				fmt.Println("call", ch.ToolCall.Name)
			}
			args.WriteString(ch.ToolCall.Arguments) // the arguments, in pieces
		case ch.ToolResult != nil:
			fmt.Println("arguments are JSON:", json.Valid([]byte(args.String())))
			fmt.Println("result", ch.ToolResult.Result)
		case ch.Done:
			fmt.Println("answered:", answer.Len() > 0, ch.Reply.FinishReason, len(c.History()), "messages")
		default:
			answer.WriteString(ch.Text)
		}
	}
	// Output:
	// call get_weather
	// arguments are JSON: true
	// result "sunny, 21 °C"
	// answered: true stop 4 messages
}
