package constrain

import (
	"testing"
	"time"
)

func TestProbeWalk(t *testing.T) {
	v := qwenVocab(t)
	t.Logf("tokens %d trie nodes %d allbytes %v eos %v", v.Size(), len(v.nodes), v.CoversAllBytes(), v.eos)
	for _, re := range []string{`(?s).*`, `[a-z ]*`, `"([^"\\]|\\.)*"`, `[a-z]{2,10}`} {
		g, _ := Regex(re)
		e := g.engine(v)
		for i := 0; i < 3; i++ {
			e.states[0].mask = nil
			t0 := time.Now()
			m := e.mask(0)
			n := 0
			for _, w := range m {
				for w != 0 {
					n++
					w &= w - 1
				}
			}
			t.Logf("%s: %v allowed %d states %d", re, time.Since(t0), n, len(e.states))
		}
	}
}
