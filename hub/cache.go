package hub

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// commitID is a git commit hash as the Hub reports it.
var commitID = regexp.MustCompile(`^[0-9a-f]{40}$`)

// blobID is a blob name: a sha256 (LFS files) or a git blob id.
var blobID = regexp.MustCompile(`^([0-9a-f]{64}|[0-9a-f]{40})$`)

// repoDir is the cache folder of a repository: models--OWNER--REPO.
func (c *Client) repoDir(repo string) string {
	return filepath.Join(c.CacheDir, "models--"+strings.ReplaceAll(repo, "/", "--"))
}

// checkFileName refuses a repository file name that would leave the
// snapshot folder or could not be a file name on disk.
func checkFileName(name string) error {
	if name == "" || len(name) > 1024 || strings.HasPrefix(name, "/") || strings.ContainsAny(name, "\\\x00:") {
		return fmt.Errorf("hub: unsafe file name %q", name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("hub: unsafe file name %q", name)
		}
	}
	return nil
}

// readRef returns the commit a cached ref (such as main) points to.
func (c *Client) readRef(repo, rev string) (string, error) {
	b, err := os.ReadFile(filepath.Join(c.repoDir(repo), "refs", rev))
	if err != nil {
		return "", err
	}
	commit := strings.TrimSpace(string(b))
	if !commitID.MatchString(commit) {
		return "", fmt.Errorf("hub: %s: refs/%s holds %q, not a commit", c.repoDir(repo), rev, commit)
	}
	return commit, nil
}

// writeRef records the commit a ref points to, as huggingface_hub does
// (the hash alone, no newline).
func (c *Client) writeRef(repo, rev, commit string) error {
	dir := filepath.Join(c.repoDir(repo), "refs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, rev), []byte(commit), 0o644)
}

// snapshotFiles lists the files of a cached snapshot whose blobs are
// present, as repository paths.
func (c *Client) snapshotFiles(repo, commit string) ([]string, error) {
	root := filepath.Join(c.repoDir(repo), "snapshots", commit)
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			return nil // a dangling link: the blob is gone
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	slices.Sort(files)
	return files, err
}

// link points snapshots/<commit>/<file> at the blob with a relative
// symlink, as huggingface_hub's _create_symlink does; where symlinks are
// not allowed it makes a hard link.
func (c *Client) link(repo, commit, file, blob string) (string, error) {
	dst := filepath.Join(c.repoDir(repo), "snapshots", commit, filepath.FromSlash(file))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return "", err
	}
	rel, err := filepath.Rel(filepath.Dir(dst), blob)
	if err != nil {
		return "", err
	}
	if cur, err := os.Readlink(dst); err == nil && cur == rel {
		return dst, nil
	}
	if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err := os.Symlink(rel, dst); err != nil {
		if lerr := os.Link(blob, dst); lerr != nil {
			return "", fmt.Errorf("hub: linking %s: %w", dst, err)
		}
	}
	return dst, nil
}

// Cached is one GGUF file in the cache.
type Cached struct {
	Repo   string // OWNER/REPO
	Commit string
	File   string // the path in the repository
	Path   string // the path on disk
	Size   int64
	Main   bool // the snapshot is the one refs/main points to
}

// List returns the GGUF files in the cache, by repository and file name.
// Projector files (mmproj) are included; parts of a split model are
// listed one by one.
func (c *Client) List() ([]Cached, error) {
	dirs, err := os.ReadDir(c.CacheDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	var out []Cached
	for _, d := range dirs {
		name, ok := strings.CutPrefix(d.Name(), "models--")
		if !ok || !d.IsDir() {
			continue
		}
		owner, repoName, ok := strings.Cut(name, "--")
		if !ok {
			continue
		}
		repo := owner + "/" + repoName
		main, _ := c.readRef(repo, "main")
		snaps, err := os.ReadDir(filepath.Join(c.CacheDir, d.Name(), "snapshots"))
		if err != nil {
			continue
		}
		for _, s := range snaps {
			files, err := c.snapshotFiles(repo, s.Name())
			if err != nil {
				return nil, fmt.Errorf("hub: %w", err)
			}
			for _, f := range files {
				if !isGGUF(f) {
					continue
				}
				p := filepath.Join(c.repoDir(repo), "snapshots", s.Name(), filepath.FromSlash(f))
				st, err := os.Stat(p)
				if err != nil {
					continue
				}
				out = append(out, Cached{Repo: repo, Commit: s.Name(), File: f, Path: p, Size: st.Size(), Main: s.Name() == main})
			}
		}
	}
	return out, nil
}
