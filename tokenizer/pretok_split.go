package tokenizer

import "sort"

// This file holds the split steps. gpt2Split and llama3Split follow
// llama.cpp's hand-written unicode_regex_split_custom_gpt2/_llama3 (and the
// Qwen2/Qwen3.5 variants of the same state machine); the others emulate the
// std::regex / std::wregex matching llama.cpp falls back to, including its
// "collapsed" treatment of non-ASCII code points.

const outOfRange = -1

// at returns the code point at i within [start, end), or outOfRange.
func (s *splitState) at(i, start, end int) rune {
	if i >= start && i < end {
		return s.cps[i]
	}
	return outOfRange
}

// flagsAt returns the flags at i within [start, end), or 0 outside.
func (s *splitState) flagsAt(i, start, end int) uint16 {
	if i >= start && i < end {
		return s.fl[i]
	}
	return 0
}

// gpt2Split is 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
type gpt2Split struct{}

func (gpt2Split) split(s *splitState, start, end int) {
	prev := start
	add := func(e int) int {
		n := e - prev
		if n > 0 {
			s.emit(e)
		}
		prev = e
		return n
	}
	const lnw = fLetter | fNumber | fWhitespace
	for pos := start; pos < end; {
		c := s.cps[pos]
		fl := s.fl[pos]
		if c == '\'' && pos+1 < end {
			n := s.cps[pos+1]
			if n == 's' || n == 't' || n == 'm' || n == 'd' {
				pos += add(pos + 2)
				continue
			}
			if pos+2 < end {
				nn := s.cps[pos+2]
				if (n == 'r' && nn == 'e') || (n == 'v' && nn == 'e') || (n == 'l' && nn == 'l') {
					pos += add(pos + 3)
					continue
				}
			}
		}
		f2 := fl
		if c == ' ' {
			f2 = s.flagsAt(pos+1, start, end)
		}
		if f2&fLetter != 0 {
			if c == ' ' {
				pos++
			}
			for f2&fLetter != 0 {
				pos++
				f2 = s.flagsAt(pos, start, end)
			}
			add(pos)
			continue
		}
		if f2&fNumber != 0 {
			if c == ' ' {
				pos++
			}
			for f2&fNumber != 0 {
				pos++
				f2 = s.flagsAt(pos, start, end)
			}
			add(pos)
			continue
		}
		if f2&lnw == 0 && f2 != 0 {
			if c == ' ' {
				pos++
			}
			for f2&lnw == 0 && f2 != 0 {
				pos++
				f2 = s.flagsAt(pos, start, end)
			}
			add(pos)
			continue
		}
		nws := 0
		for s.flagsAt(pos+nws, start, end)&fWhitespace != 0 {
			nws++
		}
		if nws > 1 && pos+nws < end {
			pos += nws - 1
			add(pos)
			continue
		}
		if nws > 0 {
			pos += nws
			add(pos)
			continue
		}
		pos++
		add(pos)
	}
}

// llama3Split is (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|
// \p{N}{1,maxDigits}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// With marks set, letter runs are [\p{L}\p{M}]+ and the punctuation class
// excludes \p{M} (Qwen3.5).
type llama3Split struct {
	maxDigits int
	marks     bool
}

func lowerASCII(c rune) rune {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return toLower(c)
}

