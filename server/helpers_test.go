package server

import (
	"bufio"
	"io"
	"strings"
	"testing"

	"github.com/litert-go/litert-go/tokenizer"
	"github.com/stretchr/testify/require"
)

// tokenizerOpts encode a completion prompt as the server does for Qwen
// (special tokens parsed; the model adds no BOS).
var tokenizerOpts = tokenizer.EncodeOptions{ParseSpecial: true}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

// readEvents returns the data of each server-sent event in r.
func readEvents(t testing.TB, r io.Reader) []string {
	t.Helper()
	var events []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			events = append(events, data)
		} else {
			require.Empty(t, line, "an SSE line that is not data")
		}
	}
	require.NoError(t, sc.Err())
	return events
}
