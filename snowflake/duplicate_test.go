package snowflake_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// The tests in this file try hard to make a generator hand out an id twice: clocks
// that jump back, slots that pass between owners whose clocks disagree, owners that
// stall while their lease runs out, and many callers at once. None may succeed.

func TestNoDuplicates_ClockJumpsBack(t *testing.T) {
	tests := []struct {
		name  string
		back  time.Duration
		fails bool // over the broken threshold of 2s
	}{
		{"5ms_Spins", 5 * time.Millisecond, false},
		{"1s_Sleeps", time.Second, false},
		{"1h_Fails", time.Hour, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clock := skewed(0)
				g := newFixed(t, 1, testLayout(), snowflake.WithClock(clock.now))
				var ids []int64
				for range 3 {
					ids = append(ids, collect(t, g, 1000)...)
					elapse(time.Millisecond)
				}
				last := stampMs(ids[len(ids)-1])
				clock.jump(-tc.back)
				wantWait := time.UnixMilli(last).Sub(clock.now())
				start := time.Now()
				id, err := g.Next()
				waited := time.Since(start)
				if tc.fails {
					if !errors.Is(err, snowflake.ErrClockBackwards) || !strings.Contains(err.Error(), "behind the last id's time") {
						t.Fatalf("Next with the clock %v back: %v, want ErrClockBackwards", tc.back, err)
					}
					if waited != 0 {
						t.Errorf("Next waited %v before failing, want no wait over the broken threshold", waited)
					}
					clock.jump(tc.back) // the clock is put right
				} else {
					if err != nil {
						t.Fatalf("Next with the clock %v back: %v, want it to wait", tc.back, err)
					}
					if waited != wantWait {
						t.Errorf("Next waited %v, want %v: until the clock is back at the last id's time", waited, wantWait)
					}
					ids = append(ids, id)
				}
				ids = append(ids, collect(t, g, 5000)...)
				checkIncreasing(t, ids)
				checkUnique(t, ids)
			})
		})
	}
}

// TestNoDuplicates_TakeoverWithSkewedClocks hands a slot from owner a to owner b, by
// release or by expiry, with their clocks off the store's by up to the tolerance in
// either direction, while both make ids every millisecond: a's ids and b's never
// meet, and every id of b is stamped after every id of a.
func TestNoDuplicates_TakeoverWithSkewedClocks(t *testing.T) {
	const tol, ttl = time.Second, 3 * time.Second
	clocks := []struct {
		name string
		a, b time.Duration
	}{
		{"SameClocks", 0, 0},
		{"OldAheadNewBehind", tol, -tol},
		{"OldBehindNewAhead", -tol, tol},
		{"BothAhead", tol, tol},
		{"BothBehind", -tol, -tol},
		{"OldSlightlyAheadNewSlightlyBehind", tol / 2, -tol / 3},
	}
	for _, end := range []string{"Release", "Expiry"} {
		for _, tc := range clocks {
			t.Run(end+"/"+tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					st := newTestStore(memstore.New())
					opts := func(skew time.Duration) []snowflake.Option {
						return []snowflake.Option{snowflake.WithClock(skewed(skew).now), snowflake.WithLimit(1),
							snowflake.WithTolerance(tol), snowflake.WithLeaseTTL(ttl)}
					}
					a := newLeased(t, st, "a", opts(tc.a)...)
					stopA := make(chan struct{})
					var aIDs []int64
					var aErr error
					var wg sync.WaitGroup
					wg.Go(func() { aIDs, aErr = generateUntil(a, stopA) })
					elapse(2 * time.Second)
					if end == "Release" {
						close(stopA)
						wg.Wait()
						if err := a.Close(); err != nil {
							t.Fatalf("Close: %v", err)
						}
					} else {
						st.set(func(s *testStore) { s.down["a"] = true }) // a's lease runs out while a goes on
					}
					b := takeSlot(t, st, "b", opts(tc.b)...)
					var bIDs []int64
					for range 3 * tol / time.Millisecond {
						bIDs = append(bIDs, collect(t, b, 3)...)
						elapse(time.Millisecond)
					}
					wg.Wait()
					if end == "Expiry" && !errors.Is(aErr, snowflake.ErrLeaseLost) {
						t.Errorf("a stopped with %v, want ErrLeaseLost", aErr)
					}
					checkUnique(t, aIDs, bIDs)
					checkHandedOver(t, aIDs, bIDs)
				})
			})
		}
	}
}

