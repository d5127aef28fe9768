package codec

import (
	"fmt"
	"strings"
	"time"

	"github.com/cosid-go/cosid/segment"
)

// field is what a token of a date pattern writes.
type field uint8

const (
	literal field = iota
	year4         // yyyy
	year2         // yy: the years 2000–2099
	month         // MM
	day           // dd
)

var fields = [...]struct {
	letters string
	width   int
	name    string
}{
	year4: {"yyyy", 4, "year"},
	year2: {"yy", 2, "year"},
	month: {"MM", 2, "month"},
	day:   {"dd", 2, "day"},
}

type token struct {
	field field
	lit   string // the text of a literal token
	desc  string // names the literal in errors
}

// datePattern writes a period in a form such as yyyy-MM-dd. Every field has a fixed
// number of digits, so the text of a period has a fixed length, n.
type datePattern struct {
	src    string
	tokens []token
	n      int
	yy     bool
}

// date is a period: month and day are 0 where the period has none.
type date struct{ year, month, day int }

// parsePattern parses src as a pattern for the periods of p. The reason says what is
// wrong and what is allowed; it is empty when src is valid.
func parsePattern(src string, p segment.Period) (d *datePattern, reason string) {
	d = &datePattern{src: src}
	var seen [day + 1]bool
	for i := 0; i < len(src); {
		c := src[i]
		j := i + 1
		switch {
		case c == '\'':
			return nil, fmt.Sprintf("has a quote at byte %d; quoted text is not supported, want letters only in yyyy, yy, MM and dd", i)
		case isASCIILetter(c):
			for j < len(src) && src[j] == c {
				j++
			}
			f := fieldOf(src[i:j])
			if f == literal {
				return nil, fmt.Sprintf("has %q at byte %d; want yyyy or yy (year), MM (month) and dd (day), and no other letters", src[i:j], i)
			}
			if seen[f] || (f == year4 && seen[year2]) || (f == year2 && seen[year4]) {
				return nil, fmt.Sprintf("has a second %s at byte %d; want each field once", fields[f].name, i)
			}
			seen[f] = true
			d.yy = d.yy || f == year2
			d.tokens = append(d.tokens, token{field: f})
			d.n += fields[f].width
		default:
			for j < len(src) && !isASCIILetter(src[j]) && src[j] != '\'' {
				j++
			}
			d.tokens = append(d.tokens, token{lit: src[i:j], desc: fmt.Sprintf("%q of the period pattern %q", src[i:j], src)})
			d.n += j - i
		}
		i = j
	}
	want := [day + 1]bool{year4: true, month: p >= segment.YearMonth, day: p == segment.YearMonthDay}
	switch {
	case !seen[year4] && !seen[year2]:
		return nil, fmt.Sprintf("has no year; a %v period wants %s", p, patternFields(p))
	case want[month] != seen[month] || want[day] != seen[day]:
		f := month
		if want[day] != seen[day] {
			f = day
		}
		if want[f] {
			return nil, fmt.Sprintf("has no %s; a %v period wants %s", fields[f].letters, p, patternFields(p))
		}
		return nil, fmt.Sprintf("has %s, but a %v period has no %s; want %s", fields[f].letters, p, fields[f].name, patternFields(p))
	}
	return d, ""
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func fieldOf(letters string) field {
	for f := year4; f <= day; f++ {
		if fields[f].letters == letters {
			return f
		}
	}
	return literal
}

func patternFields(p segment.Period) string {
	return [...]string{
		segment.Year:         "yyyy or yy",
		segment.YearMonth:    "yyyy or yy, and MM",
		segment.YearMonthDay: "yyyy or yy, MM and dd",
	}[p]
}

// exampleKey returns p's key of 2026-10-27, for messages.
func exampleKey(p segment.Period) string {
	return p.Key(time.Date(2026, time.October, 27, 0, 0, 0, 0, time.UTC))
}

// check reports whether the pattern can write d: yy holds only 2000–2099.
func (dp *datePattern) check(d date) error {
	if dp.yy && (d.year < 2000 || d.year > 2099) {
		return fmt.Errorf("the year %04d is outside 2000–2099, the years that the pattern %q can write with yy", d.year, dp.src)
	}
	return nil
}

func (dp *datePattern) render(b *strings.Builder, d date) {
	for _, t := range dp.tokens {
		switch t.field {
		case literal:
			b.WriteString(t.lit)
		case year4:
			writeDigits(b, d.year, 4)
		case year2:
			writeDigits(b, d.year-2000, 2)
		case month:
			writeDigits(b, d.month, 2)
		case day:
			writeDigits(b, d.day, 2)
		}
	}
}

func writeDigits(b *strings.Builder, v, n int) {
	for div := pow10[n-1]; div > 0; div /= 10 {
		b.WriteByte(byte('0' + v/div%10))
	}
}

var pow10 = [...]int{1, 10, 100, 1000}

// parse reads a period written with the pattern from byte off of s, and returns it
// and the offset after it.
func (dp *datePattern) parse(s string, off int) (d date, end int, err error) {
	dayAt := -1
	for _, t := range dp.tokens {
		if t.field == literal {
			if err := matchLiteral(s, off, t.lit, t.desc); err != nil {
				return d, 0, err
			}
			off += len(t.lit)
			continue
		}
		f := fields[t.field]
		v := 0
		for i := range f.width {
			switch {
			case off+i == len(s):
				return d, 0, syntaxErr(off+i, "text ends; want the %s (%s) of the period pattern %q", f.name, f.letters, dp.src)
			case s[off+i] < '0' || s[off+i] > '9':
				return d, 0, syntaxErr(off+i, "found %s; want a digit of the %s (%s) of the period pattern %q", describeAt(s, off+i), f.name, f.letters, dp.src)
			}
			v = v*10 + int(s[off+i]-'0')
		}
		switch t.field {
		case year4:
			d.year = v
		case year2:
			d.year = 2000 + v
		case month:
			if v < 1 || v > 12 {
				return d, 0, syntaxErr(off, "month %02d is not in 01–12", v)
			}
			d.month = v
		case day:
			d.day, dayAt = v, off
		}
		off += f.width
	}
	// The day is checked last: the pattern may give it before the month and year.
	if dayAt >= 0 {
		if most := daysIn(d.year, d.month); d.day < 1 || d.day > most {
			return d, 0, syntaxErr(dayAt, "day %02d is not in 01–%02d, the days of %04d-%02d", d.day, most, d.year, d.month)
		}
	}
	return d, off, nil
}

// daysIn returns the number of days of a month of the proleptic Gregorian calendar,
// which package time and so Period.Key use.
func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}
