package preprocess

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The references in testdata/llamacpp-*.json are llama.cpp's own
// preprocessing (tools/mtmd/mtmd-image.cpp, mtmd-audio.cpp, miniaudio and
// stb_image as mtmd-helper.cpp calls them), dumped by testdata/gen/dumpprep.cpp
// (gen.sh) on llama.cpp's test media.

type summary struct {
	N      int       `json:"n"`
	FNV    string    `json:"fnv"`
	Sum    float64   `json:"sum"`
	Stride int       `json:"stride"`
	Sample []float64 `json:"sample"`
}

func fnv64(v []float32) string {
	h := uint64(1469598103934665603)
	var b [4]byte
	for _, x := range v {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
		for _, c := range b {
			h ^= uint64(c)
			h *= 1099511628211
		}
	}
	return fmt.Sprintf("%016x", h)
}

func fnvBytes(v []byte) string {
	h := uint64(1469598103934665603)
	for _, c := range v {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return fmt.Sprintf("%016x", h)
}

// checkSummary compares values with llama.cpp's summary of the same tensor:
// the length, every sampled value within tol, the sum, and (when exact) the
// hash of all the float bits.
func checkSummary(t *testing.T, what string, got []float32, want summary, tol float64, exact bool) {
	t.Helper()
	require.Equal(t, want.N, len(got), "%s: length", what)
	worst := 0.0
	for k, w := range want.Sample {
		// the JSON holds each float32 to 9 digits: exactly enough to round-trip
		worst = math.Max(worst, math.Abs(float64(got[k*want.Stride])-float64(float32(w))))
	}
	assert.LessOrEqual(t, worst, tol, "%s: max |ours - llama.cpp| over %d samples", what, len(want.Sample))
	sum := 0.0
	for _, v := range got {
		sum += float64(v)
	}
	assert.InDelta(t, want.Sum, sum, 1e-6*math.Max(1, math.Abs(want.Sum))+tol*float64(len(got)), "%s: sum", what)
	if exact {
		assert.Equal(t, want.FNV, fnv64(got), "%s: float32 bits differ from llama.cpp's somewhere", what)
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, v))
}

func decodeTestImage(t *testing.T) *RGB8 {
	t.Helper()
	data, err := os.ReadFile("testdata/test-1.jpeg")
	require.NoError(t, err)
	img, err := DecodeImage(data, Limits{})
	require.NoError(t, err)
	return img
}

// TestPreprocessImageMatchesLlamaCpp decodes test-1.jpeg (and a small
// portrait PNG that takes the upscaling branches), requires the RGB bytes
// stb_image decodes (mtmd-helper.cpp's decoder), runs each family's
// preprocessing and requires llama.cpp's float tensors bit for bit.
func TestPreprocessImageMatchesLlamaCpp(t *testing.T) {
	type entry struct {
		NX, NY int
		Data   summary
	}
	var ref map[string]struct {
		Input struct {
			W, H int
			FNV  string
		}
		Configs []struct {
			Name     string
			GridX    int `json:"grid_x"`
			GridY    int `json:"grid_y"`
			Overview *entry
			Entries  []entry
		}
	}
	readJSON(t, "testdata/llamacpp-image.json", &ref)
	require.Len(t, ref, 2)

	half := [3]float32{0.5, 0.5, 0.5}
	clipMean := [3]float32{0.48145466, 0.4578275, 0.40821073}
	clipStd := [3]float32{0.26862954, 0.26130258, 0.27577711}
	// the mmproj values dumpprep.cpp gives each projector
	idefics := Options{ScaleFactor: 4, PreprocImageSize: 1536}
	idefics64 := idefics
	idefics64.MaxTokens = 64
	configs := map[string]func() (Params, error){
		"gemma3":         func() (Params, error) { return NewParams("gemma3", 896, 14, half, half, Options{}) },
		"idefics3":       func() (Params, error) { return NewParams("idefics3", 512, 16, half, half, idefics) },
		"idefics3-max64": func() (Params, error) { return NewParams("idefics3", 512, 16, half, half, idefics64) },
		"lfm2":           func() (Params, error) { return NewParams("lfm2", 512, 16, half, half, Options{ScaleFactor: 2}) },
		"lfm2-max64": func() (Params, error) {
			return NewParams("lfm2", 512, 16, half, half, Options{ScaleFactor: 2, MaxTokens: 64})
		},
		"qwen25vl": func() (Params, error) {
			return NewParams("qwen2.5vl_merger", 560, 14, clipMean, clipStd, Options{})
		},
		"qwen25vl-max256": func() (Params, error) {
			return NewParams("qwen2.5vl_merger", 560, 14, clipMean, clipStd, Options{MaxTokens: 256})
		},
		"qwen25vl-min1024": func() (Params, error) {
			return NewParams("qwen2.5vl_merger", 560, 14, clipMean, clipStd, Options{MinTokens: 1024})
		},
	}
	for file, r := range ref {
		data, err := os.ReadFile("testdata/" + file)
		require.NoError(t, err)
		img, err := DecodeImage(data, Limits{})
		require.NoError(t, err)
		require.Equal(t, [2]int{r.Input.W, r.Input.H}, [2]int{img.W, img.H})
		require.Equal(t, r.Input.FNV, fnvBytes(img.Pix), "%s: our decode differs from stb_image's", file)
		require.Len(t, r.Configs, len(configs))
		for _, c := range r.Configs {
			t.Run(file+"/"+c.Name, func(t *testing.T) {
				p, err := configs[c.Name]()
				require.NoError(t, err)
				out, err := PreprocessImage(img, p)
				require.NoError(t, err)
				assert.Equal(t, [2]int{c.GridX, c.GridY}, [2]int{out.GridX, out.GridY}, "grid")
				check := func(what string, got *Image, want entry) {
					require.Equal(t, [2]int{want.NX, want.NY}, [2]int{got.W, got.H}, "%s size", what)
					checkSummary(t, what, got.HWC(), want.Data, 0, true)
				}
				if c.Overview == nil {
					assert.Nil(t, out.Overview, "overview")
				} else {
					require.NotNil(t, out.Overview, "overview")
					check("overview", out.Overview, *c.Overview)
				}
				require.Len(t, out.Entries, len(c.Entries))
				for i, e := range c.Entries {
					check(fmt.Sprintf("entry %d", i), out.Entries[i], e)
				}
			})
		}
	}
}

