package preprocess

import (
	"errors"
	"fmt"
	"math"
)

// Whisper's front end, as llama.cpp's mtmd_audio_preprocessor_whisper runs it
// for the Ultravox, Voxtral and Qwen2-Audio families.
const (
	WhisperSampleRate = 16000
	WhisperNFFT       = 400
	WhisperHop        = 160
	WhisperChunk      = 3000 // frames per 30 s window
)

// Mel is one 30 s window of a log-mel spectrogram: NMel rows of NFrames
// values, Data[m·NFrames+t].
type Mel struct {
	NMel, NFrames int
	Data          []float32
}

// MelFilters is the Slaney-normalized mel filter bank of nMel filters over the
// nFFT/2+1 bins of an nFFT-point FFT at sampleRate, computed as
// mtmd_audio_cache::fill_mel_filterbank_matrix computes it (librosa's
// defaults): row m, bin k is at m·(nFFT/2+1)+k.
func MelFilters(nMel, nFFT, sampleRate int) []float32 {
	const minLogHz, linSlope = 1000.0, 3 / 200.0
	minLogMel := minLogHz * linSlope
	logStep := math.Log(6.4) / 27.0
	hzToMel := func(f float64) float64 {
		if f < minLogHz {
			return f * linSlope
		}
		return minLogMel + math.Log(f/minLogHz)/logStep
	}
	melToHz := func(m float64) float64 {
		if m < minLogMel {
			return m / linSlope
		}
		return minLogHz * math.Exp((m-minLogMel)*logStep)
	}
	fmax := float64(float32(0.5) * float32(sampleRate))
	binHz := float64(sampleRate) / float64(nFFT)
	mlo, mhi := hzToMel(0), hzToMel(fmax)
	hz := make([]float64, nMel+2)
	for i := range hz {
		hz[i] = melToHz(mlo + (mhi-mlo)*(float64(i)/float64(nMel+1)))
	}
	nBins := nFFT/2 + 1
	out := make([]float32, nMel*nBins)
	for m := 0; m < nMel; m++ {
		fl, fc, fr := hz[m], hz[m+1], hz[m+2]
		dl, dr := math.Max(1e-30, fc-fl), math.Max(1e-30, fr-fc)
		enorm := 2.0 / math.Max(1e-30, fr-fl)
		for k := 0; k < nBins; k++ {
			f := float64(k) * binHz
			w := 0.0
			if f >= fl && f <= fc {
				w = (f - fl) / dl
			} else if f > fc && f <= fr {
				w = (fr - f) / dr
			}
			out[m*nBins+k] = float32(w * enorm * 1.0)
		}
	}
	return out
}

// fftTables holds the sin/cos table and periodic Hann window of
// mtmd_audio_cache.
type fftTables struct {
	sin, cos, hann []float32
}

func newFFTTables(nFFT, window int) *fftTables {
	t := &fftTables{sin: make([]float32, nFFT), cos: make([]float32, nFFT), hann: make([]float32, window)}
	for i := range t.sin {
		theta := float32(2 * math.Pi * float64(i) / float64(nFFT)) // sinf takes a float
		t.sin[i] = float32(math.Sin(float64(theta)))
		t.cos[i] = float32(math.Cos(float64(theta)))
	}
	for i := range t.hann {
		c := float32(math.Cos(float64(float32(2.0 * math.Pi * float64(i) / float64(window)))))
		t.hann[i] = float32(0.5 * (1.0 - float64(c)))
	}
	return t
}

// fft is mtmd-audio.cpp's recursive radix-2 FFT of n real inputs, falling
// back to a DFT at odd sizes, with its buffer layout: in holds 2n values (the
// upper half is scratch), out 8n (out[:2n] gets n interleaved (re, im) pairs,
// the rest is scratch).
func (t *fftTables) fft(in []float32, n int, out []float32) {
	nv := len(t.sin)
	if n == 1 {
		out[0], out[1] = in[0], 0
		return
	}
	half := n / 2
	if n-half*2 == 1 {
		step := nv / n
		for k := 0; k < n; k++ {
			var re, im float32
			idx := 0 // (k·j·step) mod nv, kept incrementally (k·step < nv)
			for j := 0; j < n; j++ {
				if j > 0 {
					if idx += k * step; idx >= nv {
						idx -= nv
					}
				}
				x := in[j]
				re += float32(x * t.cos[idx])
				im += float32(-x * t.sin[idx])
			}
			out[2*k], out[2*k+1] = re, im
		}
		return
	}
	buf := in[n:]
	for i := 0; i < half; i++ {
		buf[i] = in[2*i]
	}
	even := out[2*n:]
	t.fft(buf, half, even)
	for i := 0; i < half; i++ {
		buf[i] = in[2*i+1]
	}
	odd := even[n:]
	t.fft(buf, half, odd)
	step := nv / n
	for k := 0; k < half; k++ {
		re := t.cos[k*step]
		im := -t.sin[k*step]
		ro, io := odd[2*k], odd[2*k+1]
		out[2*k] = even[2*k] + float32(re*ro) - float32(im*io)
		out[2*k+1] = even[2*k+1] + float32(re*io) + float32(im*ro)
		out[2*(k+half)] = even[2*k] - float32(re*ro) + float32(im*io)
		out[2*(k+half)+1] = even[2*k+1] - float32(re*io) - float32(im*ro)
	}
}

