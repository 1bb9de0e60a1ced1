package tokenizer

import (
	"fmt"
	"os"
	"testing"
	"time"
)

func TestZZPhase(t *testing.T) {
	if os.Getenv("PHASE") == "" {
		t.Skip()
	}
	f := openVocabFile(t, "qwen2")
	toks, _ := f.Strings(keyTokens)
	merges, _ := f.Strings(keyMerges)
	best := [4]time.Duration{1 << 62, 1 << 62, 1 << 62, 1 << 62}
	hit := 0
	for r := 0; r < 15; r++ {
		t0 := time.Now()
		idx, _, _ := newStrIndex(toks)
		t1 := time.Now()
		n := 0
		for _, m := range merges {
			p := 1
			for m[p] != ' ' {
				p++
			}
			if idx.find(m[:p]) >= 0 {
				n++
			}
			if idx.find(m[p+1:]) >= 0 {
				n++
			}
		}
		t2 := time.Now()
		tok, err := FromGGUF(f)
		if err != nil {
			t.Fatal(err)
		}
		t3 := time.Now()
		_ = tok
		hit = 0
		for i, m := range merges {
			p := 1
			for m[p] != ' ' {
				p++
			}
			if idx.text(int32(256+i)) == m[:p]+m[p+1:] {
				hit++
			}
		}
		for k, d := range []time.Duration{t1.Sub(t0), t2.Sub(t1), t3.Sub(t2)} {
			if d < best[k] {
				best[k] = d
			}
		}
	}
	fmt.Println("index", best[0], "2x find per merge", best[1], "FromGGUF", best[2], "guess hits", hit, len(merges))
}
