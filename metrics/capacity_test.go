package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/metrics"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// clock is a settable clock for the collectors and the memory store.
type clock struct{ t atomic.Pointer[time.Time] }

func newClock(t time.Time) *clock { c := &clock{}; c.set(t); return c }
func (c *clock) now() time.Time   { return *c.t.Load() }
func (c *clock) set(t time.Time)  { c.t.Store(&t) }
func (c *clock) add(d time.Duration) {
	c.set(c.now().Add(d))
}

// capacityRegistry registers the capacity collector of targets on st, named "mem".
func capacityRegistry(t *testing.T, st store.RangeStore, clk *clock, targets ...metrics.CapacityTarget) *prometheus.Registry {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCapacityCollector(metrics.Capacity{
		Targets: func() []metrics.CapacityTarget { return targets },
		Store: func(_ context.Context, name string) (store.RangeStore, error) {
			if name != "mem" {
				return nil, fmt.Errorf("no store %q", name)
			}
			return st, nil
		},
		Now: clk.now,
	}))
	return reg
}

func TestCapacity_LayoutSecondsLeftFromEpochBitsAndUnit(t *testing.T) {
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := newClock(epoch.Add(24 * time.Second))
	tiny := snowflake.Layout{Epoch: epoch, Unit: time.Second, TimestampBits: 10, MachineBits: 2, SequenceBits: 4}
	def := snowflake.DefaultLayout()
	reg := capacityRegistry(t, nil, clk,
		metrics.CapacityTarget{Generator: "tiny", Layout: &tiny},
		metrics.CapacityTarget{Generator: "event", Layout: &def})
	// 2^10 seconds from the epoch, 24 of them gone; the default layout's 2^41 ms
	// from 2019-12-24T16:00:00Z end in 2089.
	defEnd := time.UnixMilli(def.Epoch.UnixMilli() + 1<<41)
	want := fmt.Sprintf(`
# HELP cosid_snowflake_layout_seconds_left Seconds until the Snowflake generator's layout runs out of timestamp bits (its epoch plus 2^timestamp-bits units); then it issues no ids. Under a year: move the generator to a layout with a later epoch or more timestamp bits (a new generator name, so no id repeats) before then.
# TYPE cosid_snowflake_layout_seconds_left gauge
cosid_snowflake_layout_seconds_left{generator="event"} %v
cosid_snowflake_layout_seconds_left{generator="tiny"} 1000
`, float64(defEnd.Sub(clk.now()).Milliseconds())/1000)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "cosid_snowflake_layout_seconds_left"); err != nil {
		t.Error(err)
	}
	if defEnd.Year() != 2089 {
		t.Errorf("the default layout ends in %d, want 2089", defEnd.Year())
	}
	clk.add(1000 * time.Second)
	if v := gauge(t, reg, "cosid_snowflake_layout_seconds_left", "tiny"); v != 0 {
		t.Errorf("at the layout's end: %v seconds left, want 0", v)
	}
}

