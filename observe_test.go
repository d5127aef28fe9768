package cosid_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// countingStore counts the reservations that reach it through a wrapper.
type countingStore struct {
	store.SlotLeaseStore
	store.RangeStore
	reserves *atomic.Int64
}

func (c countingStore) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	c.reserves.Add(1)
	return c.RangeStore.Reserve(ctx, key, size, initialOffset)
}

func (c countingStore) Close() error { return c.RangeStore.Close() }

func TestWithStoreWrapper_GeneratorsAndStoreUseTheWrapper(t *testing.T) {
	var reserves atomic.Int64
	var seen []string
	cfg, err := cosid.ParseConfig([]byte(memConfig))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil), cosid.WithStoreWrapper(func(name, typ string, st store.RangeStore) store.RangeStore {
		seen = append(seen, name+":"+typ)
		return countingStore{SlotLeaseStore: st.(store.SlotLeaseStore), RangeStore: st, reserves: &reserves}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if _, err := rt.Next(t.Context(), "order"); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Next(t.Context(), "event"); err != nil {
		t.Fatalf("a Snowflake generator on a wrapped leasing store: %v", err)
	}
	st, err := rt.Store(t.Context(), "mem")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.(countingStore); !ok {
		t.Errorf("Store returned %T, want the wrapper", st)
	}
	if len(seen) != 1 || seen[0] != "mem:memory" {
		t.Errorf("the wrapper saw %q, want one call with mem:memory", seen)
	}
	if reserves.Load() == 0 {
		t.Error("the segment generator's reservations did not go through the wrapper")
	}
}

func TestRuntime_LayoutAndPeriodAsConfigured(t *testing.T) {
	rt := mustOpen(t, memConfig)
	defer rt.Close()
	if l, ok := rt.Layout("event"); !ok || l != snowflake.DefaultLayout() {
		t.Errorf("Layout(event) = %+v, %v; want the default layout", l, ok)
	}
	for _, name := range []string{"order", "bill", "nosuch"} {
		if _, ok := rt.Layout(name); ok {
			t.Errorf("Layout(%s) is ok, want false: not a Snowflake generator", name)
		}
	}
	p, loc, ok := rt.Period("bill")
	if !ok || p != segment.YearMonthDay || loc.String() != "Asia/Shanghai" {
		t.Errorf("Period(bill) = %v, %v, %v; want YearMonthDay in Asia/Shanghai", p, loc, ok)
	}
	if _, _, ok := rt.Period("order"); ok {
		t.Error("Period(order) is ok, want false: not periodic")
	}
	if rt.Stats("bill").Segments != nil {
		t.Error("Period built the generator")
	}
}

// TestWithSegmentOptions_PeriodicReportsAtItsGeneratorsKey: a periodic generator
// reports its events at its own key (app/bill), as a keyed template does, not at
// the key of each period (app/bill/20261207), which made a daily generator add a
// set of metric series every day and keep the old days' ones.
func TestWithSegmentOptions_PeriodicReportsAtItsGeneratorsKey(t *testing.T) {
	obs := &recordingObserver{keys: map[string]bool{}}
	cfg, err := cosid.ParseConfig([]byte(memConfig))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil), cosid.WithSegmentOptions(func(string, string) []segment.Option {
		return []segment.Option{segment.WithObserver(obs)}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	if _, err := rt.Next(t.Context(), "bill"); err != nil {
		t.Fatal(err)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if len(obs.keys) != 1 || !obs.keys["app/bill"] {
		t.Errorf("the observer saw the keys %v, want app/bill alone", obs.keys)
	}
}
