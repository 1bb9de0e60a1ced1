package server

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// sse writes server-sent events: "data: JSON\n\n", flushed one by one.
type sse struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	started bool
}

func newSSE(w http.ResponseWriter) *sse { return &sse{w: w, rc: http.NewResponseController(w)} }

// start sends the headers, once.
func (s *sse) start() {
	if s.started {
		return
	}
	s.started = true
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	s.w.WriteHeader(http.StatusOK)
}

// send writes one event holding v as JSON. An error means the client is
// gone.
func (s *sse) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("server: encoding an event: %w", err)
	}
	return s.raw(b)
}

func (s *sse) raw(b []byte) error {
	s.start()
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return err
	}
	return s.rc.Flush()
}

// fail reports an error: as a normal HTTP error if nothing was sent yet,
// else as an error event followed by [DONE].
func (s *sse) fail(err error) {
	if !s.started {
		writeError(s.w, err)
		return
	}
	e := asError(err)
	_ = s.send(struct {
		Error *apiError `json:"error"`
	}{e})
	s.done()
}

// done ends the stream.
func (s *sse) done() { _ = s.raw([]byte("[DONE]")) }
