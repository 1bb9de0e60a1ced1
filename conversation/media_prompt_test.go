package conversation

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/session"
	"github.com/litert-go/litert-go/template"
)

// patchEncoder is a small real encoder for tests: an image is decoded and
// cut into a grid×grid patches whose mean colours, with their place, are
// projected to the model's width by a seeded matrix; 16-bit WAV audio
// becomes one row per window of samples (mean and RMS, projected the same
// way). Its pieces wrap the rows in "<img>"/"</img>" (or "<aud>"/"</aud>")
// text, as the encoders of llama.cpp's mtmd wrap theirs in begin/end
// tokens.
type patchEncoder struct {
	dim, grid int
	proj      []float32 // 5 inputs × dim
	noAudio   bool
	badRows   bool // return one value too few: an encoder of another width
	calls     atomic.Int64
}

func newPatchEncoder(dim int) *patchEncoder {
	r := rand.New(rand.NewPCG(3, 4))
	e := &patchEncoder{dim: dim, grid: 2, proj: make([]float32, 5*dim)}
	for i := range e.proj {
		e.proj[i] = float32(r.NormFloat64())
	}
	return e
}

func (e *patchEncoder) Vision() bool { return true }
func (e *patchEncoder) Audio() bool  { return !e.noAudio }

func (e *patchEncoder) row(in [5]float32) []float32 {
	out := make([]float32, e.dim)
	for i, v := range in {
		for j := range out {
			out[j] += v * e.proj[i*e.dim+j]
		}
	}
	return out
}

func (e *patchEncoder) Encode(ctx context.Context, m Media) ([]MediaPiece, error) {
	e.calls.Add(1)
	var rows []float32
	begin, end := "<img>", "</img>"
	switch m.Kind {
	case "image":
		img, _, err := image.Decode(bytes.NewReader(m.Data))
		if err != nil {
			return nil, fmt.Errorf("decode: %w", err)
		}
		b := img.Bounds()
		for py := range e.grid {
			for px := range e.grid {
				var sum [3]float64
				n := 0
				for y := b.Min.Y + py*b.Dy()/e.grid; y < b.Min.Y+(py+1)*b.Dy()/e.grid; y++ {
					for x := b.Min.X + px*b.Dx()/e.grid; x < b.Min.X+(px+1)*b.Dx()/e.grid; x++ {
						r, g, bl, _ := img.At(x, y).RGBA()
						sum[0], sum[1], sum[2] = sum[0]+float64(r), sum[1]+float64(g), sum[2]+float64(bl)
						n++
					}
				}
				k := float32(max(n, 1)) * 65535
				rows = append(rows, e.row([5]float32{float32(sum[0]) / k, float32(sum[1]) / k, float32(sum[2]) / k,
					float32(px) / float32(e.grid), float32(py) / float32(e.grid)})...)
			}
		}
	case "audio":
		begin, end = "<aud>", "</aud>"
		pcm := m.Data[len(m.Data)-m.Samples*m.Channels*2:]
		const windows = 3
		for w := range windows {
			var sum, sq float64
			part := pcm[w*len(pcm)/windows/2*2 : (w+1)*len(pcm)/windows/2*2]
			for i := 0; i+1 < len(part); i += 2 {
				v := float64(int16(binary.LittleEndian.Uint16(part[i:]))) / 32768
				sum, sq = sum+v, sq+v*v
			}
			n := float64(max(len(part)/2, 1))
			rows = append(rows, e.row([5]float32{float32(sum / n), float32(sq / n), float32(w) / windows, 1, 0})...)
		}
	}
	if e.badRows {
		rows = rows[:len(rows)-1]
	}
	return []MediaPiece{{Text: begin}, {Embeddings: rows, N: len(rows) / e.dim}, {Text: end}}, nil
}

