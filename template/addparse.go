package template

import (
	"errors"
	"strconv"
)

// This file finds the operands of jinja2's binary "+", "-" and "~"
// operators, and of "*" on strings and lists, in the tokens of one tag, so
// that rewrite can route them through helpers with Python semantics (see
// add.go) and the render's budget (limits.go). It is a recursive-descent parser for
// jinja2's expression grammar (jinja2/parser.py) that records token spans
// instead of building a tree: precedence and associativity are jinja2's,
// so the operands found are the ones Python combines, whatever precedence
// the engine gives the surrounding operators.

// operandKind classifies an operand for the UndefinedError message.
type operandKind int

const (
	opOther    operandKind = iota
	opName                 // a bare variable
	opStrLit               // a string literal
	opNumLit               // a number literal
	opKeyed                // x.key or x['key'] with a literal key
	opIndexed              // x[N] with an integer literal
	opFiltered             // x|filter(...): key is the filter name
	opCall                 // f(...) or x.f(...): key is the name called
	opSequence             // a list, tuple or dict literal
)

// exprInfo describes a parsed (sub)expression: its tokens are
// toks[lo:hi]; pure is false if evaluating it calls a function or macro
// (filters do not count); kind and key classify it.
type exprInfo struct {
	lo, hi int
	pure   bool
	// numeric is true if the expression is a number whenever it
	// evaluates without error (see numericFilters and loopNumbers).
	numeric bool
	kind    operandKind
	key     string // variable name, attribute or key, or index
}

// addChain is a left-associative run a + b + c ... of jinja2's "+" (or
// one binary "-", or a run of "~") that one helper call evaluates:
// operands in order, and the indices of the operator tokens between them.
type addChain struct {
	operands []exprInfo
	plus     []int // the operator tokens
	sub      bool  // a binary "-" (two operands) rather than a "+" run
	cat      bool  // a "~" run
	mul      bool  // a binary "*" (two operands) whose operands may not be numbers
	// format is the left operand (the one operand) of a "%" that may
	// format a string.
	format bool
	// method is a call OBJ.METHOD(args) of a budgetMethods method on the
	// one operand; call holds the token indices of its ".", "(" and ")".
	method string
	call   [3]int
}

// budgetMethods are the string methods that can build large strings or
// lists: rewrite routes their calls through __lrt_method.
var budgetMethods = map[string]bool{"replace": true, "split": true, "format": true}

// errNoParse stops parsing a tag the parser does not understand; its
// operators are then left as they are.
var errNoParse = errors.New("unsupported expression")

// addParser parses jinja2 expressions over lexed tokens.
type addParser struct {
	toks   []token
	pos    int
	chains []addChain
}

func (p *addParser) peek() token {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return token{}
}

func (p *addParser) at(text string) bool {
	return p.pos < len(p.toks) && p.toks[p.pos].text == text && p.toks[p.pos].kind != 's'
}

func (p *addParser) atName(name string) bool {
	return p.pos < len(p.toks) && p.toks[p.pos].kind == 'n' && p.toks[p.pos].text == name
}

func (p *addParser) expect(text string) error {
	if !p.at(text) {
		return errNoParse
	}
	p.pos++
	return nil
}

// done reports whether all tokens were consumed.
func (p *addParser) done() bool { return p.pos >= len(p.toks) }

// tuple parses "expr, expr, ..." (jinja2 parse_tuple without parentheses).
func (p *addParser) tuple(withCond bool) (exprInfo, error) {
	lo := p.pos
	e, err := p.expression(withCond)
	if err != nil {
		return e, err
	}
	if !p.at(",") {
		return e, nil
	}
	pure := e.pure
	for p.at(",") {
		p.pos++
		if p.done() || p.atName("if") || p.atName("recursive") {
			break
		}
		x, err := p.expression(withCond)
		if err != nil {
			return x, err
		}
		pure = pure && x.pure
	}
	return exprInfo{lo: lo, hi: p.pos, pure: pure, kind: opSequence}, nil
}

func (p *addParser) expression(withCond bool) (exprInfo, error) {
	if withCond {
		return p.condExpr()
	}
	return p.or()
}

