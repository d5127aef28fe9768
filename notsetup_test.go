package cosid_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// setUp is whether the store type test-notsetup has its tables: until it has, its
// opener answers store.ErrNotSetUp, as a SQL store without CosId's tables and
// initSchema off does (integration/cosid's errclass_test.go has that one).
var setUp atomic.Bool

func init() {
	check := func(spec store.Spec) (store.Facts, error) {
		return store.Facts{Leases: true}, spec.Decode(&struct{}{})
	}
	store.Register("test-notsetup", store.Type{Check: check, Open: func(_ context.Context, spec store.Spec) (store.RangeStore, error) {
		if _, err := check(spec); err != nil {
			return nil, err
		}
		if !setUp.Load() {
			return nil, fmt.Errorf("no table cosid_range: %w", store.ErrNotSetUp)
		}
		return memstore.New(), nil
	}})
}

// TestRuntime_NotSetUpStaysNotSetUpWithinTheBackoff checks that a store which
// answered but lacks its tables gives ErrNotSetUp, never ErrUnavailable, on the first
// call and on the calls within the retry backoff, and that its generator works once
// the tables exist and the backoff is over, without a restart.
func TestRuntime_NotSetUpStaysNotSetUpWithinTheBackoff(t *testing.T) {
	setUp.Store(false)
	t.Cleanup(func() { setUp.Store(false) })
	clock := &fakeClock{now: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	cfg, err := cosid.ParseConfig([]byte("cosid:\n  stores: {db: {type: test-notsetup}}\n  generators:\n    order: {strategy: segment, store: db}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil), cosid.WithRetryClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	for _, call := range []string{"first", "within the backoff"} {
		_, err := rt.Next(t.Context(), "order")
		if !errors.Is(err, cosid.ErrNotSetUp) || errors.Is(err, cosid.ErrUnavailable) || errors.Is(err, cosid.ErrConfig) {
			t.Fatalf("%s Next without tables: %v; want ErrNotSetUp, neither ErrUnavailable nor ErrConfig", call, err)
		}
	}
	setUp.Store(true)
	clock.Add(time.Minute)
	if id, err := rt.Next(t.Context(), "order"); err != nil || id != "1" {
		t.Fatalf("Next once the tables exist = %q, %v; want 1", id, err)
	}
}
