package constrain

import (
	"math"
	"strconv"
	"strings"
)

// digits matches one decimal digit.
func digit() *expr { return byteRange('0', '9') }

// maxIntDigits bounds the integer part of generated numbers when no maximum
// is given, so values fit an int64 and generation cannot go on forever.
const maxIntDigits = 18

// natRange matches decimal natural numbers (no leading zeros) in [lo, hi];
// hi < 0 means unbounded. lo must be >= 0.
func natRange(lo, hi int64) *expr {
	if hi < 0 {
		hi = pow10(maxIntDigits) - 1
		if lo > hi {
			hi = lo
		}
	}
	if lo > hi {
		return nothingExpr
	}
	var alts []*expr
	ls := strconv.FormatInt(lo, 10)
	for l := len(ls); ; l++ {
		if l > 19 {
			break
		}
		first := int64(0)
		if l > 1 {
			first = pow10(l - 1)
		}
		last := pow10(l) - 1
		if l == 19 {
			last = math.MaxInt64
		}
		a, b := max(lo, first), last
		if hi >= 0 {
			b = min(b, hi)
		}
		if a <= b {
			alts = append(alts, sameLenRange(pad(a, l), pad(b, l)))
		}
		if hi >= 0 && b >= hi {
			return alt(alts...)
		}
		if hi < 0 && l >= len(ls) {
			// Every longer number qualifies.
			alts = append(alts, seq(byteRange('1', '9'), rep(digit(), l, -1)))
			return alt(alts...)
		}
	}
	return alt(alts...)
}

func pow10(n int) int64 {
	p := int64(1)
	for i := 0; i < n; i++ {
		p *= 10
	}
	return p
}

func pad(x int64, l int) string {
	s := strconv.FormatInt(x, 10)
	return strings.Repeat("0", l-len(s)) + s
}

// sameLenRange matches digit strings of equal length between a and b.
func sameLenRange(a, b string) *expr {
	if a == "" {
		return emptyExpr
	}
	if a[0] == b[0] {
		return seq(byteRange(a[0], a[0]), sameLenRange(a[1:], b[1:]))
	}
	rest := len(a) - 1
	zeros, nines := strings.Repeat("0", rest), strings.Repeat("9", rest)
	var alts []*expr
	lo, hi := a[0], b[0]
	if a[1:] != zeros {
		alts = append(alts, seq(byteRange(a[0], a[0]), sameLenRange(a[1:], nines)))
		lo++
	}
	if b[1:] != nines {
		hi--
	}
	if lo <= hi {
		alts = append(alts, seq(byteRange(lo, hi), rep(digit(), rest, rest)))
	}
	if b[1:] != nines {
		alts = append(alts, seq(byteRange(b[0], b[0]), sameLenRange(zeros, b[1:])))
	}
	return alt(alts...)
}

// intRange matches JSON integers in [lo, hi]; nil bounds are unbounded.
func intRange(lo, hi *int64) *expr {
	var alts []*expr
	// Non-negative part.
	if hi == nil || *hi >= 0 {
		a := int64(0)
		if lo != nil && *lo > 0 {
			a = *lo
		}
		b := int64(-1)
		if hi != nil {
			b = *hi
		}
		alts = append(alts, natRange(a, b))
	}
	// Negative part: magnitudes in [max(1, -hi), -lo].
	if lo == nil || *lo < 0 {
		a := int64(1)
		if hi != nil && *hi < 0 {
			a = -*hi
		}
		b := int64(-1)
		if lo != nil {
			b = -*lo
		}
		alts = append(alts, seq(lit("-"), natRange(a, b)))
	}
	return alt(alts...)
}

// numRange matches JSON numbers without exponent whose value is in
// [lo, hi] (integer bounds; nil = unbounded).
func numRange(lo, hi *int64) *expr {
	frac := opt(seq(lit("."), rep(digit(), 1, maxFracDigits)))
	zeroFrac := opt(seq(lit("."), rep(lit("0"), 1, maxFracDigits)))
	// magnitudes: integer part in [a, b) with any fraction, or exactly b
	// with a zero fraction (b < 0: unbounded).
	mag := func(a, b int64) *expr {
		if b < 0 {
			return seq(natRange(a, -1), frac)
		}
		var alts []*expr
		if a < b {
			alts = append(alts, seq(natRange(a, b-1), frac))
		}
		if a <= b {
			alts = append(alts, seq(natRange(b, b), zeroFrac))
		}
		return alt(alts...)
	}
	var alts []*expr
	if hi == nil || *hi >= 0 {
		a := int64(0)
		if lo != nil && *lo > 0 {
			a = *lo
		}
		b := int64(-1)
		if hi != nil {
			b = *hi
		}
		alts = append(alts, mag(a, b))
	}
	if lo == nil || *lo < 0 {
		// value = -m with -m in [lo, hi]: m >= -hi (any fraction), m <= -lo.
		a := int64(0)
		if hi != nil && *hi < 0 {
			a = -*hi
		}
		b := int64(-1)
		if lo != nil {
			b = -*lo
		}
		// "-0" and "-0.5" are harmless: their values are in range too.
		alts = append(alts, seq(lit("-"), mag(a, b)))
	}
	return alt(alts...)
}