// condExpr parses "a if cond [else b]".
func (p *addParser) condExpr() (exprInfo, error) {
	e, err := p.or()
	if err != nil {
		return e, err
	}
	for p.atName("if") {
		p.pos++
		c, err := p.or()
		if err != nil {
			return c, err
		}
		pure := e.pure && c.pure
		if p.atName("else") {
			p.pos++
			f, err := p.condExpr()
			if err != nil {
				return f, err
			}
			pure = pure && f.pure
		}
		e = exprInfo{lo: e.lo, hi: p.pos, pure: pure}
	}
	return e, nil
}

// binaryLevel parses operands separated by any of ops (names or
// punctuation), left-associative.
func (p *addParser) binaryLevel(next func() (exprInfo, error), ops ...string) (exprInfo, error) {
	e, err := next()
	if err != nil {
		return e, err
	}
	for {
		matched := false
		for _, op := range ops {
			if p.at(op) {
				matched = true
				break
			}
		}
		if !matched {
			return e, nil
		}
		op := p.toks[p.pos].text
		p.pos++
		r, err := next()
		if err != nil {
			return r, err
		}
		numeric := e.numeric && r.numeric && arithmetic[op]
		e = exprInfo{lo: e.lo, hi: p.pos, pure: e.pure && r.pure, numeric: numeric}
	}
}

// arithmetic are the operators whose result is a number for numbers.
var arithmetic = map[string]bool{"+": true, "-": true, "*": true, "/": true, "//": true, "%": true, "**": true}

func (p *addParser) or() (exprInfo, error)  { return p.binaryLevel(p.and, "or") }
func (p *addParser) and() (exprInfo, error) { return p.binaryLevel(p.not, "and") }

func (p *addParser) not() (exprInfo, error) {
	if p.atName("not") {
		lo := p.pos
		p.pos++
		e, err := p.not()
		e.lo, e.kind, e.numeric = lo, opOther, false
		return e, err
	}
	return p.compare()
}

// compare parses comparison chains, including "in" and "not in".
func (p *addParser) compare() (exprInfo, error) {
	e, err := p.math1()
	if err != nil {
		return e, err
	}
	for {
		switch {
		case p.at("==") || p.at("!=") || p.at("<") || p.at(">") || p.at("<=") || p.at(">="):
			p.pos++
		case p.atName("in"):
			p.pos++
		case p.atName("not") && p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == 'n' && p.toks[p.pos+1].text == "in":
			p.pos += 2
		default:
			return e, nil
		}
		r, err := p.math1()
		if err != nil {
			return r, err
		}
		e = exprInfo{lo: e.lo, hi: p.pos, pure: e.pure && r.pure}
	}
}

// math1 parses "+" and "-" and records the "+" chains and the "-"
// operations. A chain grows while its new operands are pure, so that
// evaluating all operands before adding cannot change which error Python
// reports first; an impure operand starts a new chain whose first operand
// is the chain so far.
func (p *addParser) math1() (exprInfo, error) {
	e, err := p.concat()
	if err != nil {
		return e, err
	}
	var chain *addChain
	flush := func() {
		if chain != nil {
			p.chains = append(p.chains, *chain)
			chain = nil
		}
	}
	for p.at("+") || p.at("-") {
		opTok := p.pos
		plus := p.at("+")
		p.pos++
		r, err := p.concat()
		if err != nil {
			return r, err
		}
		switch {
		case !plus:
			flush()
			p.chains = append(p.chains, addChain{operands: []exprInfo{e, r}, plus: []int{opTok}, sub: true})
		case chain != nil && r.pure:
			chain.operands = append(chain.operands, r)
			chain.plus = append(chain.plus, opTok)
		default:
			flush()
			chain = &addChain{operands: []exprInfo{e, r}, plus: []int{opTok}}
		}
		e = exprInfo{lo: e.lo, hi: p.pos, pure: e.pure && r.pure, numeric: e.numeric && r.numeric}
	}
	flush()
	return e, nil
}

// concat parses "~", which binds tighter than "+" in jinja2, and records
// its runs as chains with cat set.
func (p *addParser) concat() (exprInfo, error) {
	e, err := p.math2()
	if err != nil {
		return e, err
	}
	var chain *addChain
	for p.at("~") {
		opTok := p.pos
		p.pos++
		r, err := p.math2()
		if err != nil {
			return r, err
		}
		if chain == nil {
			chain = &addChain{operands: []exprInfo{e}, cat: true}
		}
		chain.operands = append(chain.operands, r)
		chain.plus = append(chain.plus, opTok)
		e = exprInfo{lo: e.lo, hi: p.pos, pure: e.pure && r.pure}
	}
	if chain != nil {
		p.chains = append(p.chains, *chain)
	}
	return e, nil
}

