package conversation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/litert-go/litert-go/engine"
	"github.com/litert-go/litert-go/session"
)

// SnapshotVersion is the version of the saved-conversation format that
// Snapshot writes and LoadSnapshot reads.
const SnapshotVersion = 1

// Snapshot is a conversation as saved to JSON: its history in the Message
// format and the settings that shape its replies. The KV cache is not saved;
// a loaded conversation prefills its history on the first turn.
type Snapshot struct {
	Version int             `json:"version"`
	Model   string          `json:"model,omitempty"` // the model's name, for information
	Preface SnapshotPreface `json:"preface"`
	// ToolFormat is the tool-call syntax ("" detects it from the template).
	ToolFormat string          `json:"tool_format,omitempty"`
	Sampler    SnapshotSampler `json:"sampler"`
	MaxTokens  int             `json:"max_tokens,omitempty"`
	// Messages is the whole history, preface messages included.
	Messages []Message `json:"messages"`
}

// SnapshotPreface is the saved form of Preface. Tools are written in the
// OpenAI shape {"type": "function", "function": {"name", "description",
// "parameters"}}.
type SnapshotPreface struct {
	Messages []Message      `json:"messages,omitempty"`
	Tools    []ToolDecl     `json:"tools,omitempty"`
	Extra    map[string]any `json:"extra,omitempty"`
}

// SnapshotSampler is the saved form of session.Sampler.
type SnapshotSampler struct {
	Temperature      float32 `json:"temperature,omitempty"`
	TopK             int     `json:"top_k,omitempty"`
	TopP             float32 `json:"top_p,omitempty"`
	MinP             float32 `json:"min_p,omitempty"`
	RepeatPenalty    float32 `json:"repeat_penalty,omitempty"`
	FrequencyPenalty float32 `json:"frequency_penalty,omitempty"`
	PresencePenalty  float32 `json:"presence_penalty,omitempty"`
	PenaltyWindow    int     `json:"penalty_window,omitempty"`
	Seed             uint64  `json:"seed,omitempty"`
}

func snapshotSampler(s session.Sampler) SnapshotSampler {
	return SnapshotSampler{s.Temperature, s.TopK, s.TopP, s.MinP, s.RepeatPenalty, s.FrequencyPenalty, s.PresencePenalty, s.PenaltyWindow, s.Seed}
}

func (s SnapshotSampler) sampler() session.Sampler {
	return session.Sampler{Temperature: s.Temperature, TopK: s.TopK, TopP: s.TopP, MinP: s.MinP, RepeatPenalty: s.RepeatPenalty,
		FrequencyPenalty: s.FrequencyPenalty, PresencePenalty: s.PresencePenalty, PenaltyWindow: s.PenaltyWindow, Seed: s.Seed}
}

// MarshalJSON writes the declaration in the OpenAI tool shape.
func (d ToolDecl) MarshalJSON() ([]byte, error) {
	if len(d.Parameters) > 0 && !json.Valid(d.Parameters) {
		return nil, fmt.Errorf("tool %q: parameters are not valid JSON", d.Name)
	}
	return d.openAIJSON(), nil
}

