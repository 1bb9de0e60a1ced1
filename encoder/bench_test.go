package encoder

import (
	"context"
	"testing"

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
