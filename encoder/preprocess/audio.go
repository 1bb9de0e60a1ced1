package preprocess

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/hajimehoshi/go-mp3"
	"github.com/mewkiz/flac"
)

// ErrAudioTooLong is returned (wrapped) when decoded audio would last longer
// than the limits allow; it is checked from the header where the format
// declares its length, before the samples are decoded.
var ErrAudioTooLong = errors.New("audio too long")

// DecodeAudio decodes a WAV (PCM 8/16/24/32-bit or IEEE float), MP3 or FLAC
// file to mono float32 samples in [-1, 1] at the file's own rate. Channels are
// averaged and integer samples scaled as miniaudio (llama.cpp's mtmd-helper)
// does: s16·2⁻¹⁵, s24·2⁻²³, s32·2⁻³¹, u8·(2/255)−1.
func DecodeAudio(data []byte, lim Limits) (pcm []float32, rate int, err error) {
	lim = lim.withDefaults()
	if err := lim.checkBytes("audio", len(data)); err != nil {
		return nil, 0, err
	}
	switch {
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WAVE":
		return decodeWAV(data, lim)
	case len(data) >= 4 && string(data[:4]) == "fLaC":
		return decodeFLAC(data, lim)
	case len(data) >= 3 && (string(data[:3]) == "ID3" || data[0] == 0xFF && data[1]&0xE0 == 0xE0):
		return decodeMP3(data, lim)
	}
	return nil, 0, errors.New("audio: not a WAV, MP3 or FLAC file")
}

// checkLength refuses frames samples at rate that would exceed the limits.
func (l Limits) checkLength(format string, frames int64, rate, channels int) error {
	if rate <= 0 || rate > l.MaxFrameRate {
		return fmt.Errorf("%s: sample rate %d Hz is outside 1..%d", format, rate, l.MaxFrameRate)
	}
	if channels <= 0 || channels > l.MaxChannels {
		return fmt.Errorf("%s: %d channels, want 1..%d", format, channels, l.MaxChannels)
	}
	if secs := float64(frames) / float64(rate); secs > l.MaxSeconds {
		return fmt.Errorf("%s: %.1f s of audio, over the limit of %.0f s: %w", format, secs, l.MaxSeconds, ErrAudioTooLong)
	}
	return nil
}

// mixMono averages interleaved channels as miniaudio's mono_out channel
// conversion does (a float sum, then one division).
func mixMono(in []float32, channels int) []float32 {
	if channels == 1 {
		return in
	}
	out := make([]float32, len(in)/channels)
	for i := range out {
		var t float32
		for c := 0; c < channels; c++ {
			t += in[i*channels+c]
		}
		out[i] = t / float32(channels)
	}
	return out
}

func decodeWAV(d []byte, lim Limits) ([]float32, int, error) {
	var (
		format, channels, bits int
		rate                   int
		haveFmt                bool
	)
	p := 12
	for p+8 <= len(d) {
		id, size := string(d[p:p+4]), int64(binary.LittleEndian.Uint32(d[p+4:]))
		body := d[p+8:]
		switch id {
		case "fmt ":
			if size < 16 || int64(len(body)) < size {
				return nil, 0, fmt.Errorf("wav: fmt chunk of %d bytes is truncated or too short", size)
			}
			format = int(binary.LittleEndian.Uint16(body))
			channels = int(binary.LittleEndian.Uint16(body[2:]))
			rate = int(binary.LittleEndian.Uint32(body[4:]))
			bits = int(binary.LittleEndian.Uint16(body[14:]))
			if format == 0xFFFE { // WAVE_FORMAT_EXTENSIBLE: the sub-format GUID starts with the tag
				if size < 40 {
					return nil, 0, errors.New("wav: extensible fmt chunk shorter than 40 bytes")
				}
				format = int(binary.LittleEndian.Uint16(body[24:]))
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return nil, 0, errors.New("wav: data chunk before the fmt chunk")
			}
			if channels > 0 && bits > 0 {
				// the declared length, refused before anything is read
				if err := lim.checkLength("wav", size/int64(max(1, channels*bits/8)), rate, channels); err != nil {
					return nil, 0, err
				}
			}
			if int64(len(body)) < size {
				return nil, 0, fmt.Errorf("wav: data chunk declares %d bytes but only %d follow (truncated file)", size, len(body))
			}
			return wavSamples(body[:size], format, channels, bits, rate, lim)
		}
		if size > int64(len(d)) {
			break
		}
		p += 8 + int(size) + int(size&1)
	}
	if !haveFmt {
		return nil, 0, errors.New("wav: no fmt chunk")
	}
	return nil, 0, errors.New("wav: no data chunk (truncated file)")
}

