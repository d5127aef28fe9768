package snowflake_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// rival asks the store directly for a slot of the generators' namespace.
func rival(owner string, limit int) store.LeaseRequest {
	return store.LeaseRequest{Namespace: "test", OwnerKey: owner, Limit: limit, Tolerance: snowflake.DefaultTolerance, TTL: time.Minute, Preferred: -1}
}

func TestNew_MachineIsTheLeasedSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		for _, owner := range []string{"x", "y"} {
			if _, err := st.Acquire(t.Context(), rival(owner, 1024)); err != nil {
				t.Fatal(err)
			}
		}
		g := newLeased(t, st, "host-a")
		if g.Machine() != 2 {
			t.Errorf("Machine() = %d, want slot 2, the first free one", g.Machine())
		}
		for _, id := range collect(t, g, 5) {
			if m := testLayout().Parse(id).Machine; m != 2 {
				t.Errorf("id %d carries machine %d, want 2", id, m)
			}
		}
	})
}

func TestNew_LimitDefaultsTo2PowMachineBits(t *testing.T) {
	st := memstore.New()
	l := testLayout()
	l.MachineBits, l.SequenceBits = 8, 14
	g, err := snowflake.New(t.Context(), st, l, snowflake.WithLogger(nil), snowflake.WithNamespace("test"), snowflake.WithOwnerKey("a"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := st.Acquire(t.Context(), rival("b", 1024)); !errors.Is(err, store.ErrNamespaceConflict) {
		t.Errorf("acquiring with limit 1024: %v, want ErrNamespaceConflict: the generator set the limit to 256", err)
	}
	if _, err := st.Acquire(t.Context(), rival("b", 256)); err != nil {
		t.Errorf("acquiring with limit 256: %v", err)
	}
}

func TestNew_OwnerKeyDefaultsToTheHostName(t *testing.T) {
	st := memstore.New()
	g, err := snowflake.New(t.Context(), st, testLayout(), snowflake.WithLogger(nil), snowflake.WithNamespace("test"))
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	// The host's earlier slot comes back to a request with its name (L5).
	host, err := os.Hostname()
	if err != nil {
		t.Skipf("no host name: %v", err)
	}
	req := rival(host, 1024)
	req.Preferred = 7
	if l, err := st.Acquire(t.Context(), req); err != nil || l.Slot != g.Machine() {
		t.Errorf("Acquire for the host name %q got slot %d, %v; want the generator's slot %d", host, l.Slot, err, g.Machine())
	}
}

func TestNew_RenewsTheLeaseInTheBackground(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(memstore.New())
		g := newLeased(t, st, "a", snowflake.WithLimit(1), snowflake.WithLeaseTTL(30*time.Second))
		for range 600 {
			elapse(time.Second)
			mustNext(t, g)
		}
		if n := st.renewCount(); n < 59 || n > 61 {
			t.Errorf("%d renewals in 10 minutes with a TTL of 30s, want one every 10s", n)
		}
		if _, err := st.Acquire(t.Context(), rival("b", 1)); !errors.Is(err, store.ErrNoFreeSlot) {
			t.Errorf("a rival's Acquire after 10 minutes: %v, want ErrNoFreeSlot: the lease is renewed", err)
		}
	})
}

// TestNew_StopsAtTheCeilingWhenRenewalsFail cuts the generator off its store: it
// goes on while its ceiling allows, then stops with ErrLeaseLost, and stamps no id
// above the ceiling of its last renewal.
func TestNew_StopsAtTheCeilingWhenRenewalsFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st, g, lost := newWatched(t)
		st.set(func(s *testStore) { s.down["a"] = true })
		lease := st.lease("a")
		var last int64
		for {
			elapse(100 * time.Millisecond)
			id, err := g.Next()
			if err != nil {
				if !errors.Is(err, snowflake.ErrLeaseLost) || !strings.Contains(err.Error(), "ceiling") {
					t.Fatalf("Next: %v, want ErrLeaseLost at the ceiling", err)
				}
				break
			}
			last = id
		}
		if s := stampMs(last); s > lease.Ceiling || lease.Ceiling-s > 100 {
			t.Errorf("the last id is stamped %d, want it at most 100ms below the ceiling %d", s, lease.Ceiling)
		}
		synctest.Wait()
		if errs := lost.got(); len(errs) != 1 || !errors.Is(errs[0], snowflake.ErrLeaseLost) {
			t.Errorf("OnLeaseLost got %v, want one error wrapping ErrLeaseLost", errs)
		}
		checkStopped(t, g, snowflake.ErrLeaseLost)
	})
}