// gauge returns the value of name's series whose first label value is label.
func gauge(t *testing.T, reg prometheus.Gatherer, name, label string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetValue() == label {
					return m.GetGauge().GetValue() + m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no series %s{…%q…}", name, label)
	return 0
}

func TestCapacity_FreeSlotsCountUnexpiredLeases(t *testing.T) {
	clk := newClock(time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC))
	st := memstore.New(memstore.WithClock(clk.now))
	acquire := func(owner string, ttl time.Duration) store.Lease {
		l, err := st.Acquire(t.Context(), store.LeaseRequest{Namespace: "app/event", OwnerKey: owner, Limit: 4, Tolerance: time.Second, TTL: ttl})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	acquire("a", time.Hour)
	acquire("b", time.Hour)
	short := acquire("c", time.Minute)
	reg := capacityRegistry(t, st, clk,
		metrics.CapacityTarget{Generator: "event", Store: "mem", Namespace: "app/event"},
		metrics.CapacityTarget{Generator: "unused", Store: "mem", Namespace: "app/unused"})
	want := `
# HELP cosid_lease_slots_free Slots of the lease namespace that no unexpired lease holds: the instances that can still start. Near 0: raise slots (or machine-bits), or find the instances that hold leases and do not release them (cosid slots).
# TYPE cosid_lease_slots_free gauge
cosid_lease_slots_free{namespace="app/event"} 1
# HELP cosid_lease_slots_limit Slots of the lease namespace: the most instances of its Snowflake generator that can run at once.
# TYPE cosid_lease_slots_limit gauge
cosid_lease_slots_limit{namespace="app/event"} 4
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "cosid_lease_slots_free", "cosid_lease_slots_limit"); err != nil {
		t.Error(err)
	}
	// A new lease shows at the next read, after Every; an expired one frees its slot.
	acquire("d", time.Hour)
	if v := gauge(t, reg, "cosid_lease_slots_free", "app/event"); v != 1 {
		t.Errorf("within Every of the last read: %v free, want the last read's 1", v)
	}
	clk.add(2 * time.Minute)
	if v := gauge(t, reg, "cosid_lease_slots_free", "app/event"); v != 1 {
		t.Errorf("a, b and d held, c's lease of slot %d expired: %v free, want 1", short.Slot, v)
	}
}

func TestCapacity_HeadroomToMaxInt64(t *testing.T) {
	clk := newClock(time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC))
	st := memstore.New()
	if _, err := st.RaiseTo(t.Context(), "app/order", math.MaxInt64-100); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reserve(t.Context(), "app/order", 40, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reserve(t.Context(), "app/order/other", 10, 1); err != nil {
		t.Fatal(err)
	}
	reg := capacityRegistry(t, st, clk,
		metrics.CapacityTarget{Generator: "order", Store: "mem", SegmentKey: "app/order"},
		metrics.CapacityTarget{Generator: "never", Store: "mem", SegmentKey: "app/never"})
	want := `
# HELP cosid_segment_headroom_ids Ids the segment key has left before its next value passes 2^63-1, when every reservation fails with range exhausted. Under 1% of 2^63: move the generator to a new key before it runs out, and look for a step or raise that jumped it.
# TYPE cosid_segment_headroom_ids gauge
cosid_segment_headroom_ids{key="app/order",store="mem"} 60
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "cosid_segment_headroom_ids"); err != nil {
		t.Error(err)
	}
}

