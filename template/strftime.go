package template

import (
	"strconv"
	"strings"
	"time"
)

// strftime formats t like C strftime in the C/POSIX locale, which is what
// Python's datetime.strftime produces there. Unknown directives are copied
// through unchanged, as glibc does.
func strftime(t time.Time, format string) string {
	var b strings.Builder
	pad := func(n, width int) {
		s := strconv.Itoa(n)
		for i := len(s); i < width; i++ {
			b.WriteByte('0')
		}
		b.WriteString(s)
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 >= len(format) {
			b.WriteByte(c)
			continue
		}
		i++
		noPad := false
		if format[i] == '-' && i+1 < len(format) {
			noPad = true
			i++
		}
		w := func(width int) int {
			if noPad {
				return 1
			}
			return width
		}
		switch format[i] {
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'b', 'h':
			b.WriteString(t.Month().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'c':
			b.WriteString(strftime(t, "%a %b %e %H:%M:%S %Y"))
		case 'C':
			pad(t.Year()/100, w(2))
		case 'd':
			pad(t.Day(), w(2))
		case 'D':
			b.WriteString(strftime(t, "%m/%d/%y"))
		case 'e':
			if noPad {
				pad(t.Day(), 1)
			} else {
				if t.Day() < 10 {
					b.WriteByte(' ')
				}
				b.WriteString(strconv.Itoa(t.Day()))
			}
		case 'F':
			b.WriteString(strftime(t, "%Y-%m-%d"))
		case 'H':
			pad(t.Hour(), w(2))
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			pad(h, w(2))
		case 'j':
			pad(t.YearDay(), w(3))
		case 'm':
			pad(int(t.Month()), w(2))
		case 'M':
			pad(t.Minute(), w(2))
		case 'n':
			b.WriteByte('\n')
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'R':
			b.WriteString(strftime(t, "%H:%M"))
		case 'S':
			pad(t.Second(), w(2))
		case 't':
			b.WriteByte('\t')
		case 'T':
			b.WriteString(strftime(t, "%H:%M:%S"))
		case 'u':
			d := int(t.Weekday())
			if d == 0 {
				d = 7
			}
			b.WriteString(strconv.Itoa(d))
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday())))
		case 'U':
			pad((t.YearDay()+6-int(t.Weekday()))/7, w(2))
		case 'W':
			pad((t.YearDay()+6-(int(t.Weekday())+6)%7)/7, w(2))
		case 'x':
			b.WriteString(strftime(t, "%m/%d/%y"))
		case 'X':
			b.WriteString(strftime(t, "%H:%M:%S"))
		case 'y':
			pad(t.Year()%100, w(2))
		case 'Y':
			b.WriteString(strconv.Itoa(t.Year()))
		case 'z':
			// A naive datetime (as transformers uses) has no offset: empty.
		case 'Z':
			// Likewise empty for a naive datetime.
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			if noPad {
				b.WriteByte('-')
			}
			b.WriteByte(format[i])
		}
	}
	return b.String()
}