func pngOf(t *testing.T, w, h int, c color.Color) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			if (x+y)%3 == 0 {
				img.Set(x, y, c)
			}
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// handPrompt builds the prompt of one user message by hand: the template
// rendered with markerX where the media go, the text between tokenized
// piece by piece, and the encoder's pieces in place of each marker; BOS
// first if the model wants it and the template did not write it.
func handPrompt(t *testing.T, c *Conversation, content string, media ...[]MediaPiece) session.Prompt {
	msg, err := template.DecodeOrdered([]byte(fmt.Sprintf(`{"role":"user","content":%q}`, content)))
	require.NoError(t, err)
	text, err := c.tmpl.Render(context.Background(), template.Request{Messages: []template.Value{msg}, AddGenerationPrompt: true})
	require.NoError(t, err)
	segs := strings.Split(text, "markerX")
	require.Len(t, segs, len(media)+1)
	var ids []int32
	var p session.Prompt
	flush := func() {
		if len(ids) > 0 {
			p = append(p, session.Chunk{Tokens: ids})
			ids = nil
		}
	}
	ids = append(ids, c.tok.EncodeEscaped(segs[0])...)
	for i, pieces := range media {
		for _, pc := range pieces {
			if pc.Embeddings == nil {
				ids = append(ids, c.tok.EncodeEscaped(pc.Text)...)
				continue
			}
			flush()
			p = append(p, session.Chunk{Embeddings: pc.Embeddings, N: pc.N, NonCausal: pc.NonCausal})
		}
		ids = append(ids, c.tok.EncodeEscaped(segs[i+1])...)
	}
	flush()
	if bos := c.tok.BOS(); c.eng.Info().AddBOS && bos >= 0 && (p[0].Embeddings != nil || p[0].Tokens[0] != bos) {
		p = append(session.Prompt{{Tokens: []int32{bos}}}, p...)
	}
	return p
}

// TestImageEndToEnd: a user message with an image gives the session the
// prompt built by hand (llama.cpp's layout: the parts joined into one
// string around the marker, the text between markers tokenized apart, the
// encoder's pieces in place of the marker), the same greedy reply and the
// same logits as a session prefilled with that prompt directly.
func TestImageEndToEnd(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	ctx := context.Background()
	enc := newPatchEncoder(eng.Model().Params().Dim)
	c, err := New(ctx, eng, Config{Encoder: enc, MaxTokens: 5})
	require.NoError(t, err)
	img := pngOf(t, 9, 7, color.RGBA{200, 30, 90, 255})
	msg := Message{Role: RoleUser, Parts: []Part{{Type: "text", Text: "What is in the picture?"}, {Type: "image", Blob: img}, {Type: "text", Text: "Be brief."}}}
	r, err := c.SendMessage(ctx, msg)
	require.NoError(t, err)

	pieces, err := enc.Encode(ctx, mustLoad(t, Part{Type: "image", Blob: img}))
	require.NoError(t, err)
	want := handPrompt(t, c, "What is in the picture?markerXBe brief.", pieces)
	assert.Equal(t, want.Len(), r.Usage.PromptTokens)
	hand, err := session.New(eng, session.Config{})
	require.NoError(t, err)
	require.NoError(t, hand.PrefillPrompt(ctx, want))
	var reply []int32
	for id, err := range hand.Generate(ctx, session.GenerateOptions{MaxTokens: 5}) {
		require.NoError(t, err)
		reply = append(reply, id)
	}
	assert.Equal(t, hand.Tokens(), c.sess.Tokens()[:hand.TokenCount()], "prompt and reply")
	assert.Equal(t, len(reply), r.Usage.CompletionTokens)
	got := c.sess.Tokens()[want.Len():]
	assert.Equal(t, reply, got[:len(reply)])
	// The session after the prompt and reply: the same logits.
	require.NoError(t, c.sess.Rewind(c.sess.TokenCount()-hand.TokenCount()))
	assert.InDeltaSlice(t, hand.Logits(), c.sess.Logits(), 1e-4)
}

func mustLoad(t *testing.T, p Part) Media {
	m, err := LoadMedia(p)
	require.NoError(t, err)
	return m
}