func TestNew_StopsWhenTheStoreSaysTheLeaseIsLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st, g, lost := newWatched(t)
		mustNext(t, g)
		st.set(func(s *testStore) { s.stolen["a"] = true })
		settle(10 * time.Second) // the next renewal
		_, err := g.Next()
		if !errors.Is(err, snowflake.ErrLeaseLost) || !errors.Is(err, store.ErrLeaseLost) || !strings.Contains(err.Error(), `"test"`) {
			t.Errorf("Next after a renewal the store refused: %v, want ErrLeaseLost and the store's error, naming the namespace", err)
		}
		if errs := lost.got(); len(errs) != 1 {
			t.Errorf("OnLeaseLost called %d times, want once", len(errs))
		}
		g.Close()
		if n := len(st.release); n != 0 {
			t.Errorf("Close released a lost lease %d times", n)
		}
	})
}

func TestClose_ReleasesWithTheLastIDsTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(memstore.New())
		g := newLeased(t, st, "a")
		elapse(time.Hour)
		last := collect(t, g, 3)[2]
		elapse(time.Minute) // the release reports the last id's time, not the clock's
		if err := g.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if len(st.release) != 1 || st.release[0] != stampMs(last) {
			t.Fatalf("releases at %v, want one at %d, the last id's time", st.release, stampMs(last))
		}
		again := newLeased(t, st, "a")
		if again.Machine() != g.Machine() {
			t.Errorf("the owner got slot %d after releasing slot %d", again.Machine(), g.Machine())
		}
		if first := mustNext(t, again); stampMs(first) <= stampMs(last) {
			t.Errorf("the slot's next generator stamped %d, not above the last id %d of the earlier one", stampMs(first), stampMs(last))
		}
	})
}

func TestNew_WaitsForTheClockToReachTheFloor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		ahead := mustAcquire(t, st, rival("ahead", 1))
		used := time.Now().Add(1500 * time.Millisecond).UnixMilli() // its clock ran 1.5s ahead
		if err := st.Release(t.Context(), ahead, used); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		clock := skewed(0)
		g := newLeased(t, st, "b", snowflake.WithLimit(1), snowflake.WithClock(clock.now))
		if waited := time.Since(start); waited != 1501*time.Millisecond {
			t.Errorf("New waited %v, want 1.501s: until the clock reached the floor", waited)
		}
		clock.jump(-time.Second) // and then it steps back below the floor
		if s := stampMs(mustNext(t, g)); s <= used {
			t.Errorf("the first id is stamped %d, not above %d", s, used)
		}
	})
}

func TestNew_RefusesAFloorTooFarAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		ahead := mustAcquire(t, st, rival("ahead", 1))
		used := time.Now().Add(10 * time.Second).UnixMilli()
		if err := st.Release(t.Context(), ahead, used); err != nil {
			t.Fatal(err)
		}
		_, err := snowflake.New(t.Context(), st, testLayout(), snowflake.WithLogger(nil), snowflake.WithNamespace("test"),
			snowflake.WithOwnerKey("b"), snowflake.WithLimit(1))
		if !errors.Is(err, snowflake.ErrClockBackwards) || !strings.Contains(err.Error(), "floor") {
			t.Fatalf("New with the floor 10s ahead: %v, want ErrClockBackwards naming the floor", err)
		}
		l := mustAcquire(t, st, rival("c", 1)) // the refused lease was released
		if l.Floor <= used {
			t.Errorf("floor %d after the refused lease, want it above %d still", l.Floor, used)
		}
	})
}

