package hub

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRepo is one repository of the fake Hub.
type fakeRepo struct {
	commit string
	files  map[string][]byte
}

// fakeHub imitates the Hub routes huggingface_hub and llama.cpp use:
// GET /api/models/{repo}/revision/{rev}?blobs=true and GET
// /{repo}/resolve/{rev}/{file} with ranges, on loopback.
type fakeHub struct {
	t     *testing.T
	srv   *httptest.Server
	repos map[string]*fakeRepo

	mu        sync.Mutex
	requests  []*http.Request   // every request, in order
	dropAfter map[string]int    // file: drop the connection after this many bytes, once
	corrupt   map[string]bool   // file: flip a byte of what is served
	noRange   bool              // ignore Range headers, as some proxies do
	sizes     map[string]int64  // file: size the API reports, when not the real one
	hashes    map[string]string // file: sha256 the API reports, when not the real one
}

func newFakeHub(t *testing.T) *fakeHub {
	h := &fakeHub{t: t, repos: map[string]*fakeRepo{}, dropAfter: map[string]int{}, corrupt: map[string]bool{},
		sizes: map[string]int64{}, hashes: map[string]string{}}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *fakeHub) add(repo, commit string, files map[string][]byte) {
	h.repos[repo] = &fakeRepo{commit: commit, files: files}
}

func (h *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.requests = append(h.requests, r.Clone(context.Background()))
	h.mu.Unlock()
	p := r.URL.Path
	if rest, ok := strings.CutPrefix(p, "/api/models/"); ok {
		repo, rev, ok := strings.Cut(rest, "/revision/")
		fr := h.repos[repo]
		if !ok || fr == nil || rev != "main" || r.URL.Query().Get("blobs") != "true" {
			w.Header().Set("X-Error-Code", "RepoNotFound")
			w.Header().Set("X-Error-Message", "Repository not found")
			http.Error(w, `{"error":"Repository not found"}`, http.StatusUnauthorized) // as the Hub answers anonymous callers
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
		var sibs []sib
		for name, b := range fr.files {
			sum := sha256.Sum256(b)
			s := sib{Name: name, Size: int64(len(b)), Blob: strings.Repeat("ab", 20), LFS: &lfs{hex.EncodeToString(sum[:]), int64(len(b))}}
			if v, ok := h.sizes[name]; ok {
				s.LFS.Size = v
			}
			if v, ok := h.hashes[name]; ok {
				s.LFS.SHA256 = v
			}
			sibs = append(sibs, s)
		}
		json.NewEncoder(w).Encode(map[string]any{"id": repo, "sha": fr.commit, "siblings": sibs})
		return
	}
	for repo, fr := range h.repos {
		rest, ok := strings.CutPrefix(p, "/"+repo+"/resolve/")
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
		h.mu.Lock()
		drop, dropping := h.dropAfter[file]
		delete(h.dropAfter, file)
		bad := h.corrupt[file]
		h.mu.Unlock()
		if bad {
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
		if h.noRange {
			r.Header.Del("Range")
		}
		http.ServeContent(w, r, file, time.Time{}, bytes.NewReader(b))
		return
	}
	http.NotFound(w, r)
}

// resolves returns the requests for files (not the API) and their Range headers.
func (h *fakeHub) resolves() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.requests {
		if strings.Contains(r.URL.Path, "/resolve/") {
			out = append(out, filepath.Base(r.URL.Path)+" "+r.Header.Get("Range"))
		}
	}
	return out
}

func (h *fakeHub) client(t *testing.T) *Client {
	return &Client{Endpoint: h.srv.URL, CacheDir: filepath.Join(t.TempDir(), "hub")}
}

const storiesCommit = "0123456789abcdef0123456789abcdef01234567"

// storiesRepo serves the real stories260K files of the test data as a
// GGUF repository would hold them.
func storiesRepo(t *testing.T, h *fakeHub) map[string][]byte {
	t.Helper()
	files := map[string][]byte{"README.md": []byte("# stories260K\n")}
	for _, name := range []string{"stories260K-Q4_0.gguf", "stories260K-Q8_0.gguf", "stories260K-F16.gguf"} {
		b, err := os.ReadFile(filepath.Join("../../shared/testdata/models", name))
		if os.IsNotExist(err) {
			t.Skip("test data absent: ../../shared/testdata/models/" + name)
		}
		require.NoError(t, err)
		files[name] = b
	}
	h.add("ggml-org/stories260K-GGUF", storiesCommit, files)
	return files
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestPullLayout pulls the default quant and checks the cache is laid out
// as huggingface_hub lays it out.
func TestPullLayout(t *testing.T) {
	h := newFakeHub(t)
	files := storiesRepo(t, h)
	c := h.client(t)
	ref, err := ParseRef("hf.co/ggml-org/stories260K-GGUF")
	require.NoError(t, err)
	m, err := c.Pull(context.Background(), ref)
	require.NoError(t, err)

	// No Q4_K_M file: the first fallback, Q4_0, is taken.
	assert.Equal(t, "Q4_0", m.Ref.Quant)
	assert.Equal(t, []string{"stories260K-Q4_0.gguf"}, m.Files)
	assert.False(t, m.FromCache)
	assert.Empty(t, m.MMProj)
	repoDir := filepath.Join(c.CacheDir, "models--ggml-org--stories260K-GGUF")
	assert.Equal(t, filepath.Join(repoDir, "snapshots", storiesCommit, "stories260K-Q4_0.gguf"), m.Path)
	got, err := os.ReadFile(m.Path)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(files["stories260K-Q4_0.gguf"], got), "the snapshot file holds the served bytes")
	link, err := os.Readlink(m.Path)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("..", "..", "blobs", sha(files["stories260K-Q4_0.gguf"])), link)
	ref2, err := os.ReadFile(filepath.Join(repoDir, "refs", "main"))
	require.NoError(t, err)
	assert.Equal(t, storiesCommit, string(ref2))
	blobs, err := os.ReadDir(filepath.Join(repoDir, "blobs"))
	require.NoError(t, err)
	require.Len(t, blobs, 1, "only the chosen file is downloaded, no .incomplete is left")
	assert.Equal(t, []string{"stories260K-Q4_0.gguf "}, h.resolves())

	// Cache reuse: a second pull asks the API for the commit and downloads nothing.
	m2, err := c.Pull(context.Background(), ref)
	require.NoError(t, err)
	assert.True(t, m2.FromCache)
	assert.Equal(t, m.Path, m2.Path)
	assert.Len(t, h.resolves(), 1)

	// A tag, matched case-insensitively.
	m3, err := c.Pull(context.Background(), Ref{Repo: ref.Repo, Quant: "q8_0"})
	require.NoError(t, err)
	assert.Equal(t, []string{"stories260K-Q8_0.gguf"}, m3.Files)
	list, err := c.List()
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, "stories260K-Q4_0.gguf", list[0].File)
	assert.Equal(t, int64(len(files["stories260K-Q4_0.gguf"])), list[0].Size)
	assert.True(t, list[0].Main)
}

