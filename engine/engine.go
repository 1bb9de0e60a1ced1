// Package engine loads a model once and shares it: an Engine holds the
// GGUF file (read into huge pages or memory-mapped: Settings.Load), the
// model's read-only weights, the compute backend and the tokenizer.
// Sessions (package session) each own a KV cache and run concurrently on
// one Engine.
package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/encoder"
	"github.com/litert-go/litert-go/models"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
	"github.com/litert-go/litert-go/template"
	"github.com/litert-go/litert-go/tokenizer"
)

// Backend selects the compute backend.
type Backend int

const (
	// Auto uses the best backend available: the native C kernels when
	// their library is found, else the pure-Go kernels. Info says which.
	Auto Backend = iota
	// CPU requires the native C kernels.
	CPU
	// CPUGo uses the pure-Go kernels.
	CPUGo
	// GPU requires a GPU backend; Open fails on a machine without one.
	GPU
)

// String returns the backend's name as the CLI spells it.
func (b Backend) String() string {
	switch b {
	case Auto:
		return "auto"
	case CPU:
		return "cpu"
	case CPUGo:
		return "go"
	case GPU:
		return "gpu"
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

// ParseBackend parses "auto", "cpu", "go" or "gpu".
func ParseBackend(s string) (Backend, error) {
	if s == "cpu-go" { // the and LiteRT-LM's spelling of "go"
		return CPUGo, nil
	}
	for b := Auto; b <= GPU; b++ {
		if b.String() == s {
			return b, nil
		}
	}
	return 0, fmt.Errorf("engine: unknown backend %q (want auto, cpu, go (or cpu-go) or gpu)", s)
}

// DefaultContextLength caps the context when Settings.ContextLength is 0,
// so a model trained on 128K positions does not allocate a 128K cache.
const DefaultContextLength = 4096

// Settings configure Open. The zero value is usable.
type Settings struct {
	Backend       Backend
	Threads       int        // 0: the number of physical cores
	ContextLength int        // 0: the model's, capped at DefaultContextLength
	KVType        ggml.DType // ggml.F32 (the zero value), F16, Q8_0 or Q4_0 (native.KVTypes)
	// NativeLib is the native kernel library file; "" searches the
	// trusted places of native.LibCandidates ($LITERT_NATIVE_LIB, beside
	// the executable, its prefix's lib/), never the working directory.
	NativeLib string
	// CPUKernels is the native library's kernel set for the cpu backend,
	// one of native.CPU's ISAs ("avx512vnni", "avx512bf16", "avx2", "neon", "generic"):
	// "" picks the best this CPU runs. A set the CPU cannot run is an
	// error, and so is a set for another backend (the go backend's kernels
	// follow the CPU, capped at AVX2 in a build with -tags avx2only).
	CPUKernels string
	// MMProj is a multimodal projector GGUF (an mmproj, as llama.cpp's
	// tools/mtmd loads) opened beside the model on the same backend: its
	// vision and audio encoders turn image and audio parts into embeddings
	// (Encoder). Its embedding width must be the model's. "": none.
	MMProj string
	// Load is how the weights are held: LoadAuto (the zero value) reads
	// them into huge-page memory for the CPU backends when they fit
	// comfortably, else maps the file. Info.Load says which.
	Load Load
}

// Engine is a loaded model shared by sessions. All methods are safe for
// concurrent use.
type Engine struct {
	file    *gguf.File
	model   models.Model
	backend native.Backend
	info    Info
	tok     *tokenizer.Tokenizer
	chat    lazy[*template.Template] // parsed chat template
	vocab   lazy[*constrain.Vocab]   // token bytes for constrained decoding
	enc     *encoder.Encoder         // Settings.MMProj's; nil: none
}

// Open reads or memory-maps (Settings.Load) the GGUF file at path and
// loads its model.
func Open(ctx context.Context, path string, s Settings) (*Engine, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := native.CheckKVType(s.KVType, 0); err != nil { // the head size is checked once the model is loaded
		return nil, fmt.Errorf("engine: %w", err)
	}
	if s.ContextLength < 0 || s.Threads < 0 {
		return nil, fmt.Errorf("engine: negative context length %d or threads %d", s.ContextLength, s.Threads)
	}
	threads := s.Threads
	if threads == 0 {
		threads = physicalCores()
	}
	b, note, err := openBackend(s.Backend, native.CPUOptions{Path: s.NativeLib, Threads: threads, ISA: s.CPUKernels})
	if err != nil {
		return nil, err
	}
	f, load, err := openFile(ctx, path, s.Load, s.Backend)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("engine: %w", err)
	}
	m, err := models.Load(f, b)
	if err != nil {
		f.Close()
		b.Close()
		return nil, fmt.Errorf("engine: %s: %w", path, err)
	}
	tok, err := tokenizer.FromGGUF(f)
	if err != nil {
		f.Close()
		b.Close()
		return nil, fmt.Errorf("engine: %s: %w", path, err)
	}
	if tok.VocabSize() != m.Params().VocabSize {
		f.Close()
		b.Close()
		return nil, fmt.Errorf("engine: %s: the tokenizer has %d tokens but token_embd.weight has %d rows", path, tok.VocabSize(), m.Params().VocabSize)
	}
	if err := native.CheckKVType(s.KVType, m.Params().HeadDim); err != nil {
		f.Close()
		b.Close()
		return nil, fmt.Errorf("engine: %s: %w", path, err)
	}
	e := &Engine{file: f, model: m, backend: b, tok: tok}
	if s.MMProj != "" {
		if e.enc, err = openMMProj(s.MMProj, b, m.Params().Dim); err != nil {
			f.Close()
			b.Close()
			return nil, err
		}
	}
	e.info = describe(f, m, tok, b, s, note)
	e.info.Load = load
	if err := ctx.Err(); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// openBackend returns the backend for kind, and for Auto a note saying why
// the native one was not used.
func openBackend(kind Backend, cpu native.CPUOptions) (native.Backend, string, error) {
	if cpu.ISA != "" && kind != CPU && kind != Auto {
		return nil, "", fmt.Errorf("engine: kernel set %q is the native library's, for backend cpu (or auto), not %v (the go backend's kernels follow the CPU; build with -tags avx2only to cap them at AVX2)", cpu.ISA, kind)
	}
	switch kind {
	case CPUGo:
		return native.NewGo(cpu.Threads), "", nil
	case CPU:
		b, err := native.OpenCPU(cpu)
		if err != nil {
			return nil, "", fmt.Errorf("engine: backend cpu: %w", err)
		}
		return b, "", nil
	case GPU:
		b, err := native.OpenGPU()
		if err != nil {
			return nil, "", fmt.Errorf("engine: backend gpu: %w", err)
		}
		return b, "", nil
	case Auto:
		b, err := native.OpenCPU(cpu)
		if err == nil {
			return b, "", nil
		}
		if !errors.Is(err, native.ErrUnavailable) || cpu.ISA != "" {
			// (a kernel set asked for by name is not silently dropped)
			return nil, "", fmt.Errorf("engine: backend auto: %w", err)
		}
		return native.NewGo(cpu.Threads), "pure-Go kernels (" + err.Error() + ")", nil
	}
	return nil, "", fmt.Errorf("engine: unknown backend %v", kind)
}

// Model returns the loaded model.
func (e *Engine) Model() models.Model { return e.model }

// Backend returns the compute backend.
func (e *Engine) Backend() native.Backend { return e.backend }

// File returns the GGUF file, for metadata the Engine does not interpret.
func (e *Engine) File() *gguf.File { return e.file }

// Info describes the model and how it runs.
func (e *Engine) Info() Info { return e.info }

// NewState allocates a KV cache of the engine's context length and
// activation buffers for batches of up to maxBatch tokens.
func (e *Engine) NewState(maxBatch int) (*models.State, error) {
	return models.NewState(e.model, e.info.ContextLength, maxBatch, e.info.KVType)
}

// Close stops the backend and unmaps the file. Sessions must not be used
// afterwards.
func (e *Engine) Close() error {
	berr := e.backend.Close()
	ferr := e.file.Close()
	var perr error
	if e.enc != nil {
		perr = e.enc.Close()
	}
	return errors.Join(berr, ferr, perr)
}

// openMMProj opens the mmproj at path on b and checks that its embeddings
// are dim wide, the language model's width, before anything runs.
func openMMProj(path string, b native.Backend, dim int) (*encoder.Encoder, error) {
	enc, err := encoder.OpenFile(path, b)
	if err != nil {
		return nil, fmt.Errorf("engine: mmproj: %w", err)
	}
	if err := enc.CheckDim(dim); err != nil {
		enc.Close()
		return nil, fmt.Errorf("engine: mmproj %s: %w", path, err)
	}
	return enc, nil
}

// Encoder returns the encoders of Settings.MMProj, or nil without one.
func (e *Engine) Encoder() *encoder.Encoder { return e.enc }
