package engine_test

import (
	"context"
	"fmt"
	"log"
	"sync"

	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/session"
	"github.com/litert-go/litert-go/tokenizer"
)

// An Engine loads a model once; any number of sessions then share its
// read-only weights, here two at the same time.
func Example() {
	ctx := context.Background()
	eng, err := engine.Open(ctx, "../../shared/testdata/models/stories260K.gguf", engine.Settings{ContextLength: 256})
	if err != nil {
		log.Fatal(err)
	}
	defer eng.Close()
	info := eng.Info()
	fmt.Println(info.Arch, info.Params.NLayers, "layers", info.VocabSize, "tokens", info.ContextLength, "context")

	prompt := eng.Tokenizer().Encode("Once upon a time", tokenizer.EncodeOptions{AddSpecial: true})
	replies := make([]string, 2)
	var wg sync.WaitGroup
	for i := range replies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := session.New(eng, session.Config{})
			if err != nil {
				log.Fatal(err)
			}
			if err := s.Prefill(ctx, prompt); err != nil {
				log.Fatal(err)
			}
			var ids []int32
			for id, err := range s.Generate(ctx, session.GenerateOptions{MaxTokens: 6}) {
				if err != nil {
					log.Fatal(err)
				}
				ids = append(ids, id)
			}
			replies[i], _ = eng.Tokenizer().Decode(ids)
		}()
	}
	wg.Wait()
	fmt.Println(replies[0] == replies[1], replies[0])
	// Output:
	// llama 5 layers 512 tokens 256 context
	// true , there was a little g
}