// TestNoDuplicates_PausedOwner pauses owner a, as a stop-the-world pause or a frozen
// VM would, until its lease has expired and b holds the slot. When a resumes it may
// only make ids that b cannot make, and stops for good once the store or its clock
// tells it the lease is gone.
func TestNoDuplicates_PausedOwner(t *testing.T) {
	const tol, ttl = time.Second, 3 * time.Second
	for _, tc := range []struct {
		name  string
		skew  time.Duration
		stops bool // a's clock is past its ceiling when it resumes
	}{
		{"ClockBehind", -tol, false},
		{"SameClock", 0, true},
		{"ClockAhead", tol, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := newTestStore(memstore.New())
				opts := []snowflake.Option{snowflake.WithLimit(1), snowflake.WithTolerance(tol), snowflake.WithLeaseTTL(ttl)}
				a := newLeased(t, st, "a", append(opts, snowflake.WithClock(skewed(tc.skew).now))...)
				var aIDs, bIDs []int64
				for range 100 {
					aIDs = append(aIDs, collect(t, a, 10)...)
					elapse(10 * time.Millisecond)
				}
				st.set(func(s *testStore) { s.down["a"] = true }) // paused: no calls, no renewals
				elapse(ttl + time.Millisecond)
				b := takeSlot(t, st, "b", opts...)
				bIDs = append(bIDs, collect(t, b, 1000)...)

				var err error
				for i := 0; err == nil; i++ {
					var id int64
					if id, err = a.Next(); err == nil {
						aIDs = append(aIDs, id)
					}
					bIDs = append(bIDs, collect(t, b, 10)...)
					if i == 100 {
						st.set(func(s *testStore) { s.down["a"] = false }) // a's renewals reach the store again
					}
					elapse(time.Millisecond)
				}
				if !errors.Is(err, snowflake.ErrLeaseLost) {
					t.Fatalf("a stopped with %v, want ErrLeaseLost", err)
				}
				if tc.stops && len(aIDs) != 1000 {
					t.Errorf("a made %d ids after it resumed with its clock past the ceiling, want none", len(aIDs)-1000)
				}
				checkUnique(t, aIDs, bIDs)
				checkHandedOver(t, aIDs, bIDs)
			})
		})
	}
}

// TestNoDuplicates_TwoInstancesShareTwoSlots runs two generators on two store
// instances of one backend with a limit of 2, from many goroutines; a third gets
// ErrNoFreeSlot until one of them closes, and then takes over its slot.
func TestNoDuplicates_TwoInstancesShareTwoSlots(t *testing.T) {
	backend := memstore.New()
	one := newLeased(t, backend, "one", snowflake.WithLimit(2))
	two := newLeased(t, backend.Sibling(), "two", snowflake.WithLimit(2))
	if one.Machine() == two.Machine() {
		t.Fatalf("both generators have machine %d", one.Machine())
	}
	_, err := snowflake.New(t.Context(), backend.Sibling(), testLayout(), snowflake.WithLogger(nil),
		snowflake.WithNamespace("test"), snowflake.WithOwnerKey("three"), snowflake.WithLimit(2))
	if !errors.Is(err, store.ErrNoFreeSlot) {
		t.Fatalf("a third generator: %v, want ErrNoFreeSlot", err)
	}
	first := concurrently(t, []*snowflake.Generator{one, two}, 4, 25_000)
	if err := one.Close(); err != nil {
		t.Fatal(err)
	}
	three := newLeased(t, backend.Sibling(), "three", snowflake.WithLimit(2))
	if three.Machine() != one.Machine() {
		t.Errorf("the third generator got machine %d, want %d, the one released", three.Machine(), one.Machine())
	}
	then := concurrently(t, []*snowflake.Generator{two, three}, 4, 25_000)
	checkUnique(t, slices.Concat(first...), slices.Concat(then...))
}

// generateUntil makes three ids a millisecond until stop is closed or Next fails.
func generateUntil(g *snowflake.Generator, stop <-chan struct{}) ([]int64, error) {
	var ids []int64
	for {
		select {
		case <-stop:
			return ids, nil
		default:
		}
		for range 3 {
			id, err := g.Next()
			if err != nil {
				return ids, err
			}
			ids = append(ids, id)
		}
		elapse(time.Millisecond)
	}
}

// takeSlot makes a generator for owner, trying every millisecond while the slot is
// held.
func takeSlot(t *testing.T, st store.SlotLeaseStore, owner string, opts ...snowflake.Option) *snowflake.Generator {
	t.Helper()
	opts = append([]snowflake.Option{snowflake.WithLogger(nil), snowflake.WithNamespace("test"), snowflake.WithOwnerKey(owner)}, opts...)
	for start := time.Now(); time.Since(start) < time.Minute; elapse(time.Millisecond) {
		g, err := snowflake.New(t.Context(), st, testLayout(), opts...)
		if err == nil {
			t.Cleanup(func() { g.Close() })
			return g
		}
		if !errors.Is(err, store.ErrNoFreeSlot) {
			t.Fatalf("New for %q: %v", owner, err)
		}
	}
	t.Fatalf("%q got no slot in a minute", owner)
	return nil
}

// checkHandedOver checks that the ids of a slot's new owner are all stamped after
// those of its old owner.
func checkHandedOver(t *testing.T, old, new []int64) {
	t.Helper()
	if len(old) == 0 || len(new) == 0 {
		t.Fatalf("the old owner made %d ids and the new %d", len(old), len(new))
	}
	lastOld, firstNew := stampMs(slices.Max(old)), stampMs(slices.Min(new))
	if firstNew <= lastOld {
		t.Errorf("the new owner stamped %d, not after %d of the old owner", firstNew, lastOld)
	}
}
