package codec

import (
	"fmt"
	"strconv"
	"time"

	"github.com/cosid-go/cosid/snowflake"
)

// Friendly returns the item that writes a Snowflake id of layout l as its state: the
// time of its unit in loc to the millisecond, its machine and its sequence,
// "20261027093015123-7-42". It is a value item, like Radix. Decode reads that text
// back into the id, and refuses a time that is not the start of a unit of l, a
// machine or sequence outside l, and every other text Encode cannot produce.
func Friendly(l snowflake.Layout, loc *time.Location) Item {
	return &friendlyItem{layout: l, loc: loc}
}

type friendlyItem struct {
	layout snowflake.Layout
	loc    *time.Location
}

func (it *friendlyItem) Kind() string { return "friendly" }

func (it *friendlyItem) add(b *builder, index int) error {
	if err := it.layout.Validate(); err != nil {
		return itemErr(index, it, "", "has an invalid layout: %v", err)
	}
	if it.loc == nil {
		return itemErr(index, it, "zone", "is nil; want a time zone such as time.UTC")
	}
	// A zone that changes its offset writes an hour of local times twice: two ids of
	// one machine and sequence an hour apart would have the same text.
	if _, end := time.Now().In(it.loc).ZoneBounds(); !end.IsZero() {
		return itemErr(index, it, "zone", "%s changes its offset on %s: an id would have the text of another in the hour it writes twice; want a zone without changes, such as UTC or Asia/Shanghai",
			it.loc, end.Format(time.DateOnly))
	}
	return b.setValue(it, index, &friendlyValue{layout: it.layout, loc: it.loc})
}

// friendlyTime is the time part of a friendly text: 17 digits, to the millisecond.
const (
	friendlyTime    = "20060102150405.000"
	friendlyTimeLen = len("20060102150405000")
)

type friendlyValue struct {
	layout snowflake.Layout
	loc    *time.Location
}

func (f *friendlyValue) want() string {
	return "a friendly Snowflake id, time-machine-sequence such as 20261027093015123-7-42"
}

func (f *friendlyValue) format(v int64) (text [maxValueLen]byte, start int, err error) {
	if v < 0 {
		return text, 0, fmt.Errorf("codec: friendly: %w: %d is negative", ErrRange, v)
	}
	st := f.layout.Parse(v)
	if _, err := f.layout.Compose(st); err != nil {
		return text, 0, fmt.Errorf("codec: friendly: %w: %d is not an id of the layout: %v", ErrRange, v, err)
	}
	t := st.Time.In(f.loc)
	if y := t.Year(); y < 1000 || y > 9999 {
		return text, 0, fmt.Errorf("codec: friendly: %w: id %d stamps the year %d, which has no 4-digit form", ErrRange, v, y)
	}
	buf := t.AppendFormat(text[:0], friendlyTime)
	buf = append(buf[:14], buf[15:]...) // drop the decimal point: 20261027093015123
	buf = append(buf, '-')
	buf = strconv.AppendInt(buf, int64(st.Machine), 10)
	buf = append(buf, '-')
	buf = strconv.AppendInt(buf, int64(st.Sequence), 10)
	n := len(buf)
	copy(text[maxValueLen-n:], buf)
	return text, maxValueLen - n, nil
}

func (f *friendlyValue) parse(s string, off int) (int64, error) {
	if len(s) < friendlyTimeLen {
		return 0, syntaxErr(off+len(s), "text ends in the time; want %d digits yyyyMMddHHmmssSSS", friendlyTimeLen)
	}
	for i := range friendlyTimeLen {
		if s[i] < '0' || s[i] > '9' {
			return 0, syntaxErr(off+i, "found %s; want a digit of the time yyyyMMddHHmmssSSS", describeAt(s, i))
		}
	}
	stamp := s[:14] + "." + s[14:friendlyTimeLen]
	t, err := time.ParseInLocation(friendlyTime, stamp, f.loc)
	if err != nil || t.Format(friendlyTime) != stamp {
		return 0, syntaxErr(off, "%q is not a time yyyyMMddHHmmssSSS in %v", s[:friendlyTimeLen], f.loc)
	}
	at := friendlyTimeLen
	machine, at, err := friendlyNumber(s, at, off, "machine")
	if err != nil {
		return 0, err
	}
	seq, at, err := friendlyNumber(s, at, off, "sequence")
	if err != nil {
		return 0, err
	}
	if at != len(s) {
		return 0, syntaxErr(off+at, "found %s after the sequence; want the end", describeAt(s, at))
	}
	id, err := f.layout.Compose(snowflake.State{Time: t, Machine: int(machine), Sequence: int(seq)})
	if err != nil {
		return 0, syntaxErr(off, "%v", err)
	}
	if text, start, _ := f.format(id); string(text[start:]) != s {
		return 0, syntaxErr(off, "the time %s is ambiguous in %v; id %d is written %s", s[:friendlyTimeLen], f.loc, id, text[start:])
	}
	return id, nil
}

// friendlyNumber reads "-" and a decimal number without leading zeros at s[at:].
func friendlyNumber(s string, at, off int, what string) (int64, int, error) {
	if at == len(s) || s[at] != '-' {
		if at == len(s) {
			return 0, at, syntaxErr(off+at, "text ends; want - and the %s", what)
		}
		return 0, at, syntaxErr(off+at, "found %s; want - and the %s", describeAt(s, at), what)
	}
	at++
	start := at
	for at < len(s) && s[at] >= '0' && s[at] <= '9' && at-start < 19 {
		at++
	}
	switch {
	case at == start:
		return 0, at, syntaxErr(off+at, "want the %s, a decimal number", what)
	case s[start] == '0' && at-start > 1:
		return 0, at, syntaxErr(off+start, "leading zero in the %s", what)
	}
	n, err := strconv.ParseInt(s[start:at], 10, 64)
	if err != nil {
		return 0, at, syntaxErr(off+start, "the %s %s is too large", what, s[start:at])
	}
	return n, at, nil
}
