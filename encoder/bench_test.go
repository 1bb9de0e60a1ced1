package encoder

import (
	"context"
	"testing"

	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/native"
)

// BenchmarkEncode encodes the reference inputs of the tiny mmproj files on
// the Go backend (one image or one 208-frame mel spectrogram per op).
func BenchmarkEncode(b *testing.B) {
	cases := []struct {
		kind string
		img  *Image
		mel  *Mel
	}{
		{kind: "gemma3", img: zeroImage(64, 64)},
		{kind: "idefics3", img: zeroImage(32, 32)},
		{kind: "lfm2", img: zeroImage(48, 40)},
		{kind: "ultravox", mel: &Mel{NMel: 80, NFrames: 208, Data: make([]float32, 80*208)}},
		{kind: "voxtral", mel: &Mel{NMel: 128, NFrames: 208, Data: make([]float32, 128*208)}},
	}
	be := native.NewGo(0)
	defer be.Close()
	ctx := context.Background()
	for _, c := range cases {
		b.Run(c.kind, func(b *testing.B) {
			e, err := Open(synthFile(b, c.kind), be)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if c.img != nil {
					_, _, err = e.EncodeImageTensor(ctx, c.img)
				} else {
					_, _, err = e.EncodeMel(ctx, c.mel)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncodeWide encodes a 224×224 image with Gemma 3's SigLIP at its
// real widths (synth's gemma3-wide: 2 of the 27 layers, F16 weights) on one
// thread of each backend, for comparison with llama.cpp's clip on one
// thread (testdata/gen/dumpembd.cpp).
func BenchmarkEncodeWide(b *testing.B) {
	img := zeroImage(224, 224)
	for i := range img.Data {
		img.Data[i] = inputValue(i)
	}
	bs := []native.Backend{native.NewGo(1)}
	if c, err := native.LoadCPU(1); err == nil {
		bs = append(bs, c)
	}
	f := synthFileOf(b, "gemma3-wide", ggml.F16)
	for _, be := range bs {
		b.Run(be.Name(), func(b *testing.B) {
			e, err := Open(f, be)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, _, err := e.EncodeImageTensor(context.Background(), img); err != nil {
					b.Fatal(err)
				}
			}
		})
		be.Close()
	}
}
