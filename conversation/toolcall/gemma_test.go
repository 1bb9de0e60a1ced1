package toolcall

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var gemma4Markers = []string{"<|tool_call>", "<tool_call|>", "<|channel>", "<channel|>", "<turn|>", "<|tool_response>", `<|"|>`}

func TestGemma4RoundTrip(t *testing.T) {
	f := gemma4Format()
	for _, name := range []string{"google-gemma-4-31B-it", "google-gemma-4-31B-it-interleaved"} {
		tt := otherLoadTemplate(t, name)
		for _, kwargs := range []map[string]any{nil, {"enable_thinking": true}} {
			parts := otherRoundTrip(t, f, tt, kwargs, 0)
			for _, part := range parts {
				checkStreaming(t, f, part, gemma4Markers)
			}
		}
		// Text with the calls (the template writes it after them).
		got, part := otherCheckContentCalls(t, f, tt, "Let me check.", otherCallSets()[0], gemma4Markers)
		assert.Equal(t, "Let me check.", got.Content, part)
	}
}

func TestGemma4Reasoning(t *testing.T) {
	f := gemma4Format()
	reply := "<|channel>thought\nThe user wants weather.\n<channel|><|tool_call>call:get_weather{city:<|\"|>Zürich 東京 😀<|\"|>,days:3,opt:None,nested:{<|\"|>odd key<|\"|>:[1,true,null]}}<tool_call|><|tool_response>"
	got, err := f.Parse(reply)
	require.NoError(t, err)
	assert.Equal(t, "The user wants weather.", got.Reasoning)
	assert.Empty(t, got.Content)
	require.Len(t, got.Calls, 1)
	assert.JSONEq(t, `{"city":"Zürich 東京 😀","days":3,"opt":null,"nested":{"odd key":[1,true,null]}}`, string(got.Calls[0].Arguments))
	checkStreaming(t, f, reply, gemma4Markers)
	answer := "<|channel>thought\nthinking<channel|>It is sunny.<turn|>"
	got, err = f.Parse(answer)
	require.NoError(t, err)
	assert.Equal(t, Parsed{Content: "It is sunny.", Reasoning: "thinking"}, got)
	checkStreaming(t, f, answer, gemma4Markers)
}

func TestGemma4Malformed(t *testing.T) {
	otherCheckMalformed(t, gemma4Format(), []otherMalformed{
		{reply: `Ok <|tool_call>call:get_weather{city:<|"|>Paris`, offset: -1, content: "Ok"},
		{reply: `<|tool_call>get_weather{city:<|"|>Paris<|"|>}<tool_call|>`, offset: 12},
		{reply: `<|tool_call>call:get_weather{city:Paris}<tool_call|>`, offset: 34},
		{reply: `<|tool_call>call:get_weather{city:<|"|>P<|"|>} junk<tool_call|>`, offset: 47},
		{reply: `<|tool_call>call:get_weather city<tool_call|>`, offset: 17},
	})
}

func TestGemma4Grammar(t *testing.T) {
	otherCheckGrammar(t, gemma4Format(), gemma4Markers)
}

// FunctionGemma has no template in the test data: the syntax is the one
// its model card gives.
func TestFunctionGemmaParse(t *testing.T) {
	f := functionGemmaFormat()
	markers := []string{"<start_function_call>", "<end_function_call>", "<end_of_turn>", "<escape>", "<start_function_response>"}
	reply := "<start_function_call>call:get_weather{city:<escape>São Paulo \"SP\" \\ 東京<escape>,days:10}<end_function_call>" +
		"<start_function_call>call:search_docs{query:<escape>emoji 😀 and \"quotes\"<escape>,limit:-2,exact:false,tags:[<escape>a<escape>,<escape>b c<escape>],filter:{lang:<escape>en<escape>,since:{year:2024}}}<end_function_call>" +
		"<start_function_call>call:get_weather{city:<escape>Oslo<escape>,days:0}<end_function_call><start_function_response>"
	got, err := f.Parse(reply)
	require.NoError(t, err)
	requireCalls(t, otherCallSets()[1], got.Calls, "calls of %q", reply)
	checkStreaming(t, f, reply, markers)
	otherCheckMalformed(t, f, []otherMalformed{
		{reply: "Sure <start_function_call>call:get_weather{city:<escape>Paris}<end_function_call>", offset: -1, content: "Sure"},
	})
	otherCheckGrammar(t, f, markers)
}
