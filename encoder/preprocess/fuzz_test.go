package preprocess

import (
	"encoding/binary"
	"image"
	"math"
	"os"
	"testing"
)

// FuzzDecodeImage: whatever the bytes, DecodeImage either fails or returns an
// image within the limits whose buffer matches its size.
func FuzzDecodeImage(f *testing.F) {
	src := image.NewNRGBA(image.Rect(0, 0, 5, 3))
	for i := range src.Pix {
		src.Pix[i] = uint8(i * 13)
	}
	f.Add(encodePNG(f, src))
	f.Add(pngHeader(100000, 100000))
	f.Add(pngHeader(0, 0))
	f.Add(encodeJPEG(f, 19, 11))
	if jpeg, err := os.ReadFile("testdata/test-1.jpeg"); err == nil {
		f.Add(jpeg[:2000])
	}
	lim := Limits{MaxPixels: 4096, MaxSide: 128, MaxBytes: 1 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := DecodeImage(data, lim)
		if err != nil {
			if img != nil {
				t.Fatal("an image and an error")
			}
			return
		}
		if img.W <= 0 || img.H <= 0 || img.W > lim.MaxSide || img.H > lim.MaxSide || int64(img.W*img.H) > lim.MaxPixels {
			t.Fatalf("decoded %dx%d past the limits", img.W, img.H)
		}
		if len(img.Pix) != 3*img.W*img.H {
			t.Fatalf("%dx%d image with %d bytes", img.W, img.H, len(img.Pix))
		}
	})
}

// FuzzResize: a resize has the requested size, keeps a flat image flat under
// every filter, and under the bilinear (non-negative) filter stays within the
// source's range per channel.
func FuzzResize(f *testing.F) {
	f.Add(uint8(4), uint8(3), uint8(9), uint8(2), uint8(0), []byte{0, 255, 7, 9, 200})
	f.Add(uint8(1), uint8(1), uint8(40), uint8(40), uint8(2), []byte{128})
	f.Fuzz(func(t *testing.T, sw, sh, dw, dh, algo uint8, px []byte) {
		w, h, ow, oh := int(sw%32)+1, int(sh%32)+1, int(dw%64)+1, int(dh%64)+1
		a := Algo(algo % 3)
		src := NewRGB8(w, h)
		for i := range src.Pix {
			if len(px) > 0 {
				src.Pix[i] = px[i%len(px)]
			}
		}
		r, err := Resize(src, ow, oh, a)
		if err != nil {
			t.Fatal(err)
		}
		if r.W != ow || r.H != oh || len(r.Pix) != 3*ow*oh {
			t.Fatalf("%dx%d → asked %dx%d, got %dx%d (%d bytes)", w, h, ow, oh, r.W, r.H, len(r.Pix))
		}
		var lo, hi [3]uint8
		lo = [3]uint8{255, 255, 255}
		for i, v := range src.Pix {
			lo[i%3], hi[i%3] = min(lo[i%3], v), max(hi[i%3], v)
		}
		for i, v := range r.Pix {
			c := i % 3
			if lo[c] == hi[c] && v != lo[c] {
				t.Fatalf("%v: a flat channel %d became %d", a, lo[c], v)
			}
			if a == Bilinear && (v < lo[c] || v > hi[c]) {
				t.Fatalf("bilinear: %d outside the source's %d..%d", v, lo[c], hi[c])
			}
		}
	})
}

// FuzzDecodeAudio: DecodeAudio either fails or returns finite mono samples at
// a rate and length within the limits; a WAV's samples are in [-1, 1].
func FuzzDecodeAudio(f *testing.F) {
	d := make([]byte, 16)
	for i := range 8 {
		binary.LittleEndian.PutUint16(d[2*i:], uint16(i*4000))
	}
	f.Add(wav(1, 2, 8000, 16, d, len(d)))
	f.Add(wav(1, 1, 8000, 8, d, len(d)))
	f.Add(wav(1, 1, 8000, 24, d[:15], 15))
	f.Add(wav(3, 1, 8000, 32, d, len(d)))
	f.Add(wav(1, 1, 8000, 16, d, 1<<30))
	if mp3, err := os.ReadFile("testdata/test-2.mp3"); err == nil {
		f.Add(mp3[:3000])
	}
	lim := Limits{MaxSeconds: 2, MaxBytes: 1 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		pcm, rate, err := DecodeAudio(data, lim)
		if err != nil {
			return
		}
		if rate <= 0 || rate > DefaultLimits().MaxFrameRate {
			t.Fatalf("rate %d", rate)
		}
		if float64(len(pcm)) > lim.MaxSeconds*float64(rate)+1152*2 {
			t.Fatalf("%d samples at %d Hz is over %v s", len(pcm), rate, lim.MaxSeconds)
		}
		isWAV := len(data) >= 4 && string(data[:4]) == "RIFF"
		for i, v := range pcm {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("sample %d is %v", i, v)
			}
			if isWAV && wavFormatInt(data) && (v < -1 || v > 1) {
				t.Fatalf("integer WAV sample %d is %v", i, v)
			}
		}
	})
}

// wavFormatInt reports whether a WAV's (first) fmt chunk is integer PCM.
func wavFormatInt(d []byte) bool {
	return len(d) >= 22 && string(d[12:16]) == "fmt " && binary.LittleEndian.Uint16(d[20:]) == 1
}
