package constrain

import (
	"math"
	"math/big"
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

// interval is a range of numbers; nil bounds are unbounded.
type interval struct {
	lo, hi         *big.Rat
	loOpen, hiOpen bool
}

func (iv interval) contains(x *big.Rat) bool {
	if iv.lo != nil {
		if c := x.Cmp(iv.lo); c < 0 || c == 0 && iv.loOpen {
			return false
		}
	}
	if iv.hi != nil {
		if c := x.Cmp(iv.hi); c > 0 || c == 0 && iv.hiOpen {
			return false
		}
	}
	return true
}

func (iv interval) empty() bool {
	if iv.lo == nil || iv.hi == nil {
		return false
	}
	c := iv.lo.Cmp(iv.hi)
	return c > 0 || c == 0 && (iv.loOpen || iv.hiOpen)
}

// intersect narrows iv to the values also in o.
func (iv interval) intersect(o interval) interval {
	if o.lo != nil && (iv.lo == nil || o.lo.Cmp(iv.lo) > 0 || o.lo.Cmp(iv.lo) == 0 && o.loOpen) {
		iv.lo, iv.loOpen = o.lo, o.loOpen
	}
	if o.hi != nil && (iv.hi == nil || o.hi.Cmp(iv.hi) < 0 || o.hi.Cmp(iv.hi) == 0 && o.hiOpen) {
		iv.hi, iv.hiOpen = o.hi, o.hiOpen
	}
	return iv
}

// subtract returns iv without the values in o, as up to two intervals.
func (iv interval) subtract(o interval) []interval {
	var out []interval
	if o.lo != nil { // the part below o
		below := iv.intersect(interval{hi: o.lo, hiOpen: !o.loOpen})
		if !below.empty() {
			out = append(out, below)
		}
	}
	if o.hi != nil { // the part above o
		above := iv.intersect(interval{lo: o.hi, loOpen: !o.hiOpen})
		if !above.empty() {
			out = append(out, above)
		}
	}
	return out
}

// decimalParts splits a non-negative exact decimal into its integer part and
// its fraction digits (without trailing zeros).
func decimalParts(r *big.Rat) (int64, string, bool) {
	ip := new(big.Int).Quo(r.Num(), r.Denom())
	if !ip.IsInt64() || ip.Int64() > pow10(maxIntDigits) {
		return 0, "", false
	}
	frac := new(big.Rat).Sub(r, new(big.Rat).SetInt(ip))
	var digits []byte
	ten := big.NewRat(10, 1)
	for frac.Sign() != 0 {
		if len(digits) >= maxFracDigits {
			return 0, "", false
		}
		frac.Mul(frac, ten)
		d := new(big.Int).Quo(frac.Num(), frac.Denom())
		digits = append(digits, byte('0'+d.Int64()))
		frac.Sub(frac, new(big.Rat).SetInt(d))
	}
	return ip.Int64(), string(digits), true
}

func allZero(s string) bool { return strings.Trim(s, "0") == "" }

// fracDigits matches digit strings d of length 0..n with lo <= 0.d <= hi
// (open ends exclusive; has* false: unbounded on that side). It returns
// whether the empty string matches and the expression for non-empty ones.
func fracDigits(lo string, loOpen, hasLo bool, hi string, hiOpen, hasHi bool, n int) (bool, *expr) {
	if hasLo && allZero(lo) && !loOpen {
		hasLo = false
	}
	empty := !(hasLo && (!allZero(lo) || loOpen)) && !(hasHi && allZero(hi) && hiOpen)
	if n == 0 {
		return empty, nothingExpr
	}
	first := func(s string) byte {
		if s == "" {
			return '0'
		}
		return s[0]
	}
	rest := func(s string) string {
		if s == "" {
			return ""
		}
		return s[1:]
	}
	lo0, hi0 := byte('0'), byte('9')
	if hasLo {
		lo0 = first(lo)
	}
	if hasHi {
		hi0 = first(hi)
	}
	var alts []*expr
	free := rep(digit(), 0, n-1)
	a, b := lo0, hi0
	if hasLo {
		a++
	}
	if hasHi {
		b--
	}
	if a <= b && a <= '9' && b >= '0' {
		alts = append(alts, seq(byteRange(a, b), free))
	}
	tail := func(e bool, ne *expr) *expr {
		if e {
			return alt(emptyExpr, ne)
		}
		return ne
	}
	switch {
	case hasLo && hasHi && lo0 == hi0:
		e, ne := fracDigits(rest(lo), loOpen, true, rest(hi), hiOpen, true, n-1)
		alts = append(alts, seq(byteRange(lo0, lo0), tail(e, ne)))
	default:
		if hasLo && (!hasHi || lo0 < hi0) {
			e, ne := fracDigits(rest(lo), loOpen, true, "", false, false, n-1)
			alts = append(alts, seq(byteRange(lo0, lo0), tail(e, ne)))
		}
		if hasHi && (!hasLo || hi0 > lo0) {
			e, ne := fracDigits("", false, false, rest(hi), hiOpen, true, n-1)
			alts = append(alts, seq(byteRange(hi0, hi0), tail(e, ne)))
		}
	}
	return empty, alt(alts...)
}

// fracPart is the optional ".digits" of a number whose fraction lies in range.
func fracPart(lo string, loOpen, hasLo bool, hi string, hiOpen, hasHi bool) *expr {
	e, ne := fracDigits(lo, loOpen, hasLo, hi, hiOpen, hasHi, maxFracDigits)
	out := seq(lit("."), ne)
	if e {
		out = alt(emptyExpr, out)
	}
	return out
}

// magRange matches unsigned JSON numbers without exponent in the interval
// (lo >= 0 and not nil); integer keeps integral values only, spelled with
// an optional zero fraction (2.0 is an integer) if zeroFrac.
func magRange(iv interval, integer, zeroFrac bool) (*expr, bool) {
	li, lf, ok := decimalParts(iv.lo)
	if !ok {
		return nil, false
	}
	var hiI int64 = -1
	hf := ""
	if iv.hi != nil {
		if hiI, hf, ok = decimalParts(iv.hi); !ok {
			return nil, false
		}
	}
	if integer {
		a := li
		if lf != "" || iv.loOpen {
			a++
		}
		b := hiI
		if iv.hi != nil && hf == "" && iv.hiOpen {
			b--
		}
		if iv.hi != nil && b < a {
			return nothingExpr, true
		}
		if !zeroFrac {
			return natRange(a, b), true
		}
		return seq(natRange(a, b), opt(seq(lit("."), rep(lit("0"), 1, maxFracDigits)))), true
	}
	anyFrac := opt(seq(lit("."), rep(digit(), 1, maxFracDigits)))
	exact := func(x int64) *expr { return lit(strconv.FormatInt(x, 10)) }
	if iv.hi == nil {
		return alt(seq(exact(li), fracPart(lf, iv.loOpen, true, "", false, false)), seq(natRange(li+1, -1), anyFrac)), true
	}
	if li == hiI {
		return seq(exact(li), fracPart(lf, iv.loOpen, true, hf, iv.hiOpen, true)), true
	}
	out := []*expr{seq(exact(li), fracPart(lf, iv.loOpen, true, "", false, false))}
	if li+1 <= hiI-1 {
		out = append(out, seq(natRange(li+1, hiI-1), anyFrac))
	}
	out = append(out, seq(exact(hiI), fracPart("", false, false, hf, iv.hiOpen, true)))
	return alt(out...), true
}

// rangeExpr matches JSON numbers without exponent whose value lies in iv
// (integers only if integer, with an optional zero fraction if zeroFrac).
// It reports false when a bound has more digits than generated numbers have.
func rangeExpr(iv interval, integer, zeroFrac bool) (*expr, bool) {
	zero := new(big.Rat)
	var alts []*expr
	if iv.hi == nil || iv.hi.Sign() > 0 || iv.hi.Sign() == 0 && !iv.hiOpen {
		pos := iv
		if pos.lo == nil || pos.lo.Sign() < 0 {
			pos.lo, pos.loOpen = zero, false
		}
		e, ok := magRange(pos, integer, zeroFrac)
		if !ok {
			return nil, false
		}
		alts = append(alts, e)
	}
	if iv.lo == nil || iv.lo.Sign() < 0 {
		var neg interval
		neg.lo = zero
		if iv.hi != nil && iv.hi.Sign() <= 0 {
			neg.lo, neg.loOpen = new(big.Rat).Neg(iv.hi), iv.hiOpen
		}
		if iv.lo != nil {
			neg.hi, neg.hiOpen = new(big.Rat).Neg(iv.lo), iv.loOpen
		}
		if !neg.empty() {
			e, ok := magRange(neg, integer, zeroFrac)
			if !ok {
				return nil, false
			}
			alts = append(alts, seq(lit("-"), e))
		}
	}
	return alt(alts...), true
}
