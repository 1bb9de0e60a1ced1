package conversation

import (
	"container/list"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"

	"github.com/litert-go/litert-go/session"
)

// Encoder turns an image or audio input into what the prompt holds in its
// place: embeddings and the text the model expects around them. The
// engine's encoder (engine.Settings.MMProj) serves when Config.Encoder is
// nil.
type Encoder interface {
	Vision() bool // encodes images
	Audio() bool  // encodes audio
	// Encode returns the pieces of m (checked by LoadMedia), in order.
	Encode(ctx context.Context, m Media) ([]MediaPiece, error)
}

// MediaPiece is one piece of a media input in the prompt: text (special
// tokens in it are parsed, as the template's are), or N rows of input
// embeddings of the model's width, decoded as one non-causal batch if
// NonCausal (see session.Chunk).
type MediaPiece struct {
	Text       string
	Embeddings []float32
	N          int
	NonCausal  bool
}

// MediaKey identifies media by its bytes: the first 8 bytes of their
// SHA-256. The session and the prompt cache match media chunks by it.
func MediaKey(data []byte) uint64 {
	sum := sha256.Sum256(data)
	return binary.BigEndian.Uint64(sum[:8])
}

// DefaultMediaCacheBytes bounds the embeddings a conversation keeps of
// the media it encoded, when Config.MediaCache is nil.
const DefaultMediaCacheBytes = 256 << 20

// MediaCache keeps encoded media by MediaKey, so that a media part is
// encoded once however many turns render it; the least recently used
// entries go beyond a byte bound. Conversations (and a Prompter) may share
// one: it is safe for concurrent use.
type MediaCache struct {
	mu      sync.Mutex
	max     int64
	size    int64
	lru     *list.List // of *mediaEntry, most recent first
	entries map[uint64]*list.Element
}

type mediaEntry struct {
	key    uint64
	pieces []MediaPiece
	size   int64
}

// NewMediaCache returns a cache holding up to maxBytes of embeddings.
func NewMediaCache(maxBytes int64) *MediaCache {
	return &MediaCache{max: maxBytes, lru: list.New(), entries: map[uint64]*list.Element{}}
}

func (mc *MediaCache) get(key uint64) ([]MediaPiece, bool) {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	el, ok := mc.entries[key]
	if !ok {
		return nil, false
	}
	mc.lru.MoveToFront(el)
	return el.Value.(*mediaEntry).pieces, true
}

func (mc *MediaCache) put(key uint64, pieces []MediaPiece) {
	var size int64
	for _, p := range pieces {
		size += 4*int64(len(p.Embeddings)) + int64(len(p.Text))
	}
	mc.mu.Lock()
	defer mc.mu.Unlock()
	if _, ok := mc.entries[key]; ok || size > mc.max {
		return
	}
	mc.entries[key] = mc.lru.PushFront(&mediaEntry{key: key, pieces: pieces, size: size})
	mc.size += size
	for mc.size > mc.max {
		e := mc.lru.Remove(mc.lru.Back()).(*mediaEntry)
		delete(mc.entries, e.key)
		mc.size -= e.size
	}
}

// newMarker returns the text a conversation's template renders in place
// of each media part: random, so no message text can hold it.
func newMarker() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return "<__media_" + hex.EncodeToString(b[:]) + "__>"
}

// forTemplate returns m as the chat template sees it: a message with
// media has their markers in its content, a string joining its parts with
// newlines between text parts but none beside a marker, as llama.cpp's
// server hands it to the template (common_chat_msg::to_json_oaicompat).
func (c *Conversation) forTemplate(m Message) Message {
	media := false
	for _, p := range m.Parts {
		media = media || p.Type != "text"
	}
	if !media {
		return m
	}
	var b strings.Builder
	lastMarker := false
	for _, p := range m.Parts {
		if p.Type != "text" {
			b.WriteString(c.marker)
			lastMarker = true
			continue
		}
		if !lastMarker && b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
		lastMarker = false
	}
	m.Text, m.Parts = b.String(), nil
	return m
}

