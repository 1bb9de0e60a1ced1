package server

import (
	"net/http"
)

// modelObject is one entry of /v1/models.
type modelObject struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	// ContextLength is an extension: the tokens a request may use.
	ContextLength int `json:"context_length"`
}

func (s *Server) model() modelObject {
	return modelObject{ID: s.modelID, Object: "model", Created: s.created, OwnedBy: "litert-go", ContextLength: s.eng.Info().ContextLength}
}

// handleModels serves GET /v1/models.
func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Object string        `json:"object"`
		Data   []modelObject `json:"data"`
	}{"list", []modelObject{s.model()}})
}

// handleModel serves GET /v1/models/{id}: the served model, whatever the
// id unless Config.StrictModel.
func (s *Server) handleModel(w http.ResponseWriter, r *http.Request) {
	if id := r.PathValue("id"); s.cfg.StrictModel && id != s.modelID {
		writeError(w, newError(http.StatusNotFound, typeInvalidRequest, "model", "model_not_found",
			"the model %q does not exist; this server serves %q", id, s.modelID))
		return
	}
	writeJSON(w, http.StatusOK, s.model())
}

// health is the body of GET /health.
type health struct {
	Status         string `json:"status"` // "ok" or "shutting_down"
	Running        int    `json:"running"`
	Waiting        int    `json:"waiting"`
	CachedSessions int    `json:"cached_sessions"`
}

// handleHealth serves GET /health: 200 while serving, 503 while shutting
// down.
func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	h := health{Status: "ok"}
	h.Running, h.Waiting = s.lim.load()
	h.CachedSessions, _ = s.cache.size()
	status := http.StatusOK
	if s.draining.Load() {
		h.Status, status = "shutting_down", http.StatusServiceUnavailable
	}
	writeJSON(w, status, h)
}