func TestNew_RefusesBadArguments(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	st := memstore.New()
	if _, err := st.Acquire(t.Context(), rival("x", 8)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		ctx     context.Context
		st      store.SlotLeaseStore
		opts    []snowflake.Option
		want    error
		mention string
	}{
		{"NilStore", t.Context(), nil, nil, store.ErrInvalidArgument, "nil SlotLeaseStore"},
		{"EmptyNamespace", t.Context(), st, []snowflake.Option{snowflake.WithNamespace("")}, store.ErrInvalidArgument, "Namespace"},
		{"LimitOver2PowMachineBits", t.Context(), st, []snowflake.Option{snowflake.WithLimit(1025)}, store.ErrInvalidArgument, "limit 1025, want 1–1024"},
		{"ZeroTTL", t.Context(), st, []snowflake.Option{snowflake.WithLeaseTTL(0)}, store.ErrInvalidArgument, "TTL"},
		{"OtherLimit", t.Context(), st, []snowflake.Option{snowflake.WithLimit(16)}, store.ErrNamespaceConflict, `namespace "test"`},
		{"Canceled", canceled, st, nil, context.Canceled, "acquire"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := append([]snowflake.Option{snowflake.WithLogger(nil), snowflake.WithNamespace("test"), snowflake.WithOwnerKey("a"), snowflake.WithLimit(8)}, tc.opts...)
			g, err := snowflake.New(tc.ctx, tc.st, testLayout(), opts...)
			if err == nil {
				g.Close()
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("New = %v, want an error wrapping %v saying %q", err, tc.want, tc.mention)
			}
		})
	}
}

// TestRenew_LogsAClockBehindTheStore steps the store's clock forward: the
// generator's clock falls behind it by more than the tolerance, which only costs
// the ids' times, so the generator logs it and goes on.
func TestRenew_LogsAClockBehindTheStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log syncBuffer
		storeClock := skewed(0)
		st := newTestStore(memstore.New(memstore.WithClock(storeClock.now)))
		g := newLeased(t, st, "a", snowflake.WithLeaseTTL(30*time.Second), snowflake.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
		storeClock.jump(5 * time.Second)
		settle(10 * time.Second) // the first renewal
		if out := log.String(); !strings.Contains(out, "behind the store") || !strings.Contains(out, "behind=5s") {
			t.Errorf("log %q lacks the warning of a clock 5s behind the store", out)
		}
		mustNext(t, g)
	})
}

func TestClose_ReportsAFailedRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(memstore.New())
		g := newLeased(t, st, "a")
		mustNext(t, g)
		st.set(func(s *testStore) { s.down["a"] = true })
		err := g.Close()
		if !errors.Is(err, errStoreDown) || !strings.Contains(err.Error(), "release slot 0") {
			t.Errorf("Close with the store down: %v, want the store's error naming the slot", err)
		}
		if err := g.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
}

// newWatched returns a generator of owner "a" with a lease of 30s on a testStore,
// and the recorder of the errors it reports as lost.
func newWatched(t *testing.T) (*testStore, *snowflake.Generator, *lostRecorder) {
	t.Helper()
	st := newTestStore(memstore.New())
	lost := &lostRecorder{}
	g := newLeased(t, st, "a", snowflake.WithLeaseTTL(30*time.Second), snowflake.WithOnLeaseLost(lost.record))
	return st, g, lost
}

func mustAcquire(t *testing.T, st store.SlotLeaseStore, req store.LeaseRequest) store.Lease {
	t.Helper()
	l, err := st.Acquire(t.Context(), req)
	if err != nil {
		t.Fatalf("Acquire for %q: %v", req.OwnerKey, err)
	}
	return l
}