func TestCapacity_UnsealedPastPeriods(t *testing.T) {
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	// 2026-10-27 01:00 in Shanghai is still the 26th in UTC: the zone decides.
	clk := newClock(time.Date(2026, 10, 27, 1, 0, 0, 0, shanghai))
	st := memstore.New()
	for _, k := range []string{"20261024", "20261025", "20261026", "20261027", "20261028", "cust/20261020"} {
		if _, err := st.Reserve(t.Context(), "app/bill/"+k, 10, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Seal(t.Context(), "app/bill/20261025"); err != nil {
		t.Fatal(err)
	}
	reg := capacityRegistry(t, st, clk, metrics.CapacityTarget{Generator: "bill", Store: "mem",
		PeriodicKey: "app/bill", Period: segment.YearMonthDay, Zone: shanghai})
	if v := gauge(t, reg, "cosid_periodic_unsealed_past_periods", "app/bill"); v != 2 {
		t.Errorf("%v unsealed past periods, want 2 (the 24th and the 26th)", v)
	}
}

// failingAdmin is a memory store whose key listing fails while down is set.
type failingAdmin struct {
	*memstore.Store
	down  atomic.Bool
	reads atomic.Int64
}

func (f *failingAdmin) Keys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	f.reads.Add(1)
	if f.down.Load() {
		return nil, errors.New("connection refused")
	}
	return f.Store.Keys(ctx, prefix, after, limit)
}

func TestCapacity_ReadsStoresAtMostEveryAndCountsFailures(t *testing.T) {
	clk := newClock(time.Date(2026, 10, 27, 12, 0, 0, 0, time.UTC))
	st := &failingAdmin{Store: memstore.New()}
	if _, err := st.Reserve(t.Context(), "app/order", 10, 1); err != nil {
		t.Fatal(err)
	}
	reg := capacityRegistry(t, st, clk,
		metrics.CapacityTarget{Generator: "order", Store: "mem", SegmentKey: "app/order"},
		metrics.CapacityTarget{Generator: "gone", Store: "gone", SegmentKey: "app/gone"})
	for range 3 {
		if _, err := reg.Gather(); err != nil {
			t.Fatal(err)
		}
		clk.add(10 * time.Second)
	}
	if n := st.reads.Load(); n != 1 {
		t.Errorf("3 scrapes within 30s read the store %d times, want 1", n)
	}
	st.down.Store(true)
	if n := testutil.CollectAndCount(reg, "cosid_segment_headroom_ids"); n != 0 {
		t.Errorf("a failed read left %d headroom series, want none", n)
	}
	if v := gauge(t, reg, "cosid_capacity_read_failures_total", "mem"); v != 1 {
		t.Errorf("cosid_capacity_read_failures_total{store=mem} = %v, want 1", v)
	}
	if v := gauge(t, reg, "cosid_capacity_read_failures_total", "gone"); v != 2 {
		t.Errorf("cosid_capacity_read_failures_total{store=gone} = %v, want 2 (one per read)", v)
	}
}

// TestRuntimeCapacity_ConfiguredGenerators reads the capacity of a runtime's
// generators: the Snowflake layout before it is built, the slots and the key once
// used.
func TestRuntimeCapacity_ConfiguredGenerators(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte(`
cosid:
  namespace: app
  stores:
    mem: { type: memory }
  generators:
    order: { strategy: segment, store: mem }
    bill: { strategy: periodic-segment, store: mem, period: YEAR, zone: UTC }
    event: { strategy: snowflake, store: mem, slots: 8, owner-key: host-a }
    fixed: { strategy: snowflake, machine-id: 3, layout: javascript }
    trace: { strategy: cosid-generator, store: mem, owner-key: host-a }
`))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCapacityCollector(metrics.RuntimeCapacity(rt)))
	if n := testutil.CollectAndCount(reg, "cosid_snowflake_layout_seconds_left"); n != 2 {
		t.Errorf("%d layout series before any generator is built, want 2", n)
	}
	for _, name := range []string{"order", "event", "bill", "trace"} {
		if _, err := rt.Next(t.Context(), name); err != nil {
			t.Fatal(err)
		}
	}
	st, err := rt.Store(t.Context(), "mem")
	if err != nil {
		t.Fatal(err)
	}
	page, err := st.(store.Admin).Keys(t.Context(), "app/order", "", 1)
	if err != nil || len(page) != 1 {
		t.Fatalf("the key of order: %v, %v", page, err)
	}
	reg = prometheus.NewRegistry() // a new read: the first one was before the generators
	reg.MustRegister(metrics.NewCapacityCollector(metrics.RuntimeCapacity(rt)))
	if v := gauge(t, reg, "cosid_lease_slots_free", "app/event"); v != 7 {
		t.Errorf("%v free slots of 8 with one lease, want 7", v)
	}
	// A cosid-generator leases too, from a namespace of 20 machine bits; it has
	// no int64 layout to run out of.
	if v := gauge(t, reg, "cosid_lease_slots_free", "app/trace"); v != 1<<20-1 {
		t.Errorf("%v free slots of 2^20 with one lease, want 2^20-1", v)
	}
	if n := testutil.CollectAndCount(reg, "cosid_snowflake_layout_seconds_left"); n != 2 {
		t.Errorf("%d layout series, want those of the 2 Snowflake generators", n)
	}
	if v, want := gauge(t, reg, "cosid_segment_headroom_ids", "app/order"), float64(math.MaxInt64-page[0].Next); v != want {
		t.Errorf("headroom %v, want %v, from the next value %d", v, want, page[0].Next)
	}
	if v := gauge(t, reg, "cosid_periodic_unsealed_past_periods", "app/bill"); v != 0 {
		t.Errorf("%v unsealed past periods of a generator never used, want 0", v)
	}
}

