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
