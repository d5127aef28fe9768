package snowflake_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

const tol = snowflake.DefaultTolerance

// startTimed runs New for owner with the given clock, in a namespace of one slot
// unless opts say otherwise, and returns how long New took by the bubble's time.
func startTimed(t *testing.T, st store.SlotLeaseStore, owner string, clock *skewClock, opts ...snowflake.Option) (*snowflake.Generator, time.Duration, error) {
	t.Helper()
	opts = append([]snowflake.Option{snowflake.WithLogger(nil), snowflake.WithNamespace("test"), snowflake.WithOwnerKey(owner),
		snowflake.WithLimit(1), snowflake.WithClock(clock.now)}, opts...)
	start := time.Now()
	g, err := snowflake.New(t.Context(), st, testLayout(), opts...)
	if err == nil {
		t.Cleanup(func() { g.Close() })
	}
	return g, time.Since(start), err
}

func TestNew_RefusesClockAheadOfStoreBeyondTolerance(t *testing.T) {
	tests := []struct {
		name string
		skew time.Duration
		ttl  time.Duration
		says string
	}{
		{"JustBeyond", tol + time.Millisecond, time.Minute, "1.001s ahead"},
		{"FiveSeconds", 5 * time.Second, time.Minute, "5s ahead"},
		{"BeyondTTLAndTolerance", 2 * time.Minute, time.Minute, "2m0s ahead"},
		{"BehindBeyondTolerance", -5 * time.Second, time.Minute, "5s behind"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := memstore.New()
				storeNow, clockNow := time.Now().UTC(), time.Now().Add(tc.skew).UTC()
				_, _, err := startTimed(t, st, "skewed", skewed(tc.skew), snowflake.WithLeaseTTL(tc.ttl))
				if !errors.Is(err, snowflake.ErrClockSkew) {
					t.Fatalf("New with the clock %v off the store: %v, want ErrClockSkew", tc.skew, err)
				}
				for _, want := range []string{tc.says, fmt.Sprint(storeNow), fmt.Sprint(clockNow), "tolerance 1s"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("New: %q does not say %q", err, want)
					}
				}
				l := mustAcquire(t, st, rival("next", 1)) // the refused lease was released
				if l.Floor > storeNow.UnixMilli() {
					t.Errorf("the next owner's floor is %v, after the store's now %v: the refused owner stamped", time.UnixMilli(l.Floor).UTC(), storeNow)
				}
			})
		})
	}
}

func TestNew_AcceptsClockWithinTolerance(t *testing.T) {
	for _, skew := range []time.Duration{-tol, -tol / 2, 0, tol / 2, tol} {
		t.Run(fmt.Sprint(skew), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g, _, err := startTimed(t, memstore.New(), "a", skewed(skew))
				if err != nil {
					t.Fatalf("New with the clock %v off the store: %v", skew, err)
				}
				mustNext(t, g)
			})
		})
	}
}

// TestNew_SkewedOwnerDoesNotLockOutTheNamespace is issue 8's lock-out: an owner
// whose clock runs 5s ahead of the store must not leave the lowest free slot with
// a floor that every later owner with a correct clock refuses.
func TestNew_SkewedOwnerDoesNotLockOutTheNamespace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		if g, _, err := startTimed(t, st, "skewed", skewed(5*time.Second), snowflake.WithLimit(4)); err == nil {
			for range 10 {
				elapse(100 * time.Millisecond)
				g.Next()
			}
			g.Close()
		}
		for i := range 3 {
			g, waited, err := startTimed(t, st, fmt.Sprint("correct-", i), skewed(0), snowflake.WithLimit(4))
			if err != nil {
				t.Fatalf("New %d with a correct clock after the skewed owner: %v", i, err)
			}
			if waited > 2*tol {
				t.Errorf("New %d waited %v, over twice the tolerance", i, waited)
			}
			mustNext(t, g)
			g.Close()
		}
	})
}

