package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// Set is a collection of tools looked up by name, the registry a tool-calling
// loop consults. The zero Set is empty and ready to use; a Set is safe for
// concurrent use. There is no global registry: each conversation owns its
// Set.
type Set struct {
	mu     sync.RWMutex
	byName map[string]*Tool
	order  []*Tool
}

// NewSet returns a Set holding tools, or an error if one of them failed to
// define or two share a name.
func NewSet(tools ...*Tool) (*Set, error) {
	s := &Set{}
	if err := s.Add(tools...); err != nil {
		return nil, err
	}
	return s, nil
}

// Add adds tools to the set. It refuses nil tools, tools whose definition
// failed and names already present; on error nothing is added.
func (s *Set) Add(tools ...*Tool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]bool{}
	for _, t := range tools {
		switch {
		case t == nil:
			return fmt.Errorf("tools: nil tool")
		case t.err != nil:
			return t.err
		case s.byName[t.name] != nil || seen[t.name]:
			return fmt.Errorf("tools: tool %q is already defined", t.name)
		}
		seen[t.name] = true
	}
	if s.byName == nil {
		s.byName = map[string]*Tool{}
	}
	for _, t := range tools {
		s.byName[t.name] = t
		s.order = append(s.order, t)
	}
	return nil
}

// Lookup returns the tool called name, or an [UnknownToolError] listing the
// defined tools (errors.Is(err, ErrUnknownTool) holds).
func (s *Set) Lookup(name string) (*Tool, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if t := s.byName[name]; t != nil {
		return t, nil
	}
	return nil, &UnknownToolError{Name: name, Defined: s.namesLocked()}
}

// Tools returns the tools in the order they were added.
func (s *Set) Tools() []*Tool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]*Tool(nil), s.order...)
}

// Names returns the tool names in the order they were added.
func (s *Set) Names() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.namesLocked()
}

func (s *Set) namesLocked() []string {
	names := make([]string, len(s.order))
	for i, t := range s.order {
		names[i] = t.name
	}
	return names
}

// Len returns the number of tools.
func (s *Set) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.order)
}

// RunRaw looks up the tool called name and runs it on args.
func (s *Set) RunRaw(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	t, err := s.Lookup(name)
	if err != nil {
		return nil, err
	}
	return t.RunRaw(ctx, args)
}

// Declarations returns a JSON array of every tool's [Tool.Declaration], in
// the order they were added.
func (s *Set) Declarations() json.RawMessage {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, t := range s.Tools() {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(t.Declaration())
	}
	buf.WriteByte(']')
	return buf.Bytes()
}
