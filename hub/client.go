package hub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DefaultEndpoint is the Hub's address when HF_ENDPOINT is unset.
const DefaultEndpoint = "https://huggingface.co"

// Limits on what the Hub's API may send.
const (
	maxInfoBytes = 32 << 20 // the JSON file list of one revision
	maxFiles     = 100_000  // files in one revision
	maxAttempts  = 5        // tries of one file download, each resuming the last
)

// Client pulls models from the Hub into the cache. The zero value is not
// usable: start from FromEnv.
type Client struct {
	Endpoint string       // the Hub's base URL, such as https://huggingface.co
	Token    string       // sent as "Authorization: Bearer" when not empty
	CacheDir string       // the hub cache: $HF_HUB_CACHE, or $HF_HOME/hub
	Offline  bool         // use only the cache (HF_HUB_OFFLINE=1)
	HTTP     *http.Client // nil: a client with header timeouts

	// Progress, if not nil, is called as a file downloads: done of total
	// bytes of the file (total 0 if unknown). It is called from the
	// goroutine that called Pull.
	Progress func(file string, done, total int64)
}

// FromEnv returns a client configured as huggingface_hub configures itself:
// HF_ENDPOINT, HF_TOKEN (else the token file $HF_HOME/token), HF_HOME
// (default $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface),
// HF_HUB_CACHE and HF_HUB_OFFLINE.
func FromEnv() *Client {
	c := &Client{Endpoint: strings.TrimRight(os.Getenv("HF_ENDPOINT"), "/")}
	if c.Endpoint == "" {
		c.Endpoint = DefaultEndpoint
	}
	home := os.Getenv("HF_HOME")
	if home == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			if h, err := os.UserHomeDir(); err == nil {
				cache = filepath.Join(h, ".cache")
			}
		}
		home = filepath.Join(cache, "huggingface")
	}
	c.CacheDir = os.Getenv("HF_HUB_CACHE")
	if c.CacheDir == "" {
		c.CacheDir = filepath.Join(home, "hub")
	}
	c.Token = os.Getenv("HF_TOKEN")
	if c.Token == "" {
		if b, err := os.ReadFile(filepath.Join(home, "token")); err == nil {
			c.Token = strings.TrimSpace(string(b))
		}
	}
	switch strings.ToLower(os.Getenv("HF_HUB_OFFLINE")) {
	case "1", "true", "yes", "on":
		c.Offline = true
	}
	return c
}

// Model is a pulled model: paths in the cache's snapshot folder.
type Model struct {
	Ref       Ref
	Commit    string
	Files     []string // the repository paths of the model's file or parts
	Path      string   // the local path of the model (its first part)
	Parts     []string // the local paths of all its parts
	MMProj    string   // the local path of the projector, "" if none
	FromCache bool     // nothing was downloaded
}

// sibling is one file of a revision as the Hub's API lists it.
type sibling struct {
	Name   string `json:"rfilename"`
	Size   int64  `json:"size"`
	BlobID string `json:"blobId"`
	LFS    *struct {
		SHA256 string `json:"sha256"`
		Size   int64  `json:"size"`
	} `json:"lfs"`
}

// revisionInfo is GET /api/models/{repo}/revision/{rev}?blobs=true.
type revisionInfo struct {
	SHA      string    `json:"sha"`
	Siblings []sibling `json:"siblings"`
}

// HTTPError is a failed request to the Hub.
type HTTPError struct {
	URL    string
	Status int
	Code   string // the Hub's X-Error-Code, such as "RepoNotFound" or "GatedRepo"
	Msg    string // the Hub's X-Error-Message
}

func (e *HTTPError) Error() string {
	var why string
	switch {
	case e.Code == "GatedRepo":
		why = "the repository is gated: accept its terms on the Hub and set HF_TOKEN"
	case e.Code == "RepoNotFound" || e.Status == http.StatusNotFound:
		why = "not found (a private or gated repository also needs HF_TOKEN)"
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		why = "not allowed: set HF_TOKEN to a token that can read it"
	default:
		why = http.StatusText(e.Status)
	}
	if e.Msg != "" {
		why += " (" + e.Msg + ")"
	}
	return fmt.Sprintf("%s: %d %s", e.URL, e.Status, why)
}

