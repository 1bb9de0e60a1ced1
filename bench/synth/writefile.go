package synth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/litert-go/litert-go/models/gguf"
)

// WriteFile generates the named shape's model straight into the GGUF file
// at path. Memory use stays small whatever the model's size: the header is
// written first and each chunk of weights is written in place as it is made.
func WriteFile(path, shape string, opts Options) error {
	return WriteFileContext(context.Background(), path, shape, opts)
}

// WriteFileContext is WriteFile with cancellation.
func WriteFileContext(ctx context.Context, path, shape string, opts Options) (err error) {
	p, err := newPlan(shape, opts)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("synth: %w", cerr)
		}
		if err != nil {
			_ = os.Remove(path)
		}
	}()
	dataStart, offsets, total, err := writeHeader(f, &gguf.Model{KV: p.kv}, p.infos)
	if err != nil {
		return fmt.Errorf("synth: %s: %w", path, err)
	}
	if err := f.Truncate(total); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	var mu sync.Mutex
	var written int64
	err = p.fill(ctx, func(_ int, _ int64, _ int, buf []byte) ([]byte, error) {
		return buf, nil
	}, func(i int, off int64, b []byte) error {
		if _, err := f.WriteAt(b, dataStart+offsets[i]+off); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
		if opts.Progress != nil {
			mu.Lock()
			written += int64(len(b))
			opts.Progress(written, p.dataBytes())
			mu.Unlock()
		}
		return nil
	})
	return err
}

// dataBytes is the size of the weights, without alignment padding.
func (p *plan) dataBytes() int64 {
	var n int64
	for _, t := range p.infos {
		n += int64(t.Bytes())
	}
	return n
}

// errHeaderDone stops gguf.Write once the header is out.
var errHeaderDone = errors.New("header written")

// writeHeader writes the GGUF header of m's metadata and the tensors infos
// (metadata, tensor descriptions and the padding before the data) to w,
// using gguf.Write with all-zero tensor data. It returns the data section's
// file offset, each tensor's offset in it, and the file's total size.
func writeHeader(w io.Writer, meta *gguf.Model, infos []gguf.TensorInfo) (dataStart int64, offsets []int64, total int64, err error) {
	const align = gguf.DefaultAlignment
	var dataBytes, maxBytes int64
	for _, t := range infos {
		offsets = append(offsets, dataBytes)
		n := int64(t.Bytes())
		dataBytes += (n + align - 1) / align * align
		maxBytes = max(maxBytes, n)
	}
	// One read-only anonymous mapping supplies the zero data of every
	// tensor: its pages are never touched, so it costs no memory.
	zero, err := syscall.Mmap(-1, 0, int(max(maxBytes, 1)), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return 0, nil, 0, fmt.Errorf("mmap: %w", err)
	}
	defer syscall.Munmap(zero)
	m := &gguf.Model{Version: meta.Version, KV: meta.KV}
	for _, info := range infos {
		m.Tensors = append(m.Tensors, gguf.Tensor{Info: info, Data: zero[:info.Bytes()]})
	}
	var cw countWriter
	if err := gguf.Write(&cw, m); err != nil {
		return 0, nil, 0, err
	}
	dataStart = cw.n - dataBytes
	lw := &limitWriter{w: w, left: dataStart}
	if err := gguf.Write(lw, m); !errors.Is(err, errHeaderDone) {
		if err == nil {
			err = errors.New("header size mismatch")
		}
		return 0, nil, 0, err
	}
	if lw.err != nil {
		return 0, nil, 0, lw.err
	}
	return dataStart, offsets, cw.n, nil
}

// countWriter counts bytes without reading them.
type countWriter struct{ n int64 }

func (c *countWriter) Write(b []byte) (int, error) { c.n += int64(len(b)); return len(b), nil }

// limitWriter passes the first left bytes to w, then fails with
// errHeaderDone.
type limitWriter struct {
	w    io.Writer
	left int64
	err  error // an error of w
}

func (l *limitWriter) Write(b []byte) (int, error) {
	if int64(len(b)) <= l.left {
		n, err := l.w.Write(b)
		l.left -= int64(n)
		l.err = err
		return n, err
	}
	n, err := l.w.Write(b[:l.left])
	l.left -= int64(n)
	if err != nil {
		l.err = err
		return n, err
	}
	return n, errHeaderDone
}
