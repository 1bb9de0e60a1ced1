package conversation

import "github.com/litert-go/litert-go/engine"

// engineEncoder returns the encoder of the engine's mmproj as an Encoder,
// or nil when the engine has none.
func engineEncoder(eng *engine.Engine) Encoder {
	_ = eng // the engine opens no mmproj yet (engine.Settings.MMProj lands with package encoder)
	return nil
}
