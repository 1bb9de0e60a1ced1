package constrain

import "strconv"

// builder collects named rules produced by a front end before they are
// compiled into an automaton.
type builder struct {
	lang   string
	names  []string
	bodies []*expr
	index  map[string]int
	called []bool         // by rule id: compiled once and called, never inlined
	suffix map[string]int // fresh: the next suffix to try per hint
}

func newBuilder(lang string) *builder {
	return &builder{lang: lang, index: map[string]int{}}
}

// rule returns the id of the rule called name, creating it (undefined) if needed.
func (b *builder) rule(name string) int {
	if id, ok := b.index[name]; ok {
		return id
	}
	id := len(b.names)
	b.names = append(b.names, name)
	b.bodies = append(b.bodies, nil)
	b.index[name] = id
	return id
}

// fresh creates a new rule with a unique name derived from hint.
func (b *builder) fresh(hint string) int {
	name := hint
	if _, ok := b.index[name]; ok {
		if b.suffix == nil {
			b.suffix = map[string]int{}
		}
		i := max(b.suffix[hint], 2)
		for {
			name = hint + "#" + strconv.Itoa(i)
			i++
			if _, ok := b.index[name]; !ok {
				break
			}
		}
		b.suffix[hint] = i
	}
	return b.rule(name)
}

// define sets the body of rule id.
func (b *builder) define(id int, e *expr) { b.bodies[id] = e }

// defined reports whether rule id has a body.
func (b *builder) defined(id int) bool { return b.bodies[id] != nil }

// noInline makes rule id called wherever it is used instead of inlined, so
// an automaton using it on many edges keeps one copy.
func (b *builder) noInline(id int) {
	for len(b.called) <= id {
		b.called = append(b.called, false)
	}
	b.called[id] = true
}
