package constrain

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewVocabErrors(t *testing.T) {
	_, err := NewVocab(nil, nil)
	assert.Error(t, err)
	_, err = NewVocab([][]byte{[]byte("a")}, []int32{3})
	assert.ErrorContains(t, err, "eos token id 3 out of range")
}

func TestVocabBasics(t *testing.T) {
	v, err := NewVocab([][]byte{[]byte("a"), []byte("ab"), nil, []byte("ab"), []byte("</s>")}, []int32{4})
	require.NoError(t, err)
	assert.Equal(t, 5, v.Size())
	assert.Equal(t, 1, v.MaskWords())
	assert.False(t, v.CoversAllBytes())
	assert.True(t, v.IsEOS(4))
	g, err := Regex(`ab`)
	require.NoError(t, err)
	m := g.NewMatcher(v)
	mask := []uint64{0}
	m.FillMask(mask)
	assert.Equal(t, uint64(0b01011), mask[0], "a, ab and its duplicate; not the control token or EOS")
	var te *TokenError
	require.True(t, errors.As(m.Accept(2), &te), "control token")
	assert.Error(t, m.Accept(7), "out of range")
	require.NoError(t, m.Accept(3))
	m.FillMask(mask)
	assert.Equal(t, uint64(1<<4), mask[0], "only EOS once complete")
	assert.True(t, m.Done())
	require.NoError(t, m.Accept(4))
	m.FillMask(mask)
	assert.Zero(t, mask[0], "nothing after EOS")
	assert.Error(t, m.Accept(0))
	m.Reset()
	assert.False(t, m.Accepting())
}

func TestGrammarCacheShared(t *testing.T) {
	v := testVocab(t)
	g1, err := JSONSchema([]byte(testSchemas["weather"]))
	require.NoError(t, err)
	g2, err := JSONSchema([]byte(testSchemas["weather"]))
	require.NoError(t, err)
	g3, err := JSONSchema([]byte(testSchemas["person"]))
	require.NoError(t, err)
	assert.Same(t, g1.engine(v), g2.engine(v), "identical grammars share one cache")
	assert.NotSame(t, g1.engine(v), g3.engine(v))
	var nilM *Grammar
	m := nilM.NewMatcher(v)
	assert.Error(t, m.Accept(0))
	assert.True(t, m.Done())
}
