package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/litert-go/litert-go/conversation"
)

// Limits of media fetched from http(s) URLs (Config.AllowRemoteMedia).
const (
	// RemoteMediaTimeout bounds one fetch, redirects and body included.
	RemoteMediaTimeout = 10 * time.Second
	// RemoteMediaRedirects is the most redirects one fetch follows.
	RemoteMediaRedirects = 3
)

// audioFormats are the input_audio formats accepted (OpenAI's "wav" and
// "mp3", and FLAC).
var audioFormats = map[string]bool{"wav": true, "mp3": true, "flac": true}

// newMediaClient returns the HTTP client fetching remote image_url URLs:
// a bounded number of redirects, each to http or https.
func newMediaClient() *http.Client {
	return &http.Client{
		Timeout: RemoteMediaTimeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > RemoteMediaRedirects {
				return fmt.Errorf("more than %d redirects", RemoteMediaRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to a %q URL", req.URL.Scheme)
			}
			return nil
		},
	}
}

// mediaSource reads the media of a request's content parts: data: URLs
// always, http(s) URLs only through client (nil: refused), within ctx.
type mediaSource struct {
	ctx    context.Context
	client *http.Client
}

// image returns the bytes of an image_url part's URL.
func (m mediaSource) image(u string) ([]byte, error) {
	if strings.HasPrefix(u, "data:") {
		return dataURL(u)
	}
	if m.client == nil {
		return nil, fmt.Errorf("only base64 data: URLs are accepted (the server does not fetch %.40q unless started with --allow-remote-media)", u)
	}
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return nil, fmt.Errorf("want a data:, http: or https: URL, got %.40q", u)
	}
	ctx, cancel := context.WithTimeout(m.ctx, RemoteMediaTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pu.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("fetching %.60q: %w", u, err)
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching %.60q: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching %.60q: status %s", u, resp.Status)
	}
	if resp.ContentLength > conversation.MaxMediaBytes {
		return nil, fmt.Errorf("fetching %.60q: %d bytes is over the %d-byte limit", u, resp.ContentLength, conversation.MaxMediaBytes)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, conversation.MaxMediaBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetching %.60q: %w", u, err)
	}
	if len(data) > conversation.MaxMediaBytes {
		return nil, fmt.Errorf("fetching %.60q: the body is over the %d-byte limit", u, conversation.MaxMediaBytes)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("fetching %.60q: empty body", u)
	}
	return data, nil
}

// audio returns the bytes of an input_audio part: base64 data in one of
// audioFormats ("" lets the bytes tell).
func audio(data, format string) ([]byte, error) {
	if format != "" && !audioFormats[format] {
		return nil, fmt.Errorf("audio format %q is not supported (want wav, mp3 or flac)", format)
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("audio data is not base64: %w", err)
	}
	if format != "" {
		if got := conversation.AudioFormat(b); got != format {
			if got == "" {
				return nil, fmt.Errorf("audio data is not %s (no known header)", format)
			}
			return nil, fmt.Errorf("audio data is %s, not %s as format says", got, format)
		}
	}
	return b, nil
}

// dataURL decodes a base64 data: URL.
func dataURL(u string) ([]byte, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return nil, errors.New("not a data: URL")
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return nil, fmt.Errorf("the data: URL must be base64 (data:image/png;base64,...)")
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return nil, fmt.Errorf("the data: URL is not valid base64: %w", err)
	}
	return data, nil
}