// TestPullResume drops the connection mid-file: the client resumes with a
// range request, and the file is whole and checked.
func TestPullResume(t *testing.T) {
	h := newFakeHub(t)
	files := storiesRepo(t, h)
	h.dropAfter["stories260K-Q8_0.gguf"] = 100_000
	c := h.client(t)
	var last int64
	c.Progress = func(file string, done, total int64) {
		assert.Equal(t, "stories260K-Q8_0.gguf", file)
		assert.GreaterOrEqual(t, done, last, "progress only grows")
		assert.Equal(t, int64(len(files[file])), total)
		last = done
	}
	m, err := c.Pull(context.Background(), Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "Q8_0"})
	require.NoError(t, err)
	assert.Equal(t, []string{"stories260K-Q8_0.gguf ", "stories260K-Q8_0.gguf bytes=100000-"}, h.resolves())
	got, err := os.ReadFile(m.Path)
	require.NoError(t, err)
	assert.Equal(t, sha(files["stories260K-Q8_0.gguf"]), sha(got))
	assert.Equal(t, int64(len(got)), last)
}

// TestPullResumeAcrossRuns resumes what an interrupted earlier run left in
// blobs/<sha256>.incomplete, hashing that part first.
func TestPullResumeAcrossRuns(t *testing.T) {
	h := newFakeHub(t)
	files := storiesRepo(t, h)
	c := h.client(t)
	b := files["stories260K-F16.gguf"]
	blobs := filepath.Join(c.CacheDir, "models--ggml-org--stories260K-GGUF", "blobs")
	require.NoError(t, os.MkdirAll(blobs, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(blobs, sha(b)+".incomplete"), b[:12345], 0o644))
	m, err := c.Pull(context.Background(), Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "F16"})
	require.NoError(t, err)
	assert.Equal(t, []string{"stories260K-F16.gguf bytes=12345-"}, h.resolves())
	got, err := os.ReadFile(m.Path)
	require.NoError(t, err)
	assert.Equal(t, sha(b), sha(got))

	// A server that ignores the range sends the whole file: it restarts.
	h2 := newFakeHub(t)
	storiesRepo(t, h2)
	h2.noRange = true
	c2 := h2.client(t)
	blobs2 := filepath.Join(c2.CacheDir, "models--ggml-org--stories260K-GGUF", "blobs")
	require.NoError(t, os.MkdirAll(blobs2, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(blobs2, sha(b)+".incomplete"), b[:12345], 0o644))
	m2, err := c2.Pull(context.Background(), Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "F16"})
	require.NoError(t, err)
	got2, err := os.ReadFile(m2.Path)
	require.NoError(t, err)
	assert.Equal(t, sha(b), sha(got2))
}