// TestMediaDeltaAndCache: later turns prefill only their delta, the
// history's media encoded once; a history whose image changed keeps the
// prefix before that image's embeddings and re-runs it whole.
func TestMediaDeltaAndCache(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	ctx := context.Background()
	enc := newPatchEncoder(eng.Model().Params().Dim)
	c, err := New(ctx, eng, Config{Encoder: enc, MaxTokens: 3})
	require.NoError(t, err)
	red, blue := pngOf(t, 8, 8, color.RGBA{255, 0, 0, 255}), pngOf(t, 8, 8, color.RGBA{0, 0, 255, 255})
	var samples bytes.Buffer
	for i := range 480 {
		binary.Write(&samples, binary.LittleEndian, int16((i%37)*500-9000))
	}
	wavData := append(wav(16000, 1, 16, 0)[:40], 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(wavData[40:], uint32(samples.Len()))
	wavData = append(wavData, samples.Bytes()...)
	binary.LittleEndian.PutUint32(wavData[4:], uint32(len(wavData)-8))

	turns := []Message{
		{Role: RoleUser, Parts: []Part{{Type: "image", Blob: red}, {Type: "text", Text: "Colour?"}}},
		{Role: RoleUser, Parts: []Part{{Type: "text", Text: "And this one?"}, {Type: "image", Blob: blue}}},
		{Role: RoleUser, Parts: []Part{{Type: "text", Text: "Hear:"}, {Type: "audio", Blob: wavData}}},
	}
	for i, m := range turns {
		before := c.TokenCount()
		r, err := c.SendMessage(ctx, m)
		require.NoError(t, err, "turn %d", i)
		assert.Equal(t, before, r.Usage.CachedTokens, "turn %d reuses the whole cache", i)
	}
	assert.Equal(t, 0, c.Stats().Fallbacks)
	assert.Equal(t, int64(3), enc.calls.Load(), "each media input encoded once")
	tokens := c.sess.Tokens()
	assert.Equal(t, 4+4+3, count(tokens, session.MediaToken), "two images of 2×2 patches and three audio windows")

	// The same history with the second image swapped: everything up to
	// its embeddings is reused.
	hist := c.History()
	swapped := append([]Message(nil), hist...)
	swapped[2] = Message{Role: RoleUser, Parts: []Part{{Type: "text", Text: "And this one?"}, {Type: "image", Blob: red}}}
	firstBlue := 0
	for i, n := 0, 0; i < len(tokens); i++ {
		if tokens[i] == session.MediaToken && (i == 0 || tokens[i-1] != session.MediaToken) {
			if n++; n == 2 {
				firstBlue = i
				break
			}
		}
	}
	r, err := c.Respond(ctx, swapped, nil)
	require.NoError(t, err)
	assert.Equal(t, firstBlue, r.Usage.CachedTokens)
	assert.Equal(t, int64(3), enc.calls.Load(), "red was encoded before")

	// The Prompter builds the prompt Respond prefills, and the
	// conversation holds all of it.
	p, err := NewPrompter(eng, Config{Encoder: enc})
	require.NoError(t, err)
	prompt, err := p.Chat(ctx, swapped, nil)
	require.NoError(t, err)
	assert.Equal(t, r.Usage.PromptTokens, prompt.Len())
	assert.Equal(t, 3, prompt.Media())
	assert.Equal(t, prompt.Len(), c.CommonPrefix(prompt))
}

func count(ids []int32, id int32) int {
	n := 0
	for _, v := range ids {
		if v == id {
			n++
		}
	}
	return n
}

// TestMediaBadInput: media that cannot be used are refused before
// anything is prefilled, naming the problem.
func TestMediaBadInput(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	ctx := context.Background()
	enc := newPatchEncoder(eng.Model().Params().Dim)
	enc.noAudio = true
	c, err := New(ctx, eng, Config{Encoder: enc, MaxTokens: 2})
	require.NoError(t, err)
	_, err = c.SendMessage(ctx, UserText("hi"))
	require.NoError(t, err)
	held := c.sess.Tokens()
	for _, tc := range []struct {
		name string
		part Part
		bad  bool // the encoder gives rows of the wrong width
		want string
	}{
		{"corrupt image", Part{Type: "image", Blob: []byte("\x89PNG\r\n\x1a\nnope")}, false, "not a readable PNG"},
		{"truncated image data", Part{Type: "image", Blob: pngOf(t, 4, 4, color.White)[:40]}, false, "decode:"},
		{"audio without an audio encoder", Part{Type: "audio", Blob: wav(16000, 1, 16, 160)}, false, "no audio encoder"},
		{"rows of another width", Part{Type: "image", Blob: pngOf(t, 4, 4, color.White)}, true, "rows of the model's width"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			enc.badRows = tc.bad
			defer func() { enc.badRows = false }()
			_, err := c.SendMessage(ctx, Message{Role: RoleUser, Parts: []Part{{Type: "text", Text: "?"}, tc.part}})
			assert.ErrorContains(t, err, tc.want)
			assert.Equal(t, held, c.sess.Tokens(), "nothing prefilled")
			assert.Len(t, c.History(), 2)
		})
	}
	// A model without an encoder keeps its error.
	plain, err := New(ctx, eng, Config{})
	require.NoError(t, err)
	_, err = plain.SendMessage(ctx, Message{Role: RoleUser, Parts: []Part{{Type: "image", Blob: pngOf(t, 2, 2, color.White)}}})
	assert.True(t, errors.Is(err, ErrNoEncoder), "%v", err)
	assert.ErrorContains(t, err, "no vision encoder")
}

