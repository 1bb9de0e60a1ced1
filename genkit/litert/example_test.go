package litert_test

import (
	"context"
	"fmt"
	"log"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/genkit"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/genkit/litert"
)

// A Genkit app on a local model: the tool and the generate call are the
// ones from Genkit's documentation.
func Example() {
	ctx := context.Background()
	eng, err := engine.Open(ctx, "qwen2.5-1.5b-instruct-q4_k_m.gguf", engine.Settings{})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	g := genkit.Init(ctx)
	model := litert.DefineModel(g, "qwen2.5", eng, nil)

	weather := genkit.DefineTool(g, "getWeather", "Gets the current weather in a given location",
		func(ctx *ai.ToolContext, input struct {
			Location string `json:"location" jsonschema_description:"Location to get weather for"`
		}) (string, error) {
			return "Sunny, 25°C in " + input.Location, nil
		})

	resp, err := genkit.Generate(ctx, g,
		ai.WithModel(model),
		ai.WithPrompt("What is the weather in Baltimore?"),
		ai.WithTools(weather),
		ai.WithConfig(&litert.Config{Temperature: 0.7, MaxOutputTokens: 256}),
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Text())
}
