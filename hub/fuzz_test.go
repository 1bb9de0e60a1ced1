package hub

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzPick feeds names and file lists such as a Hub's API could send:
// a parsed reference prints back to itself and its cache folder stays in
// the cache; a pick names only GGUF files of the list, its parts in order.
func FuzzPick(f *testing.F) {
	f.Add("hf.co/bartowski/Qwen2.5-0.5B-Instruct-GGUF:Q4_K_M", "Qwen2.5-0.5B-Instruct-Q4_K_M.gguf\nQwen2.5-0.5B-Instruct-Q8_0.gguf\nREADME.md")
	f.Add("org/Vision-GGUF", "Vision-Q4_K_M-00001-of-00002.gguf\nVision-Q4_K_M-00002-of-00002.gguf\nmmproj-Vision-F16.gguf")
	f.Add("hf.co/a/b:q8_0", "Q8_0/x-Q8_0-00001-of-00003.gguf\nQ8_0/x-Q8_0-00003-of-00003.gguf\nmmproj.gguf")
	f.Add("hf.co/x/y", "")
	f.Add("0/0", "-00000-of-00000.gguf") // a split of zero parts
	f.Fuzz(func(t *testing.T, spec, list string) {
		ref, err := ParseRef(spec)
		if err != nil {
			return
		}
		again, err := ParseRef(ref.String())
		if err != nil || again != ref {
			t.Fatalf("ParseRef(%q) = %+v, which prints as %q and parses to %+v, %v", spec, ref, ref.String(), again, err)
		}
		c := &Client{CacheDir: "/cache/hub"}
		if dir := c.repoDir(ref.Repo); filepath.Dir(dir) != "/cache/hub" {
			t.Fatalf("the cache folder of %q is %s, outside the cache", ref.Repo, dir)
		}
		files := strings.Split(list, "\n")
		ch, err := pick(ref, files)
		if err != nil {
			return
		}
		if len(ch.model) == 0 {
			t.Fatal("a pick without a model file")
		}
		for i, m := range ch.model {
			if !slices.Contains(files, m) || !isGGUF(m) || isMMProj(m) {
				t.Fatalf("picked %q, not a model file of the list", m)
			}
			if len(ch.model) > 1 {
				sm := splitPart.FindStringSubmatch(m)
				if sm == nil || sm[2] != fmt.Sprintf("%05d", i+1) || sm[3] != fmt.Sprintf("%05d", len(ch.model)) {
					t.Fatalf("part %d of %d is %q", i+1, len(ch.model), m)
				}
			}
		}
		if ref.Quant != "" && !hasTag(ch.model[0], ref.Quant) {
			t.Fatalf("asked for %s, picked %q", ref.Quant, ch.model[0])
		}
		if ch.mmproj != "" && (!slices.Contains(files, ch.mmproj) || !isMMProj(ch.mmproj) || !isGGUF(ch.mmproj)) {
			t.Fatalf("picked projector %q", ch.mmproj)
		}
	})
}
