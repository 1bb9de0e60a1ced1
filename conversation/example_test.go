package conversation_test

import (
	"context"
	"fmt"
	"log"

	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/engine"
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
