package toolcall

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var miniCPMMarkers = []string{"<think>", "</think>", `<function name="`, "<|im_end|>"}

func TestMiniCPMRoundTrip(t *testing.T) {
	f := miniCPMFormat()
	tt := otherLoadTemplate(t, "openbmb-MiniCPM5-1B")
	for _, part := range otherRoundTrip(t, f, tt, nil, 0) {
		checkStreaming(t, f, part, miniCPMMarkers)
	}
	got, _ := otherCheckContentCalls(t, f, tt, "Let me check.", otherCallSets()[1], miniCPMMarkers)
	assert.Equal(t, "Let me check.", got.Content)
	// Values with <, & or newlines come in CDATA.
	reply := "<function name=\"f\"><param name=\"code\"><![CDATA[a < b && c\nd]]></param><param name=\"n\">None</param><param name=\"l\">[1, 'x', {'k': True}]</param></function><|im_end|>"
	got, err := f.Parse(reply)
	require.NoError(t, err)
	assert.JSONEq(t, `{"code": "a < b && c\nd", "n": null, "l": [1, "x", {"k": true}]}`, string(got.Calls[0].Arguments))
	checkStreaming(t, f, reply, miniCPMMarkers)
}

func TestMiniCPMMalformed(t *testing.T) {
	otherCheckMalformed(t, miniCPMFormat(), []otherMalformed{
		{reply: `Hi <function name="f"><param name="a">1`, offset: -1, content: "Hi"},
		{reply: `<function name="f"><arg name="a">1</arg></function>`, offset: 19},
		{reply: `<function name="f"><param name="a">1</param>junk</function>`, offset: 44},
	})
}

func TestMiniCPMGrammar(t *testing.T) {
	otherCheckGrammar(t, miniCPMFormat(), append(miniCPMMarkers, "</function>", `<param name="`, "</param>", "<![CDATA[", "]]>"))
}
