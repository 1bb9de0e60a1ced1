// Package quantize converts GGUF models to smaller tensor types the way
// llama.cpp's llama-quantize does: the same per-tensor type mixes (Q4_K_M
// gives attn_v and ffn_down of some layers Q6_K, output Q6_K …), the same
// fallbacks for rows that do not fit a block size, the same reference
// quantization algorithms (bit-identical output) and the same metadata
// (general.file_type, general.quantization_version) and tensor order.
package quantize

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
)

// quantizationVersion is ggml's GGML_QNT_VERSION, written to
// general.quantization_version.
const quantizationVersion = 2

// minChunk is the fewest elements one worker quantizes at a time (as
// llama.cpp's min_chunk_size).
const minChunk = 32 * 512

// Options controls a quantization.
type Options struct {
	// Type is the mix to produce.
	Type FileType
	// AllowRequantize permits converting tensors that are already
	// quantized (quality suffers); otherwise they are an error.
	AllowRequantize bool
	// Threads is the number of goroutines quantizing; 0 means GOMAXPROCS.
	Threads int
	// Progress, if set, is called after each tensor from the calling
	// goroutine.
	Progress func(Progress)
}

// Progress reports how far a quantization has come.
type Progress struct {
	Tensor, Tensors int    // tensors done and in all
	Name            string // the tensor just finished
	Done, Total     int64  // input bytes done and in all
}

// Report summarises a finished quantization.
type Report struct {
	Tensors   []TensorPlan
	InBytes   int64 // tensor data read
	OutBytes  int64 // tensor data written
	Fallbacks int   // tensors that needed a fallback type
}

// Model quantizes the model f in memory. Unchanged tensors refer to f's
// mapping, so the result is valid until f is closed.
func Model(ctx context.Context, f *gguf.File, opts Options) (*gguf.Model, *Report, error) {
	plans, err := Plan(f, opts.Type)
	if err != nil {
		return nil, nil, err
	}
	threads := opts.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	// gguf_set_val removes a key and appends it, so llama-quantize writes
	// these two last whether or not the input has them.
	kv := slices.DeleteFunc(append([]gguf.KV(nil), f.KV...), func(kv gguf.KV) bool {
		return kv.Key == "general.quantization_version" || kv.Key == "general.file_type"
	})
	m := &gguf.Model{Version: f.Version, KV: kv}
	m.Set("general.quantization_version", gguf.Uint32(quantizationVersion))
	m.Set("general.file_type", gguf.Uint32(uint32(opts.Type)))
	rep := &Report{Tensors: plans}
	var total int64
	for _, tp := range plans {
		ti, _ := f.Tensor(tp.Name)
		total += int64(ti.Bytes())
	}
	var buf []float32
	for i, tp := range plans {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		ti, _ := f.Tensor(tp.Name)
		src := f.TensorData(ti)
		data := src
		if tp.To != tp.From {
			data, buf, err = convert(ctx, ti, src, tp.To, opts.AllowRequantize, threads, buf)
			if err != nil {
				return nil, nil, err
			}
		}
		info := ti
		info.Type = tp.To
		m.Tensors = append(m.Tensors, gguf.Tensor{Info: info, Data: data})
		rep.InBytes += int64(len(src))
		rep.OutBytes += int64(len(data))
		if tp.Fallback {
			rep.Fallbacks++
		}
		if opts.Progress != nil {
			opts.Progress(Progress{Tensor: i + 1, Tensors: len(plans), Name: tp.Name, Done: rep.InBytes, Total: total})
		}
	}
	return m, rep, nil
}

// convert turns the data of tensor ti into type to, reusing buf for the
// float32 copy.
func convert(ctx context.Context, ti gguf.TensorInfo, src []byte, to ggml.DType,
	requantize bool, threads int, buf []float32) ([]byte, []float32, error) {
	from := ti.Type
	if ggml.IsQuantized(from) && !requantize {
		return nil, buf, fmt.Errorf("quantize: tensor %s is already %s; requantizing is disabled", ti.Name, from)
	}
	if !ggml.CanQuantize(to) {
		return nil, buf, fmt.Errorf("quantize: tensor %s: cannot write type %s", ti.Name, to)
	}
	ncols := int(ti.Dims[0])
	rows := ti.Rows()
	n := ncols * rows
	var f32 []float32
	if from == ggml.F32 {
		f32 = make([]float32, n)
	} else {
		if cap(buf) < n {
			buf = make([]float32, n)
		}
		f32 = buf[:n]
	}
	if err := ggml.Dequantize(from, src, f32); err != nil {
		return nil, buf, fmt.Errorf("quantize: reading tensor %s: %w", ti.Name, err)
	}
	rowSize, err := to.RowSize(ncols)
	if err != nil {
		return nil, buf, fmt.Errorf("quantize: tensor %s: %w", ti.Name, err)
	}
	out := make([]byte, rowSize*rows)
	rowsPerChunk := max(1, (minChunk+ncols-1)/ncols)
	err = parallelChunks(ctx, threads, rows, rowsPerChunk, func(r0, r1 int) error {
		return ggml.Quantize(to, f32[r0*ncols:r1*ncols], out[r0*rowSize:r1*rowSize])
	})
	if err != nil {
		return nil, buf, fmt.Errorf("quantize: tensor %s to %s: %w", ti.Name, to, err)
	}
	return out, buf, nil
}

// parallelChunks runs fn over [0, rows) in chunks of step rows on up to
// threads goroutines, stopping at the first error or when ctx is done.
func parallelChunks(ctx context.Context, threads, rows, step int, fn func(r0, r1 int) error) error {
	nchunks := (rows + step - 1) / step
	threads = max(1, min(threads, nchunks))
	var (
		mu       sync.Mutex
		next     int
		firstErr error
		wg       sync.WaitGroup
	)
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if firstErr == nil {
					firstErr = ctx.Err()
				}
				if firstErr != nil || next >= nchunks {
					mu.Unlock()
					return
				}
				c := next
				next++
				mu.Unlock()
				r0 := c * step
				if err := fn(r0, min(rows, r0+step)); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return firstErr
}

// File quantizes the GGUF file in into out (written through a temporary
// file renamed at the end, so out is never left half-written).
func File(ctx context.Context, in, out string, opts Options) (*Report, error) {
	f, err := gguf.Open(in)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, rep, err := Model(ctx, f, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), filepath.Base(out)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("quantize: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := gguf.Write(tmp, m); err != nil {
		return nil, fmt.Errorf("quantize: writing %s: %w", out, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return nil, fmt.Errorf("quantize: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("quantize: writing %s: %w", out, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return nil, fmt.Errorf("quantize: %w", err)
	}
	ok = true
	return rep, nil
}
