package segment

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Period is how often a Periodic sequence restarts.
type Period int

// The periods. Their keys are the period's digits in the generator's zone: 2026,
// 202610 and 20261027.
const (
	Year Period = iota + 1
	YearMonth
	YearMonthDay
)

var periodNames = [...]string{Year: "YEAR", YearMonth: "YEAR_MONTH", YearMonthDay: "YEAR_MONTH_DAY"}

// String returns the period's configuration name: YEAR, YEAR_MONTH or YEAR_MONTH_DAY.
func (p Period) String() string {
	if p.valid() {
		return periodNames[p]
	}
	return fmt.Sprintf("Period(%d)", int(p))
}

func (p Period) valid() bool { return p >= Year && p <= YearMonthDay }

// ParsePeriod returns the Period named s (YEAR, YEAR_MONTH, YEAR_MONTH_DAY, in any
// case, with - or _).
func ParsePeriod(s string) (Period, error) {
	norm := strings.ToUpper(strings.ReplaceAll(s, "-", "_"))
	for p := Year; p <= YearMonthDay; p++ {
		if periodNames[p] == norm {
			return p, nil
		}
	}
	return 0, fmt.Errorf("segment: unknown period %q, want YEAR, YEAR_MONTH or YEAR_MONTH_DAY", s)
}

// layout returns the period's key layout for time.Format.
func (p Period) layout() string {
	switch p {
	case Year:
		return "2006"
	case YearMonth:
		return "200601"
	default:
		return "20060102"
	}
}

// Key returns the key of the period that holds t, in t's location: "2026", "202610"
// or "20261027", the date of t. Periods only move forward: where a zone's clocks step
// back across midnight (America/St_Johns in 1987 went from 00:01 back to 23:01), the
// instants after the step belong to the later period, as do their keys.
func (p Period) Key(t time.Time) string {
	day, _, _ := p.bounds(t)
	return day.format(p.layout())
}

// Start returns the first instant of the period that holds t, in t's location: the
// first instant whose date is the period's first day. That is not always midnight: in
// America/Santiago some days start at 01:00, when the clocks jump from 00:00.
func (p Period) Start(t time.Time) time.Time {
	_, start, _ := p.bounds(t)
	return start
}

// Next returns the first instant of the period after the one that holds t.
func (p Period) Next(t time.Time) time.Time {
	_, _, next := p.bounds(t)
	return next
}

// bounds returns the first day of the period that holds t, the period's first instant
// and the next period's.
func (p Period) bounds(t time.Time) (first date, start, next time.Time) {
	first.y, first.m, first.d = t.Date()
	switch p {
	case Year:
		first.m, first.d = time.January, 1
	case YearMonth:
		first.d = 1
	}
	loc := t.Location()
	start, next = firstInstant(first, loc), firstInstant(p.after(first), loc)
	for !next.After(t) { // the clocks stepped back across the boundary: t is in a later period
		first = p.after(first)
		start, next = next, firstInstant(p.after(first), loc)
	}
	return first, start, next
}

// date is a day of the calendar.
type date struct {
	y int
	m time.Month
	d int
}

// after returns the first day of the period after the one that starts on day.
func (p Period) after(day date) date {
	switch p {
	case Year:
		day.y++
	case YearMonth:
		day.m++
	default:
		day.d++
	}
	var next date
	next.y, next.m, next.d = day.utc().Date()
	return next
}

// utc returns the midnight UTC of day, whose Unix time is the wall clock of the day's
// midnight in every zone.
func (day date) utc() time.Time { return time.Date(day.y, day.m, day.d, 0, 0, 0, 0, time.UTC) }

func (day date) format(layout string) string { return day.utc().Format(layout) }

// firstInstant returns the first instant whose wall clock in loc reads day or a later
// one. Where midnight comes once, that is midnight; where the clocks skip
// it, the instant of the jump; where they repeat it, the first midnight; where they
// skip the whole day, the start of the day after.
func firstInstant(day date, loc *time.Location) time.Time {
	w := day.utc().Unix() // the wall clock sought
	if t := time.Date(day.y, day.m, day.d, 0, 0, 0, 0, loc); t.Unix()+int64(offset(t.Unix(), loc)) == w &&
		offset(t.Unix()-maxStepBack, loc) == offset(t.Unix(), loc) {
		// The usual day: midnight exists, and no step back in the hours before
		// could have shown this date earlier.
		return t
	}
	// Find the offsets in effect around midnight: before w-max, every wall clock
	// reads an earlier date; from w-min on, this date or a later one.
	lo, hi := math.MaxInt64, math.MinInt64
	for u := w - maxOffset; u <= w+maxOffset; u += coarseStep {
		o := offset(u, loc)
		lo, hi = min(lo, o), max(hi, o)
	}
	// Then look for the first instant in between, a minute at a time (no zone has a
	// transition between two others within less), and to the second in that minute.
	prev := w - int64(hi) - coarseStep
	for u := prev + 60; u <= w-int64(lo)+coarseStep; prev, u = u, u+60 {
		if reached(u, w, loc) {
			i := sort.Search(int(u-prev), func(i int) bool { return reached(prev+1+int64(i), w, loc) })
			return time.Unix(prev+1+int64(i), 0).In(loc)
		}
	}
	return time.Date(day.y, day.m, day.d, 0, 0, 0, 0, loc) // unreachable with offsets below maxOffset
}

const (
	maxOffset   = 26 * 60 * 60 // seconds; the offsets of the tz database stay within ±16h
	maxStepBack = 4 * 60 * 60  // seconds; since 1970 no zone set its clocks back by more than 3h at once (Antarctica/Casey, 2010)
	coarseStep  = 15 * 60      // seconds; offsets last longer than this
)

// reached reports whether the wall clock in loc at u (unix seconds) reads w or later.
func reached(u, w int64, loc *time.Location) bool { return u+int64(offset(u, loc)) >= w }

// offset returns loc's offset from UTC at u (unix seconds), in seconds.
func offset(u int64, loc *time.Location) int {
	_, o := time.Unix(u, 0).In(loc).Zone()
	return o
}

// ParseKey returns the start of the period whose key is key, in loc. It refuses
// text that Key cannot produce, such as the key of a day that loc skipped.
func (p Period) ParseKey(key string, loc *time.Location) (time.Time, error) {
	if !p.valid() {
		return time.Time{}, fmt.Errorf("segment: invalid %v", p)
	}
	t, err := time.Parse(p.layout(), key)
	if err == nil && p.Key(t) == key {
		var day date
		day.y, day.m, day.d = t.Date()
		if start := firstInstant(day, loc); p.Key(start) == key {
			return start, nil
		}
	}
	return time.Time{}, fmt.Errorf("segment: %q is not a %v period key in %v like %q", key, p, loc, p.Key(time.Date(2026, 10, 27, 0, 0, 0, 0, loc)))
}

// GroupedID is an id of a Periodic sequence: the period's key and the value within it.
type GroupedID struct {
	Period string // "20261027"
	Value  int64  // 42
}

// String returns g as "20261027/42".
func (g GroupedID) String() string { return fmt.Sprintf("%s/%d", g.Period, g.Value) }