// TestPullCorrupt: bytes that do not match the Hub's sha256 are removed and
// the pull fails naming both hashes; nothing enters the snapshot.
func TestPullCorrupt(t *testing.T) {
	h := newFakeHub(t)
	files := storiesRepo(t, h)
	h.corrupt["stories260K-Q4_0.gguf"] = true
	c := h.client(t)
	_, err := c.Pull(context.Background(), Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "Q4_0"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stories260K-Q4_0.gguf")
	assert.Contains(t, err.Error(), "the Hub's is "+sha(files["stories260K-Q4_0.gguf"]))
	repoDir := filepath.Join(c.CacheDir, "models--ggml-org--stories260K-GGUF")
	blobs, _ := os.ReadDir(filepath.Join(repoDir, "blobs"))
	assert.Empty(t, blobs, "the bad download is gone")
	_, err = os.Stat(filepath.Join(repoDir, "snapshots"))
	assert.True(t, os.IsNotExist(err))
	_, err = os.Stat(filepath.Join(repoDir, "refs", "main"))
	assert.True(t, os.IsNotExist(err), "refs/main is written only after a complete pull")

	// A file shorter than the Hub says: the tries run out with a clear error.
	h.corrupt["stories260K-Q4_0.gguf"] = false
	h.sizes["stories260K-Q4_0.gguf"] = int64(len(files["stories260K-Q4_0.gguf"])) + 10
	_, err = c.Pull(context.Background(), Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "Q4_0"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the file ends at 277024 bytes, before the 277034 the Hub lists")
}

// TestPullOffline reads only the cache: what was pulled is found with the
// Hub gone, and what was not is a clear error.
func TestPullOffline(t *testing.T) {
	h := newFakeHub(t)
	storiesRepo(t, h)
	c := h.client(t)
	ref := Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "Q8_0"}
	m, err := c.Pull(context.Background(), ref)
	require.NoError(t, err)
	h.srv.Close()

	off := &Client{Endpoint: h.srv.URL, CacheDir: c.CacheDir, Offline: true}
	m2, err := off.Pull(context.Background(), ref)
	require.NoError(t, err)
	assert.Equal(t, m.Path, m2.Path)
	assert.True(t, m2.FromCache)
	_, err = off.Pull(context.Background(), Ref{Repo: ref.Repo, Quant: "F16"})
	assert.ErrorContains(t, err, "has no F16 file")
	assert.ErrorContains(t, err, "only cached files were searched")
	_, err = off.Pull(context.Background(), Ref{Repo: "someone/else"})
	assert.ErrorContains(t, err, "hf.co/someone/else is not in the cache")

	// Online but the Hub is unreachable: the cache answers.
	m3, err := c.Pull(context.Background(), ref)
	require.NoError(t, err)
	assert.Equal(t, m.Path, m3.Path)
}

// TestPullErrors: an unknown repository or tag is named in the error.
func TestPullErrors(t *testing.T) {
	h := newFakeHub(t)
	storiesRepo(t, h)
	c := h.client(t)
	_, err := c.Pull(context.Background(), Ref{Repo: "nobody/nothing-GGUF"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "hf.co/nobody/nothing-GGUF")
	assert.Contains(t, err.Error(), "401 not found (a private or gated repository also needs HF_TOKEN)")
	_, err = c.Pull(context.Background(), Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "Q3_K_M"})
	assert.EqualError(t, err, "hub: hf.co/ggml-org/stories260K-GGUF:Q3_K_M has no Q3_K_M file; its GGUF files are stories260K-F16.gguf, stories260K-Q4_0.gguf, stories260K-Q8_0.gguf")

	h.add("evil/repo", storiesCommit, map[string][]byte{"../../escape.gguf": []byte("x")})
	_, err = c.Pull(context.Background(), Ref{Repo: "evil/repo"})
	assert.ErrorContains(t, err, `unsafe file name "../../escape.gguf"`)

	h.add("bad/hash", storiesCommit, map[string][]byte{"m-Q4_K_M.gguf": []byte("x")})
	h.hashes["m-Q4_K_M.gguf"] = "not-a-hash"
	_, err = c.Pull(context.Background(), Ref{Repo: "bad/hash"})
	assert.ErrorContains(t, err, `the Hub reports "not-a-hash" as its sha256`)
}

// TestPullSplitAndProjector picks every part of a split Q4_K_M model and
// the F16 projector, as llama.cpp's -hf does.
func TestPullSplitAndProjector(t *testing.T) {
	h := newFakeHub(t)
	h.add("org/Vision-GGUF", storiesCommit, map[string][]byte{
		"Vision-Q4_K_M-00001-of-00002.gguf": []byte("part one"),
		"Vision-Q4_K_M-00002-of-00002.gguf": []byte("part two"),
		"Vision-Q8_0.gguf":                  []byte("q8"),
		"mmproj-Vision-F32.gguf":            []byte("proj32"),
		"mmproj-Vision-F16.gguf":            []byte("proj16"),
	})
	c := h.client(t)
	m, err := c.Pull(context.Background(), Ref{Repo: "org/Vision-GGUF"})
	require.NoError(t, err)
	assert.Equal(t, "Q4_K_M", m.Ref.Quant)
	assert.Equal(t, []string{"Vision-Q4_K_M-00001-of-00002.gguf", "Vision-Q4_K_M-00002-of-00002.gguf"}, m.Files)
	require.Len(t, m.Parts, 2)
	assert.Equal(t, m.Parts[0], m.Path)
	for i, want := range []string{"part one", "part two"} {
		b, err := os.ReadFile(m.Parts[i])
		require.NoError(t, err)
		assert.Equal(t, want, string(b))
	}
	b, err := os.ReadFile(m.MMProj)
	require.NoError(t, err)
	assert.Equal(t, "proj16", string(b))
}

// TestFromEnv: HF_ENDPOINT, HF_TOKEN and HF_HOME configure the client as
// they configure huggingface_hub, and the token goes out as a Bearer.
func TestFromEnv(t *testing.T) {
	h := newFakeHub(t)
	storiesRepo(t, h)
	home := t.TempDir()
	t.Setenv("HF_ENDPOINT", h.srv.URL+"/")
	t.Setenv("HF_TOKEN", "hf_test_token")
	t.Setenv("HF_HOME", home)
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_HUB_OFFLINE", "")
	c := FromEnv()
	assert.Equal(t, h.srv.URL, c.Endpoint)
	assert.Equal(t, filepath.Join(home, "hub"), c.CacheDir)
	assert.False(t, c.Offline)
	_, err := c.Pull(context.Background(), Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "Q4_0"})
	require.NoError(t, err)
	require.NotEmpty(t, h.requests)
	for _, r := range h.requests {
		assert.Equal(t, "Bearer hf_test_token", r.Header.Get("Authorization"), r.URL.Path)
	}

	t.Setenv("HF_TOKEN", "")
	require.NoError(t, os.WriteFile(filepath.Join(home, "token"), []byte("hf_file_token\n"), 0o600))
	t.Setenv("HF_HUB_OFFLINE", "1")
	t.Setenv("HF_HUB_CACHE", filepath.Join(home, "elsewhere"))
	c = FromEnv()
	assert.Equal(t, "hf_file_token", c.Token)
	assert.True(t, c.Offline)
	assert.Equal(t, filepath.Join(home, "elsewhere"), c.CacheDir)
}