func (p llama3Split) split(s *splitState, start, end int) {
	prev := start
	add := func(e int) int {
		n := e - prev
		if n > 0 {
			s.emit(e)
		}
		prev = e
		return n
	}
	letter := fLetter
	if p.marks {
		letter |= fMark
	}
	punctExcl := fWhitespace | letter | fNumber
	for pos := start; pos < end; {
		c := s.cps[pos]
		fl := s.fl[pos]
		if c == '\'' && pos+1 < end {
			n := lowerASCII(s.cps[pos+1])
			if n == 's' || n == 't' || n == 'm' || n == 'd' {
				pos += add(pos + 2)
				continue
			}
			if pos+2 < end {
				nn := lowerASCII(s.cps[pos+2])
				if (n == 'r' && nn == 'e') || (n == 'v' && nn == 'e') || (n == 'l' && nn == 'l') {
					pos += add(pos + 3)
					continue
				}
			}
		}
		if !(c == '\r' || c == '\n' || fl&fNumber != 0) {
			if fl&letter != 0 || s.flagsAt(pos+1, start, end)&letter != 0 {
				pos++
				for s.flagsAt(pos, start, end)&letter != 0 {
					pos++
				}
				add(pos)
				continue
			}
		}
		if fl&fNumber != 0 {
			ini := pos
			for s.flagsAt(pos, start, end)&fNumber != 0 {
				pos++
				if pos-ini >= p.maxDigits {
					add(pos)
					ini = pos
				}
			}
			add(pos)
			continue
		}
		f2 := fl
		if c == ' ' {
			f2 = s.flagsAt(pos+1, start, end)
		}
		if f2&punctExcl == 0 && fl != 0 {
			if c == ' ' {
				pos++
			}
			for f2&punctExcl == 0 && f2 != 0 {
				pos++
				f2 = s.flagsAt(pos, start, end)
			}
			c2 := s.at(pos, start, end)
			for c2 == '\r' || c2 == '\n' {
				pos++
				c2 = s.at(pos, start, end)
			}
			add(pos)
			continue
		}
		nws := 0
		lastRN := 0
		for s.flagsAt(pos+nws, start, end)&fWhitespace != 0 {
			c2 := s.cps[pos+nws]
			if c2 == '\r' || c2 == '\n' {
				lastRN = pos + nws + 1
			}
			nws++
		}
		if lastRN > 0 {
			pos = lastRN
			add(pos)
			continue
		}
		if nws > 1 && pos+nws < end {
			pos += nws - 1
			add(pos)
			continue
		}
		if nws > 0 {
			pos += nws
			add(pos)
			continue
		}
		pos++
		add(pos)
	}
}

// A charClass decides membership of one code point (with its flags) in a
// regex character class, as std::regex sees it on llama.cpp's collapsed or
// wide text.
type charClass func(c rune, f uint16) bool

// classRun emulates the std::regex search of prefix?body{min,max} over a
// fragment: matches and the gaps between them become fragments.
type classRun struct {
	prefix   charClass // optional single-character prefix, or nil
	body     charClass
	min, max int // max 0 means unbounded
}

func (r classRun) count(s *splitState, p, end int) int {
	n := 0
	for p+n < end && (r.max == 0 || n < r.max) && r.body(s.cps[p+n], s.fl[p+n]) {
		n++
	}
	return n
}

func (r classRun) matchAt(s *splitState, p, end int) int {
	if r.prefix != nil && r.prefix(s.cps[p], s.fl[p]) {
		if n := r.count(s, p+1, end); n >= r.min {
			return p + 1 + n
		}
	}
	if n := r.count(s, p, end); n >= r.min {
		return p + n
	}
	return -1
}

func (r classRun) split(s *splitState, start, end int) {
	prev := start
	for pos := start; pos < end; {
		if m := r.matchAt(s, pos, end); m > pos {
			if pos > prev {
				s.emit(pos)
			}
			s.emit(m)
			prev, pos = m, m
			continue
		}
		pos++
	}
	if prev < end {
		s.emit(end)
	}
}

// trailingSpace is \s+$ : the run of whitespace ending the fragment.
type trailingSpace struct{}

func (trailingSpace) split(s *splitState, start, end int) {
	r := end
	for r > start && reSpace(s.cps[r-1], s.fl[r-1]) {
		r--
	}
	if r > start && r < end {
		s.emit(r)
	}
	s.emit(end)
}

// lineRuns is [^\n]+|[\n]+ .
type lineRuns struct{}

func (lineRuns) split(s *splitState, start, end int) {
	for pos := start; pos < end; {
		nl := s.cps[pos] == '\n'
		pos++
		for pos < end && (s.cps[pos] == '\n') == nl {
			pos++
		}
		s.emit(pos)
	}
}

