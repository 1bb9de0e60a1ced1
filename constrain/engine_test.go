package constrain

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestByteClasses: the classes of the transition rows are intervals in
// byte order that no edge splits, so one entry per class stands for every
// byte of it.
func TestByteClasses(t *testing.T) {
	g, err := JSONSchema([]byte(walkSchema))
	require.NoError(t, err)
	cls, ncls := byteClasses(g.nfa)
	assert.Less(t, ncls, 256)
	assert.Equal(t, uint8(0), cls[0])
	assert.Equal(t, uint8(ncls-1), cls[255])
	for b := 1; b < 256; b++ {
		d := int(cls[b]) - int(cls[b-1])
		require.True(t, d == 0 || d == 1, "classes in byte order at %#x", b)
	}
	for _, nd := range g.nfa.nodes {
		for _, ed := range nd.edges {
			if ed.lo > 0 {
				assert.NotEqual(t, cls[ed.lo-1], cls[ed.lo], "edge %#x-%#x starts inside a class", ed.lo, ed.hi)
			}
			if ed.hi < 255 {
				assert.NotEqual(t, cls[ed.hi], cls[ed.hi+1], "edge %#x-%#x ends inside a class", ed.lo, ed.hi)
			}
		}
	}
	// The empty automaton has one class.
	_, n := byteClasses(&nfa{})
	assert.Equal(t, 1, n)
}