type audioRef struct {
	LlamaPCM      summary `json:"llama_pcm16k"`
	LlamaMel80    []mel   `json:"llama_mel80"`
	ResampledOurs summary `json:"resampled_ours"`
	Mel80Ours     []mel   `json:"mel80_ours"`
	Mel128Ours    []mel   `json:"mel128_ours"`
}

type mel struct {
	NMel int `json:"n_mel"`
	NLen int `json:"n_len"`
	Data summary
}

func decodeTestAudio(t *testing.T) ([]float32, int) {
	t.Helper()
	data, err := os.ReadFile("testdata/test-2.mp3")
	require.NoError(t, err)
	pcm, rate, err := DecodeAudio(data, Limits{})
	require.NoError(t, err)
	return pcm, rate
}

// TestResampleMatchesMiniaudio resamples our decode of test-2.mp3 from
// 44.1 kHz to 16 kHz and requires the samples miniaudio's ma_decoder (as
// mtmd-helper.cpp configures it) makes of the same PCM, bit for bit.
func TestResampleMatchesMiniaudio(t *testing.T) {
	var ref audioRef
	readJSON(t, "testdata/llamacpp-audio.json", &ref)
	pcm, rate := decodeTestAudio(t)
	require.Equal(t, 44100, rate)
	checkSummary(t, "16 kHz", Resample(pcm, rate, 16000), ref.ResampledOurs, 0, true)
}

// TestDecodeMP3MatchesMiniaudio compares the whole audio path (go-mp3, the
// LAME-tag trim, Resample) with llama.cpp's (dr_mp3 inside ma_decoder): the
// same sample count and alignment, within go-mp3's 16-bit output precision.
func TestDecodeMP3MatchesMiniaudio(t *testing.T) {
	var ref audioRef
	readJSON(t, "testdata/llamacpp-audio.json", &ref)
	pcm, rate := decodeTestAudio(t)
	checkSummary(t, "decoded 16 kHz", Resample(pcm, rate, 16000), ref.LlamaPCM, 1e-4, false)
}

// TestLogMelMatchesLlamaCpp computes the Whisper log-mel (80 and 128 bins)
// of our 16 kHz PCM and compares it with mtmd_audio_preprocessor_whisper's
// on the same samples; and end to end, ours from our decode with llama.cpp's
// from its own.
func TestLogMelMatchesLlamaCpp(t *testing.T) {
	var ref audioRef
	readJSON(t, "testdata/llamacpp-audio.json", &ref)
	pcm, rate := decodeTestAudio(t)
	pcm16 := Resample(pcm, rate, 16000)
	mel80, err := LogMel(pcm16, 80, nil)
	require.NoError(t, err)
	mel128, err := LogMel(pcm16, 128, nil)
	require.NoError(t, err)
	for _, c := range []struct {
		got  []Mel
		want []mel
	}{{mel80, ref.Mel80Ours}, {mel128, ref.Mel128Ours}} {
		require.Len(t, c.got, len(c.want))
		for i, w := range c.want {
			require.Equal(t, [2]int{w.NMel, w.NLen}, [2]int{c.got[i].NMel, c.got[i].NFrames})
			// the same samples: within a float32 rounding of log10
			checkSummary(t, fmt.Sprintf("%d-bin mel window %d", w.NMel, i), c.got[i].Data, w.Data, 1e-5, false)
		}
	}
	// end to end (go-mp3 against dr_mp3 underneath): quiet bins feel go-mp3's
	// 16-bit output, so the bound is on the mean, with a loose maximum
	require.Len(t, mel80, len(ref.LlamaMel80))
	w := ref.LlamaMel80[0].Data
	sum, worst := 0.0, 0.0
	for k, x := range w.Sample {
		d := math.Abs(float64(mel80[0].Data[k*w.Stride]) - x)
		sum += d
		worst = math.Max(worst, d)
	}
	mean := sum / float64(len(w.Sample))
	assert.Less(t, mean, 5e-4, "end-to-end mean |ours - llama.cpp|")
	assert.Less(t, worst, 0.06, "end-to-end max |ours - llama.cpp|")
	t.Logf("log-mel from our decode vs llama.cpp's from its own: mean |d| %.2g, max %.2g", mean, worst)
}

// TestDecodePCMMatchesMiniaudio decodes two stereo WAVs (s16 at 8 kHz, which
// upsamples, and s24 at 48 kHz, which downsamples) and a stereo 16-bit FLAC
// at 44.1 kHz to 16 kHz mono and requires miniaudio's output (dr_wav /
// dr_flac, format conversion, channel mix, resampler) bit for bit.
func TestDecodePCMMatchesMiniaudio(t *testing.T) {
	var ref map[string]summary
	readJSON(t, "testdata/llamacpp-pcm.json", &ref)
	require.Len(t, ref, 3)
	for name, want := range ref {
		data, err := os.ReadFile("testdata/" + name)
		require.NoError(t, err)
		pcm, rate, err := DecodeAudio(data, Limits{})
		require.NoError(t, err, name)
		checkSummary(t, name, Resample(pcm, rate, 16000), want, 0, true)
	}
}