// TestMediaCacheBound: the cache holds at most its bound of embedding
// bytes, dropping the least recently used, and refuses an entry larger
// than the bound.
func TestMediaCacheBound(t *testing.T) {
	rows := func(n int) []MediaPiece { return []MediaPiece{{Text: "ab"}, {Embeddings: make([]float32, n), N: 1}} }
	mc := NewMediaCache(4 * (25*4 + 2)) // four entries of 25 values and 2 bytes of text
	for k := range uint64(4) {
		mc.put(k, rows(25))
	}
	_, ok := mc.get(0) // 0 is now the most recent, 1 the least
	require.True(t, ok)
	mc.put(4, rows(25)) // over the bound: the least recent goes
	for k, want := range []bool{true, false, true, true, true} {
		_, ok := mc.get(uint64(k))
		assert.Equal(t, want, ok, "key %d", k)
	}
	assert.LessOrEqual(t, mc.size, mc.max)
	mc.put(5, rows(200))
	_, ok = mc.get(5)
	assert.False(t, ok, "an entry over the bound is not kept")
}

// TestMediaConcurrent: conversations sharing one MediaCache send images
// at once (run with -race); each reply equals the one a lone conversation
// gives.
func TestMediaConcurrent(t *testing.T) {
	eng := testEngine(t, "Qwen-Qwen2.5-7B-Instruct.jinja")
	ctx := context.Background()
	enc := newPatchEncoder(eng.Model().Params().Dim)
	cfg := Config{Encoder: enc, MaxTokens: 3, MediaCache: NewMediaCache(1 << 20)}
	imgs := [][]byte{pngOf(t, 6, 6, color.RGBA{255, 0, 0, 255}), pngOf(t, 5, 7, color.RGBA{0, 255, 0, 255})}
	msg := func(i int) Message {
		return Message{Role: RoleUser, Parts: []Part{{Type: "image", Blob: imgs[i%2]}, {Type: "text", Text: "?"}}}
	}
	want := make([]string, 2)
	for i := range want {
		c, err := New(ctx, eng, Config{Encoder: enc, MaxTokens: 3})
		require.NoError(t, err)
		r, err := c.SendMessage(ctx, msg(i))
		require.NoError(t, err)
		want[i] = r.Text
	}
	got := make([]string, 6)
	errs := make([]error, 6)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			c, err := New(ctx, eng, cfg)
			if err != nil {
				errs[i] = err
				return
			}
			r, err := c.SendMessage(ctx, msg(i))
			if err == nil {
				got[i] = r.Text
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i := range got {
		require.NoError(t, errs[i])
		assert.Equal(t, want[i%2], got[i], "conversation %d", i)
	}
}
