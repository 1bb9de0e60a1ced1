package fs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/litert-go/litert-go/tools"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolsThroughSet(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, Options{})
	set, err := tools.NewSet(s.tb.Tools()...)
	require.NoError(t, err)
	assert.Equal(t, []string{"ListFiles", "ReadFile", "FindTextInFiles", "NewFile", "EditFile", "DeleteFile"}, set.Names())
	for _, tool := range set.Tools() {
		require.NoError(t, tool.Err())
		assert.True(t, json.Valid(tool.Schema()), tool.Name())
		assert.NotEmpty(t, tool.Description())
	}
	edit, err := set.Lookup("EditFile")
	require.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","properties":{
		"path":{"type":"string","description":"File to edit, relative to the project root"},
		"old_text":{"type":"string","description":"Exact text to replace, including whitespace and indentation"},
		"new_text":{"type":"string","description":"Text to put in its place"},
		"replace_all":{"type":"boolean","description":"Replace every occurrence instead of requiring exactly one"}},
		"required":["path","old_text","new_text"],"additionalProperties":false}`, string(edit.Schema()))

	out, err := set.RunRaw(ctx, "NewFile", json.RawMessage(`{"path":"notes/todo.md","content":"- write tests\n"}`))
	require.NoError(t, err)
	assert.Equal(t, `"wrote notes/todo.md (14 bytes)"`, string(out))
	out, err = set.RunRaw(ctx, "EditFile", json.RawMessage(`{"path":"notes/todo.md","old_text":"write","new_text":"run"}`))
	require.NoError(t, err)
	assert.Equal(t, `"replaced 1 occurrence in notes/todo.md"`, string(out))
	out, err = set.RunRaw(ctx, "ReadFile", json.RawMessage(`{"path":"notes/todo.md"}`))
	require.NoError(t, err)
	assert.Equal(t, `"- run tests\n"`, string(out))
	out, err = set.RunRaw(ctx, "FindTextInFiles", json.RawMessage(`{"pattern":"run"}`))
	require.NoError(t, err)
	assert.Equal(t, `"notes/todo.md:1: - run tests\n"`, string(out))

	_, err = set.RunRaw(ctx, "ReadFile", json.RawMessage(`{"file":"a.txt"}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `argument "path": missing required field`)
	assert.Contains(t, err.Error(), `argument "file": unknown field`)
	_, err = set.RunRaw(ctx, "ReadFile", json.RawMessage(`{"path":"../outside/sentinel.txt"}`))
	assert.ErrorContains(t, err, `tool "ReadFile": path "../outside/sentinel.txt": leads outside the project root`)
	_, err = set.RunRaw(ctx, "RunShell", nil)
	assert.ErrorContains(t, err, `tool "RunShell" is not defined; defined tools: ListFiles, ReadFile`)
	s.assertOutsideIntact(t)
}

func TestConcurrentTools(t *testing.T) {
	ctx := context.Background()
	s := newSandbox(t, Options{})
	require.NoError(t, os.WriteFile(filepath.Join(s.root, "shared.txt"), []byte("counter\n"), 0o644))
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := range 8 {
		wg.Go(func() {
			name := fmt.Sprintf("g%d/file.txt", g)
			for i := range 30 {
				if _, err := s.tb.NewFile(ctx, NewFileInput{Path: name, Content: fmt.Sprintf("v%d\n", i), Overwrite: true}); err != nil {
					errs <- err
					return
				}
				if _, err := s.tb.EditFile(ctx, EditFileInput{Path: name, OldText: fmt.Sprintf("v%d", i), NewText: fmt.Sprintf("w%d", i)}); err != nil {
					errs <- err
					return
				}
				out, err := s.tb.ReadFile(ctx, ReadFileInput{Path: name})
				if err != nil || out != fmt.Sprintf("w%d\n", i) {
					errs <- fmt.Errorf("read %q: %q, %v", name, out, err)
					return
				}
				// Every goroutine appends a line to the shared file; the
				// toolbox serializes the read-modify-write.
				if _, err := s.tb.EditFile(ctx, EditFileInput{Path: "shared.txt", OldText: "counter\n", NewText: "counter\nx"}); err != nil {
					errs <- err
					return
				}
				_, _ = s.tb.ListFiles(ctx, ListFilesInput{})
				_, _ = s.tb.FindTextInFiles(ctx, FindTextInFilesInput{Pattern: "w1"})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	data, err := os.ReadFile(filepath.Join(s.root, "shared.txt"))
	require.NoError(t, err)
	assert.Len(t, string(data), len("counter\n")+8*30, "no lost updates")
	s.assertOutsideIntact(t)
}