// Character classes. Non-ASCII whitespace is collapsed to \v by llama.cpp
// before std::regex runs, so it only ever matches \s.

func reSpace(c rune, f uint16) bool {
	if c < 128 {
		return c == ' ' || (c >= '\t' && c <= '\r')
	}
	return f&fWhitespace != 0
}

func collapsed(c rune, f uint16, want uint16) bool {
	return c >= 128 && f&fWhitespace == 0 && f&want != 0
}

func reL(c rune, f uint16) bool {
	if c < 128 {
		return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
	}
	return collapsed(c, f, fLetter)
}

func reN(c rune, f uint16) bool {
	if c < 128 {
		return c >= '0' && c <= '9'
	}
	return collapsed(c, f, fNumber)
}

// reP is llama.cpp's collapsed \p{P}: ASCII !-#%-*,-/:-;?-@[-]_{} and
// non-ASCII punctuation.
func reP(c rune, f uint16) bool {
	if c < 128 {
		switch {
		case c >= '!' && c <= '#', c >= '%' && c <= '*', c >= ',' && c <= '/',
			c == ':' || c == ';', c == '?' || c == '@', c >= '[' && c <= ']',
			c == '_', c == '{', c == '}':
			return true
		}
		return false
	}
	return collapsed(c, f, fPunct)
}

// reFalconPunct is [\p{P}\$\+<=>\^~\|`]
func reFalconPunct(c rune, f uint16) bool {
	switch c {
	case '$', '+', '<', '=', '>', '^', '~', '|', '`':
		return true
	}
	return reP(c, f)
}

// reDefaultPunct is [\p{P}\$\+<=>\^~\|]
func reDefaultPunct(c rune, f uint16) bool {
	switch c {
	case '$', '+', '<', '=', '>', '^', '~', '|':
		return true
	}
	return reP(c, f)
}

func reASCIIDigit(c rune, _ uint16) bool { return c >= '0' && c <= '9' }

func reCRLF(c rune, _ uint16) bool { return c == '\r' || c == '\n' }

// reCJK is [一-龥ࠀ-一가-퟿] on wide text, where non-ASCII whitespace (such
// as U+3000, inside the second range) has been replaced by \v.
func reCJK(c rune, f uint16) bool {
	if f&fWhitespace != 0 {
		return false
	}
	return (c >= 0x4E00 && c <= 0x9FA5) || (c >= 0x0800 && c <= 0x4E00) || (c >= 0xAC00 && c <= 0xD7FF)
}

// reDeepseekPunct is [!-/:-~！-／：-～‘-‟　-。] on wide text, where non-ASCII
// whitespace has been replaced by \v.
func reDeepseekPunct(c rune, f uint16) bool {
	if c >= 128 && f&fWhitespace != 0 {
		return false
	}
	return (c >= '!' && c <= '/') || (c >= ':' && c <= '~') || (c >= 0xFF01 && c <= 0xFF0F) ||
		(c >= 0xFF1A && c <= 0xFF5E) || (c >= 0x2018 && c <= 0x201F) || (c >= 0x3000 && c <= 0x3002)
}

