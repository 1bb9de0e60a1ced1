package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/litert-go/litert-go/constrain"
	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/native"
	"github.com/litert-go/litert-go/session"
	"github.com/litert-go/litert-go/template"
	"github.com/litert-go/litert-go/tokenizer"
)

// engineFlags are the flags that choose a model and how it runs, shared by
// the commands that run a model.
type engineFlags struct {
	model     *string
	threads   *int
	backend   *string
	ctxLen    *int
	kv        *string
	nativeLib *string
	isa       *string
	load      *string
	mmproj    *string   // addMMProjFlag; nil for commands without media
	stderr    io.Writer // where open says it fell back to the Go kernels
}

// backendNoteEnv, set to 0, silences the note saying that --backend auto
// fell back to the pure-Go kernels (--backend go asks for them quietly).
const backendNoteEnv = "LITERT_BACKEND_NOTE"

// addEngineFlags defines -m, -t (--threads), --backend, -c (--ctx), --kv,
// --native-lib, --isa and --load.
func addEngineFlags(fs *flag.FlagSet) *engineFlags {
	e := &engineFlags{
		model:   fs.String("m", "", "GGUF model file or hf.co/OWNER/REPO[:QUANT] (required)"),
		threads: fs.Int("t", 0, "threads (0: the number of physical cores)"),
		backend: fs.String("backend", "auto", "compute backend: auto, cpu, go or gpu"),
		ctxLen:  fs.Int("c", 0, "context length of each session (0: the model's, at most 4096)"),
		kv:      fs.String("kv", "f32", "KV cache type: f32, f16, q8_0 or q4_0"),
		nativeLib: fs.String("native-lib", "", "native kernel library `FILE` (default $"+native.LibEnv+
			", else liblitert.so beside the executable or in its prefix's lib/; never the working directory)"),
		isa: fs.String("isa", "", "the native library's kernel set `NAME` (avx512vnni, avx512bf16, avx2, neon or generic; default: the best this CPU runs; `info` lists them)"),
		load: fs.String("load", "auto", "how the weights are held: mmap (map the file), read (a private copy in huge pages: faster CPU decode) "+
			"or auto (read for the CPU backends when the file takes at most half the available memory)"),
		stderr: fs.Output(),
	}
	fs.IntVar(e.threads, "threads", 0, "same as -t")
	fs.IntVar(e.ctxLen, "ctx", 0, "same as -c")
	return e
}

// addMMProjFlag defines --mmproj, for the commands that take media. A
// Hub name in -m brings its repository's mmproj unless --mmproj names one.
func (e *engineFlags) addMMProjFlag(fs *flag.FlagSet) {
	e.mmproj = fs.String("mmproj", "", "multimodal projector `FILE` (an mmproj GGUF, as llama.cpp's mtmd loads) for image and audio input (default: the mmproj of -m's Hub repository, if any)")
}

// resolve replaces a Hub model name in -m by its cached file's path,
// pulling it first if needed, and fills an empty --mmproj with the
// repository's mmproj file.
func (e *engineFlags) resolve(ctx context.Context) error {
	if *e.model == "" {
		return errors.New("-m FILE is required")
	}
	mmproj, err := resolveModelFiles(ctx, e.stderr, e.model)
	if err == nil && mmproj != "" && e.mmproj != nil && *e.mmproj == "" {
		// as llama.cpp's -hf loads the repository's projector
		*e.mmproj = mmproj
	}
	return err
}

func (e *engineFlags) open(ctx context.Context) (*engine.Engine, error) {
	if err := e.resolve(ctx); err != nil {
		return nil, err
	}
	b, err := engine.ParseBackend(*e.backend)
	if err != nil {
		return nil, err
	}
	kv, err := ggml.ParseDType(*e.kv)
	if err != nil {
		return nil, fmt.Errorf("--kv: %w", err)
	}
	load, err := engine.ParseLoad(*e.load)
	if err != nil {
		return nil, fmt.Errorf("--load: %w", err)
	}
	s := engine.Settings{Backend: b, Threads: *e.threads, ContextLength: *e.ctxLen, KVType: kv, NativeLib: *e.nativeLib, CPUKernels: *e.isa, Load: load}
	if e.mmproj != nil {
		s.MMProj = *e.mmproj
	}
	eng, err := engine.Open(ctx, *e.model, s)
	if err != nil {
		return nil, err
	}
	if note := eng.Info().BackendNote; note != "" && os.Getenv(backendNoteEnv) != "0" {
		fmt.Fprintf(e.stderr, "litert-go: note: running the %s; --backend go or %s=0 silences this\n", note, backendNoteEnv)
	}
	return eng, nil
}

