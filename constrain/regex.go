package constrain

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Regex compiles a regular expression (Go/RE2 syntax) into a constraint that
// the whole generated text must match (full-match semantics). Anchors (^, $,
// \A, \z) are accepted and ignored since the match is always anchored; word
// boundaries are not supported.
func Regex(expr string) (*Grammar, error) {
	e, err := regexExpr(expr, "regex")
	if err != nil {
		return nil, err
	}
	b := newBuilder("regex")
	root := b.rule("root")
	b.define(root, e)
	return compileGrammar(b, root)
}

// regexExpr parses a regex into the intermediate representation.
func regexExpr(src, lang string) (*expr, error) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, regexError(src, lang, err)
	}
	return regexToExpr(re, src, lang)
}

func regexError(src, lang string, err error) error {
	var se *syntax.Error
	ce := &CompileError{Lang: lang, Msg: err.Error(), Err: ErrSyntax}
	if errors.As(err, &se) {
		if i := strings.Index(src, se.Expr); i >= 0 && se.Expr != "" {
			ce.Line, ce.Col = lineCol(src, i)
		}
		ce.Msg = fmt.Sprintf("%s: %q", se.Code, se.Expr)
	}
	return ce
}

func regexToExpr(re *syntax.Regexp, src, lang string) (*expr, error) {
	fold := re.Flags&syntax.FoldCase != 0
	switch re.Op {
	case syntax.OpNoMatch:
		return nothingExpr, nil
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText:
		return emptyExpr, nil
	case syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return nil, &CompileError{Lang: lang, Msg: fmt.Sprintf("word boundaries are not supported in %q", src), Err: ErrUnsupported}
	case syntax.OpLiteral:
		subs := make([]*expr, 0, len(re.Rune))
		for _, r := range re.Rune {
			subs = append(subs, runeExpr(r, fold))
		}
		return seq(subs...), nil
	case syntax.OpCharClass:
		var rs []runeRange
		for i := 0; i+1 < len(re.Rune); i += 2 {
			rs = append(rs, runeRange{re.Rune[i], re.Rune[i+1]})
		}
		return runeClass(rs), nil
	case syntax.OpAnyCharNotNL:
		return runeClass([]runeRange{{0, '\n' - 1}, {'\n' + 1, unicode.MaxRune}}), nil
	case syntax.OpAnyChar:
		return anyChar(), nil
	case syntax.OpCapture:
		return regexToExpr(re.Sub[0], src, lang)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		sub, err := regexToExpr(re.Sub[0], src, lang)
		if err != nil {
			return nil, err
		}
		switch re.Op {
		case syntax.OpStar:
			return star(sub), nil
		case syntax.OpPlus:
			return plus(sub), nil
		case syntax.OpQuest:
			return opt(sub), nil
		}
		return rep(sub, re.Min, re.Max), nil
	case syntax.OpConcat, syntax.OpAlternate:
		subs := make([]*expr, 0, len(re.Sub))
		for _, s := range re.Sub {
			e, err := regexToExpr(s, src, lang)
			if err != nil {
				return nil, err
			}
			subs = append(subs, e)
		}
		if re.Op == syntax.OpConcat {
			return seq(subs...), nil
		}
		return alt(subs...), nil
	}
	return nil, &CompileError{Lang: lang, Msg: fmt.Sprintf("unsupported regex operator %v in %q", re.Op, src), Err: ErrUnsupported}
}

// runeExpr matches one code point, or any of its simple case folds.
func runeExpr(r rune, fold bool) *expr {
	if !fold {
		var buf [utf8.UTFMax]byte
		n := utf8.EncodeRune(buf[:], r)
		return lit(string(buf[:n]))
	}
	rs := []runeRange{{r, r}}
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		rs = append(rs, runeRange{f, f})
	}
	return runeClass(rs)
}