// math2 parses "*", "/", "//" and "%", and records as chains the "*"
// operations whose operands are not both numbers (repetition of a string
// or list).
func (p *addParser) math2() (exprInfo, error) {
	e, err := p.pow()
	if err != nil {
		return e, err
	}
	for p.at("*") || p.at("/") || p.at("//") || p.at("%") {
		opTok := p.pos
		op := p.toks[p.pos].text
		p.pos++
		r, err := p.pow()
		if err != nil {
			return r, err
		}
		numeric := e.numeric && r.numeric
		switch {
		case op == "*" && !numeric:
			p.chains = append(p.chains, addChain{operands: []exprInfo{e, r}, plus: []int{opTok}, mul: true})
		case op == "%" && !e.numeric:
			p.chains = append(p.chains, addChain{operands: []exprInfo{e}, format: true})
		}
		e = exprInfo{lo: e.lo, hi: p.pos, pure: e.pure && r.pure, numeric: numeric}
	}
	return e, nil
}

func (p *addParser) pow() (exprInfo, error) {
	return p.binaryLevel(func() (exprInfo, error) { return p.unary(true) }, "**")
}

// unary parses unary signs, a primary expression, its postfix operations
// and, if withFilter, its filters and tests.
func (p *addParser) unary(withFilter bool) (exprInfo, error) {
	lo := p.pos
	var e exprInfo
	var err error
	if p.at("-") || p.at("+") {
		p.pos++
		e, err = p.unary(false)
		e.lo, e.kind = lo, opOther // numeric stays: -x is a number if x is
	} else {
		e, err = p.primary()
	}
	if err != nil {
		return e, err
	}
	if e, err = p.postfix(e); err != nil {
		return e, err
	}
	if withFilter {
		return p.filterExpr(e)
	}
	return e, nil
}

func (p *addParser) primary() (exprInfo, error) {
	t := p.peek()
	lo := p.pos
	switch {
	case p.done():
		return exprInfo{}, errNoParse
	case t.kind == 'n':
		p.pos++
		switch t.text {
		case "true", "false", "none", "True", "False", "None":
			return exprInfo{lo: lo, hi: p.pos, pure: true}, nil
		}
		return exprInfo{lo: lo, hi: p.pos, pure: true, kind: opName, key: t.text}, nil
	case t.kind == 's':
		for p.pos < len(p.toks) && p.toks[p.pos].kind == 's' {
			p.pos++
		}
		key := ""
		if p.pos == lo+1 {
			key = t.text
		}
		return exprInfo{lo: lo, hi: p.pos, pure: true, kind: opStrLit, key: key}, nil
	case t.kind == '1':
		p.pos++
		return exprInfo{lo: lo, hi: p.pos, pure: true, kind: opNumLit, numeric: true}, nil
	case t.text == "(":
		p.pos++
		if p.at(")") {
			p.pos++
			return exprInfo{lo: lo, hi: p.pos, pure: true, kind: opSequence}, nil
		}
		e, err := p.tuple(true)
		if err != nil {
			return e, err
		}
		if err := p.expect(")"); err != nil {
			return e, err
		}
		return exprInfo{lo: lo, hi: p.pos, pure: e.pure, kind: e.kind, key: e.key, numeric: e.numeric}, nil
	case t.text == "[":
		p.pos++
		pure, err := p.items("]", false)
		return exprInfo{lo: lo, hi: p.pos, pure: pure, kind: opSequence}, err
	case t.text == "{":
		p.pos++
		pure, err := p.items("}", true)
		return exprInfo{lo: lo, hi: p.pos, pure: pure, kind: opSequence}, err
	}
	return exprInfo{}, errNoParse
}

// items parses the comma-separated items of a list or (with pairs) dict
// literal up to and including the closing bracket.
func (p *addParser) items(closer string, pairs bool) (bool, error) {
	pure := true
	for !p.at(closer) {
		e, err := p.expression(true)
		if err != nil {
			return false, err
		}
		pure = pure && e.pure
		if pairs {
			if err := p.expect(":"); err != nil {
				return false, err
			}
			v, err := p.expression(true)
			if err != nil {
				return false, err
			}
			pure = pure && v.pure
		}
		if !p.at(",") {
			break
		}
		p.pos++
	}
	return pure, p.expect(closer)
}

