package preprocess

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"testing"

	"github.com/litert-go/litert-go/encoder/preprocess/internal/stbjpeg"
	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
	"github.com/mewkiz/flac/meta"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pngHeader is a PNG signature and IHDR chunk declaring w×h (8-bit RGB), with
// a valid CRC and no pixel data.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 17)
	copy(ihdr, "IHDR")
	binary.BigEndian.PutUint32(ihdr[4:], w)
	binary.BigEndian.PutUint32(ihdr[8:], h)
	ihdr[12], ihdr[13] = 8, 2
	binary.Write(&b, binary.BigEndian, uint32(13))
	b.Write(ihdr)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(ihdr))
	return b.Bytes()
}

func encodePNG(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

func TestDecodeImageRefusesBadInput(t *testing.T) {
	jpeg, err := os.ReadFile("testdata/test-1.jpeg")
	require.NoError(t, err)

	_, err = DecodeImage(pngHeader(100000, 100000), Limits{})
	require.ErrorIs(t, err, ErrImageTooLarge, "a 100k×100k header is refused before decoding")
	assert.Contains(t, err.Error(), "100000×100000")

	_, err = DecodeImage(pngHeader(0, 0), Limits{})
	require.Error(t, err, "0×0")

	// a GIF whose logical screen is 0×0
	var g bytes.Buffer
	require.NoError(t, gif.Encode(&g, image.NewPaletted(image.Rect(0, 0, 1, 1), color.Palette{color.Black}), nil))
	zero := g.Bytes()
	zero[6], zero[7], zero[8], zero[9] = 0, 0, 0, 0
	_, err = DecodeImage(zero, Limits{})
	require.Error(t, err, "0×0 GIF")

	_, err = DecodeImage(jpeg[:len(jpeg)/2], Limits{})
	require.Error(t, err, "truncated JPEG")
	assert.Contains(t, err.Error(), "jpeg")

	_, err = DecodeImage([]byte("definitely not an image"), Limits{})
	require.ErrorContains(t, err, "image header")

	_, err = DecodeImage(jpeg, Limits{MaxPixels: 640*488 - 1})
	require.ErrorIs(t, err, ErrImageTooLarge)
	_, err = DecodeImage(jpeg, Limits{MaxBytes: 1000})
	require.ErrorContains(t, err, "over the limit of 1000")
}

func TestDecodeImageFormats(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	for i := range src.Pix {
		src.Pix[i] = uint8(i * 37)
	}
	src.Pix[3] = 0 // alpha is dropped, not premultiplied (stb_image's 3-channel load)
	img, err := DecodeImage(encodePNG(t, src), Limits{})
	require.NoError(t, err)
	require.Equal(t, 3, img.W)
	require.Equal(t, 2, img.H)
	for p := 0; p < 6; p++ {
		assert.Equal(t, src.Pix[4*p:4*p+3], img.Pix[3*p:3*p+3], "pixel %d", p)
	}
	gray := image.NewGray(image.Rect(0, 0, 2, 1))
	gray.Pix[0], gray.Pix[1] = 7, 200
	img, err = DecodeImage(encodePNG(t, gray), Limits{})
	require.NoError(t, err)
	assert.Equal(t, []uint8{7, 7, 7, 200, 200, 200}, img.Pix, "gray is replicated")
}

func TestResizeAndPad(t *testing.T) {
	src := NewRGB8(4, 2)
	for i := range src.Pix {
		src.Pix[i] = 100
	}
	for _, a := range []Algo{Bilinear, Bicubic, Lanczos} {
		r, err := Resize(src, 7, 3, a)
		require.NoError(t, err)
		require.Equal(t, [2]int{7, 3}, [2]int{r.W, r.H})
		for _, v := range r.Pix {
			require.Equal(t, uint8(100), v, "%v keeps a flat image flat", a)
		}
	}
	_, err := Resize(src, 0, 3, Bilinear)
	require.ErrorContains(t, err, "out of range")
	_, err = Resize(src, MaxResizeSide+1, 3, Bilinear)
	require.ErrorContains(t, err, "out of range")

	// a 4×2 image fitted into 4×4 with PAD_CEIL: rows 1..2 hold it, the rest is the pad color
	p, err := ResizePad(src, 4, 4, Bilinear, PadCeil, [3]uint8{1, 2, 3})
	require.NoError(t, err)
	assert.Equal(t, []uint8{1, 2, 3}, p.Pix[:3])
	assert.Equal(t, uint8(100), p.Pix[3*4*1])
	assert.Equal(t, []uint8{1, 2, 3}, p.Pix[3*4*3:3*4*3+3])

	_, err = Crop(src, 2, 0, 3, 2)
	require.ErrorContains(t, err, "outside")
}

func TestPreprocessImageRefusesBadParams(t *testing.T) {
	img := NewRGB8(8, 8)
	_, err := NewParams("nope", 224, 14, [3]float32{}, [3]float32{1, 1, 1}, Options{})
	require.ErrorContains(t, err, `"nope"`)
	_, err = NewParams("gemma3", 0, 14, [3]float32{}, [3]float32{1, 1, 1}, Options{})
	require.ErrorContains(t, err, "must be positive")
	_, err = PreprocessImage(&RGB8{}, Params{Projector: "gemma3", ImageSize: 8, PatchSize: 2, NMerge: 1})
	require.ErrorContains(t, err, "no pixels")
	_, err = PreprocessImage(img, Params{Projector: "qwen2.5vl_merger", ImageSize: 8, PatchSize: 2, NMerge: 1})
	require.ErrorContains(t, err, "min and max pixels")
}

// wav builds a PCM WAV file.
func wav(format, channels, rate, bits int, data []byte, declared int) []byte {
	h := make([]byte, 44)
	copy(h, "RIFF")
	binary.LittleEndian.PutUint32(h[4:], uint32(36+len(data)))
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], uint16(format))
	binary.LittleEndian.PutUint16(h[22:], uint16(channels))
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*channels*bits/8))
	binary.LittleEndian.PutUint16(h[32:], uint16(channels*bits/8))
	binary.LittleEndian.PutUint16(h[34:], uint16(bits))
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], uint32(declared))
	return append(h, data...)
}

