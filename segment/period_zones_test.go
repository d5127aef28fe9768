package segment_test

import (
	"archive/zip"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/segment"
)

// zone is one zone of the tz database, loaded from its own data so that the test does
// not depend on which copy time.LoadLocation would find.
type zone struct {
	name string
	loc  *time.Location
}

// tzZones returns every zone (one name of each) of Go's zoneinfo.zip, or of /usr/share/zoneinfo when the
// zip cannot be found.
func tzZones(t *testing.T) []zone {
	t.Helper()
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if zones, err := zipZones(filepath.Join(strings.TrimSpace(string(out)), "lib", "time", "zoneinfo.zip")); err == nil {
			return zones
		}
	}
	zones, err := dirZones("/usr/share/zoneinfo")
	if err != nil || len(zones) == 0 {
		t.Skipf("no tz database: %v", err)
	}
	return zones
}

func zipZones(path string) ([]zone, error) {
	r, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var zones []zone
	seen := map[string]bool{} // links: one zone under several names
	for _, f := range r.File {
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		if loc, err := time.LoadLocationFromTZData(f.Name, data); err == nil && !seen[string(data)] {
			seen[string(data)] = true
			zones = append(zones, zone{f.Name, loc})
		}
	}
	return zones, nil
}

func dirZones(root string) ([]zone, error) {
	var zones []zone
	seen := map[string]bool{} // links: one zone under several names
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name, _ := filepath.Rel(root, path)
		if strings.HasPrefix(name, "posix/") || strings.HasPrefix(name, "right/") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		if loc, err := time.LoadLocationFromTZData(name, data); err == nil && !seen[string(data)] {
			seen[string(data)] = true
			zones = append(zones, zone{name, loc})
		}
		return nil
	})
	return zones, err
}

// The sample of ordinary days the zone test checks besides transitions.
var sampleFrom, sampleTo = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)

// transitions returns instants around the transitions of loc between from and to
// that can move the start of a day: those that cross midnight, or come within 90
// minutes of one. Every other day starts at its midnight, which the sample covers.
func transitions(loc *time.Location, from, to time.Time) []time.Time {
	var ts []time.Time
	for at := from.In(loc); ; {
		_, end := at.ZoneBounds()
		if end.IsZero() || !end.Before(to) {
			return ts
		}
		if !end.After(at) {
			// Where a zone's table gives way to its rule, ZoneBounds can return a
			// bound at or before at: step over it.
			at = at.Add(24 * time.Hour)
			continue
		}
		if before, after := end.Add(-time.Nanosecond).In(loc), end.In(loc); before.YearDay() != after.YearDay() ||
			nearMidnight(before) || nearMidnight(after) {
			for _, d := range []time.Duration{-time.Nanosecond, 0, time.Hour} {
				ts = append(ts, end.Add(d).In(loc))
			}
		}
		at = end
	}
}

func nearMidnight(t time.Time) bool {
	since := time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute
	return since <= 90*time.Minute || since >= 22*time.Hour+30*time.Minute
}

var layouts = map[segment.Period]string{segment.Year: "2006", segment.YearMonth: "200601", segment.YearMonthDay: "20060102"}

// checkPeriod reports what is wrong with the period of p that holds t, or "".
func checkPeriod(p segment.Period, t time.Time) string {
	key, start, next := p.Key(t), p.Start(t), p.Next(t)
	date := func(t time.Time) string { return t.Format(layouts[p]) }
	switch before := start.Add(-time.Nanosecond); {
	case start.After(t) || !next.After(t):
		return "t outside [Start, Next)"
	case date(t) != key && date(t) > key:
		// Only where the clocks stepped back across midnight may t's date be
		// before its period's: periods move forward.
		return "Key = " + key + ", want t's date " + date(t)
	case date(start) != key:
		return "Start's date is " + date(start) + ", want " + key
	case date(before) >= key:
		return "Start-1ns's date is " + date(before) + ", want one before " + key + ": Start is not the first instant"
	case date(next) <= key:
		return "Next's date is " + date(next) + ", want one after " + key
	case !p.Next(before).Equal(start):
		return "the period before ends at " + p.Next(before).String() + ", want Start"
	case p.Key(next.Add(-time.Nanosecond)) != key:
		return "Key(Next-1ns) = " + p.Key(next.Add(-time.Nanosecond)) + ", want " + key
	}
	return ""
}