// Pull resolves a reference and downloads what is not yet cached: the
// model's file (or every part of a split one) and the repository's
// projector, if any. With Offline set, only the cache is read. When the Hub
// cannot be reached and the cache holds the reference, the cached files
// are used.
func (c *Client) Pull(ctx context.Context, ref Ref) (*Model, error) {
	if c.Offline {
		return c.cached(ref)
	}
	info, err := c.revision(ctx, ref.Repo, "main")
	if err != nil {
		var herr *HTTPError
		if !errors.As(err, &herr) && ctx.Err() == nil {
			if m, cerr := c.cached(ref); cerr == nil {
				return m, nil // the Hub is unreachable; the cache answers
			}
		}
		return nil, fmt.Errorf("hub: %s: %w", ref, err)
	}
	names := make([]string, len(info.Siblings))
	byName := make(map[string]sibling, len(info.Siblings))
	for i, s := range info.Siblings {
		names[i] = s.Name
		byName[s.Name] = s
	}
	ch, err := pick(ref, names)
	if err != nil {
		return nil, err
	}
	m := &Model{Ref: ref, Commit: info.SHA, Files: ch.model, FromCache: true}
	m.Ref.Quant = ch.quant
	want := ch.model
	if ch.mmproj != "" {
		want = append(want[:len(want):len(want)], ch.mmproj)
	}
	var local []string
	for _, name := range want {
		p, fetched, err := c.fetch(ctx, ref.Repo, info.SHA, byName[name])
		if err != nil {
			return nil, fmt.Errorf("hub: %s: %s: %w", ref, name, err)
		}
		m.FromCache = m.FromCache && !fetched
		local = append(local, p)
	}
	if err := c.writeRef(ref.Repo, "main", info.SHA); err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	m.Parts = local[:len(ch.model)]
	m.Path = m.Parts[0]
	if ch.mmproj != "" {
		m.MMProj = local[len(local)-1]
	}
	return m, nil
}

// cached resolves a reference from the cache alone.
func (c *Client) cached(ref Ref) (*Model, error) {
	commit, err := c.readRef(ref.Repo, "main")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("hub: %s is not in the cache %s (offline: pull it once online)", ref, c.CacheDir)
	}
	if err != nil {
		return nil, err
	}
	files, err := c.snapshotFiles(ref.Repo, commit)
	if err != nil {
		return nil, fmt.Errorf("hub: %s: %w", ref, err)
	}
	ch, err := pick(ref, files)
	if err != nil {
		return nil, fmt.Errorf("%w (offline: only cached files were searched)", err)
	}
	snap := filepath.Join(c.repoDir(ref.Repo), "snapshots", commit)
	m := &Model{Ref: ref, Commit: commit, Files: ch.model, FromCache: true}
	m.Ref.Quant = ch.quant
	for _, f := range ch.model {
		m.Parts = append(m.Parts, filepath.Join(snap, filepath.FromSlash(f)))
	}
	m.Path = m.Parts[0]
	if ch.mmproj != "" {
		m.MMProj = filepath.Join(snap, filepath.FromSlash(ch.mmproj))
	}
	return m, nil
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 60 * time.Second
	return &http.Client{Transport: t}
}

func (c *Client) newRequest(ctx context.Context, method, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "litert-go")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	return req, nil
}

// repoPath escapes OWNER/REPO for a URL path.
func repoPath(repo string) string {
	owner, name, _ := strings.Cut(repo, "/")
	return url.PathEscape(owner) + "/" + url.PathEscape(name)
}

