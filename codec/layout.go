package codec

import (
	"strings"
)

// valueFormat writes and reads the value part of a text. Every part but the value
// has a fixed length, so Decode hands the value exactly the bytes between them.
type valueFormat interface {
	// format writes v right-aligned in text; the value's text is text[start:]. The
	// array, returned by value, keeps Encode's buffer off the heap.
	format(v int64) (text [maxValueLen]byte, start int, err error)
	// parse returns the value written as s, which starts at byte off of the whole
	// text. Its errors are *SyntaxError values with offsets in the whole text.
	parse(s string, off int) (int64, error)
	// want describes the value for "want … here" messages.
	want() string
}

// maxValueLen bounds the text of a value: math.MaxInt64 has 63 binary digits.
const maxValueLen = 64

// part is a fixed-length part of a text: a literal, or the period when date is set.
type part struct {
	lit  string
	date *datePattern
	desc string // names the literal in errors: `the prefix "BIZ-"`
}

func (p *part) len() int {
	if p.date != nil {
		return p.date.n
	}
	return len(p.lit)
}

// layout is a built codec list: the parts before the value, the value, the parts
// after it.
type layout struct {
	before    []part
	value     valueFormat
	after     []part
	date      *datePattern // the period's part, or nil if the text leaves it out
	afterText string       // the parts after the value, in order
	fixedLen  int          // bytes of every part but the value
}

// text returns the text of a value whose digits are given and whose period, if the
// layout writes one, is d.
func (l *layout) text(d date, digits []byte) string {
	if len(l.before) == 0 && len(l.after) == 0 {
		return string(digits)
	}
	var b strings.Builder
	b.Grow(l.fixedLen + len(digits))
	for i := range l.before {
		if p := &l.before[i]; p.date != nil {
			p.date.render(&b, d)
		} else {
			b.WriteString(p.lit)
		}
	}
	b.Write(digits)
	for i := range l.after {
		b.WriteString(l.after[i].lit)
	}
	return b.String()
}

// decode reads s: the period (at byte periodAt) if the layout writes one, and the
// value.
func (l *layout) decode(s string) (d date, periodAt int, v int64, err error) {
	off := 0
	for i := range l.before {
		p := &l.before[i]
		if p.date != nil {
			periodAt = off
			d, off, err = p.date.parse(s, off)
		} else {
			err = matchLiteral(s, off, p.lit, p.desc)
			off += len(p.lit)
		}
		if err != nil {
			return d, 0, 0, err
		}
	}
	// The suffixes end the text, so the value is what lies between.
	end := len(s) - len(l.afterText)
	if end < off || end == off && !strings.HasSuffix(s, l.afterText) {
		return d, 0, 0, syntaxErr(len(s), "text ends; want %s%s", l.value.want(), l.afterWant())
	}
	for i, at := 0, end; i < len(l.after); i++ {
		p := &l.after[i]
		if err := matchLiteral(s, at, p.lit, p.desc); err != nil {
			return d, 0, 0, err
		}
		at += len(p.lit)
	}
	v, err = l.value.parse(s[off:end], off)
	return d, periodAt, v, err
}

func (l *layout) afterWant() string {
	if len(l.after) == 0 {
		return ""
	}
	return " and then " + l.after[0].desc
}

// matchLiteral checks that s holds lit at byte off, which is at most len(s).
func matchLiteral(s string, off int, lit, desc string) error {
	if strings.HasPrefix(s[off:], lit) {
		return nil
	}
	for k := 0; ; k++ {
		switch {
		case off+k == len(s):
			return syntaxErr(off+k, "text ends; want %s", desc)
		case s[off+k] != lit[k]:
			return syntaxErr(off+k, "found %s; want %s", describeAt(s, off+k), desc)
		}
	}
}