// postfix parses attribute access, subscripts and calls, and records the
// calls of budgetMethods as chains.
func (p *addParser) postfix(e exprInfo) (exprInfo, error) {
	for {
		switch {
		case p.at("."):
			dot := p.pos
			p.pos++
			t := p.peek()
			if t.kind != 'n' && t.kind != '1' {
				return e, errNoParse
			}
			p.pos++
			if t.kind == 'n' && budgetMethods[t.text] && p.at("(") {
				paren := p.pos
				if err := p.callArgs(); err != nil {
					return e, err
				}
				p.chains = append(p.chains, addChain{operands: []exprInfo{e}, method: t.text, call: [3]int{dot, paren, p.pos - 1}})
				e = exprInfo{lo: e.lo, hi: p.pos, kind: opCall, key: t.text}
				continue
			}
			numeric := e.kind == opName && e.key == "loop" && loopNumbers[t.text]
			e = exprInfo{lo: e.lo, hi: p.pos, pure: e.pure, kind: opKeyed, key: t.text, numeric: numeric}
		case p.at("["):
			p.pos++
			start := p.pos
			pure := e.pure
			for !p.at("]") {
				switch {
				case p.at(":") || p.at(","):
					p.pos++
				default:
					x, err := p.expression(true)
					if err != nil {
						return x, err
					}
					pure = pure && x.pure
				}
			}
			p.pos++
			kind, key := opOther, ""
			if p.pos == start+2 {
				switch k := p.toks[start]; k.kind {
				case 's':
					if s, ok := unquote(k.text); ok {
						kind, key = opKeyed, s
					}
				case '1':
					if _, err := strconv.Atoi(k.text); err == nil {
						kind, key = opIndexed, k.text
					}
				}
			}
			e = exprInfo{lo: e.lo, hi: p.pos, pure: pure, kind: kind, key: key}
		case p.at("("):
			key := ""
			if e.kind == opName || e.kind == opKeyed {
				key = e.key
			}
			if err := p.callArgs(); err != nil {
				return e, err
			}
			e = exprInfo{lo: e.lo, hi: p.pos, kind: opCall, key: key}
		default:
			return e, nil
		}
	}
}

// callArgs parses a parenthesised argument list; it reports nothing about
// purity because a call is impure anyway, but filter arguments use
// filterArgs.
func (p *addParser) callArgs() error {
	_, err := p.filterArgs()
	return err
}

// filterArgs parses "(args)" and reports whether the arguments are pure.
func (p *addParser) filterArgs() (bool, error) {
	if err := p.expect("("); err != nil {
		return false, err
	}
	pure := true
	for !p.at(")") {
		switch {
		case p.at("*") || p.at("**"):
			p.pos++
		case p.peek().kind == 'n' && p.pos+1 < len(p.toks) && p.toks[p.pos+1].text == "=" && p.toks[p.pos+1].kind == 'p':
			p.pos += 2
		}
		x, err := p.expression(true)
		if err != nil {
			return false, err
		}
		pure = pure && x.pure
		if !p.at(",") {
			break
		}
		p.pos++
	}
	return pure, p.expect(")")
}

// dottedName parses "name(.name)*" as used for filter and test names.
func (p *addParser) dottedName() error {
	if p.peek().kind != 'n' {
		return errNoParse
	}
	p.pos++
	for p.at(".") && p.pos+1 < len(p.toks) && p.toks[p.pos+1].kind == 'n' {
		p.pos += 2
	}
	return nil
}