// revision fetches a revision's commit and file list with LFS hashes.
func (c *Client) revision(ctx context.Context, repo, rev string) (*revisionInfo, error) {
	u := c.Endpoint + "/api/models/" + repoPath(repo) + "/revision/" + url.PathEscape(rev) + "?blobs=true"
	req, err := c.newRequest(ctx, http.MethodGet, u)
	if err != nil {
		return nil, err
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, httpError(u, resp)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxInfoBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	if len(b) > maxInfoBytes {
		return nil, fmt.Errorf("%s: the file list is over %d MiB", u, maxInfoBytes>>20)
	}
	var info revisionInfo
	if err := json.Unmarshal(b, &info); err != nil {
		return nil, fmt.Errorf("%s: %w", u, err)
	}
	if !commitID.MatchString(info.SHA) {
		return nil, fmt.Errorf("%s: the commit %q is not a 40-digit hash", u, info.SHA)
	}
	if len(info.Siblings) > maxFiles {
		return nil, fmt.Errorf("%s: %d files, more than %d", u, len(info.Siblings), maxFiles)
	}
	for _, s := range info.Siblings {
		if err := checkFileName(s.Name); err != nil {
			return nil, fmt.Errorf("%s: %w", u, err)
		}
	}
	return &info, nil
}

func httpError(u string, resp *http.Response) error {
	return &HTTPError{URL: u, Status: resp.StatusCode, Code: resp.Header.Get("X-Error-Code"), Msg: resp.Header.Get("X-Error-Message")}
}

// blobOf returns the name a file's blob gets and the hash that checks it:
// the LFS sha256 for large files, else the git blob id (a sha1 of
// "blob <size>\x00" and the bytes).
func blobOf(s sibling) (name string, size int64, newHash func() hash.Hash, err error) {
	if s.LFS != nil {
		name, size = strings.ToLower(s.LFS.SHA256), s.LFS.Size
		if len(name) != 64 || !blobID.MatchString(name) {
			return "", 0, nil, fmt.Errorf("the Hub reports %q as its sha256", s.LFS.SHA256)
		}
		return name, size, sha256.New, nil
	}
	name, size = strings.ToLower(s.BlobID), s.Size
	if len(name) != 40 || !blobID.MatchString(name) {
		return "", 0, nil, fmt.Errorf("the Hub reports neither a sha256 nor a blob id (%q)", s.BlobID)
	}
	return name, size, func() hash.Hash {
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", size)
		return h
	}, nil
}

// fetch makes sure one file is in the cache and linked into the snapshot,
// downloading (or resuming) it if its blob is absent. It reports whether
// it downloaded anything.
func (c *Client) fetch(ctx context.Context, repo, commit string, s sibling) (path string, fetched bool, err error) {
	name, size, newHash, err := blobOf(s)
	if err != nil {
		return "", false, err
	}
	if size < 0 {
		return "", false, fmt.Errorf("the Hub reports a size of %d", size)
	}
	blobs := filepath.Join(c.repoDir(repo), "blobs")
	blob := filepath.Join(blobs, name)
	if st, err := os.Stat(blob); err != nil || st.Size() != size {
		if err := os.MkdirAll(blobs, 0o755); err != nil {
			return "", false, err
		}
		u := c.Endpoint + "/" + repoPath(repo) + "/resolve/" + commit + "/" + escapePath(s.Name)
		if err := c.download(ctx, u, s.Name, blob, size, newHash, name); err != nil {
			return "", false, err
		}
		fetched = true
	}
	path, err = c.link(repo, commit, s.Name, blob)
	return path, fetched, err
}

// partial is a download in progress: the .incomplete file, its length and
// the hash of what it holds.
type partial struct {
	f       *os.File
	n       int64
	h       hash.Hash
	newHash func() hash.Hash
}

func (p *partial) Write(b []byte) (int, error) {
	n, err := p.f.Write(b)
	p.h.Write(b[:n])
	p.n += int64(n)
	return n, err
}

// reset empties the file, for a server that ignores ranges.
func (p *partial) reset() error {
	p.n, p.h = 0, p.newHash()
	if err := p.f.Truncate(0); err != nil {
		return err
	}
	_, err := p.f.Seek(0, io.SeekStart)
	return err
}

// download writes u to blob+".incomplete", resuming what an earlier try
// left there with an HTTP range, checks the hash and renames the file into
// place. A connection that drops mid-file is resumed; maxAttempts tries in
// a row that get no byte end it.
func (c *Client) download(ctx context.Context, u, file, blob string, size int64, newHash func() hash.Hash, want string) error {
	name := blob + ".incomplete"
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	p := &partial{f: f, h: newHash(), newHash: newHash}
	if p.n, err = io.Copy(p.h, f); err != nil { // hash what an earlier try left
		return err
	}
	if p.n > size {
		if err := p.reset(); err != nil {
			return err
		}
	}
	var lastErr error
	for fails := 0; p.n < size && fails < maxAttempts; {
		before := p.n
		err := c.getRange(ctx, u, file, p, size)
		if err == nil {
			break
		}
		var herr *HTTPError
		if errors.As(err, &herr) || ctx.Err() != nil {
			return err
		}
		lastErr = err
		if p.n > before {
			fails = 0
		} else {
			fails++
		}
	}
	if p.n < size {
		if lastErr == nil {
			lastErr = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("%s: %d of %d bytes after %d tries in a row without progress: %w", u, p.n, size, maxAttempts, lastErr)
	}
	if got := hex.EncodeToString(p.h.Sum(nil)); got != want {
		f.Close()
		os.Remove(name)
		return fmt.Errorf("the downloaded file's hash is %s but the Hub's is %s: it was removed; pull again", got, want)
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(name, blob)
}

// getRange appends bytes [p.n, size) of u to p. A server that ignores the
// range sends the whole file, which restarts p.
func (c *Client) getRange(ctx context.Context, u, file string, p *partial, size int64) error {
	req, err := c.newRequest(ctx, http.MethodGet, u)
	if err != nil {
		return err
	}
	if p.n > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(p.n, 10)+"-")
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusPartialContent:
		if start, ok := rangeStart(resp.Header.Get("Content-Range")); !ok || start != p.n {
			return fmt.Errorf("%s: asked for bytes from %d, got Content-Range %q", u, p.n, resp.Header.Get("Content-Range"))
		}
	case http.StatusOK:
		if p.n > 0 {
			if err := p.reset(); err != nil {
				return err
			}
		}
	case http.StatusRequestedRangeNotSatisfiable:
		return fmt.Errorf("%w: the file ends at %d bytes, before the %d the Hub lists", httpError(u, resp), p.n, size)
	default:
		return httpError(u, resp)
	}
	buf := make([]byte, 1<<20)
	for p.n < size {
		n, rerr := resp.Body.Read(buf[:min(int64(len(buf)), size-p.n)])
		if n > 0 {
			if _, err := p.Write(buf[:n]); err != nil {
				return err
			}
			if c.Progress != nil {
				c.Progress(file, p.n, size)
			}
		}
		if rerr == io.EOF && p.n < size {
			return io.ErrUnexpectedEOF
		}
		if rerr != nil && rerr != io.EOF {
			return rerr
		}
	}
	return nil
}

// rangeStart reads the first byte of a Content-Range: "bytes 100-199/200".
func rangeStart(v string) (int64, bool) {
	v, ok := strings.CutPrefix(v, "bytes ")
	if !ok {
		return 0, false
	}
	s, _, ok := strings.Cut(v, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// escapePath escapes each segment of a repository path.
func escapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return strings.Join(parts, "/")
}
