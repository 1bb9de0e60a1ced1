// Package preprocess turns image and audio bytes into the float tensors an
// mmproj encoder takes, exactly as llama.cpp's tools/mtmd does it: images are
// decoded, resized with mtmd-image.cpp's Pillow-compatible fixed-point
// resampler, padded, tiled or sliced as each projector family needs and
// normalized with the mmproj's mean and standard deviation; audio is decoded
// (WAV, MP3, FLAC), mixed to mono, resampled to 16 kHz with miniaudio's linear
// resampler (as mtmd-helper.cpp's ma_decoder does) and turned into Whisper's
// log-mel spectrogram as mtmd-audio.cpp computes it, in 30 s windows.
//
// Everything here is a pure function of its input: no model, no state.
package preprocess

import "fmt"

// Limits bound what a decoder accepts from untrusted bytes. A zero field takes
// its DefaultLimits value.
type Limits struct {
	MaxBytes     int64   // size of the encoded input
	MaxPixels    int64   // width × height of a decoded image
	MaxSide      int     // width or height of a decoded image
	MaxSeconds   float64 // duration of decoded audio
	MaxChannels  int     // channels of decoded audio
	MaxFrameRate int     // sample rate of decoded audio
}

// DefaultLimits are the limits a zero Limits field takes: 64 MiB of input,
// 40 megapixels and 16384 pixels a side (clip.cpp refuses sides over 46000),
// 10 minutes of audio, 8 channels, 384 kHz.
func DefaultLimits() Limits {
	return Limits{
		MaxBytes:     64 << 20,
		MaxPixels:    40_000_000,
		MaxSide:      16384,
		MaxSeconds:   600,
		MaxChannels:  8,
		MaxFrameRate: 384000,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxPixels <= 0 {
		l.MaxPixels = d.MaxPixels
	}
	if l.MaxSide <= 0 {
		l.MaxSide = d.MaxSide
	}
	if l.MaxSeconds <= 0 {
		l.MaxSeconds = d.MaxSeconds
	}
	if l.MaxChannels <= 0 {
		l.MaxChannels = d.MaxChannels
	}
	if l.MaxFrameRate <= 0 {
		l.MaxFrameRate = d.MaxFrameRate
	}
	return l
}

func (l Limits) checkBytes(kind string, n int) error {
	if int64(n) > l.MaxBytes {
		return fmt.Errorf("%s is %d bytes, over the limit of %d", kind, n, l.MaxBytes)
	}
	return nil
}