// TestNext_StopsWhenTheClockJumpsAheadOfTheStore moves the clock ahead after New:
// beyond the tolerance the generator stops rather than stamp ahead of the store's
// time by more than the tolerance, and releases its slot at its last stamp.
func TestNext_StopsWhenTheClockJumpsAheadOfTheStore(t *testing.T) {
	tests := []struct {
		name string
		jump time.Duration
		stop bool
	}{
		{"WithinTolerance", tol / 2, false},
		{"BeyondTolerance", 1500 * time.Millisecond, true},
		{"BelowTheCeiling", 45 * time.Second, true},
		{"BeyondTheCeiling", 2 * time.Minute, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := memstore.New()
				clock := skewed(0)
				lost := &lostRecorder{}
				g, _, err := startTimed(t, st, "a", clock, snowflake.WithOnLeaseLost(lost.record))
				if err != nil {
					t.Fatal(err)
				}
				elapse(time.Second)
				last := mustNext(t, g)
				clock.jump(tc.jump)
				for range 20 {
					elapse(100 * time.Millisecond)
					id, err := g.Next()
					if err != nil {
						if !tc.stop || !errors.Is(err, snowflake.ErrClockSkew) || !errors.Is(err, snowflake.ErrLeaseLost) {
							t.Fatalf("Next with the clock %v ahead: %v", tc.jump, err)
						}
						break
					}
					if s, limit := stampMs(id), time.Now().Add(tol).UnixMilli(); s > limit {
						t.Fatalf("id stamped %v, more than the tolerance ahead of the store's %v", time.UnixMilli(s).UTC(), time.Now().UTC())
					}
					last = id
				}
				synctest.Wait()
				if !tc.stop {
					if len(lost.got()) != 0 {
						t.Errorf("the generator stopped: %v", lost.got())
					}
					return
				}
				if errs := lost.got(); len(errs) != 1 || !errors.Is(errs[0], snowflake.ErrClockSkew) {
					t.Errorf("OnLeaseLost got %v, want one error wrapping ErrClockSkew", errs)
				}
				l := mustAcquire(t, st, rival("next", 1)) // released without Close
				if l.Floor != stampMs(last)+1 {
					t.Errorf("the next owner's floor is %d, want %d, right above the last id", l.Floor, stampMs(last)+1)
				}
			})
		})
	}
}

// TestRenew_StopsWhenTheClockIsAheadOfTheStore steps the store's clock back: the
// renewal's answer shows the generator's clock ahead of it by more than the
// tolerance, and the generator stops without a call of Next.
func TestRenew_StopsWhenTheClockIsAheadOfTheStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		storeClock := skewed(0)
		st := memstore.New(memstore.WithClock(storeClock.now))
		lost := &lostRecorder{}
		g, _, err := startTimed(t, st, "a", skewed(0), snowflake.WithLeaseTTL(30*time.Second), snowflake.WithOnLeaseLost(lost.record))
		if err != nil {
			t.Fatal(err)
		}
		mustNext(t, g)
		storeClock.jump(-5 * time.Second)
		settle(10 * time.Second) // the first renewal
		if errs := lost.got(); len(errs) != 1 || !errors.Is(errs[0], snowflake.ErrClockSkew) {
			t.Fatalf("OnLeaseLost got %v after a renewal 5s behind, want one error wrapping ErrClockSkew", errs)
		}
		checkStopped(t, g, snowflake.ErrClockSkew)
	})
}

// TestNew_WaitsAtMostAboutTwiceTheTolerance checks the package's promise: whatever
// the clock of a slot's earlier owner did, its next owner, with a clock within the
// tolerance, waits for the slot's floor at most twice the tolerance (and a few
// milliseconds of stamps' rounding).
func TestNew_WaitsAtMostAboutTwiceTheTolerance(t *testing.T) {
	tests := []struct {
		name             string
		earlier, jump    time.Duration // the earlier owner's skew at New, and its jump after
		next             time.Duration // the next owner's skew
		wantEarlierFails bool
	}{
		{"AheadByToleranceThenBehindByIt", tol, 0, -tol, false},
		{"AheadBeyondTolerance", 5 * time.Second, 0, -tol, true},
		{"AheadBeyondTTL", 2 * time.Minute, 0, 0, true},
		{"JumpsAheadBeyondTolerance", tol, 5 * time.Second, -tol, false},
		{"JumpsAheadBelowTheCeiling", 0, 45 * time.Second, -tol, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := memstore.New()
				clock := skewed(tc.earlier)
				g, _, err := startTimed(t, st, "earlier", clock)
				if (err != nil) != tc.wantEarlierFails {
					t.Fatalf("New of the earlier owner %v ahead: %v", tc.earlier, err)
				}
				if err == nil {
					for i := range 40 {
						if i == 20 {
							clock.jump(tc.jump)
						}
						elapse(100 * time.Millisecond)
						g.Next()
					}
					g.Close()
				}
				_, waited, err := startTimed(t, st, "next", skewed(tc.next))
				if err != nil {
					t.Fatalf("New of the next owner: %v", err)
				}
				if limit := 2*tol + 2*time.Millisecond; waited > limit {
					t.Errorf("New waited %v for the floor, over %v", waited, limit)
				}
			})
		})
	}
}

// TestNew_RenewsWhenTheFloorWaitOutlastsTheLease waits for a floor longer than the
// TTL: the lease New returns must still be held, not free for a rival to take.
func TestNew_RenewsWhenTheFloorWaitOutlastsTheLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		ahead := mustAcquire(t, st, rival("ahead", 1))
		if err := st.Release(t.Context(), ahead, time.Now().Add(1500*time.Millisecond).UnixMilli()); err != nil {
			t.Fatal(err)
		}
		g, waited, err := startTimed(t, st, "b", skewed(0), snowflake.WithLeaseTTL(1200*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if waited <= 1200*time.Millisecond {
			t.Fatalf("New waited %v, want longer than the TTL for this test", waited)
		}
		if l, err := st.Acquire(t.Context(), rival("c", 1)); !errors.Is(err, store.ErrNoFreeSlot) {
			t.Fatalf("a rival's Acquire right after New: slot %d, %v; want ErrNoFreeSlot: the generator's lease must be live", l.Slot, err)
		}
		mustNext(t, g)
		if l, ok := g.Lease(); !ok || !l.ExpiresAt.After(time.Now()) {
			t.Errorf("Lease() = %+v after New, want it unexpired at %v", l, time.Now().UTC())
		}
	})
}

