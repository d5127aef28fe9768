package snowflake_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// skewClock reads the clock of the test (a synctest bubble's fake time) moved by an
// offset that the test sets: a machine whose clock is off, or jumps.
type skewClock struct{ off atomic.Int64 }

func skewed(d time.Duration) *skewClock {
	c := &skewClock{}
	c.off.Store(int64(d))
	return c
}

func (c *skewClock) now() time.Time       { return time.Now().Add(time.Duration(c.off.Load())) }
func (c *skewClock) jump(d time.Duration) { c.off.Add(int64(d)) }

// elapse lets d of a synctest bubble's fake time pass.
func elapse(d time.Duration) { <-time.After(d) }

// settle lets d of a synctest bubble's fake time pass and the other goroutines of
// the bubble, such as a generator's clock goroutine, do what is due at its end.
func settle(d time.Duration) {
	elapse(d)
	synctest.Wait()
}

// testLayout is the default layout with an epoch before the year 2000, where the
// fake time of synctest bubbles starts.
func testLayout() snowflake.Layout {
	l := snowflake.DefaultLayout()
	l.Epoch = time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)
	return l
}

func newFixed(t *testing.T, machine int, l snowflake.Layout, opts ...snowflake.Option) *snowflake.Generator {
	t.Helper()
	g, err := snowflake.NewFixed(machine, l, append([]snowflake.Option{snowflake.WithLogger(nil)}, opts...)...)
	if err != nil {
		t.Fatalf("NewFixed: %v", err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func newLeased(t *testing.T, st store.SlotLeaseStore, owner string, opts ...snowflake.Option) *snowflake.Generator {
	t.Helper()
	opts = append([]snowflake.Option{snowflake.WithLogger(nil), snowflake.WithOwnerKey(owner), snowflake.WithNamespace("test")}, opts...)
	g, err := snowflake.New(t.Context(), st, testLayout(), opts...)
	if err != nil {
		t.Fatalf("New for %q: %v", owner, err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func mustNext(t *testing.T, g *snowflake.Generator) int64 {
	t.Helper()
	v, err := g.Next()
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return v
}

func collect(t *testing.T, g *snowflake.Generator, n int) []int64 {
	t.Helper()
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = mustNext(t, g)
	}
	return ids
}

// checkStopped checks that Next fails with an error wrapping want and that Close,
// however often, succeeds.
func checkStopped(t *testing.T, g *snowflake.Generator, want error) {
	t.Helper()
	if _, err := g.Next(); !errors.Is(err, want) {
		t.Errorf("Next of a stopped generator: %v, want an error wrapping %v", err, want)
	}
	for range 2 {
		if err := g.Close(); err != nil {
			t.Errorf("Close of a stopped generator: %v", err)
		}
	}
}

// concurrently runs goroutines goroutines, spread over the generators, that each
// take each ids, and returns the ids of every goroutine in the order it got them.
func concurrently(t *testing.T, gens []*snowflake.Generator, goroutines, each int) [][]int64 {
	t.Helper()
	ids := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for i := range ids {
		g := gens[i%len(gens)]
		wg.Go(func() {
			for range each {
				v, err := g.Next()
				if err != nil {
					t.Errorf("goroutine %d: Next: %v", i, err)
					return
				}
				ids[i] = append(ids[i], v)
			}
		})
	}
	wg.Wait()
	return ids
}

// checkUnique fails t for every id that appears twice among the lists.
func checkUnique(t *testing.T, lists ...[]int64) {
	t.Helper()
	all := slices.Concat(lists...)
	slices.Sort(all)
	dups := 0
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			if dups < 5 {
				t.Errorf("duplicate id %d (%+v)", all[i], testLayout().Parse(all[i]))
			}
			dups++
		}
	}
	if dups > 0 {
		t.Fatalf("%d duplicates among %d ids", dups, len(all))
	}
}

func checkIncreasing(t *testing.T, ids []int64) {
	t.Helper()
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("id %d (%+v) after %d (%+v)", ids[i], testLayout().Parse(ids[i]), ids[i-1], testLayout().Parse(ids[i-1]))
		}
	}
}

// stampMs returns the epoch milliseconds an id of the default layout is stamped with.
func stampMs(id int64) int64 { return testLayout().Parse(id).Time.UnixMilli() }

var errStoreDown = errors.New("test: store unreachable")

// testStore is a memstore whose renewals a test can fail, as if the store or the
// network were down for one owner, or answer that the lease was lost.
type testStore struct {
	*memstore.Store
	mu      sync.Mutex
	down    map[string]bool // owner keys whose renewals and releases fail
	stolen  map[string]bool // owner keys whose renewals answer ErrLeaseLost
	renews  int
	release []int64                // the lastUsedMs of every release that reached the store
	leases  map[string]store.Lease // the last lease the store gave each owner
}

func newTestStore(st *memstore.Store) *testStore {
	return &testStore{Store: st, down: map[string]bool{}, stolen: map[string]bool{}, leases: map[string]store.Lease{}}
}

func (s *testStore) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	l, err := s.Store.Acquire(ctx, req)
	if err == nil {
		s.set(func(s *testStore) { s.leases[req.OwnerKey] = l })
	}
	return l, err
}

func (s *testStore) lease(owner string) store.Lease {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leases[owner]
}

func (s *testStore) set(f func(s *testStore)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

func (s *testStore) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	s.mu.Lock()
	s.renews++
	down, stolen := s.down[l.OwnerKey], s.stolen[l.OwnerKey]
	s.mu.Unlock()
	switch {
	case down:
		return store.Lease{}, errStoreDown
	case stolen:
		return store.Lease{}, fmt.Errorf("test: slot %d: %w", l.Slot, store.ErrLeaseLost)
	}
	r, err := s.Store.Renew(ctx, l, ttl)
	if err == nil {
		s.set(func(s *testStore) { s.leases[l.OwnerKey] = r })
	}
	return r, err
}

func (s *testStore) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	s.mu.Lock()
	down := s.down[l.OwnerKey]
	if !down {
		s.release = append(s.release, lastUsedMs)
	}
	s.mu.Unlock()
	if down {
		return errStoreDown
	}
	return s.Store.Release(ctx, l, lastUsedMs)
}

func (s *testStore) renewCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.renews
}

// syncBuffer is a bytes.Buffer that goroutines may write at once, for logs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// lostRecorder records the errors a generator reports through WithOnLeaseLost.
type lostRecorder struct {
	mu   sync.Mutex
	errs []error
}

func (r *lostRecorder) record(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err)
}

func (r *lostRecorder) got() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}
