package toolcall

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var apertusMarkers = []string{"<|tools_prefix|>", "<|tools_suffix|>", "<|inner_prefix|>", "<|inner_suffix|>", "<|assistant_end|>"}

func TestApertusRoundTrip(t *testing.T) {
	f := apertusFormat()
	tt := otherLoadTemplate(t, "Apertus-8B-Instruct")
	for _, part := range otherRoundTrip(t, f, tt, nil, 0) {
		checkStreaming(t, f, part, apertusMarkers)
	}
	got, _ := otherCheckContentCalls(t, f, tt, "Let me check.", otherCallSets()[1], apertusMarkers)
	assert.Equal(t, "Let me check.", got.Content)

	reply := "<|inner_prefix|>Think first.<|inner_suffix|>It is sunny.<|assistant_end|>"
	got, err := f.Parse(reply)
	require.NoError(t, err)
	assert.Equal(t, Parsed{Content: "It is sunny.", Reasoning: "Think first."}, got)
	checkStreaming(t, f, reply, apertusMarkers)
}

func TestApertusMalformed(t *testing.T) {
	otherCheckMalformed(t, apertusFormat(), []otherMalformed{
		{reply: `Hi<|tools_prefix|>[{"f": {"a": 1}`, offset: -1, content: "Hi"},
		{reply: `<|tools_prefix|>[{"f": [1]}]<|tools_suffix|>`, offset: 23},
		{reply: `<|tools_prefix|>[{"f": {}, "g": {}}]<|tools_suffix|>`, offset: 32},
		{reply: `<|tools_prefix|>[{}]<|tools_suffix|>`, offset: 17},
	})
}

func TestApertusGrammar(t *testing.T) {
	otherCheckGrammar(t, apertusFormat(), apertusMarkers)
}
