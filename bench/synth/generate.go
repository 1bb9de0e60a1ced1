package synth

import (
	"context"
	"fmt"
	"runtime"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
)

// Options control Generate and WriteFile. The zero value makes an F32 model
// with seed 0 and the shape's synthetic tokenizer.
type Options struct {
	// Seed seeds the weights; equal seeds give byte-identical files.
	Seed uint64
	// Type is the type of 2-D weights (F32, F16, BF16, Q8_0, Q4_0, Q4_1,
	// Q5_0, Q5_1, Q4_K, Q5_K, Q6_K); norms, biases and rope factors stay F32.
	// Rows that are not a multiple of the block size fall back as in
	// llama-quantize.
	Type ggml.DType
	// Mix, when set, is a llama-quantize file type ("q4_k_m", "q4_k_s",
	// "q5_k_m", "q5_k_s", or any other models/quantize name such as "q4_0")
	// and overrides Type: tensor types follow llama-quantize's rules, as
	// decided by quantize.Plan.
	Mix string
	// VocabFile, when set, is a GGUF file whose tokenizer.* metadata is
	// copied; the embedding is sized to its token count.
	VocabFile string
	// ChatTemplate, when set, sets or replaces tokenizer.chat_template.
	ChatTemplate string
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Progress, when set, is told how many bytes of weights WriteFile has
	// written of the total, after each chunk; calls do not overlap.
	Progress func(done, total int64)
}

// plan is everything about a model but its weights.
type plan struct {
	shape   Shape
	kv      []gguf.KV
	specs   []tensorSpec
	infos   []gguf.TensorInfo
	seed    uint64
	workers int
}

// newPlan resolves the shape, types and metadata of a model.
func newPlan(shape string, opts Options) (*plan, error) {
	s, err := Lookup(shape)
	if err != nil {
		return nil, err
	}
	pol, err := newTypePolicy(opts)
	if err != nil {
		return nil, err
	}
	var vocab []gguf.KV
	nVocab := s.NVocab
	if opts.VocabFile != "" {
		vocab, nVocab, err = vocabFrom(opts.VocabFile)
	} else {
		vocab, err = synthVocab(s.vocab, s.Name, nVocab)
	}
	if err != nil {
		return nil, err
	}
	m := &gguf.Model{KV: s.archKV(nVocab, pol)}
	specs := s.tensors(nVocab)
	infos, err := tensorInfos(m.KV, specs, pol)
	if err != nil {
		return nil, err
	}
	for _, kv := range vocab {
		m.Set(kv.Key, kv.Value)
	}
	if opts.ChatTemplate != "" {
		m.Set("tokenizer.chat_template", gguf.String(opts.ChatTemplate))
	}
	p := &plan{shape: s, kv: m.KV, specs: specs, infos: infos, seed: opts.Seed, workers: opts.Workers}
	if p.workers <= 0 {
		p.workers = runtime.GOMAXPROCS(0)
	}
	return p, nil
}

// tensorInfos gives each tensor its type under pol; kv is the model's
// architecture metadata, which llama-quantize's rules read.
func tensorInfos(kv []gguf.KV, specs []tensorSpec, pol typePolicy) ([]gguf.TensorInfo, error) {
	var mixed map[string]ggml.DType
	if pol.mix != nil {
		var err error
		if mixed, err = mixTypes(kv, specs, *pol.mix); err != nil {
			return nil, err
		}
	}
	infos := make([]gguf.TensorInfo, len(specs))
	for i, t := range specs {
		typ := pol.pureType(t)
		if mt, ok := mixed[t.name]; ok {
			typ = mt
		}
		infos[i] = gguf.TensorInfo{Name: t.name, Dims: t.dims, Type: typ}
	}
	return infos, nil
}

// Generate builds the named shape's model in memory. See Shapes for names.
func Generate(shape string, opts Options) (*gguf.Model, error) {
	return GenerateContext(context.Background(), shape, opts)
}

