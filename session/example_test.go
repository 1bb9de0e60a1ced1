package session_test

import (
	"context"
	"fmt"
	"log"

	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/session"
	"github.com/litert-go/litert-go/tokenizer"
)

// A session prefills a prompt, then generates greedily; the engine could
// serve other sessions at the same time.
func Example() {
	ctx := context.Background()
	eng, err := engine.Open(ctx, "../../shared/testdata/models/stories260K.gguf", engine.Settings{Backend: engine.CPUGo})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	s, err := session.New(eng, session.Config{})
	if err != nil {
		log.Fatal(err)
	}
	tok := eng.Tokenizer()
	if err := s.Prefill(ctx, tok.Encode("Once upon a time", tokenizer.EncodeOptions{AddSpecial: true})); err != nil {
		log.Fatal(err)
	}
	var out []int32
	for id, err := range s.Generate(ctx, session.GenerateOptions{MaxTokens: 12}) {
		if err != nil {
			log.Fatal(err)
		}
		out = append(out, id)
	}
	text, _ := tok.Decode(out)
	fmt.Println(text)
	// Output: , there was a little girl named Lily. She
}
