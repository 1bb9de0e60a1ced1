package hub

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/litert-go/litert-go/hub/hubtest"
)

func newFakeHub(t *testing.T) *hubtest.Server {
	h := hubtest.NewServer()
	t.Cleanup(h.Close)
	return h
}

func client(t *testing.T, h *hubtest.Server) *Client {
	return &Client{Endpoint: h.URL, CacheDir: filepath.Join(t.TempDir(), "hub")}
}

const storiesCommit = "0123456789abcdef0123456789abcdef01234567"

// storiesRepo serves the real stories260K files of the test data as a
// GGUF repository would hold them.
func storiesRepo(t *testing.T, h *hubtest.Server) map[string][]byte {
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
	h.Add("ggml-org/stories260K-GGUF", storiesCommit, files)
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
	c := client(t, h)
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
	assert.Equal(t, []string{"stories260K-Q4_0.gguf "}, h.Downloads())

	// Cache reuse: a second pull asks the API for the commit and downloads nothing.
	m2, err := c.Pull(context.Background(), ref)
	require.NoError(t, err)
	assert.True(t, m2.FromCache)
	assert.Equal(t, m.Path, m2.Path)
	assert.Len(t, h.Downloads(), 1)

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
	h.DropAfter("stories260K-Q8_0.gguf", 100_000)
	c := client(t, h)
	var last int64
	c.Progress = func(file string, done, total int64) {
		assert.Equal(t, "stories260K-Q8_0.gguf", file)
		assert.GreaterOrEqual(t, done, last, "progress only grows")
		assert.Equal(t, int64(len(files[file])), total)
		last = done
	}
	m, err := c.Pull(context.Background(), Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "Q8_0"})
	require.NoError(t, err)
	assert.Equal(t, []string{"stories260K-Q8_0.gguf ", "stories260K-Q8_0.gguf bytes=100000-"}, h.Downloads())
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
	c := client(t, h)
	b := files["stories260K-F16.gguf"]
	blobs := filepath.Join(c.CacheDir, "models--ggml-org--stories260K-GGUF", "blobs")
	require.NoError(t, os.MkdirAll(blobs, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(blobs, sha(b)+".incomplete"), b[:12345], 0o644))
	m, err := c.Pull(context.Background(), Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "F16"})
	require.NoError(t, err)
	assert.Equal(t, []string{"stories260K-F16.gguf bytes=12345-"}, h.Downloads())
	got, err := os.ReadFile(m.Path)
	require.NoError(t, err)
	assert.Equal(t, sha(b), sha(got))

	// A server that ignores the range sends the whole file: it restarts.
	h2 := newFakeHub(t)
	storiesRepo(t, h2)
	h2.IgnoreRange(true)
	c2 := client(t, h2)
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
	h.Corrupt("stories260K-Q4_0.gguf", true)
	c := client(t, h)
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
	h.Corrupt("stories260K-Q4_0.gguf", false)
	h.ReportSize("stories260K-Q4_0.gguf", int64(len(files["stories260K-Q4_0.gguf"]))+10)
	_, err = c.Pull(context.Background(), Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "Q4_0"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the file ends at 277024 bytes, before the 277034 the Hub lists")
}

// TestPullOffline reads only the cache: what was pulled is found with the
// Hub gone, and what was not is a clear error.
func TestPullOffline(t *testing.T) {
	h := newFakeHub(t)
	storiesRepo(t, h)
	c := client(t, h)
	ref := Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "Q8_0"}
	m, err := c.Pull(context.Background(), ref)
	require.NoError(t, err)
	h.Close()

	off := &Client{Endpoint: h.URL, CacheDir: c.CacheDir, Offline: true}
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
	c := client(t, h)
	_, err := c.Pull(context.Background(), Ref{Repo: "nobody/nothing-GGUF"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "hf.co/nobody/nothing-GGUF")
	assert.Contains(t, err.Error(), "401 not found (a private or gated repository also needs HF_TOKEN)")
	_, err = c.Pull(context.Background(), Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "Q3_K_M"})
	assert.EqualError(t, err, "hub: hf.co/ggml-org/stories260K-GGUF:Q3_K_M has no Q3_K_M file; its GGUF files are stories260K-F16.gguf, stories260K-Q4_0.gguf, stories260K-Q8_0.gguf")

	h.Add("evil/repo", storiesCommit, map[string][]byte{"../../escape.gguf": []byte("x")})
	_, err = c.Pull(context.Background(), Ref{Repo: "evil/repo"})
	assert.ErrorContains(t, err, `unsafe file name "../../escape.gguf"`)

	h.Add("bad/hash", storiesCommit, map[string][]byte{"m-Q4_K_M.gguf": []byte("x")})
	h.ReportHash("m-Q4_K_M.gguf", "not-a-hash")
	_, err = c.Pull(context.Background(), Ref{Repo: "bad/hash"})
	assert.ErrorContains(t, err, `the Hub reports "not-a-hash" as its sha256`)
}

// TestPullSplitAndProjector picks every part of a split Q4_K_M model and
// the F16 projector, as llama.cpp's -hf does.
func TestPullSplitAndProjector(t *testing.T) {
	h := newFakeHub(t)
	h.Add("org/Vision-GGUF", storiesCommit, map[string][]byte{
		"Vision-Q4_K_M-00001-of-00002.gguf": []byte("part one"),
		"Vision-Q4_K_M-00002-of-00002.gguf": []byte("part two"),
		"Vision-Q8_0.gguf":                  []byte("q8"),
		"mmproj-Vision-F32.gguf":            []byte("proj32"),
		"mmproj-Vision-F16.gguf":            []byte("proj16"),
	})
	c := client(t, h)
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
	t.Setenv("HF_ENDPOINT", h.URL+"/")
	t.Setenv("HF_TOKEN", "hf_test_token")
	t.Setenv("HF_HOME", home)
	t.Setenv("HF_HUB_CACHE", "")
	t.Setenv("HF_HUB_OFFLINE", "")
	c := FromEnv()
	assert.Equal(t, h.URL, c.Endpoint)
	assert.Equal(t, filepath.Join(home, "hub"), c.CacheDir)
	assert.False(t, c.Offline)
	_, err := c.Pull(context.Background(), Ref{Repo: "ggml-org/stories260K-GGUF", Quant: "Q4_0"})
	require.NoError(t, err)
	require.NotEmpty(t, h.Requests())
	for _, r := range h.Requests() {
		assert.Equal(t, "Bearer hf_test_token", r.Authorization, r.Path)
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
