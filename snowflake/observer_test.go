package snowflake_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// eventRecorder is an Observer that records every event as "kind fence", and the
// errors of LeaseLost.
type eventRecorder struct {
	mu     sync.Mutex
	events []string
	errs   []error
	leases []store.Lease
}

func (r *eventRecorder) add(kind string, l store.Lease, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf("%s %d", kind, l.Fence))
	r.leases = append(r.leases, l)
	if err != nil {
		r.errs = append(r.errs, err)
	}
}

func (r *eventRecorder) LeaseAcquired(l store.Lease)        { r.add("acquired", l, nil) }
func (r *eventRecorder) LeaseRenewed(l store.Lease)         { r.add("renewed", l, nil) }
func (r *eventRecorder) LeaseLost(l store.Lease, err error) { r.add("lost", l, err) }
func (r *eventRecorder) LeaseReleased(l store.Lease)        { r.add("released", l, nil) }
func (r *eventRecorder) got() ([]string, []error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events), slices.Clone(r.errs)
}

func (r *eventRecorder) last() store.Lease {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.leases[len(r.leases)-1]
}

// TestObserver_SeesEveryLeaseEvent runs a generator through each ending of its
// lease, and checks the events: one acquisition, the renewals, and exactly one of
// released or lost.
func TestObserver_SeesEveryLeaseEvent(t *testing.T) {
	tests := []struct {
		name    string
		end     func(st *testStore, g *snowflake.Generator)
		want    []string
		wantErr error
	}{
		{"Released", func(st *testStore, g *snowflake.Generator) { g.Close() },
			[]string{"acquired 1", "renewed 1", "renewed 1", "released 1"}, nil},
		{"LostInRenewal", func(st *testStore, g *snowflake.Generator) {
			st.set(func(s *testStore) { s.stolen["a"] = true })
			settle(10 * time.Second)
			g.Close()
		}, []string{"acquired 1", "renewed 1", "renewed 1", "lost 1"}, store.ErrLeaseLost},
		{"ReleaseFailed", func(st *testStore, g *snowflake.Generator) {
			st.set(func(s *testStore) { s.down["a"] = true })
			g.Close()
		}, []string{"acquired 1", "renewed 1", "renewed 1", "lost 1"}, errStoreDown},
		{"CeilingPassed", func(st *testStore, g *snowflake.Generator) {
			st.set(func(s *testStore) { s.down["a"] = true })
			settle(time.Minute)
			g.Close()
		}, []string{"acquired 1", "renewed 1", "renewed 1", "lost 1"}, snowflake.ErrLeaseLost},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := newTestStore(memstore.New())
				rec := &eventRecorder{}
				g := newLeased(t, st, "a", snowflake.WithLeaseTTL(30*time.Second), snowflake.WithObserver(rec))
				settle(25 * time.Second) // two renewals
				tc.end(st, g)
				synctest.Wait()
				events, errs := rec.got()
				if !slices.Equal(events, tc.want) {
					t.Errorf("events %q, want %q", events, tc.want)
				}
				if tc.wantErr != nil && (len(errs) != 1 || !errors.Is(errs[0], tc.wantErr)) {
					t.Errorf("LeaseLost errors %v, want one wrapping %v", errs, tc.wantErr)
				}
			})
		})
	}
}

func TestLease_IsTheLastLeaseTheObserverSaw(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore(memstore.New())
		rec := &eventRecorder{}
		g := newLeased(t, st, "a", snowflake.WithLeaseTTL(30*time.Second), snowflake.WithObserver(rec))
		for i := range 3 {
			l, ok := g.Lease()
			if !ok || l != rec.last() || l != st.lease("a") {
				t.Errorf("after %d renewals Lease() = %+v, %v; want the store's last answer %+v", i, l, ok, st.lease("a"))
			}
			settle(10 * time.Second)
		}
		if l, _ := g.Lease(); l.Slot != g.Machine() || l.Namespace != "test" || l.OwnerKey != "a" {
			t.Errorf("Lease() = %+v, want slot %d of namespace test for owner a", l, g.Machine())
		}
	})
}

func TestLease_NotOKForAFixedMachine(t *testing.T) {
	g := newFixed(t, 3, testLayout(), snowflake.WithObserver(&eventRecorder{}))
	if l, ok := g.Lease(); ok || l != (store.Lease{}) {
		t.Errorf("Lease() of a NewFixed generator = %+v, %v; want the zero lease, false", l, ok)
	}
}
