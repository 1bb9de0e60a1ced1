// goprep writes what encoder/preprocess decodes from llama.cpp's test audio,
// for dumpprep (gen.sh) to run llama.cpp's resampler and log-mel on the same
// samples:
//
//	goprep test-2.mp3 OUTDIR
//
// OUTDIR/test-2-native.wav is the decoded mono PCM at the file's own rate
// (32-bit float WAV), OUTDIR/test-2-16k.f32 the same resampled to 16 kHz
// (raw little-endian float32). It also writes two small synthetic stereo
// files for the WAV path (OUTDIR/stereo-8k-s16.wav: 0.25 s, upsampled to
// 16 kHz; OUTDIR/stereo-48k-s24.wav: 0.1 s, downsampled), which gen.sh
// copies into testdata, with the same signal at 44.1 kHz as a 16-bit FLAC
// (OUTDIR/stereo-44k-s16.flac); and OUTDIR/portrait.png, a small synthetic 150×260
// image that takes the upscaling and portrait branches of the image
// preprocessors.
package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	pngenc "image/png"
	"math"
	"os"
	"path/filepath"

	"github.com/litert-go/litert-go/encoder/preprocess"
	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
	"github.com/mewkiz/flac/meta"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: goprep AUDIO OUTDIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "goprep:", err)
		os.Exit(1)
	}
}

func run(audioPath, dir string) error {
	data, err := os.ReadFile(audioPath)
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
	if err := os.WriteFile(filepath.Join(dir, "test-2-16k.f32"), f32(preprocess.Resample(pcm, rate, 16000)), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "stereo-8k-s16.wav"), stereoWAV(8000, 2000, 2), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "stereo-48k-s24.wav"), stereoWAV(48000, 4800, 3), 0o644); err != nil {
		return err
	}
	fl, err := stereoFLAC(44100, 4410)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "stereo-44k-s16.flac"), fl, 0o644); err != nil {
		return err
	}
	var png bytes.Buffer
	if err := pngenc.Encode(&png, portrait(150, 260)); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "portrait.png"), png.Bytes(), 0o644)
}

// stereoFLAC is stereoWAV's signal as a 16-bit FLAC (verbatim subframes,
// 1024-sample blocks), written with mewkiz/flac's encoder.
func stereoFLAC(rate, n int) ([]byte, error) {
	w := stereoWAV(rate, n, 2)[44:]
	var b bytes.Buffer
	const block = 1024
	info := &meta.StreamInfo{BlockSizeMin: block, BlockSizeMax: block, SampleRate: uint32(rate),
		NChannels: 2, BitsPerSample: 16, NSamples: uint64(n)}
	enc, err := flac.NewEncoder(&b, info)
	if err != nil {
		return nil, err
	}
	for start := 0; start < n; start += block {
		m := min(block, n-start)
		f := &frame.Frame{Header: frame.Header{HasFixedBlockSize: true, BlockSize: uint16(m), SampleRate: uint32(rate),
			Channels: frame.ChannelsLR, BitsPerSample: 16, Num: uint64(start / block)}}
		for c := 0; c < 2; c++ {
			s := make([]int32, m)
			for i := range s {
				s[i] = int32(int16(binary.LittleEndian.Uint16(w[4*(start+i)+2*c:])))
			}
			f.Subframes = append(f.Subframes, &frame.Subframe{SubHeader: frame.SubHeader{Pred: frame.PredVerbatim}, Samples: s, NSamples: m})
		}
		if err := enc.WriteFrame(f); err != nil {
			return nil, err
		}
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// portrait is a w×h image of smooth gradients, a few hard edges and rings.
func portrait(w, h int) image.Image {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r := uint8(x * 255 / w)
			g := uint8(y * 255 / h)
			b := uint8(128 + 127*math.Sin(math.Hypot(float64(x-w/2), float64(y-h/3))/6))
			if (x/25+y/25)%2 == 0 {
				r = 255 - r
			}
			m.SetNRGBA(x, y, color.NRGBA{r, g, b, 255})
		}
	}
	return m
}

// stereoWAV is n frames of integer PCM (bps bytes a sample) at rate: a
// chirp on the left, a different chirp plus a little deterministic noise on
// the right, near full scale so the clipping range is exercised.
func stereoWAV(rate, n, bps int) []byte {
	d := make([]byte, 0, n*2*bps)
	seed := uint32(1)
	full := float64(int64(1)<<(8*bps-1) - 1)
	for i := 0; i < n; i++ {
		t := float64(i) / float64(rate)
		seed = seed*1664525 + 1013904223
		noise := float64(int32(seed)>>8) / float64(1<<23) * 0.05
		for _, v := range []float64{0.98 * math.Sin(2*math.Pi*(200+3000*t)*t), 0.7*math.Sin(2*math.Pi*(1500-2000*t)*t) + noise} {
			x := int64(math.Round(v * full))
			for b := 0; b < bps; b++ {
				d = append(d, byte(x>>(8*b)))
			}
		}
	}
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+len(d)))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1) // PCM
	binary.LittleEndian.PutUint16(h[22:], 2)
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*2*bps))
	binary.LittleEndian.PutUint16(h[32:], uint16(2*bps))
	binary.LittleEndian.PutUint16(h[34:], uint16(8*bps))
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(len(d)))
	return append(h, d...)
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
