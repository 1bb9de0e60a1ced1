package encoder

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// FuzzOpen mutates the headers (keys and tensor descriptions) of the tiny
// mmproj files, followed by the tensor data of the kind the first byte
// picks. Property: a file either fails to parse or open with an error that
// says it is the encoder's, or it opens into an encoder whose output for
// an input of the size it asks for has exactly the number of rows it
// announces (for images, those of its size), each EmbeddingDim wide.
func FuzzOpen(f *testing.F) {
	// the tiny kinds: the real-width "-wide" ones are for benchmarks
	kinds := slices.DeleteFunc(synth.MMProjKinds(), func(k string) bool { return strings.HasSuffix(k, "-wide") })
	var bodies [][]byte
	for i, kind := range kinds {
		m, err := synth.MMProj(kind, 1, ggml.F32)
		if err != nil {
			f.Fatal(err)
		}
		var buf bytes.Buffer
		if err := gguf.Write(&buf, m); err != nil {
			f.Fatal(err)
		}
		gf, err := gguf.Parse(buf.Bytes())
		if err != nil {
			f.Fatal(err)
		}
		bodies = append(bodies, buf.Bytes()[gf.DataStart:])
		f.Add(byte(i), buf.Bytes()[:gf.DataStart])
	}
	b := native.NewGo(1)
	defer b.Close()
	f.Fuzz(func(t *testing.T, kind byte, header []byte) {
		data := append(bytes.Clone(header), bodies[int(kind)%len(bodies)]...)
		gf, err := gguf.Parse(data)
		if err != nil {
			return
		}
		e, err := Open(gf, b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "encoder: ") {
				t.Fatalf("error without the package's prefix: %v", err)
			}
			return
		}
		dim := e.EmbeddingDim()
		if dim <= 0 {
			t.Fatalf("EmbeddingDim %d", dim)
		}
		ctx := context.Background()
		if e.Vision() {
			vp, _ := e.VisionParams()
			side := vp.ImageSize
			out, n, err := e.EncodeImageTensor(ctx, &Image{W: side, H: side, C: 3, Data: make([]float32, 3*side*side)})
			if err != nil {
				t.Fatalf("opened encoder refuses an image of its own size: %v", err)
			}
			if want := e.vision.tokens(side, side); n != want || len(out) != n*dim {
				t.Fatalf("image gave %d rows (%d values), want %d rows of %d", n, len(out), want, dim)
			}
		}
		if e.Audio() {
			const frames = 8
			out, n, err := e.EncodeMel(ctx, &Mel{NMel: e.MelBins(), NFrames: frames, Data: make([]float32, e.MelBins()*frames)})
			if err != nil {
				t.Fatalf("opened encoder refuses %d frames: %v", frames, err)
			}
			if len(out) != n*dim || n <= 0 {
				t.Fatalf("audio gave %d rows (%d values) of %d", n, len(out), dim)
			}
		}
	})
}