func TestParseRef(t *testing.T) {
	for in, want := range map[string]Ref{
		"hf.co/bartowski/Qwen2.5-0.5B-Instruct-GGUF":                 {Repo: "bartowski/Qwen2.5-0.5B-Instruct-GGUF"},
		"hf.co/unsloth/gemma-3-1b-it-GGUF:UD-Q4_K_XL":                {Repo: "unsloth/gemma-3-1b-it-GGUF", Quant: "UD-Q4_K_XL"},
		"huggingface.co/ggml-org/SmolLM3-3B-GGUF:q8_0":               {Repo: "ggml-org/SmolLM3-3B-GGUF", Quant: "q8_0"},
		"https://huggingface.co/Qwen/Qwen3-0.6B-GGUF":                {Repo: "Qwen/Qwen3-0.6B-GGUF"},
		"ggml-org/gemma-3-270m-it-GGUF:F16":                          {Repo: "ggml-org/gemma-3-270m-it-GGUF", Quant: "F16"},
		"HF.CO/TheBloke/TinyLlama-1.1B-Chat-v1.0-GGUF:Q4_K_M":        {Repo: "TheBloke/TinyLlama-1.1B-Chat-v1.0-GGUF", Quant: "Q4_K_M"},
		"hf://lmstudio-community/Llama-3.2-1B-Instruct-GGUF:Q6_K_L":  {Repo: "lmstudio-community/Llama-3.2-1B-Instruct-GGUF", Quant: "Q6_K_L"},
		"hf.co/mradermacher/Qwen2.5-0.5B-Instruct-i1-GGUF:i1-IQ4_XS": {Repo: "mradermacher/Qwen2.5-0.5B-Instruct-i1-GGUF", Quant: "i1-IQ4_XS"},
	} {
		got, err := ParseRef(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, in := range []string{"hf.co/", "hf.co/owner", "hf.co/a/b/c", "hf.co/../x", "hf.co/a/..", "hf.co/a/b:", "hf.co/a/b:../x", "hf.co/a--b/c", "hf.co/a/b c"} {
		_, err := ParseRef(in)
		assert.Error(t, err, in)
	}
	assert.True(t, IsRef("hf.co/a/b"))
	assert.False(t, IsRef("models/a.gguf"))
	assert.Equal(t, "hf.co/a/b:Q8_0", Ref{Repo: "a/b", Quant: "Q8_0"}.String())
}

// TestHasTag checks tags match whole words of real file names.
func TestHasTag(t *testing.T) {
	for _, tc := range []struct {
		name, tag string
		want      bool
	}{
		{"Qwen2.5-0.5B-Instruct-Q4_K_M.gguf", "Q4_K_M", true},
		{"qwen2.5-0.5b-instruct-q4_k_m.gguf", "Q4_K_M", true},
		{"Qwen2.5-0.5B-Instruct-Q4_K_M.gguf", "Q4_K", false},
		{"Qwen2.5-0.5B-Instruct-Q4_K_M.gguf", "K_M", false},
		{"Llama-3.2-1B-Instruct-Q4_0_4_4.gguf", "Q4_0", false}, // an ARM repack, another type
		{"gemma-3-1b-it-UD-Q4_K_XL.gguf", "UD-Q4_K_XL", true},
		{"gemma-3-1b-it-UD-Q4_K_XL.gguf", "Q4_K_XL", true},
		{"Q4_K_M/Big-Q4_K_M-00001-of-00002.gguf", "Q4_K_M", true},
		{"tinyllama-1.1b-chat-v1.0.Q4_K_M.gguf", "Q4_K_M", true},
		{"model-f16.gguf", "F16", true},
		{"model-bf16.gguf", "F16", false},
	} {
		assert.Equal(t, tc.want, hasTag(tc.name, tc.tag), "%s %s", tc.name, tc.tag)
	}
}