func TestDecodeWAV(t *testing.T) {
	// stereo s16: miniaudio scales by 2^-15 and averages the channels
	d := make([]byte, 8)
	for i, v := range []int16{-32768, 32767, 1000, -3000} {
		binary.LittleEndian.PutUint16(d[2*i:], uint16(v))
	}
	pcm, rate, err := DecodeAudio(wav(1, 2, 22050, 16, d, len(d)), Limits{})
	require.NoError(t, err)
	assert.Equal(t, 22050, rate)
	assert.Equal(t, []float32{(-1 + 32767.0/32768) / 2, (1000.0/32768 - 3000.0/32768) / 2}, pcm)

	_, _, err = DecodeAudio(wav(1, 1, 16000, 16, d, 4000), Limits{})
	require.ErrorContains(t, err, "truncated")
	_, _, err = DecodeAudio(wav(1, 1, 16000, 16, d, len(d))[:30], Limits{})
	require.ErrorContains(t, err, "truncated")
	_, _, err = DecodeAudio(wav(1, 1, 16000, 16, d, 1<<30), Limits{MaxSeconds: 60})
	require.ErrorIs(t, err, ErrAudioTooLong, "the declared length is refused before the missing data is noticed")
	_, _, err = DecodeAudio(wav(1, 1, 0, 16, d, len(d)), Limits{})
	require.ErrorContains(t, err, "sample rate 0")
	_, _, err = DecodeAudio(wav(7, 1, 16000, 8, d, len(d)), Limits{})
	require.ErrorContains(t, err, "format tag 7")
	nan := make([]byte, 4)
	binary.LittleEndian.PutUint32(nan, math.Float32bits(float32(math.NaN())))
	_, _, err = DecodeAudio(wav(3, 1, 16000, 32, nan, 4), Limits{})
	require.ErrorContains(t, err, "NaN")
	_, _, err = DecodeAudio([]byte("RIFF....WAVEnope"), Limits{})
	require.ErrorContains(t, err, "no fmt chunk")
}

func TestDecodeAudioRefusesBadMP3(t *testing.T) {
	d, err := os.ReadFile("testdata/test-2.mp3")
	require.NoError(t, err)
	_, _, err = DecodeAudio(d[:len(d)/2], Limits{})
	require.ErrorContains(t, err, "truncated: its Xing/Info tag declares 669 audio frames")
	_, _, err = DecodeAudio(d[:100], Limits{})
	require.ErrorContains(t, err, "mp3")
	_, _, err = DecodeAudio(d, Limits{MaxSeconds: 10})
	require.ErrorIs(t, err, ErrAudioTooLong, "17.5 s against a 10 s limit")
	_, _, err = DecodeAudio([]byte("hello world!"), Limits{})
	require.ErrorContains(t, err, "not a WAV, MP3 or FLAC")
}

// flacFile encodes s16 samples (one slice a channel) with mewkiz/flac's
// encoder, verbatim subframes.
func flacFile(t *testing.T, rate int, chans [][]int32) []byte {
	t.Helper()
	var b bytes.Buffer
	n := len(chans[0])
	info := &meta.StreamInfo{BlockSizeMin: uint16(n), BlockSizeMax: uint16(n), SampleRate: uint32(rate),
		NChannels: uint8(len(chans)), BitsPerSample: 16, NSamples: uint64(n)}
	enc, err := flac.NewEncoder(&b, info)
	require.NoError(t, err)
	f := &frame.Frame{Header: frame.Header{HasFixedBlockSize: true, BlockSize: uint16(n), SampleRate: uint32(rate),
		Channels: frame.ChannelsMono, BitsPerSample: 16}}
	if len(chans) == 2 {
		f.Channels = frame.ChannelsLR
	}
	for _, c := range chans {
		f.Subframes = append(f.Subframes, &frame.Subframe{SubHeader: frame.SubHeader{Pred: frame.PredVerbatim}, Samples: c, NSamples: n})
	}
	require.NoError(t, enc.WriteFrame(f))
	require.NoError(t, enc.Close())
	return b.Bytes()
}

