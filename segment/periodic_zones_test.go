package segment_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/segment"
)

// TestPeriodic_DaysWithoutMidnight_NoChurn runs a Periodic at one id a second across
// days whose midnight the clocks skip (Santiago, Havana, Azores: 00:00 jumps to
// 01:00; Cairo, Beirut: the day after such a day): every id carries the date of its
// instant, and the store sees a handful of reservations, not one a call.
func TestPeriodic_DaysWithoutMidnight_NoChurn(t *testing.T) {
	tests := []struct {
		zone string
		from time.Time // UTC, two hours before the day in question starts
	}{
		{"America/Santiago", time.Date(2026, 9, 6, 2, 0, 0, 0, time.UTC)},
		{"America/Havana", time.Date(2026, 3, 8, 3, 0, 0, 0, time.UTC)},
		{"Atlantic/Azores", time.Date(2026, 3, 28, 23, 0, 0, 0, time.UTC)},
		{"Africa/Cairo", time.Date(2026, 4, 23, 20, 0, 0, 0, time.UTC)},
		{"Africa/Cairo", time.Date(2026, 4, 24, 19, 0, 0, 0, time.UTC)},
		{"Asia/Beirut", time.Date(2026, 3, 29, 19, 0, 0, 0, time.UTC)},
	}
	for _, tc := range tests {
		loc, err := time.LoadLocation(tc.zone)
		if err != nil {
			t.Skipf("no time zone data: %v", err)
		}
		t.Run(tc.zone, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				shift := time.Until(tc.from)
				clock := func() time.Time { return time.Now().Add(shift) }
				st := newTestStore()
				b := segment.DefaultBatchPolicy()
				b.Step = 10_000 // two ranges a period at most, unless generators churn
				p := newPeriodic(t, st, segment.YearMonthDay, loc, b, segment.DefaultPeriodicPolicy(), segment.WithClock(clock))
				for range 4 * 3600 {
					now := clock().In(loc)
					id := mustNextGrouped(t, p)
					if want := now.Format("20060102"); id.Period != want {
						t.Fatalf("id %v at %v, want period %s", id, now, want)
					}
					elapse(time.Second)
				}
				if n := st.callCount(); n > 8 {
					t.Errorf("%d reservations of %d ids for 14,400 ids at 1/s over 4 hours, want a few", n, b.Step)
				}
			})
		})
	}
}
