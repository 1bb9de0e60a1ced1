package encoder

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/bench/synth"
	"github.com/litert-go/litert-go/encoder/preprocess"
	"github.com/litert-go/litert-go/models/ggml"
	"github.com/litert-go/litert-go/models/gguf"
	"github.com/litert-go/litert-go/native"
)

// edit returns the tiny mmproj of kind changed by fn.
func edit(t *testing.T, kind string, fn func(m *gguf.Model)) *gguf.File {
	m, err := synth.MMProj(kind, 1, ggml.F32)
	require.NoError(t, err)
	fn(m)
	return writeParse(t, m)
}

func dropTensor(name string) func(*gguf.Model) {
	return func(m *gguf.Model) {
		m.Tensors = slices.DeleteFunc(m.Tensors, func(t gguf.Tensor) bool { return t.Info.Name == name })
	}
}

func dropKey(key string) func(*gguf.Model) {
	return func(m *gguf.Model) {
		m.KV = slices.DeleteFunc(m.KV, func(kv gguf.KV) bool { return kv.Key == key })
	}
}

// reshape gives tensor name the dims, keeping its data size when it can.
func reshape(name string, dims ...uint64) func(*gguf.Model) {
	return func(m *gguf.Model) {
		for i := range m.Tensors {
			t := &m.Tensors[i]
			if t.Info.Name == name {
				t.Info.Dims = dims
				n := uint64(1)
				for _, d := range dims {
					n *= d
				}
				t.Data = make([]byte, n*uint64(t.Info.Type.TypeSize())/uint64(t.Info.Type.BlockSize()))
			}
		}
	}
}

