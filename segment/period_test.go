package segment_test

import (
	"testing"
	"time"

	"github.com/cosid-go/cosid/segment"
)

func TestPeriod_KeysAndBoundaries(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	at := time.Date(2026, 10, 27, 9, 30, 15, 0, shanghai)
	tests := []struct {
		p           segment.Period
		name, key   string
		start, next time.Time
	}{
		{segment.Year, "YEAR", "2026", time.Date(2026, 1, 1, 0, 0, 0, 0, shanghai), time.Date(2027, 1, 1, 0, 0, 0, 0, shanghai)},
		{segment.YearMonth, "YEAR_MONTH", "202610", time.Date(2026, 10, 1, 0, 0, 0, 0, shanghai), time.Date(2026, 11, 1, 0, 0, 0, 0, shanghai)},
		{segment.YearMonthDay, "YEAR_MONTH_DAY", "20261027", time.Date(2026, 10, 27, 0, 0, 0, 0, shanghai), time.Date(2026, 10, 28, 0, 0, 0, 0, shanghai)},
	}
	for _, tc := range tests {
		if got := tc.p.String(); got != tc.name {
			t.Errorf("String() = %q, want %q", got, tc.name)
		}
		if got := tc.p.Key(at); got != tc.key {
			t.Errorf("%v: Key = %q, want %q", tc.p, got, tc.key)
		}
		if got := tc.p.Start(at); !got.Equal(tc.start) {
			t.Errorf("%v: Start = %v, want %v", tc.p, got, tc.start)
		}
		if got := tc.p.Next(at); !got.Equal(tc.next) {
			t.Errorf("%v: Next = %v, want %v", tc.p, got, tc.next)
		}
		if got, err := tc.p.ParseKey(tc.key, shanghai); err != nil || !got.Equal(tc.start) {
			t.Errorf("%v: ParseKey(%q) = %v, %v; want %v", tc.p, tc.key, got, err, tc.start)
		}
		if p, err := segment.ParsePeriod(tc.name); err != nil || p != tc.p {
			t.Errorf("ParsePeriod(%q) = %v, %v", tc.name, p, err)
		}
	}
	// The zone decides the day: 23:30 UTC is already the next day in Shanghai.
	utc := time.Date(2026, 10, 26, 23, 30, 0, 0, time.UTC)
	if got := segment.YearMonthDay.Key(utc.In(shanghai)); got != "20261027" {
		t.Errorf("day in Shanghai of %v = %q, want 20261027", utc, got)
	}
}

func TestPeriod_ParseRejects(t *testing.T) {
	for _, s := range []string{"", "DAY", "YEARS", "year month"} {
		if _, err := segment.ParsePeriod(s); err == nil {
			t.Errorf("ParsePeriod(%q) succeeded", s)
		}
	}
	if p, err := segment.ParsePeriod("year-month"); err != nil || p != segment.YearMonth {
		t.Errorf("ParsePeriod(year-month) = %v, %v", p, err)
	}
	for _, key := range []string{"", "2026", "20261", "202613", "2026100", "2026-10", " 202610", "20261032"} {
		if _, err := segment.YearMonth.ParseKey(key, time.UTC); err == nil {
			t.Errorf("YearMonth.ParseKey(%q) succeeded", key)
		}
	}
}
