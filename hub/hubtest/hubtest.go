// Package hubtest runs a fake Hugging Face Hub on loopback for tests: the
// routes huggingface_hub and llama.cpp use, with faults to inject (a
// dropped connection, corrupted bytes, a server that ignores ranges).
package hubtest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// repo is one repository of the fake Hub.
type repo struct {
	commit string
	files  map[string][]byte
}

// Request is one request the server got.
type Request struct {
	Method, Path, Range, Authorization string
}

// Server imitates the Hub's routes: GET
// /api/models/{repo}/revision/main?blobs=true (the commit and the file list
// with LFS sha256 and sizes) and GET /{repo}/resolve/{rev}/{file} with
// Range support and X-Repo-Commit and ETag headers. An unknown repository
// gets 401 with X-Error-Code RepoNotFound, as the Hub answers anonymous
// callers.
type Server struct {
	URL string
	srv *httptest.Server

	mu        sync.Mutex
	repos     map[string]*repo
	requests  []Request
	dropAfter map[string]int
	corrupt   map[string]bool
	noRange   bool
	sizes     map[string]int64
	hashes    map[string]string
}

// NewServer starts a fake Hub with no repositories.
func NewServer() *Server {
	s := &Server{repos: map[string]*repo{}, dropAfter: map[string]int{}, corrupt: map[string]bool{},
		sizes: map[string]int64{}, hashes: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Add serves a repository (OWNER/REPO) at a commit with the given files.
func (s *Server) Add(name, commit string, files map[string][]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[name] = &repo{commit: commit, files: files}
}

// DropAfter makes the next download of file stop after n bytes by closing
// the connection.
func (s *Server) DropAfter(file string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropAfter[file] = n
}

// Corrupt flips a byte in what is served of file (on) or stops doing so.
func (s *Server) Corrupt(file string, on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.corrupt[file] = on
}

// IgnoreRange makes downloads ignore Range headers, as some proxies do.
func (s *Server) IgnoreRange(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noRange = on
}

// ReportSize makes the file list report size for file.
func (s *Server) ReportSize(file string, size int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sizes[file] = size
}

// ReportHash makes the file list report sha for file's sha256.
func (s *Server) ReportHash(file, sha string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hashes[file] = sha
}

// Requests returns the requests served so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Downloads returns the file requests: the file's base name and its Range
// header, "name bytes=N-" or "name " without one.
func (s *Server) Downloads() []string {
	var out []string
	for _, r := range s.Requests() {
		if strings.Contains(r.Path, "/resolve/") {
			out = append(out, path.Base(r.Path)+" "+r.Range)
		}
	}
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Range: r.Header.Get("Range"), Authorization: r.Header.Get("Authorization")})
	p := r.URL.Path
	if rest, ok := strings.CutPrefix(p, "/api/models/"); ok {
		name, rev, ok := strings.Cut(rest, "/revision/")
		fr := s.repos[name]
		if !ok || fr == nil || rev != "main" || r.URL.Query().Get("blobs") != "true" {
			w.Header().Set("X-Error-Code", "RepoNotFound")
			w.Header().Set("X-Error-Message", "Repository not found")
			http.Error(w, `{"error":"Repository not found"}`, http.StatusUnauthorized)
			return
		}
		type lfs struct {
			SHA256 string `json:"sha256"`
			Size   int64  `json:"size"`
		}
		type sib struct {
			Name string `json:"rfilename"`
			Size int64  `json:"size"`
			Blob string `json:"blobId"`
			LFS  *lfs   `json:"lfs,omitempty"`
		}
		sibs := []sib{}
		for file, b := range fr.files {
			sum := sha256.Sum256(b)
			e := sib{Name: file, Size: int64(len(b)), Blob: strings.Repeat("ab", 20), LFS: &lfs{hex.EncodeToString(sum[:]), int64(len(b))}}
			if v, ok := s.sizes[file]; ok {
				e.LFS.Size = v
			}
			if v, ok := s.hashes[file]; ok {
				e.LFS.SHA256 = v
			}
			sibs = append(sibs, e)
		}
		json.NewEncoder(w).Encode(map[string]any{"id": name, "sha": fr.commit, "siblings": sibs})
		return
	}
	for name, fr := range s.repos {
		rest, ok := strings.CutPrefix(p, "/"+name+"/resolve/")
		if !ok {
			continue
		}
		rev, file, _ := strings.Cut(rest, "/")
		b, ok := fr.files[file]
		if !ok || (rev != "main" && rev != fr.commit) {
			w.Header().Set("X-Error-Code", "EntryNotFound")
			http.Error(w, "Entry not found", http.StatusNotFound)
			return
		}
		drop, dropping := s.dropAfter[file]
		delete(s.dropAfter, file)
		if s.corrupt[file] {
			b = bytes.Clone(b)
			b[len(b)/2] ^= 0xff
		}
		w.Header().Set("X-Repo-Commit", fr.commit)
		sum := sha256.Sum256(b)
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
		if dropping {
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			w.WriteHeader(http.StatusOK)
			w.Write(b[:drop])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the connection drops mid-file
		}
		if s.noRange {
			r.Header.Del("Range")
		}
		http.ServeContent(w, r, file, time.Time{}, bytes.NewReader(b))
		return
	}
	http.NotFound(w, r)
}
