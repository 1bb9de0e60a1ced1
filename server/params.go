package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"

	"github.com/litert-go/litert-go/session"
)

// commonParams are the request fields /v1/chat/completions and
// /v1/completions share.
type commonParams struct {
	Model            string             `json:"model"`
	MaxTokens        *int               `json:"max_tokens"`
	Temperature      *float64           `json:"temperature"`
	TopP             *float64           `json:"top_p"`
	FrequencyPenalty *float64           `json:"frequency_penalty"`
	PresencePenalty  *float64           `json:"presence_penalty"`
	Seed             *int64             `json:"seed"`
	Stop             stopList           `json:"stop"`
	N                *int               `json:"n"`
	Stream           bool               `json:"stream"`
	StreamOptions    *streamOptions     `json:"stream_options"`
	LogitBias        map[string]float64 `json:"logit_bias"`
	// llama.cpp extensions.
	TopK          *int     `json:"top_k"`
	MinP          *float64 `json:"min_p"`
	RepeatPenalty *float64 `json:"repeat_penalty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// stopList is "stop": null, a string or a list of strings.
type stopList []string

// maxStops is the most stop strings a request may set, as in OpenAI's API.
const maxStops = 4

// UnmarshalJSON accepts null, a string or an array of strings.
func (s *stopList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*s = nil
		return nil
	case len(b) > 0 && b[0] == '"':
		var one string
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*s = stopList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("'stop' must be a string or an array of strings")
	}
	*s = many
	return nil
}

// check validates the shared fields against the server's model.
func (p *commonParams) check(s *Server) *apiError {
	switch {
	case s.cfg.StrictModel && p.Model == "":
		return invalid("model", "missing_model", "you must provide a model parameter (this server serves %q)", s.modelID)
	case s.cfg.StrictModel && p.Model != s.modelID:
		return newError(http.StatusNotFound, typeInvalidRequest, "model", "model_not_found",
			"the model %q does not exist; this server serves %q", p.Model, s.modelID)
	case p.N != nil && (*p.N < 1 || *p.N > MaxChoices):
		return invalid("n", "invalid_value", "n must be between 1 and %d, got %d", MaxChoices, *p.N)
	case len(p.LogitBias) > 0:
		return invalid("logit_bias", "unsupported_parameter", "logit_bias is not supported")
	case p.StreamOptions != nil && !p.Stream:
		return invalid("stream_options", "invalid_value", "stream_options is only allowed when stream is true")
	case p.MaxTokens != nil && *p.MaxTokens < 1:
		return invalid("max_tokens", "invalid_value", "max_tokens must be at least 1, got %d", *p.MaxTokens)
	case len(p.Stop) > maxStops:
		return invalid("stop", "invalid_value", "at most %d stop sequences are allowed, got %d", maxStops, len(p.Stop))
	}
	for i, st := range p.Stop {
		if st == "" {
			return invalid(fmt.Sprintf("stop[%d]", i), "invalid_value", "stop sequences must not be empty")
		}
	}
	return nil
}

// MaxChoices is the most choices (n) a request may ask for.
const MaxChoices = 8

// choices is the number of choices asked for.
func (p *commonParams) choices() int {
	if p.N == nil {
		return 1
	}
	return *p.N
}

// choiceSampler is the sampler of choice i: choice 0 has the request's
// seed, so a seeded request gives the same first choice whatever n; the
// others seeds of their own derived from it (SplitMix64), so that the
// choices differ and are each reproducible. Without a seed (0) every
// choice draws a random one.
func choiceSampler(smp session.Sampler, i int) session.Sampler {
	if i == 0 || smp.Seed == 0 {
		return smp
	}
	z := smp.Seed + uint64(i)*0x9E3779B97F4A7C15
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	if z ^= z >> 31; z == 0 {
		z = 1
	}
	smp.Seed = z
	return smp
}

// sampler applies the request's sampling fields to the server's sampler.
func (p *commonParams) sampler(base session.Sampler) (session.Sampler, *apiError) {
	smp := base
	inRange := func(name string, v *float64, lo, hi float64) *apiError {
		if v != nil && (math.IsNaN(*v) || *v < lo || *v > hi) {
			return invalid(name, "invalid_value", "%s must be between %g and %g, got %g", name, lo, hi, *v)
		}
		return nil
	}
	for _, c := range []struct {
		name   string
		v      *float64
		lo, hi float64
	}{
		{"temperature", p.Temperature, 0, 2},
		{"top_p", p.TopP, 0, 1},
		{"min_p", p.MinP, 0, 1},
		{"frequency_penalty", p.FrequencyPenalty, -2, 2},
		{"presence_penalty", p.PresencePenalty, -2, 2},
		{"repeat_penalty", p.RepeatPenalty, 0, 10},
	} {
		if err := inRange(c.name, c.v, c.lo, c.hi); err != nil {
			return smp, err
		}
	}
	if p.Temperature != nil {
		smp.Temperature = float32(*p.Temperature)
	}
	if p.TopP != nil {
		smp.TopP = float32(*p.TopP)
		if *p.TopP == 0 { // only the most likely token
			smp.Temperature = 0
		}
	}
	if p.TopK != nil {
		if *p.TopK < 0 {
			return smp, invalid("top_k", "invalid_value", "top_k must not be negative, got %d", *p.TopK)
		}
		smp.TopK = *p.TopK
	}
	if p.MinP != nil {
		smp.MinP = float32(*p.MinP)
	}
	if p.FrequencyPenalty != nil {
		smp.FrequencyPenalty = float32(*p.FrequencyPenalty)
	}
	if p.PresencePenalty != nil {
		smp.PresencePenalty = float32(*p.PresencePenalty)
	}
	if p.RepeatPenalty != nil {
		smp.RepeatPenalty = float32(*p.RepeatPenalty)
	}
	smp.Seed = 0 // random
	if p.Seed != nil {
		smp.Seed = uint64(*p.Seed)
		if smp.Seed == 0 {
			smp.Seed = math.MaxUint64 // 0 means random to the sampler
		}
	}
	if err := smp.Validate(); err != nil {
		return smp, invalid("", "invalid_value", "%v", err)
	}
	return smp, nil
}

// maxTokens returns the reply's token budget for a prompt of n tokens:
// the request's, else the server's cap, never more than the cap nor past
// the context.
func (s *Server) maxTokens(requested *int, n int) (int, *apiError) {
	ctxLen := s.eng.Info().ContextLength
	room := ctxLen - n
	if room < 1 {
		return 0, invalid("messages", "context_length_exceeded",
			"this model's maximum context length is %d tokens, but the prompt has %d tokens", ctxLen, n)
	}
	want := s.cfg.MaxTokens
	if requested != nil {
		want = min(*requested, want)
	}
	return min(want, room), nil
}