// TestOpenErrors checks that a broken mmproj fails to open with an error
// naming the key or tensor at fault.
func TestOpenErrors(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	cases := []struct {
		name, kind string
		edit       func(*gguf.Model)
		want       []string
	}{
		{"unknown projector", "gemma3", func(m *gguf.Model) { m.Set("clip.projector_type", gguf.String("resampler9")) },
			[]string{`"resampler9"`, "unsupported vision projector", "gemma3, idefics3"}},
		{"audio projector on vision", "idefics3", func(m *gguf.Model) { m.Set("clip.projector_type", gguf.String("ultravox")) },
			[]string{`"ultravox"`, "unsupported vision projector"}},
		{"no projector", "gemma3", dropKey("clip.projector_type"), []string{"clip.projector_type"}},
		{"not an mmproj", "gemma3", func(m *gguf.Model) { m.Set("general.architecture", gguf.String("llama")) },
			[]string{`"llama"`, "not an mmproj"}},
		{"no encoder", "voxtral", func(m *gguf.Model) { m.Set("clip.has_audio_encoder", gguf.Bool(false)) },
			[]string{"clip.has_vision_encoder", "clip.has_audio_encoder"}},
		{"missing key", "gemma3", dropKey("clip.vision.image_size"), []string{"clip.vision.image_size"}},
		{"key of wrong type", "idefics3", func(m *gguf.Model) { m.Set("clip.vision.patch_size", gguf.String("4")) },
			[]string{"clip.vision.patch_size"}},
		{"key out of range", "ultravox", func(m *gguf.Model) { m.Set("clip.audio.num_mel_bins", gguf.Uint32(100000)) },
			[]string{"clip.audio.num_mel_bins", "100000"}},
		{"heads do not divide width", "gemma3", func(m *gguf.Model) { m.Set("clip.vision.attention.head_count", gguf.Uint32(5)) },
			[]string{"clip.vision.attention.head_count"}},
		{"patches not poolable", "gemma3", func(m *gguf.Model) { m.Set("clip.vision.projector.scale_factor", gguf.Uint32(3)) },
			[]string{"scale_factor 3"}},
		{"short image_mean", "gemma3", func(m *gguf.Model) { m.Set("clip.vision.image_mean", gguf.Float32s([]float32{0.5})) },
			[]string{"clip.vision.image_mean"}},
		{"missing layer tensor", "idefics3", dropTensor("v.blk.1.attn_q.weight"), []string{`"v.blk.1.attn_q.weight"`, "missing"}},
		{"missing projector tensor", "gemma3", dropTensor("mm.input_projection.weight"), []string{`"mm.input_projection.weight"`}},
		{"missing audio projector", "voxtral", dropTensor("mm.a.mlp.2.weight"), []string{`"mm.a.mlp.2.weight"`}},
		{"missing conv", "ultravox", dropTensor("a.conv1d.2.weight"), []string{`"a.conv1d.2.weight"`}},
		{"wrong layer shape", "gemma3", reshape("v.blk.0.ffn_up.weight", 32, 32), []string{`"v.blk.0.ffn_up.weight"`, "[32 32]", "[32 64]"}},
		{"wrong projector shape", "idefics3", reshape("mm.model.fc.weight", 64, 192), []string{`"mm.model.fc.weight"`, "[64 192]"}},
		{"wrong patch kernel", "gemma3", reshape("v.patch_embd.weight", 4, 4, 1, 32), []string{`"v.patch_embd.weight"`}},
		{"too few positions", "gemma3", reshape("v.position_embd.weight", 32, 255), []string{`"v.position_embd.weight"`}},
		{"odd swiglu", "ultravox", reshape("mm.a.mlp.1.weight", 256, 95), []string{`"mm.a.mlp.1.weight"`, "odd"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(edit(t, c.kind, c.edit), b)
			require.Error(t, err)
			for _, w := range c.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}

// TestUnsupportedType checks that a weight type the backend cannot
// multiply (here an integer tensor) is named.
func TestUnsupportedType(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	f := edit(t, "idefics3", func(m *gguf.Model) {
		for i := range m.Tensors {
			if m.Tensors[i].Info.Name == "v.blk.0.attn_k.weight" {
				m.Tensors[i].Info.Type = ggml.I32
			}
		}
	})
	_, err := Open(f, b)
	require.ErrorContains(t, err, `"v.blk.0.attn_k.weight"`)
	require.ErrorContains(t, err, "I32")

	// clip.cpp transposes gemma3's input projection, which ggml cannot
	// do to a quantized tensor
	m, err := synth.MMProj("gemma3", 1, ggml.F32)
	require.NoError(t, err)
	for i := range m.Tensors {
		if ti := &m.Tensors[i]; ti.Info.Name == "mm.input_projection.weight" {
			vals := make([]float32, ti.Info.Elements())
			require.NoError(t, ggml.Dequantize(ggml.F32, ti.Data, vals))
			ti.Info.Type, ti.Data = ggml.Q8_0, make([]byte, len(vals)/32*34)
			require.NoError(t, ggml.Quantize(ggml.Q8_0, vals, ti.Data))
		}
	}
	_, err = Open(writeParse(t, m), b)
	require.ErrorContains(t, err, `"mm.input_projection.weight" is Q8_0`)
}

// TestEncodeErrors checks the inputs an encoder refuses, each before any
// computation.
func TestEncodeErrors(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	ctx := context.Background()
	vis, err := Open(synthFile(t, "gemma3"), b)
	require.NoError(t, err)
	aud, err := Open(synthFile(t, "voxtral"), b)
	require.NoError(t, err)

	_, _, err = vis.EncodeImageTensor(ctx, &Image{W: 0, H: 0, C: 3, Data: nil})
	require.ErrorContains(t, err, "takes 64×64 images, got 0×0")
	_, _, err = vis.EncodeImageTensor(ctx, &Image{W: 100000, H: 100000, C: 3, Data: nil})
	require.ErrorContains(t, err, "got 100000×100000")
	_, _, err = vis.EncodeImageTensor(ctx, &Image{W: 64, H: 64, C: 3, Data: make([]float32, 64*64)})
	require.ErrorContains(t, err, "needs 3 planes of 4096 values, got 3 planes, 4096 values")
	_, _, err = vis.EncodeMel(ctx, &Mel{NMel: 128, NFrames: 208, Data: make([]float32, 128*208)})
	require.ErrorContains(t, err, "no audio encoder")

	_, _, err = aud.EncodeMel(ctx, &Mel{NMel: 80, NFrames: 208, Data: make([]float32, 80*208)})
	require.ErrorContains(t, err, "takes 128 mel bins, got 80")
	_, _, err = aud.EncodeMel(ctx, &Mel{NMel: 128, NFrames: 1, Data: make([]float32, 128)})
	require.ErrorContains(t, err, "got 1")
	_, _, err = aud.EncodeMel(ctx, &Mel{NMel: 128, NFrames: 2, Data: make([]float32, 256)})
	require.ErrorContains(t, err, "2 mel frames are too few for the voxtral audio encoder")
	_, _, err = aud.EncodeMel(ctx, &Mel{NMel: 128, NFrames: 3001, Data: make([]float32, 128*3001)})
	require.ErrorContains(t, err, "2..3000 mel frames, got 3001")
	_, _, err = aud.EncodeMel(ctx, &Mel{NMel: 128, NFrames: 208, Data: make([]float32, 10)})
	require.ErrorContains(t, err, "needs 26624 values, got 10")
	_, _, err = aud.EncodeImageTensor(ctx, &Image{W: 64, H: 64, C: 3, Data: make([]float32, 3*64*64)})
	require.ErrorContains(t, err, "no vision encoder")

	require.NoError(t, vis.CheckDim(128))
	require.ErrorContains(t, vis.CheckDim(640), "gemma3 projector gives 128-wide embeddings but the language model's width is 640")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err = aud.EncodeMel(cancelled, &Mel{NMel: 128, NFrames: 208, Data: make([]float32, 128*208)})
	require.ErrorIs(t, err, context.Canceled)
}

// TestTruncated checks that every truncation of an mmproj fails to parse or
// to open, with an error and no panic.
func TestTruncated(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	m, err := synth.MMProj("idefics3", 1, ggml.F32)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, gguf.Write(&buf, m))
	data := buf.Bytes()
	for n := 0; n < len(data); n += 1 + n/16 {
		f, err := gguf.Parse(data[:n])
		if err != nil {
			continue
		}
		_, err = Open(f, b)
		require.Error(t, err, "truncated at %d of %d bytes", n, len(data))
	}
}

// TestSwappedFFN checks that an idefics3 file converted with ffn_up and
// ffn_down under each other's names (older convert_hf_to_gguf.py) encodes
// as the correct one, clip.cpp's fix-up.
func TestSwappedFFN(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	img := zeroImage(32, 32)
	for i := range img.Data {
		img.Data[i] = inputValue(i)
	}
	want, _, err := mustOpen(t, synthFile(t, "idefics3"), b).EncodeImageTensor(context.Background(), img)
	require.NoError(t, err)
	swapped := edit(t, "idefics3", func(m *gguf.Model) {
		for i := range m.Tensors {
			n := &m.Tensors[i].Info.Name
			switch {
			case strings.Contains(*n, ".ffn_up."):
				*n = strings.Replace(*n, ".ffn_up.", ".ffn_down.", 1)
			case strings.Contains(*n, ".ffn_down."):
				*n = strings.Replace(*n, ".ffn_down.", ".ffn_up.", 1)
			}
		}
	})
	got, _, err := mustOpen(t, swapped, b).EncodeImageTensor(context.Background(), img)
	require.NoError(t, err)
	require.Equal(t, want, got)
}

func mustOpen(t *testing.T, f *gguf.File, b native.Backend) *Encoder {
	e, err := Open(f, b)
	require.NoError(t, err)
	return e
}

// TestEncodeFileErrors checks that bad image and audio files fail with an
// error, before anything is encoded.
func TestEncodeFileErrors(t *testing.T) {
	b := native.NewGo(1)
	defer b.Close()
	ctx := context.Background()
	vis := mustOpen(t, synthFile(t, "gemma3"), b)
	aud := mustOpen(t, synthFile(t, "qwen2a"), b)

	_, err := vis.EncodeImage(ctx, []byte("not an image"))
	require.ErrorContains(t, err, "encoder: ")
	good := e2ePNG(t, 8, 8)
	_, err = vis.EncodeImage(ctx, good[:len(good)/2])
	require.Error(t, err, "truncated PNG")
	// a PNG header declaring 100000×100000 pixels
	huge := bytes.Clone(good)
	binary.BigEndian.PutUint32(huge[16:], 100000)
	binary.BigEndian.PutUint32(huge[20:], 100000)
	binary.BigEndian.PutUint32(huge[29:], crc32.ChecksumIEEE(huge[12:29])) // IHDR's CRC
	_, err = vis.EncodeImage(ctx, huge)
	require.ErrorIs(t, err, preprocess.ErrImageTooLarge)
	_, err = aud.EncodeImage(ctx, good)
	require.ErrorContains(t, err, "no vision encoder")

	wav := e2eWAV(1600)
	_, err = aud.EncodeAudio(ctx, wav[:30])
	require.ErrorContains(t, err, "encoder: ")
	_, err = aud.EncodeAudio(ctx, []byte("RIFF\x00\x00\x00\x00WAVE"))
	require.Error(t, err)
	_, err = vis.EncodeAudio(ctx, wav)
	require.ErrorContains(t, err, "no audio encoder")
}