// addChatTemplateFlag defines --chat-template, shared by chat, generate
// and serve.
func addChatTemplateFlag(fs *flag.FlagSet) *string {
	return fs.String("chat-template", "", "Jinja chat template `FILE` replacing the model's (as for a fine-tune whose GGUF carries the base model's template)")
}

// readChatTemplate reads and checks a --chat-template file; "" reads
// nothing.
func readChatTemplate(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--chat-template: %w", err)
	}
	if _, err := template.Parse(string(b)); err != nil {
		return "", fmt.Errorf("--chat-template %s: %w", path, err)
	}
	return string(b), nil
}

// samplerFlags are the sampling flags of generate and chat, with
// llama.cpp's defaults.
type samplerFlags struct {
	temp, topP, minP, repeat float64
	topK                     int
	seed                     uint64
}

// addSamplerFlags defines --temp, --top-k, --top-p, --min-p,
// --repeat-penalty and --seed.
func addSamplerFlags(fs *flag.FlagSet) *samplerFlags {
	f := &samplerFlags{}
	fs.Float64Var(&f.temp, "temp", 0.8, "temperature (0: greedy)")
	fs.IntVar(&f.topK, "top-k", 40, "top-k sampling (0: off)")
	fs.Float64Var(&f.topP, "top-p", 0.95, "top-p sampling (1: off)")
	fs.Float64Var(&f.minP, "min-p", 0.05, "min-p sampling (0: off)")
	fs.Float64Var(&f.repeat, "repeat-penalty", 1, "repetition penalty (1: off)")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed (0: random)")
	return f
}

// sampler returns the sampler the flags describe.
func (f *samplerFlags) sampler() session.Sampler {
	return session.Sampler{
		Temperature: float32(f.temp), TopK: f.topK, TopP: float32(f.topP), MinP: float32(f.minP),
		RepeatPenalty: float32(f.repeat), Seed: f.seed,
	}
}

