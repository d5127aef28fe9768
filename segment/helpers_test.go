package segment_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// testStore is a memstore that a test can slow down, hold back and make fail, and
// that records every reservation.
type testStore struct {
	inner *memstore.Store

	mu        sync.Mutex
	calls     []call
	active    int
	maxActive int
	delay     time.Duration // every Reserve takes this long (fake time in a bubble)
	gate      chan struct{} // when set, every Reserve waits for a value from it
	fail      []error       // the next Reserves fail with these, in turn
	failAll   error         // then every Reserve fails with this, when set
	backwards *store.Range  // the next Reserve returns this range instead
	started   chan struct{} // when set, gets a value as each Reserve starts
	canceled  []context.Context
	sealFail  []error                  // the next Seals fail with these, in turn
	seals     []time.Time              // when each Seal was called
	deaf      map[string]chan struct{} // a Reserve of a key here waits for its channel, deaf to cancellation
	giveBacks []store.Range            // every GiveBack's tail
	giveErr   error                    // every GiveBack fails with this, when set
}

type call struct {
	key  string
	size int64
	at   time.Time
}

func newTestStore() *testStore { return &testStore{inner: memstore.New()} }

func (s *testStore) Reserve(ctx context.Context, key string, size, offset int64) (store.Range, error) {
	s.mu.Lock()
	s.calls = append(s.calls, call{key, size, time.Now()})
	s.active++
	s.maxActive = max(s.maxActive, s.active)
	delay, gate, started, deaf := s.delay, s.gate, s.started, s.deaf[key]
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.active--
		s.mu.Unlock()
	}()
	if started != nil {
		started <- struct{}{}
	}
	if deaf != nil {
		<-deaf
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return store.Range{}, ctx.Err()
		}
	}
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			s.mu.Lock()
			s.canceled = append(s.canceled, ctx)
			s.mu.Unlock()
			return store.Range{}, ctx.Err()
		}
	}
	s.mu.Lock()
	var err error
	if len(s.fail) > 0 {
		err, s.fail = s.fail[0], s.fail[1:]
	} else if s.failAll != nil {
		err = s.failAll
	}
	back := s.backwards
	s.backwards = nil
	s.mu.Unlock()
	if err != nil {
		return store.Range{}, err
	}
	if back != nil {
		return *back, nil
	}
	return s.inner.Reserve(ctx, key, size, offset)
}

func (s *testStore) Seal(ctx context.Context, key string) error {
	s.mu.Lock()
	s.seals = append(s.seals, time.Now())
	var err error
	if len(s.sealFail) > 0 {
		err, s.sealFail = s.sealFail[0], s.sealFail[1:]
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.inner.Seal(ctx, key)
}

// GiveBack records tail and hands it to the memstore.
func (s *testStore) GiveBack(ctx context.Context, key string, tail store.Range) (bool, error) {
	s.mu.Lock()
	s.giveBacks = append(s.giveBacks, tail)
	err := s.giveErr
	s.mu.Unlock()
	if err != nil {
		return false, err
	}
	return s.inner.GiveBack(ctx, key, tail)
}

// next returns the value key's next Reserve starts at, or -1 for a key that does
// not exist.
func (s *testStore) next(t *testing.T, key string) int64 {
	t.Helper()
	keys, err := s.inner.Keys(context.Background(), key, "", 1)
	if err != nil {
		t.Fatalf("Keys: %v", err)
	}
	if len(keys) == 0 || keys[0].Key != key {
		return -1
	}
	return keys[0].Next
}

func (s *testStore) Close() error { return s.inner.Close() }

func (s *testStore) set(f func(s *testStore)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

func (s *testStore) sizes() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	sizes := make([]int64, len(s.calls))
	for i, c := range s.calls {
		sizes[i] = c.size
	}
	return sizes
}

func (s *testStore) snapshot() []call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.calls)
}

func (s *testStore) keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for _, c := range s.calls {
		if !slices.Contains(keys, c.key) {
			keys = append(keys, c.key)
		}
	}
	return keys
}

func (s *testStore) callCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.calls)
}

// elapse lets d of a synctest bubble's fake time pass. It returns as soon as every
// other goroutine of the bubble is blocked, without waiting in real time.
func elapse(d time.Duration) { <-time.After(d) }

// policy returns the default policy with step and lookahead changed.
func policy(step int64, lookahead time.Duration) segment.BatchPolicy {
	p := segment.DefaultBatchPolicy()
	p.Step, p.Lookahead, p.MaxBatch = step, lookahead, 0
	return p
}

func newGen(t *testing.T, st store.RangeStore, p segment.BatchPolicy, opts ...segment.Option) *segment.Generator {
	t.Helper()
	opts = append([]segment.Option{segment.WithLogger(nil)}, opts...)
	g, err := segment.New(st, "test/key", p, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func mustNext(t *testing.T, g *segment.Generator) int64 {
	t.Helper()
	v, err := g.Next()
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return v
}

// waitObserver counts the callers that waited for a reservation.
type waitObserver struct {
	mu     sync.Mutex
	waits  []time.Duration
	ranges []store.Range
	failed []error
}

func (o *waitObserver) Reserved(_ string, r store.Range, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ranges = append(o.ranges, r)
}

func (o *waitObserver) RefillFailed(_ string, err error, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.failed = append(o.failed, err)
}

func (o *waitObserver) Waited(_ string, d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.waits = append(o.waits, d)
}

func (o *waitObserver) waitCount() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.waits)
}

var errStoreDown = errors.New("store down")
