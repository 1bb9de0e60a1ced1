package preprocess

import (
	"os"
	"testing"
)

func BenchmarkDecodeMP3(b *testing.B) {
	data, err := os.ReadFile("testdata/test-2.mp3")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, _, err := DecodeAudio(data, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResample(b *testing.B) {
	pcm := make([]float32, 44100*10)
	for b.Loop() {
		Resample(pcm, 44100, 16000)
	}
}

func BenchmarkLogMel80(b *testing.B) {
	pcm := make([]float32, 16000*10)
	for i := range pcm {
		pcm[i] = float32(i%97) / 97
	}
	for b.Loop() {
		if _, err := LogMel(pcm, 80, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPreprocessIdefics3(b *testing.B) {
	data, err := os.ReadFile("testdata/test-1.jpeg")
	if err != nil {
		b.Fatal(err)
	}
	img, err := DecodeImage(data, Limits{})
	if err != nil {
		b.Fatal(err)
	}
	half := [3]float32{0.5, 0.5, 0.5}
	p, err := NewParams("idefics3", 512, 16, half, half, Options{ScaleFactor: 4, PreprocImageSize: 1536})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := PreprocessImage(img, p); err != nil {
			b.Fatal(err)
		}
	}
}