// runGenerate completes a prompt and streams only the generated text.
func runGenerate(ctx context.Context, sio stdio, args []string) error {
	fs := newFlags("generate", sio)
	eo := addEngineFlags(fs)
	eo.addMMProjFlag(fs)
	prompt := fs.String("p", "", "prompt text (required)")
	n := fs.Int("n", 128, "most tokens to generate (0: until the context is full)")
	fs.IntVar(n, "max-tokens", 128, "same as -n")
	smp := addSamplerFlags(fs)
	stop := fs.String("stop", "", "stop string (may be repeated with '|' between)")
	regex := fs.String("regex", "", "constrain the output to match this regular expression")
	schema := fs.String("json-schema", "", "constrain the output to JSON valid against the schema in `FILE`")
	grammar := fs.String("grammar", "", "constrain the output to the grammar in `FILE` (.gbnf or .lark)")
	chatTemplate := addChatTemplateFlag(fs)
	verbose := fs.Bool("v", false, "print the prompt and its token count to stderr")
	fs.BoolVar(verbose, "verbose", false, "same as -v")
	var media mediaFlags
	fs.Var(media.of("image"), "image", "image `FILE` to put before the prompt (may be repeated; needs --mmproj); the prompt then goes through the chat template")
	fs.Var(media.of("audio"), "audio", "audio `FILE` (WAV, MP3, FLAC) to put before the prompt, as --image")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *prompt == "" {
		return errors.New("-p TEXT is required")
	}
	g, err := loadConstraint(*regex, *schema, *grammar)
	if err != nil {
		return err
	}
	tmplSrc, err := readChatTemplate(*chatTemplate)
	if err != nil {
		return err
	}
	eng, err := eo.open(ctx)
	if err != nil {
		return err
	}
	defer eng.Close()
	if len(media.parts) > 0 {
		return generateWithMedia(ctx, sio, eng, tmplSrc, media.parts, *prompt, *n, smp.sampler(), *stop, g)
	}
	text, encode := *prompt, encodePrompt
	if tmplSrc != "" {
		if text, err = chatPrompt(ctx, eng, tmplSrc, text); err != nil {
			return fmt.Errorf("--chat-template: %w", err)
		}
		encode = encodeChatPrompt
	}
	ids, err := encode(eng, text)
	if err != nil {
		return err
	}
	if *verbose {
		fmt.Fprintf(sio.err, "litert-go generate: prompt (%d tokens):\n%s\n", len(ids), text)
	}
	s, err := session.New(eng, session.Config{})
	if err != nil {
		return err
	}
	if err := s.Prefill(ctx, ids); err != nil {
		return err
	}
	opts := session.GenerateOptions{Sampler: smp.sampler(), MaxTokens: *n}
	if *stop != "" {
		opts.StopStrings = strings.Split(*stop, "|")
	}
	if g != nil {
		v, err := eng.ConstraintVocab()
		if err != nil {
			return err
		}
		opts.Constraint = g.NewMatcher(v)
	}
	out := newTextStream(eng)
	var last string // the last text written
	for tok, err := range s.Generate(ctx, opts) {
		if err != nil {
			return err
		}
		text, err := out.add(tok)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprint(sio.out, text); err != nil {
			return err
		}
		if text != "" {
			last = text
		}
	}
	if rest := out.flush(); rest != "" {
		if _, err := fmt.Fprint(sio.out, rest); err != nil {
			return err
		}
		last = rest
	}
	if isTerminal(sio.out) && !strings.HasSuffix(last, "\n") {
		_, err = fmt.Fprintln(sio.out) // the shell's prompt starts on a line of its own
	}
	return err
}

// mediaFlags collects --image and --audio files, in order.
type mediaFlags struct{ parts []conversation.Part }

// of is the flag.Value adding files of kind ("image" or "audio").
func (m *mediaFlags) of(kind string) flag.Value { return mediaFlag{m, kind} }

type mediaFlag struct {
	m    *mediaFlags
	kind string
}

func (f mediaFlag) String() string { return "" }

func (f mediaFlag) Set(path string) error {
	f.m.parts = append(f.m.parts, conversation.Part{Type: f.kind, Path: path})
	return nil
}

// generateWithMedia answers one user message of the media then text, as
// llama.cpp's mtmd-cli does with -p and --image: through the chat
// template (tmplSrc, or the model's), the media encoded by the engine's
// mmproj, the reply streamed to stdout.
func generateWithMedia(ctx context.Context, sio stdio, eng *engine.Engine, tmplSrc string, media []conversation.Part, text string,
	n int, smp session.Sampler, stop string, g *constrain.Grammar) error {
	c, err := conversation.New(ctx, eng, conversation.Config{Sampler: smp, MaxTokens: n, ChatTemplate: tmplSrc})
	if err != nil {
		return err
	}
	var opts []conversation.Option
	if stop != "" {
		opts = append(opts, conversation.WithStop(strings.Split(stop, "|")...))
	}
	if g != nil {
		opts = append(opts, conversation.WithConstraint(g))
	}
	msg := conversation.Message{Role: conversation.RoleUser, Parts: append(media[:len(media):len(media)], conversation.Part{Type: "text", Text: text})}
	var last string
	for ch, err := range c.SendMessageStream(ctx, msg, opts...) {
		if err != nil {
			return err
		}
		if ch.Text == "" {
			continue
		}
		if _, err := fmt.Fprint(sio.out, ch.Text); err != nil {
			return err
		}
		last = ch.Text
	}
	if isTerminal(sio.out) && !strings.HasSuffix(last, "\n") {
		_, err = fmt.Fprintln(sio.out)
	}
	return err
}

