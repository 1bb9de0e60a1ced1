// goprep writes what encoder/preprocess decodes from llama.cpp's test media,
// for dumpprep (gen.sh) to run llama.cpp's preprocessing on the same input:
//
//	goprep test-1.jpeg test-2.mp3 OUTDIR
//
// OUTDIR/test-1.ppm is the decoded RGB, OUTDIR/test-2-native.wav the decoded
// mono PCM at the file's own rate (32-bit float WAV), OUTDIR/test-2-16k.f32
// the same resampled to 16 kHz (raw little-endian float32).
package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/litert-go/litert-go/encoder/preprocess"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: goprep IMAGE AUDIO OUTDIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "goprep:", err)
		os.Exit(1)
	}
}

func run(imgPath, audioPath, dir string) error {
	data, err := os.ReadFile(imgPath)
	if err != nil {
		return err
	}
	img, err := preprocess.DecodeImage(data, preprocess.Limits{})
	if err != nil {
		return err
	}
	ppm := append([]byte(fmt.Sprintf("P6\n%d %d\n255\n", img.W, img.H)), img.Pix...)
	if err := os.WriteFile(filepath.Join(dir, "test-1.ppm"), ppm, 0o644); err != nil {
		return err
	}
	if audioPath == "-" {
		return nil
	}
	data, err = os.ReadFile(audioPath)
	if err != nil {
		return err
	}
	pcm, rate, err := preprocess.DecodeAudio(data, preprocess.Limits{})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "test-2-native.wav"), floatWAV(pcm, rate), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "test-2-16k.f32"), f32(preprocess.Resample(pcm, rate, 16000)), 0o644)
}

func f32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// floatWAV is a mono WAVE_FORMAT_IEEE_FLOAT file.
func floatWAV(pcm []float32, rate int) []byte {
	d := f32(pcm)
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+len(d)))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 3) // IEEE float
	binary.LittleEndian.PutUint16(h[22:], 1)
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*4))
	binary.LittleEndian.PutUint16(h[32:], 4)
	binary.LittleEndian.PutUint16(h[34:], 32)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(len(d)))
	return append(h, d...)
}