func wavSamples(b []byte, format, channels, bits, rate int, lim Limits) ([]float32, int, error) {
	if channels <= 0 || bits <= 0 || bits%8 != 0 {
		return nil, 0, fmt.Errorf("wav: %d channels of %d-bit samples is not a valid layout", channels, bits)
	}
	bps := bits / 8
	frames := int64(len(b) / (bps * channels))
	if err := lim.checkLength("wav", frames, rate, channels); err != nil {
		return nil, 0, err
	}
	n := int(frames) * channels
	out := make([]float32, n)
	switch {
	case format == 1 && bits == 8:
		for i := range out {
			out[i] = float32(b[i])*0.00784313725490196078 - 1
		}
	case format == 1 && bits == 16:
		for i := range out {
			out[i] = float32(int16(binary.LittleEndian.Uint16(b[2*i:]))) * 0.000030517578125
		}
	case format == 1 && bits == 24:
		for i := range out {
			v := int32(uint32(b[3*i])<<8|uint32(b[3*i+1])<<16|uint32(b[3*i+2])<<24) >> 8
			out[i] = float32(v) * 0.00000011920928955078125
		}
	case format == 1 && bits == 32:
		for i := range out {
			out[i] = float32(float64(int32(binary.LittleEndian.Uint32(b[4*i:]))) * 0.0000000004656612873077392578125)
		}
	case format == 3 && bits == 32:
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		if err := checkFinite(out); err != nil {
			return nil, 0, err
		}
	case format == 3 && bits == 64:
		for i := range out {
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
		}
		if err := checkFinite(out); err != nil {
			return nil, 0, err
		}
	default:
		return nil, 0, fmt.Errorf("wav: format tag %d with %d-bit samples is not supported (want PCM 8/16/24/32 or float 32/64)", format, bits)
	}
	return mixMono(out, channels), rate, nil
}

func decodeMP3(d []byte, lim Limits) ([]float32, int, error) {
	dec, err := mp3.NewDecoder(bytes.NewReader(d))
	if err != nil {
		return nil, 0, fmt.Errorf("mp3: no decodable frame (truncated or not MP3): %w", err)
	}
	rate := dec.SampleRate()
	// go-mp3 always yields 16-bit stereo (a mono stream duplicated): 4 bytes a frame.
	frames := dec.Length() / 4
	if err := lim.checkLength("mp3", frames, rate, 2); err != nil {
		return nil, 0, err
	}
	if frames <= 0 {
		return nil, 0, errors.New("mp3: no audio frames")
	}
	raw := make([]byte, frames*4)
	n, err := io.ReadFull(dec, raw)
	if err != nil && !(errors.Is(err, io.ErrUnexpectedEOF) && n > 0) {
		return nil, 0, fmt.Errorf("mp3: %w", err)
	}
	raw = raw[:n-n%4]
	if g, ok := mp3Gapless(d); ok {
		// dr_mp3 (miniaudio's decoder) drops the Xing/Info frame, the encoder
		// delay and the padding its LAME tag records; go-mp3 keeps them
		total := int64(len(raw) / 4)
		if got := int(total) / g.perFrame; g.frames > 0 && got < g.frames+1 {
			return nil, 0, fmt.Errorf("mp3: truncated: its Xing/Info tag declares %d audio frames, the file holds %d", g.frames, max(0, got-1))
		}
		start := int64(g.skip)
		end := total - int64(g.padding)
		if start >= end {
			return nil, 0, errors.New("mp3: the LAME tag's delay and padding cover every sample")
		}
		raw = raw[4*start : 4*end]
	}
	st := make([]float32, len(raw)/2)
	for i := range st {
		st[i] = float32(int16(binary.LittleEndian.Uint16(raw[2*i:]))) * 0.000030517578125
	}
	return mixMono(st, 2), rate, nil
}