// TestRuntimeCapacity_NoSeriesPerKey checks that a keyed template, whose keys the
// callers name, gets no capacity series: neither per key nor for the template.
func TestRuntimeCapacity_NoSeriesPerKey(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte(`
cosid:
  namespace: app
  stores:
    mem: { type: memory }
  generators:
    invoice: { strategy: segment, store: mem, keyed: true }
    bill: { strategy: periodic-segment, store: mem, period: YEAR, zone: UTC, keyed: true }
`))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	for _, key := range []string{"acme", "2020"} {
		for _, name := range []string{"invoice", "bill"} {
			src, err := rt.Source(name, key)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := src.Next(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(metrics.NewCapacityCollector(metrics.RuntimeCapacity(rt)))
	for _, name := range []string{"cosid_segment_headroom_ids", "cosid_periodic_unsealed_past_periods"} {
		if n := testutil.CollectAndCount(reg, name); n != 0 {
			t.Errorf("%d series of %s for keyed templates, want none", n, name)
		}
	}
}

// TestCapacity_CodecHeadroomAndExhausted: a generator whose codec has a width
// reports its capacity and the ids left of it (the current period's, for a
// periodic one), read from its key's next value; cosid_generator_exhausted is 1
// for a generator, or keyed template, with a key found full; Headroom returns the
// same figures. A codec without a width has no codec series.
func TestCapacity_CodecHeadroomAndExhausted(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte(`
cosid:
  namespace: app
  stores:
    mem: { type: memory }
  generators:
    two: { strategy: segment, store: mem, step: 10, max-batch: 10, codec: [ { radix: { radix: 10, width: 2 } } ] }
    day:
      strategy: periodic-segment
      store: mem
      period: YEAR_MONTH_DAY
      zone: UTC
      step: 10
      max-batch: 10
      codec: [ { date-prefix: { delimiter: "-" } }, { radix: { radix: 10, width: 2 } } ]
    inv: { strategy: segment, store: mem, keyed: true, step: 1, max-batch: 1, codec: [ { radix: { radix: 10, width: 1 } } ] }
    wide: { strategy: segment, store: mem }
`))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	take := func(name, key string, n int64) {
		t.Helper()
		src, err := rt.Source(name, key)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := src.Take(t.Context(), n); err != nil && !errors.Is(err, cosid.ErrExhausted) {
			t.Fatal(err)
		}
	}
	take("two", "", 5)
	take("day", "", 20)
	take("inv", "victim", 12)
	take("wide", "", 3)
	reader := metrics.NewCapacityReader(metrics.RuntimeCapacity(rt))
	reg := prometheus.NewRegistry()
	reg.MustRegister(reader.Collector())
	want := `
# HELP cosid_generator_capacity_ids Ids the generator's codec writes, from initial-offset up to the largest value of its width (a period's, for a periodic generator): the capacity cosid_generator_headroom_ids is a part of.
# TYPE cosid_generator_capacity_ids gauge
cosid_generator_capacity_ids{generator="day"} 99
cosid_generator_capacity_ids{generator="inv"} 9
cosid_generator_capacity_ids{generator="two"} 99
# HELP cosid_generator_exhausted 1 while the generator, or a key of a keyed template, is full: a call of this process failed with exhausted, its codec having no text for the next value (in this period, for a periodic generator). Widen the codec; for a keyed key, move its callers to a new key.
# TYPE cosid_generator_exhausted gauge
cosid_generator_exhausted{generator="day"} 0
cosid_generator_exhausted{generator="inv"} 1
cosid_generator_exhausted{generator="two"} 0
cosid_generator_exhausted{generator="wide"} 0
# HELP cosid_generator_headroom_ids Ids the generator's codec has left within its width (this period's, for a periodic generator), from the next value of its key in the store. At 0 every call answers 409 exhausted: widen the codec (a new generator name or key, so that no id repeats), or lower the rate of its callers.
# TYPE cosid_generator_headroom_ids gauge
cosid_generator_headroom_ids{generator="day"} 79
cosid_generator_headroom_ids{generator="two"} 94
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "cosid_generator_capacity_ids", "cosid_generator_exhausted", "cosid_generator_headroom_ids"); err != nil {
		t.Error(err)
	}
	got := map[string]metrics.Headroom{}
	for _, h := range reader.Headroom() {
		got[h.Generator] = h
	}
	today := time.Now().UTC().Format("20060102")
	for name, want := range map[string]metrics.Headroom{
		"two":  {Generator: "two", Capacity: 99, IDsLeft: 94, Read: true},
		"day":  {Generator: "day", Capacity: 99, IDsLeft: 79, Read: true, PeriodKey: today},
		"inv":  {Generator: "inv", Capacity: 9, Exhausted: true},
		"wide": {Generator: "wide"},
	} {
		if got[name] != want {
			t.Errorf("Headroom of %s = %+v, want %+v", name, got[name], want)
		}
	}
}
