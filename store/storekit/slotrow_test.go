package storekit_test

import (
	"errors"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// TestSlotRowTake_L3_FloorAboveEarlierOwner checks the floor of a new owner after each way
// the earlier one can leave: a release at its last stamp, a release having stamped
// nothing, an expiry (its ceiling), and an expiry after a release (the higher).
func TestSlotRowTake_L3_FloorAboveEarlierOwner(t *testing.T) {
	held := storekit.SlotRow{}.Take("a", 1000, 100, 10) // expires 1100, ceiling 1110
	released := func(lastUsed int64) storekit.SlotRow {
		r, err := held.Release(lastUsed)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tests := []struct {
		name string
		row  storekit.SlotRow
		want int64
	}{
		{"NeverLeased", storekit.SlotRow{}, 0},
		{"ReleasedAtLastStamp", released(1050), 1051},
		{"ReleasedHavingStampedNothing", released(-1), held.FloorMs},
		{"ReleasedAtCeiling", released(1110), 1111},
		{"Expired", held, 1111},
		{"ReleasedUnproven", held.ReleaseUnproven(), 1111},
		{"ReleasedUnprovenAfterRenewal", held.Renew(1090, 100, 10).ReleaseUnproven(), 1201},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			next := tc.row.Take("b", 2000, 100, 10)
			if next.FloorMs != tc.want || next.NextFloorMs != tc.want {
				t.Errorf("floor %d and next floor %d, want %d", next.FloorMs, next.NextFloorMs, tc.want)
			}
			if next.Fence != tc.row.Fence+1 || next.Incarnation == tc.row.Incarnation || next.Owner != "b" || next.LastOwner != "b" {
				t.Errorf("L2: taken row %+v after %+v", next, tc.row)
			}
			if next.ExpiresMs != 2100 || next.CeilingMs != 2110 {
				t.Errorf("expires %d, ceiling %d; want 2100 and 2110", next.ExpiresMs, next.CeilingMs)
			}
		})
	}
}

// TestSlotRowRenew_CeilingNeverLowered renews after the clock stepped back: the expiry
// follows the clock, the ceiling stays.
func TestSlotRowRenew_CeilingNeverLowered(t *testing.T) {
	r := storekit.SlotRow{}.Take("a", 5000, 100, 10).Renew(1000, 100, 10)
	if r.ExpiresMs != 1100 || r.CeilingMs != 5110 {
		t.Errorf("expires %d, ceiling %d; want 1100 and the earlier 5110", r.ExpiresMs, r.CeilingMs)
	}
	if r = r.Renew(6000, 100, 10); r.CeilingMs != 6110 {
		t.Errorf("ceiling %d after a renewal past it, want 6110", r.CeilingMs)
	}
}

// TestSlotRowRelease_AboveCeilingRefused keeps the lease when the owner reports a stamp above
// its ceiling.
func TestSlotRowRelease_AboveCeilingRefused(t *testing.T) {
	held := storekit.SlotRow{}.Take("a", 1000, 100, 10)
	r, err := held.Release(held.CeilingMs + 1)
	if !errors.Is(err, store.ErrInvalidArgument) || r != held {
		t.Errorf("Release above the ceiling = %+v, %v; want the row unchanged and ErrInvalidArgument", r, err)
	}
}

// TestSlotRowHolds_L2_StaleLeaseLost tells a lease from the ones before and after it.
func TestSlotRowHolds_L2_StaleLeaseLost(t *testing.T) {
	a := storekit.SlotRow{}.Take("a", 1000, 100, 10)
	l := a.Lease("ns", 3, 1000)
	if !a.Holds(l) {
		t.Fatalf("the row does not hold its own lease %+v", l)
	}
	released, _ := a.Release(-1)
	for name, r := range map[string]storekit.SlotRow{"released": released, "taken again": a.Take("a", 2000, 100, 10)} {
		if r.Holds(l) {
			t.Errorf("the %s row holds the earlier lease", name)
		}
	}
	if l.Slot != 3 || l.Floor != a.FloorMs || l.Ceiling != a.CeilingMs || !l.ExpiresAt.Equal(time.UnixMilli(1100)) || !l.StoreNow.Equal(time.UnixMilli(1000)) {
		t.Errorf("lease %+v of row %+v", l, a)
	}
}

func TestMillisUp_RoundsUp(t *testing.T) {
	for d, want := range map[time.Duration]int64{
		0: 0, time.Nanosecond: 1, time.Millisecond: 1, 1500 * time.Microsecond: 2, time.Hour: 3_600_000,
		-1500 * time.Microsecond: -1, 1<<63 - 1: (1<<63-1)/1_000_000 + 1,
	} {
		if got := storekit.MillisUp(d); got != want {
			t.Errorf("storekit.MillisUp(%v) = %d, want %d", d, got, want)
		}
	}
}

// TestNamespaceConflict_L4_NamesBothSettings checks the refusal of a namespace asked for with
// other settings: errors.Is finds ErrNamespaceConflict, and the text gives what the
// namespace has and what was asked, the tolerance in a duration's words.
func TestNamespaceConflict_L4_NamesBothSettings(t *testing.T) {
	tests := []struct {
		name          string
		limit         int
		toleranceMs   int64
		wantLimit     int
		wantTolerance time.Duration
		want          string
	}{
		{"Limit", 1024, 1000, 512, time.Second, "the namespace has limit 1024 and tolerance 1s, asked for limit 512 and tolerance 1s: namespace conflict"},
		{"Tolerance", 8, 0, 8, 1500 * time.Microsecond, "the namespace has limit 8 and tolerance 0s, asked for limit 8 and tolerance 1.5ms: namespace conflict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := storekit.NamespaceConflict(tt.limit, tt.toleranceMs, tt.wantLimit, tt.wantTolerance)
			if !errors.Is(err, store.ErrNamespaceConflict) || err.Error() != tt.want {
				t.Errorf("NamespaceConflict = %q, want %q wrapping ErrNamespaceConflict", err, tt.want)
			}
		})
	}
}
