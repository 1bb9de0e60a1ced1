package engine

import (
	"github.com/litert-go/litert-go/models"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/models/modelinfo"
	"github.com/litert-go/litert-go/native"
	"github.com/litert-go/litert-go/tokenizer"
)

// Info describes a loaded model and the settings it runs with.
type Info struct {
	Arch          string        // general.architecture
	Name          string        // general.name
	Params        models.Params // hyper-parameters
	Quant         string        // the quantization mix, such as "Q4_K_M" (modelinfo.Quant)
	ContextLength int           // positions a session's cache holds
	VocabSize     int
	ChatTemplate  string  // tokenizer.chat_template, "" if none
	BOS           int32   // tokenizer.ggml.bos_token_id, -1 if none
	EOS           int32   // tokenizer.ggml.eos_token_id, -1 if none
	EOG           []int32 // tokens that end a generation (EOS, EOT, …), sorted
	AddBOS        bool    // whether encoding with special tokens adds BOS
	Backend       string  // the backend's name, such as "go"
	BackendNote   string  // why Auto chose it, "" if asked for explicitly
	Threads       int
	KVType        ggml.DType
	Load          Load // how the weights are held: LoadMmap or LoadRead
}

func describe(f *gguf.File, m models.Model, tok *tokenizer.Tokenizer, b native.Backend, s Settings, note string) Info {
	p := m.Params()
	info := Info{
		Arch:          p.Arch,
		Params:        p,
		VocabSize:     p.VocabSize,
		ContextLength: s.ContextLength,
		BOS:           tok.BOS(),
		EOS:           tok.EOS(),
		AddBOS:        tok.AddBOS(),
		EOG:           tok.EndOfGeneration(),
		Backend:       b.Name(),
		BackendNote:   note,
		Threads:       b.Threads(),
		KVType:        s.KVType,
	}
	if info.ContextLength == 0 {
		info.ContextLength = min(p.CtxLen, DefaultContextLength)
	}
	info.Name, _ = f.String("general.name")
	info.ChatTemplate, _ = f.String("tokenizer.chat_template")
	info.Quant = modelinfo.Quant(f)
	return info
}