// LogMel computes Whisper's log-mel spectrogram of 16 kHz mono samples as
// mtmd_audio_preprocessor_whisper does: 200 samples of reflection padding in
// front, 30 s of zeros and 200 more behind, a 400-point FFT every 160 samples
// under a periodic Hann window, log10 of the mel power (floored at 2⁻²⁴),
// clamped to 8 below the maximum and mapped by (x+4)/4, cut into whole
// 3000-frame windows (the last, partial one is dropped: it is always padding).
// filters is the nMel×201 filter bank; nil computes MelFilters(nMel, 400,
// 16000), which is what llama.cpp always uses.
func LogMel(pcm16k []float32, nMel int, filters []float32) ([]Mel, error) {
	const nFFT, hop = WhisperNFFT, WhisperHop
	nBins := nFFT/2 + 1
	if len(pcm16k) == 0 {
		return nil, errors.New("log-mel: no samples")
	}
	if nMel <= 0 || nMel > 512 {
		return nil, fmt.Errorf("log-mel: %d mel bins, want 1..512", nMel)
	}
	if filters == nil {
		filters = MelFilters(nMel, nFFT, WhisperSampleRate)
	}
	if len(filters) != nMel*nBins {
		return nil, fmt.Errorf("log-mel: filter bank has %d values, want %d×%d", len(filters), nMel, nBins)
	}
	samples := pcm16k
	if len(samples) < nFFT/2+1 { // reflection padding needs one sample plus half a window
		samples = make([]float32, nFFT/2+1)
		copy(samples, pcm16k)
	}
	n := len(samples)
	const pad2 = nFFT / 2
	padded := make([]float32, n+30*WhisperSampleRate+2*pad2)
	copy(padded[pad2:], samples)
	for i := 0; i < pad2; i++ {
		padded[i] = samples[pad2-i]
	}
	np := len(padded)
	nLen := (np-nFFT)/hop + 1
	t := newFFTTables(nFFT, nFFT)
	data := make([]float32, nMel*nLen)
	in := make([]float32, 2*nFFT)
	out := make([]float32, 8*nFFT)
	nCompute := min(np/hop+1, nLen)
	// the groups of four bins (llama.cpp's unrolled sum) where each filter is
	// nonzero: the others add exactly 0 to the sum, so they are skipped
	type span struct{ lo, hi int }
	spans := make([]span, nMel)
	for m := range spans {
		f := filters[m*nBins:]
		lo, hi := -1, 0
		for k := 0; k < nBins-3; k += 4 {
			if f[k] != 0 || f[k+1] != 0 || f[k+2] != 0 || f[k+3] != 0 {
				if lo < 0 {
					lo = k
				}
				hi = k + 4
			}
		}
		spans[m] = span{max(lo, 0), hi}
	}
	tail := nBins / 4 * 4 // first bin past the unrolled groups
	for i := 0; i < nCompute; i++ {
		off := i * hop
		valid := min(nFFT, max(0, np-off))
		for j := 0; j < valid; j++ {
			in[j] = t.hann[j] * padded[off+j]
		}
		clear(in[valid:nFFT])
		t.fft(in, nFFT, out)
		for j := 0; j < nBins; j++ {
			out[j] = float32(out[2*j]*out[2*j]) + float32(out[2*j+1]*out[2*j+1])
		}
		for m := 0; m < nMel; m++ {
			f := filters[m*nBins:]
			sum := 0.0
			for k := spans[m].lo; k < spans[m].hi; k += 4 {
				sum += float64(float32(out[k]*f[k]) + float32(out[k+1]*f[k+1]) + float32(out[k+2]*f[k+2]) + float32(out[k+3]*f[k+3]))
			}
			for k := tail; k < nBins; k++ {
				sum += float64(out[k] * f[k])
			}
			sum = math.Max(sum, float64(float32(5.960464477539063e-08)))
			data[m*nLen+i] = float32(math.Log10(sum))
		}
	}
	for i := nCompute; i < nLen; i++ {
		for m := 0; m < nMel; m++ {
			data[m*nLen+i] = float32(math.Log10(1e-10))
		}
	}
	mmax := -1e20
	for _, v := range data {
		mmax = math.Max(mmax, float64(v))
	}
	mmax -= 8
	for i, v := range data {
		x := float64(v)
		if x < mmax {
			x = float64(float32(mmax))
		}
		data[i] = float32((x + 4.0) / 4.0)
	}
	var mels []Mel
	for off := 0; off+WhisperChunk <= nLen; off += WhisperChunk {
		c := Mel{NMel: nMel, NFrames: WhisperChunk, Data: make([]float32, nMel*WhisperChunk)}
		for m := 0; m < nMel; m++ {
			copy(c.Data[m*WhisperChunk:(m+1)*WhisperChunk], data[m*nLen+off:])
		}
		mels = append(mels, c)
	}
	return mels, nil
}

// WhisperMel is llama.cpp's whole audio front end for the Whisper-style
// encoders: DecodeAudio, Resample to 16 kHz, LogMel with nMel bins.
func WhisperMel(data []byte, nMel int, lim Limits) ([]Mel, error) {
	pcm, rate, err := DecodeAudio(data, lim)
	if err != nil {
		return nil, err
	}
	return LogMel(Resample(pcm, rate, WhisperSampleRate), nMel, nil)
}
