package session

import "github.com/litert-go/litert-go/engine"

// tokenBytes returns the function giving each token's text, for stop
// strings.
func tokenBytes(eng *engine.Engine) (func(int32) []byte, error) {
	tok := eng.Tokenizer()
	return func(id int32) []byte { return []byte(tok.TokenPiece(id)) }, nil
}