func decodeFLAC(d []byte, lim Limits) ([]float32, int, error) {
	s, err := flac.New(bytes.NewReader(d))
	if err != nil {
		return nil, 0, fmt.Errorf("flac: %w", err)
	}
	info := s.Info
	rate, channels, bits := int(info.SampleRate), int(info.NChannels), int(info.BitsPerSample)
	if err := lim.checkLength("flac", int64(info.NSamples), rate, channels); err != nil {
		return nil, 0, err
	}
	if bits < 4 || bits > 32 {
		return nil, 0, fmt.Errorf("flac: %d bits per sample", bits)
	}
	scale := 1 / float64(int64(1)<<(bits-1))
	maxFrames := int64(lim.MaxSeconds * float64(rate))
	var out []float32
	for {
		f, err := s.ParseNext()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("flac: frame after sample %d: %w", len(out)/channels, err)
		}
		if len(f.Subframes) != channels {
			return nil, 0, fmt.Errorf("flac: a frame has %d channels, the stream %d", len(f.Subframes), channels)
		}
		ns := len(f.Subframes[0].Samples)
		for c, sf := range f.Subframes {
			if len(sf.Samples) != ns {
				return nil, 0, fmt.Errorf("flac: frame after sample %d: channel %d has %d samples, channel 0 %d", len(out)/channels, c, len(sf.Samples), ns)
			}
		}
		for i := 0; i < ns; i++ {
			for c := 0; c < channels; c++ {
				out = append(out, float32(float64(f.Subframes[c].Samples[i])*scale))
			}
		}
		if int64(len(out)/channels) > maxFrames {
			return nil, 0, fmt.Errorf("flac: more than %.0f s of audio: %w", lim.MaxSeconds, ErrAudioTooLong)
		}
	}
	if len(out) == 0 {
		return nil, 0, errors.New("flac: no audio frames")
	}
	return mixMono(out, channels), rate, nil
}

// mp3Gap is what dr_mp3 trims from a stream with a Xing/Info tag: skip
// frames at the start (the tag frame itself plus the encoder delay + 529),
// padding (the encoder padding − 529) at the end.
type mp3Gap struct {
	skip, padding int
	perFrame      int // samples a frame
	frames        int // audio frames the tag declares (0: not given)
}

// mp3Gapless reads the Xing/Info tag of the first MPEG audio frame, as
// ma_dr_mp3_init_internal does.
func mp3Gapless(d []byte) (mp3Gap, bool) {
	off := 0
	if len(d) >= 10 && string(d[:3]) == "ID3" {
		off = 10 + (int(d[6]&0x7f)<<21 | int(d[7]&0x7f)<<14 | int(d[8]&0x7f)<<7 | int(d[9]&0x7f))
		if d[5]&0x10 != 0 {
			off += 10
		}
	}
	if off+4 > len(d) || d[off] != 0xFF || d[off+1]&0xE0 != 0xE0 {
		return mp3Gap{}, false
	}
	h := d[off:]
	version := (h[1] >> 3) & 3            // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
	if (h[1]>>1)&3 != 1 || version == 1 { // layer III only
		return mp3Gap{}, false
	}
	mono := h[3]>>6 == 3
	side := 17
	samples := 1152
	if version != 3 {
		side, samples = 9, 576
		if !mono {
			side = 17
		}
	} else if !mono {
		side = 32
	}
	p := off + 4 + side
	if h[1]&1 == 0 { // CRC present
		p += 2
	}
	if p+8 > len(d) || (string(d[p:p+4]) != "Xing" && string(d[p:p+4]) != "Info") {
		return mp3Gap{}, false
	}
	flags := d[p+7]
	p += 8
	frames := 0
	if flags&1 != 0 && p+4 <= len(d) {
		frames = int(binary.BigEndian.Uint32(d[p:]))
	}
	for _, f := range []struct {
		bit  byte
		size int
	}{{1, 4}, {2, 4}, {4, 100}, {8, 4}} {
		if flags&f.bit != 0 {
			p += f.size
		}
	}
	g := mp3Gap{skip: samples, perFrame: samples, frames: frames}
	if p >= len(d) || d[p] == 0 {
		return g, true
	}
	p += 21
	if p+3 > len(d) || p-off+14 >= mp3FrameBytes(h) {
		return g, true
	}
	g.skip += (int(d[p])<<4 | int(d[p+1])>>4) + 528 + 1
	g.padding = max(0, ((int(d[p+1])&0xF)<<8|int(d[p+2]))-(528+1))
	return g, true
}

// mp3FrameBytes is the size of a layer III frame from its header (0 if the
// header is invalid).
func mp3FrameBytes(h []byte) int {
	version := (h[1] >> 3) & 3
	bi, si := int(h[2]>>4), int(h[2]>>2)&3
	if bi == 0 || bi == 15 || si == 3 {
		return 0
	}
	kbps := [2][15]int{
		{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160},
		{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320},
	}
	rates := map[byte][3]int{3: {44100, 48000, 32000}, 2: {22050, 24000, 16000}, 0: {11025, 12000, 8000}}
	coef, v := 72, 0
	if version == 3 {
		coef, v = 144, 1
	}
	return coef*kbps[v][bi]*1000/rates[version][si] + int(h[2]>>1)&1
}

// checkFinite refuses float samples that are NaN or infinite (or overflow
// float32), which no spectrogram survives.
func checkFinite(v []float32) error {
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("wav: sample %d is %v", i, x)
		}
	}
	return nil
}