// chatPrompt renders text as one user message with the chat template src,
// opening the assistant's turn, as llama.cpp's --chat-template does.
func chatPrompt(ctx context.Context, eng *engine.Engine, src, text string) (string, error) {
	tmpl, err := template.Parse(src)
	if err != nil {
		return "", err
	}
	msg, err := json.Marshal(map[string]string{"role": "user", "content": text})
	if err != nil {
		return "", err
	}
	m, err := template.DecodeOrdered(msg)
	if err != nil {
		return "", err
	}
	req := template.Request{Messages: []template.Value{m}, AddGenerationPrompt: true}
	req.BOSToken, req.EOSToken = eng.Tokenizer().TemplateTokens()
	return tmpl.Render(ctx, req)
}

// encodePrompt tokenizes a prompt as llama.cpp's examples do: BOS added
// when the model asks for it, and special-token text such as
// "<|im_start|>" parsed as those tokens.
func encodePrompt(eng *engine.Engine, text string) ([]int32, error) {
	ids := eng.Tokenizer().Encode(text, tokenizer.EncodeOptions{AddSpecial: true, ParseSpecial: true})
	if len(ids) == 0 {
		return nil, errors.New("the prompt has no tokens")
	}
	return ids, nil
}

// encodeChatPrompt tokenizes a rendered chat prompt: special-token text
// parsed, and BOS added once when the model wants it and the template did
// not write it.
func encodeChatPrompt(eng *engine.Engine, text string) ([]int32, error) {
	tok := eng.Tokenizer()
	ids := tok.Encode(text, tokenizer.EncodeOptions{ParseSpecial: true})
	if bos := tok.BOS(); bos >= 0 && eng.Info().AddBOS && (len(ids) == 0 || ids[0] != bos) {
		ids = append([]int32{bos}, ids...)
	}
	if len(ids) == 0 {
		return nil, errors.New("the prompt has no tokens")
	}
	return ids, nil
}

// textStream turns generated tokens into text, holding back incomplete
// UTF-8 sequences.
type textStream struct{ d *tokenizer.StreamDecoder }

func newTextStream(eng *engine.Engine) *textStream {
	return &textStream{eng.Tokenizer().NewStreamDecoder()}
}

func (t *textStream) add(tok int32) (string, error) { return t.d.Add(tok) }

func (t *textStream) flush() string { return t.d.Flush() }

// loadConstraint compiles at most one of a regex, a JSON schema file or a
// grammar file (GBNF, or Lark when the name ends in .lark).
func loadConstraint(regex, schemaFile, grammarFile string) (*constrain.Grammar, error) {
	set := 0
	for _, s := range []string{regex, schemaFile, grammarFile} {
		if s != "" {
			set++
		}
	}
	switch {
	case set == 0:
		return nil, nil
	case set > 1:
		return nil, errors.New("use only one of --regex, --json-schema and --grammar")
	case regex != "":
		g, err := constrain.Regex(regex)
		if err != nil {
			return nil, fmt.Errorf("--regex: %w", err)
		}
		return g, nil
	case schemaFile != "":
		src, err := os.ReadFile(schemaFile)
		if err != nil {
			return nil, fmt.Errorf("--json-schema: %w", err)
		}
		// Single-line JSON as models write it: no runs of whitespace to
		// wander through.
		g, err := constrain.JSONSchemaWith(src, constrain.JSONOptions{Whitespace: constrain.WhitespaceSpaced})
		if err != nil {
			return nil, fmt.Errorf("--json-schema %s: %w", schemaFile, err)
		}
		return g, nil
	}
	src, err := os.ReadFile(grammarFile)
	if err != nil {
		return nil, fmt.Errorf("--grammar: %w", err)
	}
	compile := constrain.GBNF
	if strings.HasSuffix(grammarFile, ".lark") {
		compile = constrain.Lark
	}
	g, err := compile(string(src))
	if err != nil {
		return nil, fmt.Errorf("--grammar %s: %w", grammarFile, err)
	}
	return g, nil
}
