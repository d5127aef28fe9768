package leasemodel

import (
	"strings"
	"testing"
	"time"
)

// The bounds checked. Under -race the explorer runs some ten times slower, so
// there it checks the small ones only; .ci/run runs them all without it.
var (
	small = []Bounds{
		{Owners: 3, Slots: 1, Horizon: 4, TTL: 2, Tolerance: 1, Skew: 1, Takes: 2},
		{Owners: 2, Slots: 1, Horizon: 6, TTL: 2, Tolerance: 1, Skew: 1, Takes: 3},
	}
	large = []Bounds{
		{Owners: 3, Slots: 2, Horizon: 2, TTL: 2, Tolerance: 1, Skew: 1, Takes: 2},
		{Owners: 3, Slots: 2, Horizon: 4, TTL: 2, Tolerance: 1, Skew: 0, Takes: 2},
	}
)

const maxStates = 3_000_000

// TestExplore_L1L2L3_UniqueStamps explores every schedule within each bound with
// storekit.SlotRow's rules and expects no violation of L1, L2, L3 or unique stamps.
func TestExplore_L1L2L3_UniqueStamps(t *testing.T) {
	bounds := small
	if !raceEnabled && !testing.Short() {
		bounds = append(bounds, large...)
	}
	for _, b := range bounds {
		start := time.Now()
		r, err := Explore(b, RealTake, maxStates)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v: %d states, %d transitions, %v", b, r.States, r.Steps, time.Since(start).Round(time.Millisecond))
		if r.Violation != nil {
			t.Fatal(r.Violation)
		}
	}
}

// TestExplore_PlantedTakeIgnoringCeiling checks that the explorer finds the planted
// defect, a take that ignores an expired owner's Ceiling, within each bound that has
// skew, and prints the steps to it.
func TestExplore_PlantedTakeIgnoringCeiling(t *testing.T) {
	for _, b := range small {
		r, err := Explore(b, TakeIgnoringCeiling, maxStates)
		if err != nil {
			t.Fatal(err)
		}
		if r.Violation == nil {
			t.Fatalf("%+v: %d states explored and the planted take went unnoticed", b, r.States)
		}
		if r.Violation.Invariant != "L3" && r.Violation.Invariant != "unique stamp" {
			t.Fatalf("%+v: the planted take broke %s, want L3 or unique stamp:\n%v", b, r.Violation.Invariant, r.Violation)
		}
		t.Logf("%+v: found after %d states:\n%v", b, r.States, r.Violation)
	}
}

// TestExplore_PlantedTake_UniqueStamp checks that the stamps alone show the planted
// take: with the L3 check at acquisition off, two owners stamp one (slot, time).
func TestExplore_PlantedTake_UniqueStamp(t *testing.T) {
	b := small[1]
	r, err := explore(b, TakeIgnoringCeiling, nil, maxStates, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.Violation == nil || r.Violation.Invariant != "unique stamp" {
		t.Fatalf("%+v: want a shared stamp, got %v", b, r.Violation)
	}
	if !strings.Contains(r.Violation.Error(), "acquire slot 0") {
		t.Errorf("the trace does not show the acquisitions:\n%v", r.Violation)
	}
	t.Log(r.Violation)
}

func TestExplore_RefusesBadBounds(t *testing.T) {
	ok := Bounds{Owners: 1, Slots: 1, Horizon: 1, TTL: 1, Takes: 1}
	for _, tc := range []struct {
		name string
		edit func(*Bounds)
	}{
		{"no owner", func(b *Bounds) { b.Owners = 0 }},
		{"four owners", func(b *Bounds) { b.Owners = 4 }},
		{"three slots", func(b *Bounds) { b.Slots = 3 }},
		{"zero TTL", func(b *Bounds) { b.TTL = 0 }},
		{"negative skew", func(b *Bounds) { b.Skew = -1 }},
		{"no takes", func(b *Bounds) { b.Takes = 0 }},
		{"horizon past the times kept", func(b *Bounds) { b.Horizon = 23 }},
	} {
		b := ok
		tc.edit(&b)
		if _, err := Explore(b, RealTake, 10); err == nil {
			t.Errorf("%s: Explore(%+v) took bounds it cannot hold", tc.name, b)
		}
	}
	if _, err := Explore(ok, RealTake, 0); err != nil {
		t.Errorf("Explore(%+v): %v", ok, err)
	}
}

// TestExplore_StateLimit checks that a search larger than its limit stops with an
// error rather than run on.
func TestExplore_StateLimit(t *testing.T) {
	if _, err := Explore(small[0], RealTake, 100); err == nil || !strings.Contains(err.Error(), "more than 100 states") {
		t.Fatalf("Explore with a limit of 100 states: %v", err)
	}
}

// TestSecurity_C1_NonOwnerReleaseKeepsStampsUnique explores every schedule within each
// bound with a caller that is no owner and releases any held lease at any step, by
// the protocol's rule for a release that cannot prove its owner (the Ceiling as last
// use): still no owner's stamp is repeated, and L2 and L3 hold. The non-owner
// multiplies the states by some four, so the bounds are smaller: under -race two
// owners, without it the small bounds of the other tests (the large ones pass
// 3,000,000 states).
func TestSecurity_C1_NonOwnerReleaseKeepsStampsUnique(t *testing.T) {
	bounds := []Bounds{{Owners: 2, Slots: 1, Horizon: 4, TTL: 2, Tolerance: 1, Skew: 1, Takes: 2}}
	if !raceEnabled && !testing.Short() {
		bounds = append(bounds, small...)
	}
	for _, b := range bounds {
		start := time.Now()
		r, err := ExploreForeign(b, RealTake, RealForeign, maxStates)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v with non-owner releases: %d states, %d transitions, %v", b, r.States, r.Steps, time.Since(start).Round(time.Millisecond))
		if r.Violation != nil {
			t.Fatal(r.Violation)
		}
	}
}

// TestSecurity_C1_PlantedForeignReleaseAtNow checks that the explorer finds the 4.x
// revert as it was (a non-owner's release at min(now, Ceiling)) within each bound,
// by L3 at the next acquisition, and by the stamps alone with that check off.
func TestSecurity_C1_PlantedForeignReleaseAtNow(t *testing.T) {
	for _, b := range append([]Bounds{{Owners: 2, Slots: 1, Horizon: 4, TTL: 2, Tolerance: 1, Skew: 1, Takes: 2}}, small...) {
		r, err := ExploreForeign(b, RealTake, ForeignReleaseAtNow, maxStates)
		if err != nil {
			t.Fatal(err)
		}
		if r.Violation == nil || r.Violation.Invariant != "L3" && r.Violation.Invariant != "unique stamp" {
			t.Fatalf("%+v: %d states explored, the planted release gave %v; want L3 or unique stamp", b, r.States, r.Violation)
		}
		t.Logf("%+v: found after %d states:\n%v", b, r.States, r.Violation)
		r, err = explore(b, RealTake, ForeignReleaseAtNow, maxStates, false)
		if err != nil {
			t.Fatal(err)
		}
		if r.Violation == nil || r.Violation.Invariant != "unique stamp" || !strings.Contains(r.Violation.Error(), "a non-owner releases slot 0") {
			t.Fatalf("%+v: want a shared stamp after a non-owner's release, got %v", b, r.Violation)
		}
	}
}