// failingStore fails every Acquire with err.
type failingStore struct {
	store.SlotLeaseStore
	err func(req store.LeaseRequest) error
}

func (s failingStore) Acquire(_ context.Context, req store.LeaseRequest) (store.Lease, error) {
	return store.Lease{}, s.err(req)
}

// TestNew_StoreErrorsAreNotConfigurationErrors checks that a full namespace or an
// unreachable store fails New with the store's error, not one of bad arguments, and
// that the message says once what New was doing.
func TestNew_StoreErrorsAreNotConfigurationErrors(t *testing.T) {
	full := memstore.New()
	mustAcquire(t, full, rival("x", 1))
	closed := memstore.New()
	closed.Close()
	sqlLike := failingStore{err: func(req store.LeaseRequest) error { // as sqlstore words it
		return fmt.Errorf("sqlstore: acquire a slot of namespace %q for %q: %w", req.Namespace, req.OwnerKey, errStoreDown)
	}}
	tests := []struct {
		name string
		st   store.SlotLeaseStore
		want error
	}{
		{"NoFreeSlot", full, store.ErrNoFreeSlot},
		{"StoreClosed", closed, store.ErrClosed},
		{"StoreUnreachable", sqlLike, errStoreDown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := snowflake.New(t.Context(), tc.st, testLayout(), snowflake.WithLogger(nil), snowflake.WithNamespace("test"),
				snowflake.WithOwnerKey("a"), snowflake.WithLimit(1))
			if !errors.Is(err, tc.want) || errors.Is(err, store.ErrInvalidArgument) || errors.Is(err, store.ErrNamespaceConflict) {
				t.Errorf("New: %v, want an error wrapping %v and no argument error", err, tc.want)
			}
			if n := strings.Count(fmt.Sprint(err), "acquire a slot of namespace"); n != 1 {
				t.Errorf("New: %q says %d times that it acquires a slot, want once", err, n)
			}
		})
	}
}

// leaveFloors leaves the lowest n slots of a namespace of limit slots with their
// floors at used, as owners of an older version with clocks ahead could.
func leaveFloors(t *testing.T, st store.SlotLeaseStore, n, limit int, used int64) {
	t.Helper()
	var held []store.Lease
	for i := range n {
		held = append(held, mustAcquire(t, st, rival(fmt.Sprint("x", i), limit)))
	}
	for _, l := range held {
		if err := st.Release(t.Context(), l, used); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNew_SkipsSlotsWhoseFloorIsTooFarAhead leaves two slots with floors 10s ahead:
// New takes the next free slot without waiting, and frees the two it skipped,
// their floors kept.
func TestNew_SkipsSlotsWhoseFloorIsTooFarAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		used := time.Now().Add(10 * time.Second).UnixMilli()
		leaveFloors(t, st, 2, 4, used)
		g, waited, err := startTimed(t, st, "b", skewed(0), snowflake.WithLimit(4))
		if err != nil {
			t.Fatalf("New with two slots of four far ahead: %v", err)
		}
		if g.Machine() != 2 || waited != 0 {
			t.Errorf("New took slot %d after %v, want slot 2 at once", g.Machine(), waited)
		}
		for _, owner := range []string{"y0", "y1"} {
			if l := mustAcquire(t, st, rival(owner, 4)); l.Slot > 1 || l.Floor <= used {
				t.Errorf("%s got slot %d with floor %d, want a skipped slot, 0 or 1, with its floor above %d", owner, l.Slot, l.Floor, used)
			}
		}
	})
}

// TestNew_SkipsAtMostEightSlots leaves ten slots of sixteen with floors 10s ahead:
// New gives up after eight, with the floor's error, and frees every slot it took.
func TestNew_SkipsAtMostEightSlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		leaveFloors(t, st, 10, 16, time.Now().Add(10*time.Second).UnixMilli())
		_, _, err := startTimed(t, st, "b", skewed(0), snowflake.WithLimit(16))
		if !errors.Is(err, snowflake.ErrClockBackwards) || !strings.Contains(err.Error(), "slot 8 ") {
			t.Fatalf("New with ten slots far ahead: %v, want ErrClockBackwards for slot 8, the ninth", err)
		}
		for i := range 16 {
			mustAcquire(t, st, rival(fmt.Sprint("y", i), 16))
		}
	})
}