// deepseekLetters are the ranges of DeepSeek LLM's letter class (cased
// letters, as listed in its tokenizer.json).
var deepseekLetters = [...][2]rune{
	{0x41, 0x5A}, {0x61, 0x7A}, {0xB5, 0xB5}, {0xC0, 0xD6}, {0xD8, 0xF6}, {0xF8, 0x1BA}, {0x1BC, 0x1BF},
	{0x1C4, 0x293}, {0x295, 0x2AF}, {0x370, 0x373}, {0x376, 0x377}, {0x37B, 0x37D}, {0x37F, 0x37F},
	{0x386, 0x386}, {0x388, 0x38A}, {0x38C, 0x38C}, {0x38E, 0x3A1}, {0x3A3, 0x3F5}, {0x3F7, 0x481},
	{0x48A, 0x52F}, {0x531, 0x556}, {0x10A0, 0x10C5}, {0x13A0, 0x13F5}, {0x13F8, 0x13FD}, {0x1C90, 0x1CBA},
	{0x1CBD, 0x1CBF}, {0x1D00, 0x1D2B}, {0x1D6B, 0x1D77}, {0x1D79, 0x1D9A}, {0x1E00, 0x1F15}, {0x1F18, 0x1F1D},
	{0x1F20, 0x1F45}, {0x1F48, 0x1F4D}, {0x1F50, 0x1F57}, {0x1F59, 0x1F59}, {0x1F5B, 0x1F5B}, {0x1F5D, 0x1F5D},
	{0x1F5F, 0x1F7D}, {0x1F80, 0x1FB4}, {0x1FB6, 0x1FBC}, {0x1FBE, 0x1FBE}, {0x1FC2, 0x1FC4}, {0x1FC6, 0x1FCC},
	{0x1FD0, 0x1FD3}, {0x1FD6, 0x1FDB}, {0x1FE0, 0x1FEC}, {0x1FF2, 0x1FF4}, {0x1FF6, 0x1FFC}, {0x2102, 0x2102},
	{0x2107, 0x2107}, {0x210A, 0x2113}, {0x2115, 0x2115}, {0x2119, 0x211D}, {0x2124, 0x2124}, {0x2126, 0x2126},
	{0x2128, 0x2128}, {0x212A, 0x212D}, {0x212F, 0x2134}, {0x2139, 0x2139}, {0x213C, 0x213F}, {0x2145, 0x2149},
	{0x214E, 0x214E}, {0x2183, 0x2184}, {0x2C00, 0x2C7B}, {0x2C7E, 0x2CE4}, {0x2CEB, 0x2CEE}, {0x2CF2, 0x2CF3},
	{0xA640, 0xA66D}, {0xA680, 0xA69B}, {0xA722, 0xA76F}, {0xA771, 0xA787}, {0xA78B, 0xA78E}, {0xAB70, 0xABBF},
	{0xFB00, 0xFB06}, {0xFB13, 0xFB17}, {0xFF21, 0xFF3A}, {0xFF41, 0xFF5A}, {0x10400, 0x1044F}, {0x104B0, 0x104D3},
	{0x104D8, 0x104FB}, {0x10C80, 0x10CB2}, {0x10CC0, 0x10CF2}, {0x118A0, 0x118DF}, {0x1E900, 0x1E943},
}

func reDeepseekLetter(c rune, _ uint16) bool {
	if c < 128 {
		return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
	}
	i := sort.Search(len(deepseekLetters), func(i int) bool { return deepseekLetters[i][1] >= c })
	return i < len(deepseekLetters) && deepseekLetters[i][0] <= c
}