// TestPeriod_DayStartsAtFirstInstantOfItsDate_AllZones checks every zone of the tz
// database around every transition from 1970 to 2040 that can move the start of a day
// (for months and years too when it is near the start of one), and on a monthly sample
// of 2026: a period starts at the first instant whose date
// is its first day, even where midnight does not exist or comes twice, and ends where
// the next one starts.
func TestPeriod_DayStartsAtFirstInstantOfItsDate_AllZones(t *testing.T) {
	zones := tzZones(t)
	from, to := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC)
	work := make(chan zone)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for z := range work {
				bad := 0
				check := func(p segment.Period, at time.Time) {
					if msg := checkPeriod(p, at); msg != "" && bad < 3 {
						bad++
						t.Errorf("%s %v at %v: %s (Start %v, Next %v)", z.name, p, at, msg, p.Start(at), p.Next(at))
					}
				}
				for _, at := range transitions(z.loc, from, to) {
					check(segment.YearMonthDay, at)
					if d := at.Day(); d <= 2 || d >= 28 { // near the start of a month or year
						check(segment.YearMonth, at)
						check(segment.Year, at)
					}
				}
				for at := sampleFrom; at.Before(sampleTo); at = at.Add(30*24*time.Hour + 7*time.Hour) {
					check(segment.YearMonthDay, at.In(z.loc))
				}
			}
		})
	}
	for _, z := range zones {
		work <- z
	}
	close(work)
	wg.Wait()
	t.Logf("%d zones", len(zones))
}

// TestPeriod_DaysWithoutOneMidnight pins the periods of days whose midnight the
// clocks skip or repeat, and of the zones the review named.
func TestPeriod_DaysWithoutOneMidnight(t *testing.T) {
	tests := []struct {
		zone   string
		at     string // wall clock in zone, at a standard offset of the zone
		key    string
		start  string // UTC
		next   string // UTC
		reason string
	}{
		{"America/Santiago", "2026-09-06 12:00", "20260906", "2026-09-06 04:00", "2026-09-07 03:00", "00:00 jumps to 01:00"},
		{"America/Santiago", "2026-09-05 23:30", "20260905", "2026-09-05 04:00", "2026-09-06 04:00", "the day before ends at the jump"},
		{"America/Havana", "2026-03-08 12:00", "20260308", "2026-03-08 05:00", "2026-03-09 04:00", "00:00 jumps to 01:00"},
		{"Atlantic/Azores", "2026-03-29 12:00", "20260329", "2026-03-29 01:00", "2026-03-30 00:00", "00:00 jumps to 01:00"},
		{"Africa/Cairo", "2026-04-24 12:00", "20260424", "2026-04-23 22:00", "2026-04-24 21:00", "the next day starts at midnight, not 01:00"},
		{"Asia/Beirut", "2026-03-29 12:00", "20260329", "2026-03-28 22:00", "2026-03-29 21:00", "00:00 jumps to 01:00"},
		{"Europe/Lisbon", "1976-09-26 12:00", "19760926", "1976-09-25 23:00", "1976-09-27 00:00", "midnight comes twice: the first"},
		{"Pacific/Apia", "2011-12-29 12:00", "20111229", "2011-12-29 10:00", "2011-12-30 10:00", "the 30th is skipped: the 31st follows"},
		{"America/St_Johns", "1987-10-24 23:30", "19871025", "1987-10-25 02:30", "1987-10-26 03:30", "00:01 steps back to 23:01: the later day goes on"},
	}
	for _, tc := range tests {
		loc, err := time.LoadLocation(tc.zone)
		if err != nil {
			t.Skipf("no time zone data: %v", err)
		}
		at, err := time.ParseInLocation("2006-01-02 15:04", tc.at, loc)
		if err != nil {
			t.Fatal(err)
		}
		if tc.zone == "America/St_Johns" {
			at = time.Date(1987, 10, 25, 2, 30, 0, 0, time.UTC).In(loc) // 23:30 after the step back
		}
		p := segment.YearMonthDay
		want := func(s string) time.Time { w, _ := time.Parse("2006-01-02 15:04", s); return w }
		if key, start, next := p.Key(at), p.Start(at), p.Next(at); key != tc.key || !start.Equal(want(tc.start)) || !next.Equal(want(tc.next)) {
			t.Errorf("%s at %v (%s): %s [%v, %v), want %s [%s, %s) UTC", tc.zone, at, tc.reason,
				key, start.UTC(), next.UTC(), tc.key, tc.start, tc.next)
		}
	}
}

func TestPeriod_ParseKeyOfADayWithoutOneMidnight(t *testing.T) {
	tests := []struct {
		zone, key string
		want      time.Time // zero: refused
	}{
		{"America/Santiago", "20260906", time.Date(2026, 9, 6, 4, 0, 0, 0, time.UTC)}, // 00:00 jumps to 01:00
		{"Europe/Lisbon", "19760926", time.Date(1976, 9, 25, 23, 0, 0, 0, time.UTC)},  // the first of two midnights
		{"Pacific/Apia", "20111230", time.Time{}},                                     // a day Apia skipped
	}
	for _, tc := range tests {
		loc, err := time.LoadLocation(tc.zone)
		if err != nil {
			t.Skipf("no time zone data: %v", err)
		}
		got, err := segment.YearMonthDay.ParseKey(tc.key, loc)
		if tc.want.IsZero() {
			if err == nil {
				t.Errorf("%s: ParseKey(%s) = %v, want an error", tc.zone, tc.key, got)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("%s: ParseKey(%s) = %v, %v; want %v", tc.zone, tc.key, got, err, tc.want.In(loc))
		}
	}
}