// mediaOf loads the media parts of msgs, in order.
func mediaOf(msgs []Message) ([]Media, error) {
	var out []Media
	for i, m := range msgs {
		for j, p := range m.Parts {
			if p.Type == "text" {
				continue
			}
			md, err := LoadMedia(p)
			if err != nil {
				return nil, fmt.Errorf("message %d part %d: %w", i, j, err)
			}
			out = append(out, md)
		}
	}
	return out, nil
}

// mediaKeys returns the MediaKey of each of media.
func mediaKeys(media []Media) []uint64 {
	keys := make([]uint64, len(media))
	for i, m := range media {
		keys[i] = MediaKey(m.Data)
	}
	return keys
}

// checkMedia refuses media the conversation has no encoder for.
func (c *Conversation) checkMedia(m Media) error {
	if c.enc != nil && (m.Kind == "image" && c.enc.Vision() || m.Kind == "audio" && c.enc.Audio()) {
		return nil
	}
	kind := map[string]string{"image": "vision", "audio": "audio"}[m.Kind]
	return fmt.Errorf("conversation: model %q has no %s encoder: %w", c.eng.Info().Name, kind, ErrNoEncoder)
}

// encode returns the pieces of m, from the cache when it was encoded
// before, checked: each a text or whole rows of the model's width.
func (c *Conversation) encode(ctx context.Context, m Media) ([]MediaPiece, error) {
	if err := c.checkMedia(m); err != nil {
		return nil, err
	}
	key := MediaKey(m.Data)
	if p, ok := c.mediaCache.get(key); ok {
		return p, nil
	}
	pieces, err := c.enc.Encode(ctx, m)
	if err != nil {
		return nil, fmt.Errorf("conversation: %s %s: %w", m.Format, m.Kind, err)
	}
	dim := c.eng.Model().Params().Dim
	for i, p := range pieces {
		switch {
		case p.Embeddings == nil && p.N == 0:
		case p.Text != "" || p.N <= 0 || len(p.Embeddings) != p.N*dim:
			return nil, fmt.Errorf("conversation: %s %s: the encoder's piece %d holds %d values for %d rows of the model's width %d (and %d bytes of text)",
				m.Format, m.Kind, i, len(p.Embeddings), p.N, dim, len(p.Text))
		}
	}
	c.mediaCache.put(key, pieces)
	return pieces, nil
}

// prompt tokenizes template output whose media parts the template wrote
// as the marker: the text between markers is tokenized piece by piece (as
// llama.cpp's mtmd_tokenize does) and each marker becomes its media's
// pieces, its embedding runs one media chunk each. With first, BOS is
// added as encodePrompt adds it.
func (c *Conversation) prompt(ctx context.Context, text string, media []Media, first bool) (session.Prompt, error) {
	segs := strings.Split(text, c.marker)
	if len(segs)-1 != len(media) {
		return nil, fmt.Errorf("conversation: the chat template rendered %d of the %d media parts", len(segs)-1, len(media))
	}
	var p session.Prompt
	addTokens := func(ids []int32) {
		if len(ids) == 0 {
			return
		}
		if n := len(p); n > 0 && p[n-1].Embeddings == nil {
			p[n-1].Tokens = append(p[n-1].Tokens, ids...)
			return
		}
		p = append(p, session.Chunk{Tokens: ids})
	}
	addTokens(c.encodePrompt(segs[0], first))
	for i, m := range media {
		pieces, err := c.encode(ctx, m)
		if err != nil {
			return nil, err
		}
		key := MediaKey(m.Data)
		for j, pc := range pieces {
			if pc.Embeddings == nil {
				addTokens(c.tok.EncodeEscaped(pc.Text))
				continue
			}
			// Each embedding run is its own chunk, keyed by the media and
			// its place among them.
			p = append(p, session.Chunk{Embeddings: pc.Embeddings, N: pc.N, Key: key + uint64(j), NonCausal: pc.NonCausal})
		}
		addTokens(c.tok.EncodeEscaped(segs[i+1]))
	}
	if first && c.eng.Info().AddBOS && len(p) > 0 && p[0].Embeddings != nil {
		if bos := c.tok.BOS(); bos >= 0 {
			p = append(session.Prompt{{Tokens: []int32{bos}}}, p...)
		}
	}
	return p, nil
}