// UnmarshalJSON reads a declaration in the OpenAI tool shape, or the flat
// form {"name", "description", "parameters"}.
func (d *ToolDecl) UnmarshalJSON(data []byte) error {
	type flat struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	var w struct {
		flat
		Function *flat `json:"function"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("tool declaration: %w", err)
	}
	f := w.flat
	if w.Function != nil {
		f = *w.Function
	}
	if f.Name == "" {
		return errors.New("tool declaration: missing name")
	}
	*d = ToolDecl{Name: f.Name, Description: f.Description}
	if p := bytes.TrimSpace(f.Parameters); len(p) > 0 && string(p) != "null" {
		var b bytes.Buffer
		if err := json.Compact(&b, p); err != nil {
			return fmt.Errorf("tool declaration %q: parameters: %w", f.Name, err)
		}
		d.Parameters = b.Bytes()
	}
	return nil
}

// Snapshot returns the conversation's history and settings for saving.
func (c *Conversation) Snapshot() Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.publish()
	return Snapshot{
		Version:  SnapshotVersion,
		Model:    c.eng.Info().Name,
		Messages: append([]Message(nil), c.history...),
		Preface: SnapshotPreface{
			Messages: append([]Message(nil), c.cfg.Preface.Messages...),
			Tools:    append([]ToolDecl(nil), c.cfg.Preface.Tools...),
			Extra:    c.cfg.Preface.Extra,
		},
		ToolFormat: c.cfg.ToolFormat,
		Sampler:    snapshotSampler(c.cfg.Sampler),
		MaxTokens:  c.cfg.MaxTokens,
	}
}

// Save writes the conversation as JSON (see Snapshot), one message a line.
// Messages are written compactly so tool-call arguments keep their exact
// bytes.
func (c *Conversation) Save(w io.Writer) error {
	b, err := c.Snapshot().marshal()
	if err != nil {
		return fmt.Errorf("conversation: save: %w", err)
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("conversation: save: %w", err)
	}
	return nil
}

// marshal writes the snapshot with each message on its own line.
func (s Snapshot) marshal() ([]byte, error) {
	msgs := s.Messages
	s.Messages = nil
	head, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	const null = `"messages":null}`
	if !bytes.HasSuffix(head, []byte(null)) {
		return nil, fmt.Errorf("unexpected snapshot encoding %.60s", head)
	}
	var b bytes.Buffer
	b.Write(head[:len(head)-len(null)])
	b.WriteString("\n\"messages\":[")
	for i, m := range msgs {
		mb, err := m.MarshalJSON() // json.Marshal would compact the arguments
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		b.Write(mb)
	}
	b.WriteString("\n]}\n")
	return b.Bytes(), nil
}

// SaveFile writes the conversation to path, atomically: a reader sees the
// old file or the new one, never half of one.
func (c *Conversation) SaveFile(path string) error {
	var buf bytes.Buffer
	if err := c.Save(&buf); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("conversation: save %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		return fmt.Errorf("conversation: save %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("conversation: save %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("conversation: save %s: %w", path, err)
	}
	return nil
}

// ReadSnapshot decodes a saved conversation and checks it.
func ReadSnapshot(r io.Reader) (Snapshot, error) {
	var s Snapshot
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Snapshot{}, fmt.Errorf("conversation: saved conversation: %w", err)
	}
	if s.Version != SnapshotVersion {
		return Snapshot{}, fmt.Errorf("conversation: saved conversation has version %d, want %d", s.Version, SnapshotVersion)
	}
	for i, m := range s.Messages {
		if err := checkRole(m.Role); err != nil {
			return Snapshot{}, fmt.Errorf("conversation: saved conversation: message %d: %w", i, err)
		}
	}
	return s, nil
}

// Config returns the conversation settings the snapshot holds.
func (s Snapshot) Config() Config {
	return Config{
		Preface:    Preface{Messages: s.Preface.Messages, Tools: s.Preface.Tools, Extra: s.Preface.Extra},
		Sampler:    s.Sampler.sampler(),
		MaxTokens:  s.MaxTokens,
		ToolFormat: s.ToolFormat,
	}
}

// Load reads a saved conversation and continues it on eng.
func Load(ctx context.Context, eng *engine.Engine, r io.Reader) (*Conversation, error) {
	s, err := ReadSnapshot(r)
	if err != nil {
		return nil, err
	}
	return FromSnapshot(ctx, eng, s, s.Config())
}

// LoadFile reads a conversation saved by SaveFile and continues it on eng.
func LoadFile(ctx context.Context, eng *engine.Engine, path string) (*Conversation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("conversation: load: %w", err)
	}
	defer f.Close()
	c, err := Load(ctx, eng, f)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return c, nil
}

// FromSnapshot starts a conversation with cfg whose history is the
// snapshot's messages. Callers that want their own settings (a sampler from
// the command line) pass cfg; s.Config() keeps the saved ones.
func FromSnapshot(ctx context.Context, eng *engine.Engine, s Snapshot, cfg Config) (*Conversation, error) {
	c, err := New(ctx, eng, cfg)
	if err != nil {
		return nil, err
	}
	if err := c.Restore(s.Messages); err != nil {
		return nil, err
	}
	return c, nil
}

// Restore replaces the history with msgs (preface messages included, as
// History returns them). The KV cache is kept: the next turn re-prefills
// only from the longest common token prefix, so restoring a history that
// extends the current one costs only the new tokens.
func (c *Conversation) Restore(msgs []Message) error {
	for i, m := range msgs {
		if err := checkRole(m.Role); err != nil {
			return fmt.Errorf("conversation: restore: message %d: %w", i, err)
		}
		for _, tc := range m.ToolCalls {
			if len(tc.Arguments) > 0 && !json.Valid(tc.Arguments) {
				return fmt.Errorf("conversation: restore: message %d: tool call %q: arguments are not valid JSON", i, tc.Name)
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.publish()
	c.history = append([]Message(nil), msgs...)
	c.kvText = "" // the session no longer spells a known render
	return nil
}

func checkRole(role string) error {
	switch role {
	case RoleUser, RoleSystem, RoleTool, RoleAssistant:
		return nil
	}
	return fmt.Errorf("unknown role %q", role)
}