// GenerateContext is Generate with cancellation.
func GenerateContext(ctx context.Context, shape string, opts Options) (*gguf.Model, error) {
	p, err := newPlan(shape, opts)
	if err != nil {
		return nil, err
	}
	m := &gguf.Model{KV: p.kv, Tensors: make([]gguf.Tensor, len(p.infos))}
	for i, info := range p.infos {
		m.Tensors[i] = gguf.Tensor{Info: info, Data: make([]byte, info.Bytes())}
	}
	err = p.fill(ctx, func(i int, off int64, n int, _ []byte) ([]byte, error) {
		return m.Tensors[i].Data[off : off+int64(n)], nil
	}, nil)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// chunkElems is the number of elements generated per job: enough to amortize
// scheduling, small enough to balance work and bound scratch memory.
const chunkElems = 1 << 18

// job is a range of rows of one tensor.
type job struct {
	tensor     int
	row, nrows int
	chunk      int
}

// dstFunc returns where to put n bytes at offset off of tensor i; buf is a
// worker-owned scratch buffer it may return a prefix of.
type dstFunc func(i int, off int64, n int, buf []byte) ([]byte, error)

// doneFunc, when non-nil, is called with the bytes of a finished chunk.
type doneFunc func(i int, off int64, b []byte) error

// fill generates every tensor's data with p.workers goroutines. Each chunk
// of rows is drawn from its own PRNG stream, so the result does not depend
// on the number of workers or their scheduling.
func (p *plan) fill(ctx context.Context, dst dstFunc, done doneFunc) error {
	var jobs []job
	for i, t := range p.specs {
		per := max(1, chunkElems/t.cols())
		for c, r := 0, 0; r < t.rows(); c, r = c+1, r+per {
			jobs = append(jobs, job{tensor: i, row: r, nrows: min(per, t.rows()-r), chunk: c})
		}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan job)
	errs := make(chan error, p.workers)
	for range p.workers {
		go func() {
			errs <- p.work(ctx, next, dst, done)
		}()
	}
	func() {
		for _, j := range jobs {
			select {
			case next <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	close(next)
	var first error
	for range p.workers {
		if err := <-errs; err != nil && first == nil {
			first = err
			cancel(err)
		}
	}
	if first != nil {
		return first
	}
	return context.Cause(ctx)
}

// work runs jobs until next closes or ctx ends.
func (p *plan) work(ctx context.Context, next <-chan job, dst dstFunc, done doneFunc) error {
	var vals []float32
	var buf []byte
	for j := range next {
		if ctx.Err() != nil {
			continue // drain
		}
		t, info := p.specs[j.tensor], p.infos[j.tensor]
		n := j.nrows * t.cols()
		if cap(vals) < n {
			vals = make([]float32, n)
		}
		vals = vals[:n]
		p.values(t, j, vals)
		rowBytes, err := info.Type.RowSize(t.cols())
		if err != nil {
			return fmt.Errorf("synth: %s: %w", t.name, err)
		}
		size := j.nrows * rowBytes
		if cap(buf) < size {
			buf = make([]byte, size)
		}
		out, err := dst(j.tensor, int64(j.row*rowBytes), size, buf[:size])
		if err != nil {
			return err
		}
		if err := ggml.Quantize(info.Type, vals, out); err != nil {
			return fmt.Errorf("synth: %s: %w", t.name, err)
		}
		if done != nil {
			if err := done(j.tensor, int64(j.row*rowBytes), out); err != nil {
				return err
			}
		}
	}
	return nil
}

// values draws the elements of job j of tensor t.
func (p *plan) values(t tensorSpec, j job, vals []float32) {
	switch t.kind {
	case initRopeFreqs:
		f := llama3RopeFactors(float64(p.shape.RopeBase), p.shape.HeadDim, *p.shape.Llama3Rope)
		copy(vals, f[j.row:])
	case initRopeShort:
		copy(vals, longRopeFactors(p.shape.ropeDim()/2, p.shape.LongRoPE.ShortMax))
	case initRopeLong:
		copy(vals, longRopeFactors(p.shape.ropeDim()/2, p.shape.LongRoPE.LongMax))
	case initRopeProportional:
		copy(vals, p.shape.ropeProportional()[j.row:])
	default:
		normals(newStream(p.seed, t.name, j.chunk), vals, t.mean, t.std)
	}
}