func TestDecodeFLAC(t *testing.T) {
	l := []int32{0, 16384, -32768, 32767, 5, -5, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}
	r := []int32{0, -16384, -32768, 1, 5, 5, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	pcm, rate, err := DecodeAudio(flacFile(t, 48000, [][]int32{l, r}), Limits{})
	require.NoError(t, err)
	assert.Equal(t, 48000, rate)
	require.Len(t, pcm, len(l))
	for i := range l {
		assert.Equal(t, (float32(l[i])/32768+float32(r[i])/32768)/2, pcm[i], "sample %d", i)
	}
	_, _, err = DecodeAudio(flacFile(t, 16000, [][]int32{l}), Limits{MaxSeconds: 0.0001})
	require.ErrorIs(t, err, ErrAudioTooLong)
	full := flacFile(t, 16000, [][]int32{l})
	_, _, err = DecodeAudio(full[:len(full)-10], Limits{})
	require.ErrorContains(t, err, "flac")
}

func TestResampleEdges(t *testing.T) {
	in := []float32{1, 2, 3}
	assert.Equal(t, in, Resample(in, 16000, 16000))
	assert.Empty(t, Resample(nil, 44100, 16000))
	// ma_calculate_frame_count_after_resampling's lengths
	assert.Equal(t, 16000, len(Resample(make([]float32, 44100), 44100, 16000)))
	assert.Equal(t, 16000, len(Resample(make([]float32, 8000), 8000, 16000)))
	assert.Equal(t, uint64(3), framesAfterResampling(1, 3, 7), "7 frames at a third: 2, plus the one the fraction allows")
	up := Resample([]float32{0.5, 0.5, 0.5, 0.5}, 8000, 16000)
	for _, v := range up {
		assert.False(t, math.IsNaN(float64(v)))
	}
}

func TestLogMelShapes(t *testing.T) {
	// 100 samples (under the 201 reflection padding needs) are zero-padded,
	// as llama.cpp does; 31 s make two 30 s windows
	for _, c := range []struct{ n, windows int }{{100, 1}, {16000 * 31, 2}} {
		mels, err := LogMel(make([]float32, c.n), 80, nil)
		require.NoError(t, err)
		require.Len(t, mels, c.windows, "%d samples", c.n)
		for _, m := range mels {
			require.Equal(t, [2]int{80, WhisperChunk}, [2]int{m.NMel, m.NFrames})
		}
	}
	_, err := LogMel(nil, 80, nil)
	require.ErrorContains(t, err, "no samples")
	_, err = LogMel(make([]float32, 1000), 80, make([]float32, 10))
	require.ErrorContains(t, err, "filter bank has 10 values")
}

func encodeJPEG(t testing.TB, w, h int) []byte {
	src := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			src.SetRGBA(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), uint8((x*y + 40) % 256), 255})
		}
	}
	var b bytes.Buffer
	require.NoError(t, jpeg.Encode(&b, src, &jpeg.Options{Quality: 90}))
	return b.Bytes()
}

// TestStbJPEGPlanes decodes a JPEG with the stb-IDCT fork and with Go's
// image/jpeg: the two integer IDCTs agree to within a level or two on
// every plane sample.
func TestStbJPEGPlanes(t *testing.T) {
	data := encodeJPEG(t, 37, 21)
	a, err := stbjpeg.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	b, err := jpeg.Decode(bytes.NewReader(data))
	require.NoError(t, err)
	ya, yb := a.(*image.YCbCr), b.(*image.YCbCr)
	require.Equal(t, yb.Rect, ya.Rect)
	require.Equal(t, yb.SubsampleRatio, ya.SubsampleRatio)
	for _, p := range [][2][]uint8{{ya.Y, yb.Y}, {ya.Cb, yb.Cb}, {ya.Cr, yb.Cr}} {
		require.Equal(t, len(p[1]), len(p[0]))
		for i := range p[0] {
			d := int(p[0][i]) - int(p[1][i])
			require.LessOrEqual(t, max(d, -d), 2, "plane sample %d", i)
		}
	}
	img, err := DecodeImage(data, Limits{})
	require.NoError(t, err)
	assert.Equal(t, [2]int{37, 21}, [2]int{img.W, img.H})
}
