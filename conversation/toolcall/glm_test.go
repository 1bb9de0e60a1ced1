package toolcall

import (
	"strings"
	"testing"
)

func TestGLMRoundTrip(t *testing.T) {
	f := glm()
	for _, name := range []string{"GLM-4.6.jinja", "GLM-4.7-Flash.jinja", "poolside-Laguna-S-2.1.jinja", "poolside-Laguna-XS-2.1.jinja", "poolside-Laguna-XS.2.jinja"} {
		for _, content := range []any{"", "Let me check."} {
			c := taggedCase{template: name, content: content}
			if name == "GLM-4.6.jinja" || strings.HasPrefix(name, "poolside-Laguna-XS") {
				c.thinking = Thinking{Open: "<think>", Close: "</think>"}
			}
			t.Run(name, func(t *testing.T) { taggedRoundTrip(t, f, c) })
		}
	}
}

func TestGLMGrammar(t *testing.T) { taggedGrammarWalk(t, glm()) }

func TestGLMMalformed(t *testing.T) {
	taggedCheckMalformed(t, glm(), []taggedBad{
		{reply: "Hi.<tool_call>get_weather<arg_key>location</arg_key><arg_value>Par", at: "<tool_call>", content: "Hi."},
		{reply: "Hi.<tool_call>get_weather<arg_key>location</arg_key>Paris</tool_call>", at: "Paris", content: "Hi."},
		{reply: "Hi.<tool_call>\n{\"name\": \"get_weather\"}\n</tool_call>", at: "\n{", content: "Hi."},
	})
}
