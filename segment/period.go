package segment

import (
	"fmt"
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
// or "20261027".
func (p Period) Key(t time.Time) string { return t.Format(p.layout()) }

// Start returns the first instant of the period that holds t, in t's location.
func (p Period) Start(t time.Time) time.Time {
	y, m, d := t.Date()
	switch p {
	case Year:
		m, d = time.January, 1
	case YearMonth:
		d = 1
	}
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location())
}

// Next returns the first instant of the period after the one that holds t.
func (p Period) Next(t time.Time) time.Time {
	s := p.Start(t)
	switch p {
	case Year:
		return s.AddDate(1, 0, 0)
	case YearMonth:
		return s.AddDate(0, 1, 0)
	default:
		return s.AddDate(0, 0, 1)
	}
}

// ParseKey returns the start of the period whose key is key, in loc. It refuses
// text that Key cannot produce.
func (p Period) ParseKey(key string, loc *time.Location) (time.Time, error) {
	if !p.valid() {
		return time.Time{}, fmt.Errorf("segment: invalid %v", p)
	}
	t, err := time.ParseInLocation(p.layout(), key, loc)
	if err != nil || p.Key(t) != key {
		return time.Time{}, fmt.Errorf("segment: %q is not a %v period key like %q", key, p, p.Key(time.Date(2026, 10, 27, 0, 0, 0, 0, loc)))
	}
	return t, nil
}

// GroupedID is an id of a Periodic sequence: the period's key and the value within it.
type GroupedID struct {
	Period string // "20261027"
	Value  int64  // 42
}

// String returns g as "20261027/42".
func (g GroupedID) String() string { return fmt.Sprintf("%s/%d", g.Period, g.Value) }