// isHan is llama.cpp's unicode_cpt_is_han.
func isHan(c rune) bool {
	return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
		(c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
		(c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
		(c >= 0x2CEB0 && c <= 0x2EBEF) || (c >= 0xF900 && c <= 0xFAFF) ||
		(c >= 0x2F800 && c <= 0x2FA1F)
}

// kimiK2Split is llama.cpp's unicode_regex_split_custom_kimi_k2:
// [\p{Han}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]*[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|...|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// as its hand-written state machine implements it.
type kimiK2Split struct{}

func (kimiK2Split) split(s *splitState, start, end int) {
	prev := start
	add := func(e int) {
		if e > prev {
			s.emit(e)
		}
		prev = e
	}
	han := func(i int) bool { return i >= start && i < end && isHan(s.cps[i]) }
	letter := func(i int) bool { return s.flagsAt(i, start, end)&fLetter != 0 && !han(i) }
	for pos := start; pos < end; {
		c := s.cps[pos]
		fl := s.fl[pos]
		if isHan(c) {
			for han(pos) {
				pos++
			}
			add(pos)
			continue
		}
		lead := !(c == '\r' || c == '\n' || fl&fLetter != 0 || fl&fNumber != 0)
		if (fl&fLetter != 0 && !isHan(c)) || (lead && letter(pos+1)) {
			if lead {
				pos++
			}
			hasLetters := false
			for letter(pos) {
				hasLetters = true
				pos++
			}
			if hasLetters || (!lead && letter(pos)) {
				if !hasLetters {
					pos++
				}
				for letter(pos) {
					pos++
				}
				if s.at(pos, start, end) == '\'' && pos+1 < end {
					n := toLower(s.cps[pos+1])
					if n == 's' || n == 't' || n == 'm' || n == 'd' {
						pos += 2
					} else if pos+2 < end {
						nn := toLower(s.cps[pos+2])
						if (n == 'r' && nn == 'e') || (n == 'v' && nn == 'e') || (n == 'l' && nn == 'l') {
							pos += 3
						}
					}
				}
				add(pos)
				continue
			} else if lead {
				pos--
			}
		}
		if fl&fNumber != 0 {
			ini := pos
			for s.flagsAt(pos, start, end)&fNumber != 0 {
				pos++
				if pos-ini >= 3 {
					add(pos)
					ini = pos
				}
			}
			add(pos)
			continue
		}
		f2 := fl
		if c == ' ' {
			f2 = s.flagsAt(pos+1, start, end)
		}
		const lnw = fLetter | fNumber | fWhitespace
		if f2&lnw == 0 && f2 != 0 {
			if c == ' ' {
				pos++
			}
			for f2&lnw == 0 && f2 != 0 {
				pos++
				f2 = s.flagsAt(pos, start, end)
			}
			for c2 := s.at(pos, start, end); c2 == '\r' || c2 == '\n'; c2 = s.at(pos, start, end) {
				pos++
			}
			add(pos)
			continue
		}
		nws, lastRN := 0, 0
		for s.flagsAt(pos+nws, start, end)&fWhitespace != 0 {
			if c2 := s.cps[pos+nws]; c2 == '\r' || c2 == '\n' {
				lastRN = pos + nws + 1
			}
			nws++
		}
		switch {
		case lastRN > 0:
			pos = lastRN
		case nws > 1 && pos+nws < end:
			pos += nws - 1
		case nws > 0:
			pos += nws
		default:
			pos++
		}
		add(pos)
	}
}

// digitGroups is llama.cpp's unicode_regex_split_custom_afmoe (also used
// for Tiny Aya's \d{1,3}(?=(?:\d{3})*\b)): every run of \p{N} is cut into
// groups of three from the right; the text before a run stays with its
// first group.
type digitGroups struct{}

func (digitGroups) split(s *splitState, start, end int) {
	prev := start
	add := func(e int) {
		if e > prev {
			s.emit(e)
		}
		prev = e
	}
	for pos := start; pos < end; {
		if s.fl[pos]&fNumber == 0 {
			pos++
			continue
		}
		d0 := pos
		for pos < end && s.fl[pos]&fNumber != 0 {
			pos++
		}
		cur := d0
		if r := (pos - d0) % 3; r > 0 {
			cur += r
			add(cur)
		}
		for ; cur < pos; cur += 3 {
			add(cur + 3)
		}
	}
	if prev < end {
		add(end)
	}
}

// thousandsCuts is SuperBPE's (?=(\d{3})+(?!\d)): an empty match before
// every group of three ASCII digits counted from the end of a digit run,
// each giving an empty fragment as std::regex_iterator does. The regex
// engine takes quadratic time on a long digit run; this is linear.
type thousandsCuts struct{}

func (thousandsCuts) split(s *splitState, start, end int) {
	prev := start
	for pos := start; pos < end; {
		if !reASCIIDigit(s.cps[pos], 0) {
			pos++
			continue
		}
		e := pos
		for e < end && reASCIIDigit(s.cps[e], 0) {
			e++
		}
		for p := pos; p+3 <= e; p++ {
			if (e-p)%3 == 0 {
				if p > prev {
					s.emit(p)
				}
				s.emit(p)
				prev = p
			}
		}
		pos = e
	}
	if prev < end {
		s.emit(end)
	}
}