// filterExpr parses filters, tests and calls after a unary expression
// (jinja2 parse_filter_expr).
func (p *addParser) filterExpr(e exprInfo) (exprInfo, error) {
	for {
		switch {
		case p.at("|"):
			p.pos++
			name := p.peek().text
			if err := p.dottedName(); err != nil {
				return e, err
			}
			pure := e.pure
			if p.at("(") {
				argsPure, err := p.filterArgs()
				if err != nil {
					return e, err
				}
				pure = pure && argsPure
			}
			e = exprInfo{lo: e.lo, hi: p.pos, pure: pure, kind: opFiltered, key: name, numeric: numericFilters[name]}
		case p.atName("is"):
			p.pos++
			if p.atName("not") {
				p.pos++
			}
			if err := p.dottedName(); err != nil {
				return e, err
			}
			pure := e.pure
			t := p.peek()
			switch {
			case p.at("("):
				argsPure, err := p.filterArgs()
				if err != nil {
					return e, err
				}
				pure = pure && argsPure
			case !p.done() && (t.kind == 's' || t.kind == '1' || t.text == "[" || t.text == "{" ||
				t.kind == 'n' && t.text != "else" && t.text != "or" && t.text != "and"):
				a, err := p.primary()
				if err != nil {
					return a, err
				}
				if a, err = p.postfix(a); err != nil {
					return a, err
				}
				pure = pure && a.pure
			}
			e = exprInfo{lo: e.lo, hi: p.pos, pure: pure}
		case p.at("("):
			if err := p.callArgs(); err != nil {
				return e, err
			}
			e = exprInfo{lo: e.lo, hi: p.pos, kind: opCall}
		default:
			return e, nil
		}
	}
}

// unquote returns the value of a simple string literal token (no escape
// sequences).
func unquote(lit string) (string, bool) {
	if len(lit) < 2 || lit[0] != lit[len(lit)-1] {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' {
			return "", false
		}
	}
	return body, true
}

// addChains returns the "+" chains of one tag's tokens, or nil if the tag
// is not understood. Expression tags are one (tuple) expression; statement
// tags are parsed according to their keyword.
func addChains(kind tagKind, toks []token) []addChain {
	p := &addParser{toks: toks}
	if err := p.tag(kind); err != nil || !p.done() {
		return nil
	}
	return p.chains
}

func (p *addParser) tag(kind tagKind) error {
	if kind == tagExpr {
		_, err := p.tuple(true)
		return err
	}
	if len(p.toks) == 0 || p.toks[0].kind != 'n' {
		return errNoParse
	}
	p.pos = 1
	switch p.toks[0].text {
	case "if", "elif":
		_, err := p.tuple(true)
		return err
	case "set":
		for !p.done() && !p.at("=") {
			p.pos++
		}
		if p.done() {
			return nil // block set: "{% set x %}...{% endset %}"
		}
		p.pos++
		_, err := p.tuple(true)
		return err
	case "for":
		for !p.done() && !p.atName("in") {
			p.pos++
		}
		if p.done() {
			return errNoParse
		}
		p.pos++
		if _, err := p.tuple(false); err != nil {
			return err
		}
		if p.atName("if") {
			p.pos++
			if _, err := p.expression(true); err != nil {
				return err
			}
		}
		if p.atName("recursive") {
			p.pos++
		}
		return nil
	case "macro":
		if p.peek().kind != 'n' {
			return errNoParse
		}
		p.pos++
		return p.params()
	case "call":
		if p.at("(") {
			if err := p.params(); err != nil {
				return err
			}
		}
		_, err := p.expression(true)
		return err
	case "with":
		for !p.done() {
			if p.peek().kind != 'n' {
				return errNoParse
			}
			p.pos++
			if err := p.expect("="); err != nil {
				return err
			}
			if _, err := p.expression(true); err != nil {
				return err
			}
			if !p.at(",") {
				break
			}
			p.pos++
		}
		return nil
	}
	p.pos = len(p.toks) // other statements hold no "+" expressions we rewrite
	p.chains = nil
	return nil
}

// params parses a macro or call-block parameter list "(a, b=default)".
func (p *addParser) params() error {
	if err := p.expect("("); err != nil {
		return err
	}
	for !p.at(")") {
		if p.peek().kind != 'n' {
			return errNoParse
		}
		p.pos++
		if p.at("=") {
			p.pos++
			if _, err := p.expression(true); err != nil {
				return err
			}
		}
		if !p.at(",") {
			break
		}
		p.pos++
	}
	return p.expect(")")
}

// numericFilters are the filters that return a number (or fail), and
// loopNumbers the attributes of a for loop's loop object that are numbers.
var (
	numericFilters = map[string]bool{"length": true, "count": true, "int": true, "float": true, "abs": true,
		"round": true, "wordcount": true}
	loopNumbers = map[string]bool{"index": true, "index0": true, "revindex": true, "revindex0": true,
		"length": true, "depth": true, "depth0": true}
)
