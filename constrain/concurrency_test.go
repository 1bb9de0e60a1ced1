package constrain

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConcurrentMatchers shares one grammar and vocabulary between goroutines.
func TestConcurrentMatchers(t *testing.T) {
	v := testVocab(t)
	g, err := JSONSchema([]byte(testSchemas["person"]))
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 1))
			m := g.NewMatcher(v)
			mask := make([]uint64, v.MaskWords())
			for i := 0; i < 500 && !m.Done(); i++ {
				m.FillMask(mask)
				var allowed []int32
				for id := int32(0); id < int32(v.Size()); id++ {
					if mask[id>>6]&(1<<(uint(id)&63)) != 0 {
						allowed = append(allowed, id)
					}
				}
				if err := m.Accept(allowed[rng.IntN(len(allowed))]); err != nil {
					errs <- err
					return
				}
				if m.Clone().Accepting() != m.Accepting() {
					t.Error("clone differs")
				}
			}
		}(uint64(w))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}
