// Package hub fetches GGUF models from the Hugging Face Hub into the cache
// the Hub's own clients use, so litert-go, huggingface-cli and llama.cpp
// share one copy of each file.
//
// A model is named as llama.cpp's -hf flag names it: hf.co/OWNER/REPO with
// an optional :QUANT tag (Q4_K_M when absent). The cache is laid out as
// huggingface_hub's file_download.py lays it out
// (https://github.com/huggingface/huggingface_hub/blob/main/src/huggingface_hub/file_download.py):
//
//	$HF_HUB_CACHE/models--OWNER--REPO/
//	  blobs/<sha256>                       the file's bytes, named by its LFS hash
//	  blobs/<sha256>.incomplete            a download in progress (resumed with HTTP ranges)
//	  snapshots/<commit>/<file>            a relative symlink to ../../blobs/<sha256>
//	  refs/main                            the commit main pointed to at the last pull
package hub

import (
	"fmt"
	"regexp"
	"strings"
)

// Ref names a model on the Hub: a repository and a quantization tag.
type Ref struct {
	Repo  string // OWNER/REPO
	Quant string // such as "Q4_K_M"; "" picks the default
}

// DefaultQuant is the tag pulled when a reference names none, as in
// llama.cpp's -hf.
const DefaultQuant = "Q4_K_M"

// prefixes are the spellings of the Hub's host a reference may start with.
var prefixes = []string{"hf.co/", "huggingface.co/", "https://hf.co/", "https://huggingface.co/", "hf://"}

// repoPart is one half of a repository id, as the Hub allows it.
var repoPart = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,95}$`)

// quantTag is a quantization tag such as Q4_K_M, IQ4_XS, UD-Q4_K_XL or F16.
var quantTag = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$`)

// IsRef reports whether s is spelled as a Hub reference (hf.co/…), not a
// file path.
func IsRef(s string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(strings.ToLower(s), p) {
			return true
		}
	}
	return false
}

// ParseRef parses [hf.co/]OWNER/REPO[:QUANT].
func ParseRef(s string) (Ref, error) {
	rest := s
	for _, p := range prefixes {
		if strings.HasPrefix(strings.ToLower(rest), p) {
			rest = rest[len(p):]
			break
		}
	}
	repo, quant, hasQuant := strings.Cut(rest, ":")
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || strings.Contains(name, "/") {
		return Ref{}, fmt.Errorf("hub: %q: want hf.co/OWNER/REPO[:QUANT]", s)
	}
	for _, part := range []string{owner, name} {
		if !repoPart.MatchString(part) || strings.Contains(part, "..") || strings.Contains(part, "--") {
			return Ref{}, fmt.Errorf("hub: %q: %q is not a valid repository name part", s, part)
		}
	}
	if hasQuant && !quantTag.MatchString(quant) {
		return Ref{}, fmt.Errorf("hub: %q: %q is not a quantization tag (such as Q4_K_M)", s, quant)
	}
	return Ref{Repo: owner + "/" + name, Quant: quant}, nil
}

// String returns the reference as hf.co/OWNER/REPO[:QUANT].
func (r Ref) String() string {
	if r.Quant == "" {
		return "hf.co/" + r.Repo
	}
	return "hf.co/" + r.Repo + ":" + r.Quant
}
