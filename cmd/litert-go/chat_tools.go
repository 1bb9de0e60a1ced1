package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/litert-go/litert-go/conversation"
	"github.com/litert-go/litert-go/tools"
	"github.com/litert-go/litert-go/tools/fs"
)

// toolbelt is the chat's tools, as the conversation's tool loop runs
// them (with the schemas --tool-schema narrows), and their declarations.
type toolbelt struct {
	tools []*tools.Tool
	decls []conversation.ToolDecl
	root  string
	close func()
}

// fileToolNames are the file tools, in the order fs.Toolbox.Tools lists them.
var fileToolNames = []string{"ListFiles", "ReadFile", "FindTextInFiles", "NewFile", "EditFile", "DeleteFile"}

// newToolbelt builds the tools --tools names, or returns nil for none.
func newToolbelt(f *chatFlags) (*toolbelt, error) {
	if strings.TrimSpace(f.tools) == "" {
		if f.toolSchema != "" || f.allow != "" {
			return nil, fmt.Errorf("--tool-schema and --allow need --tools")
		}
		return nil, nil
	}
	want := map[string]bool{}
	readOnly, command := true, false
	for _, name := range strings.Split(f.tools, ",") {
		switch name = strings.TrimSpace(name); {
		case name == "fs":
			readOnly = false
			for _, n := range fileToolNames {
				want[n] = true
			}
		case name == "fs-ro":
			for _, n := range fileToolNames[:3] {
				want[n] = true
			}
		case name == "command":
			command = true
		case slices.Contains(fileToolNames, name):
			want[name] = true
			if !slices.Contains(fileToolNames[:3], name) {
				readOnly = false
			}
		default:
			return nil, fmt.Errorf("--tools: unknown tool %q (want fs, fs-ro, command or one of %s)", name, strings.Join(fileToolNames, ", "))
		}
	}
	tb := &toolbelt{root: f.root, close: func() {}}
	var all []*tools.Tool
	if len(want) > 0 {
		box, err := fs.New(f.root, fs.Options{ReadOnly: readOnly})
		if err != nil {
			return nil, fmt.Errorf("--root: %w", err)
		}
		tb.close = func() { box.Close() }
		tb.root = box.Root()
		for _, t := range box.Tools() {
			if want[t.Name()] {
				all = append(all, t)
			}
		}
	}
	if command {
		if f.allow == "" {
			tb.close()
			return nil, fmt.Errorf("--tools command needs --allow PROGRAM,… (the programs it may run)")
		}
		var progs []string
		for _, p := range strings.Split(f.allow, ",") {
			if p = strings.TrimSpace(p); p != "" {
				progs = append(progs, p)
			}
		}
		t, err := tools.Command(tools.CommandOptions{Allow: tools.AllowPrograms(progs...), Dir: f.root})
		if err != nil {
			tb.close()
			return nil, fmt.Errorf("--allow: %w", err)
		}
		all = append(all, t)
	}
	set, err := tools.NewSet(all...)
	if err != nil {
		tb.close()
		return nil, err
	}
	narrow, err := readToolSchemas(f.toolSchema, set.Names())
	if err != nil {
		tb.close()
		return nil, err
	}
	for _, t := range all {
		if s, ok := narrow[t.Name()]; ok {
			if t, err = t.WithParameters(s); err != nil {
				tb.close()
				return nil, fmt.Errorf("--tool-schema: %w", err)
			}
		}
		tb.tools = append(tb.tools, t)
		tb.decls = append(tb.decls, conversation.ToolDecl{Name: t.Name(), Description: t.Description(), Parameters: t.Parameters()})
	}
	return tb, nil
}

// readToolSchemas reads the --tool-schema file: {"ToolName": {schema}, …}.
func readToolSchemas(path string, names []string) (map[string]json.RawMessage, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--tool-schema: %w", err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("--tool-schema %s: want a JSON object mapping tool names to schemas: %w", path, err)
	}
	for name, s := range m {
		if !slices.Contains(names, name) {
			return nil, fmt.Errorf("--tool-schema %s: %q is not one of the tools (%s)", path, name, strings.Join(names, ", "))
		}
		var obj map[string]any
		if err := json.Unmarshal(s, &obj); err != nil {
			return nil, fmt.Errorf("--tool-schema %s: %q: the schema is not a JSON object", path, name)
		}
		var buf bytes.Buffer
		_ = json.Compact(&buf, s) // valid: it just decoded
		m[name] = buf.Bytes()
	}
	return m, nil
}

// checkChoice validates --tool-choice against the tools.
func (tb *toolbelt) checkChoice(choice string) error {
	switch choice {
	case "auto", "none", "required":
		return nil
	}
	for _, d := range tb.decls {
		if d.Name == choice {
			return nil
		}
	}
	names := make([]string, len(tb.decls))
	for i, d := range tb.decls {
		names[i] = d.Name
	}
	return fmt.Errorf("--tool-choice %q: want auto, none, required or a tool name (%s)", choice, strings.Join(names, ", "))
}

// describe lists the tools for /tools.
func (tb *toolbelt) describe() string {
	var b strings.Builder
	for _, d := range tb.decls {
		fmt.Fprintf(&b, "%s — %s\n    parameters: %s\n", d.Name, d.Description, d.Parameters)
	}
	if tb.root != "" {
		fmt.Fprintf(&b, "root: %s\n", tb.root)
	}
	return b.String()
}
