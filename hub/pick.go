package hub

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// fallbackQuants are tried, in order, when a reference names no tag and the
// repository has no DefaultQuant file; then the first GGUF file is taken,
// as llama.cpp's -hf does.
var fallbackQuants = []string{DefaultQuant, "Q4_0", "Q8_0"}

// splitPart matches the name of one part of a split GGUF file, as
// llama.cpp's gguf-split writes it: NAME-00001-of-00003.gguf.
var splitPart = regexp.MustCompile(`^(.*)-(\d{5})-of-(\d{5})\.gguf$`)

// choice is the files a reference resolves to.
type choice struct {
	model  []string // the model's GGUF file, or its parts in order
	mmproj string   // the multimodal projector, "" if the repository has none
	quant  string   // the tag that matched
}

func isGGUF(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".gguf") }

func isMMProj(name string) bool {
	return strings.Contains(strings.ToLower(path.Base(name)), "mmproj")
}

// hasTag reports whether a file name carries the tag as a whole word,
// between '-', '.' or '/' (tags hold '_'): Q4_K matches model-Q4_K.gguf,
// not model-Q4_K_M.gguf. Case is ignored.
func hasTag(name, tag string) bool {
	stem := strings.ToLower(strings.TrimSuffix(name, path.Ext(name)))
	tag = strings.ToLower(tag)
	for i := 0; ; {
		j := strings.Index(stem[i:], tag)
		if j < 0 {
			return false
		}
		j += i
		before := j == 0 || strings.ContainsRune("-./", rune(stem[j-1]))
		end := j + len(tag)
		after := end == len(stem) || strings.ContainsRune("-.", rune(stem[end]))
		if before && after {
			return true
		}
		i = j + 1
	}
}

// pick chooses the files of a reference from a repository's file list.
func pick(ref Ref, files []string) (choice, error) {
	var models, projs []string
	for _, f := range files {
		switch {
		case !isGGUF(f):
		case isMMProj(f):
			projs = append(projs, f)
		default:
			models = append(models, f)
		}
	}
	slices.Sort(models)
	slices.Sort(projs)
	if len(models) == 0 {
		return choice{}, fmt.Errorf("hub: %s has no GGUF model file (%d files)", ref, len(files))
	}
	tags := []string{ref.Quant}
	if ref.Quant == "" {
		tags = fallbackQuants
	}
	var c choice
	for _, tag := range tags {
		for _, m := range models {
			if hasTag(m, tag) {
				c.quant = tag
				c.model = parts(m, models)
				break
			}
		}
		if c.model != nil {
			break
		}
	}
	if c.model == nil {
		if ref.Quant != "" {
			return choice{}, fmt.Errorf("hub: %s has no %s file; its GGUF files are %s", ref, ref.Quant, strings.Join(models, ", "))
		}
		c.model = parts(models[0], models)
	}
	c.mmproj = pickMMProj(projs)
	return c, nil
}

// parts returns the parts of a split model in order, starting from any of
// them, or just the file when it is not split or a part is missing.
func parts(name string, models []string) []string {
	m := splitPart.FindStringSubmatch(name)
	if m == nil {
		return []string{name}
	}
	n, _ := strconv.Atoi(m[3])
	if n < 1 || n > len(models) {
		return []string{name}
	}
	have := make(map[string]bool, len(models))
	for _, f := range models {
		have[f] = true
	}
	out := make([]string, 0, n)
	for i := 1; i <= n; i++ {
		p := fmt.Sprintf("%s-%05d-of-%s.gguf", m[1], i, m[3])
		if !have[p] {
			return []string{name}
		}
		out = append(out, p)
	}
	return out
}

// pickMMProj chooses a projector: F16 first, as llama.cpp's converters
// write it, then BF16, then the first.
func pickMMProj(projs []string) string {
	for _, tag := range []string{"F16", "BF16"} {
		for _, p := range projs {
			if hasTag(p, tag) {
				return p
			}
		}
	}
	if len(projs) > 0 {
		return projs[0]
	}
	return ""
}
