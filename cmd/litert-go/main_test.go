package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The usage text names every command with its summary, and every command
// answers -h with its flags and exit status 0.
func TestUsageAndHelp(t *testing.T) {
	code, _, usageText := runCmd(t, "help")
	require.Equal(t, 0, code)
	for name, c := range commands() {
		assert.Contains(t, usageText, name+" ", "usage lists %s", name)
		assert.Contains(t, usageText, c.summary)
		args := []string{name, "-h"}
		if name == "template" {
			args = []string{name, "render", "-h"}
		}
		code, _, errOut := runCmd(t, args...)
		assert.Equal(t, 0, code, "%s -h: %s", name, errOut)
		assert.True(t, strings.Contains(errOut, "-") || strings.Contains(errOut, "usage"), "%s -h prints its flags", name)
	}
	code, _, _ = runCmd(t)
	assert.Equal(t, 2, code, "no command is a usage error")
}

// The model-running commands share -m, -t/--threads, --backend, -c/--ctx
// and --kv; the reply length is -n or --max-tokens where both fit.
func TestSharedFlagSpellings(t *testing.T) {
	for _, name := range []string{"generate", "chat", "serve", "logits", "bench"} {
		_, _, errOut := runCmd(t, name, "-h")
		for _, f := range []string{"-m ", "-t ", "-threads ", "-backend ", "-c ", "-ctx ", "-kv "} {
			assert.Contains(t, errOut, "  "+f, "%s has %s", name, f)
		}
	}
	for _, name := range []string{"generate", "chat", "serve"} {
		_, _, errOut := runCmd(t, name, "-h")
		assert.Contains(t, errOut, "  -n ", name)
		assert.Contains(t, errOut, "  -max-tokens ", name)
		assert.Contains(t, errOut, "  -chat-template FILE", name)
	}
}
