// Package webui is the chat page `litert-go serve` shows at /: plain HTML,
// CSS and JavaScript embedded in the binary, with nothing fetched from
// elsewhere, so it works offline. The page talks to the server's own
// OpenAI-compatible API (/v1/models, streaming /v1/chat/completions).
package webui

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed index.html app.js style.css
var files embed.FS

// Handler serves the page: GET / is index.html, GET /webui/NAME the
// script and the style sheet it loads.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := "index.html"
		if r.URL.Path != "/" {
			name = strings.TrimPrefix(r.URL.Path, "/webui/")
			if name == "index.html" || !fs.ValidPath(name) {
				http.NotFound(w, r)
				return
			}
			if _, err := fs.Stat(files, name); err != nil {
				http.NotFound(w, r)
				return
			}
		}
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		http.ServeFileFS(w, r, files, name)
	})
}
