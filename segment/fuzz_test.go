package segment_test

import (
	"testing"
	"time"

	"github.com/cosid-go/cosid/segment"
)

// FuzzPeriod_ParseKey checks that ParseKey and ParsePeriod refuse what they cannot
// read with an error, never a panic, and that a key ParseKey accepts is the key of
// the period that starts where ParseKey says, in zones whose days do not always
// start at midnight too.
func FuzzPeriod_ParseKey(f *testing.F) {
	for _, s := range []string{"", "2026", "202610", "20261027", "20260906", "19760926", "20111230", "20261032",
		"202613", "-2026", "0000", "99991231", "2026\x00", "YEAR_MONTH", "year-month-day", "+2026", " 2026"} {
		f.Add(s)
	}
	var zones []*time.Location
	for _, name := range []string{"UTC", "America/Santiago", "Europe/Lisbon", "Pacific/Apia", "America/St_Johns"} {
		if loc, err := time.LoadLocation(name); err == nil {
			zones = append(zones, loc)
		}
	}
	f.Fuzz(func(t *testing.T, key string) {
		segment.ParsePeriod(key)
		for _, p := range []segment.Period{segment.Year, segment.YearMonth, segment.YearMonthDay} {
			for _, loc := range zones {
				start, err := p.ParseKey(key, loc)
				if err != nil {
					continue
				}
				if p.Key(start) != key || !p.Start(start).Equal(start) || !p.Next(start).After(start) {
					t.Fatalf("%v.ParseKey(%q, %v) = %v: Key %s, Start %v, Next %v", p, key, loc, start,
						p.Key(start), p.Start(start), p.Next(start))
				}
			}
		}
	})
}
