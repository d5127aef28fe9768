package metrics_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/cosid-go/cosid/metrics"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

func newMetrics(t *testing.T) (*metrics.Metrics, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	return m, reg
}

func TestSegment_ReservationsByStoreAndKey(t *testing.T) {
	m, reg := newMetrics(t)
	o := m.Segment("db")
	o.Reserved("app/order", store.Range{Start: 1, End: 101}, 2*time.Millisecond)
	o.Reserved("app/order", store.Range{Start: 101, End: 301}, 3*time.Millisecond)
	o.RefillFailed("app/order", errors.New("down"), time.Second)
	o.Waited("app/order", time.Millisecond)
	want := `
# HELP cosid_reservations_total Ranges reserved from a store, by store and key.
# TYPE cosid_reservations_total counter
cosid_reservations_total{key="app/order",store="db"} 2
# HELP cosid_reserved_ids_total Ids in the ranges reserved, by store and key: the ids a generator may issue.
# TYPE cosid_reserved_ids_total counter
cosid_reserved_ids_total{key="app/order",store="db"} 300
# HELP cosid_reservation_failures_total Reservations that failed, by store and key.
# TYPE cosid_reservation_failures_total counter
cosid_reservation_failures_total{key="app/order",store="db"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"cosid_reservations_total", "cosid_reserved_ids_total", "cosid_reservation_failures_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(reg, "cosid_reservation_seconds", "cosid_caller_wait_seconds"); n != 2 {
		t.Errorf("%d latency series, want 2", n)
	}
}

// TestSegment_ObserverOfARealGenerator plugs the option into a generator on a
// memory store: its first reservation shows.
func TestSegment_ObserverOfARealGenerator(t *testing.T) {
	m, reg := newMetrics(t)
	p := segment.DefaultBatchPolicy()
	g, err := segment.New(memstore.New(), "app/real", p, m.SegmentOption("mem"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.Next(); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	if n := sum(t, reg, "cosid_reservations_total"); n < 1 {
		t.Errorf("cosid_reservations_total = %v after a Next, want ≥ 1", n)
	}
}

// sum returns the sum of the counter name's series in reg.
func sum(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, mt := range mf.GetMetric() {
				n += mt.GetCounter().GetValue()
			}
		}
	}
	return n
}

func TestLeases_HeldAndEvents(t *testing.T) {
	m, reg := newMetrics(t)
	o := m.Leases()
	l := store.Lease{Namespace: "app/event", Slot: 3}
	o.LeaseAcquired(l)
	o.LeaseRenewed(l)
	o.LeaseRenewed(l)
	o.LeaseAcquired(store.Lease{Namespace: "app/event", Slot: 4})
	o.LeaseLost(l, store.ErrLeaseLost)
	want := `
# HELP cosid_leases_held Slot leases held by this process, by namespace.
# TYPE cosid_leases_held gauge
cosid_leases_held{namespace="app/event"} 1
# HELP cosid_lease_events_total Slot lease events (acquired, renewed, lost, released), by namespace.
# TYPE cosid_lease_events_total counter
cosid_lease_events_total{event="acquired",namespace="app/event"} 2
cosid_lease_events_total{event="lost",namespace="app/event"} 1
cosid_lease_events_total{event="renewed",namespace="app/event"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "cosid_leases_held", "cosid_lease_events_total"); err != nil {
		t.Error(err)
	}
	o.LeaseReleased(store.Lease{Namespace: "app/event", Slot: 4})
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP cosid_leases_held Slot leases held by this process, by namespace.
# TYPE cosid_leases_held gauge
cosid_leases_held{namespace="app/event"} 0
`), "cosid_leases_held"); err != nil {
		t.Error(err)
	}
}

func TestHTTP_RequestsByRouteAndCode(t *testing.T) {
	m, reg := newMetrics(t)
	m.ObserveHTTP("GET /v1/generators/{name}/next", 200, time.Millisecond)
	m.ObserveHTTP("GET /v1/generators/{name}/next", 404, time.Millisecond)
	m.ObserveHTTP("GET /v1/generators/{name}/next", 200, time.Millisecond)
	want := `
# HELP cosid_http_requests_total HTTP requests served, by route and status code.
# TYPE cosid_http_requests_total counter
cosid_http_requests_total{code="200",route="GET /v1/generators/{name}/next"} 2
cosid_http_requests_total{code="404",route="GET /v1/generators/{name}/next"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "cosid_http_requests_total"); err != nil {
		t.Error(err)
	}
}

// TestHTTP_ConcurrentRoutesCountEveryRequest observes requests of new and known
// (route, code) pairs from many goroutines at once: each is counted once, with its
// latency.
func TestHTTP_ConcurrentRoutesCountEveryRequest(t *testing.T) {
	m, reg := newMetrics(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				m.ObserveHTTP(fmt.Sprintf("route%d", i%5), 200+g%2, time.Millisecond)
			}
		})
	}
	wg.Wait()
	var want strings.Builder
	want.WriteString("# HELP cosid_http_requests_total HTTP requests served, by route and status code.\n# TYPE cosid_http_requests_total counter\n")
	for r := range 5 {
		for _, c := range []int{200, 201} {
			fmt.Fprintf(&want, "cosid_http_requests_total{code=\"%d\",route=\"route%d\"} 80\n", c, r)
		}
	}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want.String()), "cosid_http_requests_total"); err != nil {
		t.Error(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "cosid_http_request_seconds" {
			continue
		}
		for _, s := range f.GetMetric() {
			if n := s.GetHistogram().GetSampleCount(); n != 160 {
				t.Errorf("cosid_http_request_seconds%v counted %d requests, want 160", s.GetLabel(), n)
			}
		}
	}
}

// TestHTTP_KnownRouteAllocatesNothing pins the cost of a request of a (route, code)
// seen before: a map lookup, a counter and a histogram, no allocation.
func TestHTTP_KnownRouteAllocatesNothing(t *testing.T) {
	m, _ := newMetrics(t)
	m.ObserveHTTP("GET /v1/generators/{name}/next", 200, time.Millisecond)
	if n := testing.AllocsPerRun(100, func() { m.ObserveHTTP("GET /v1/generators/{name}/next", 200, time.Millisecond) }); n != 0 {
		t.Errorf("ObserveHTTP of a known route made %v allocs, want 0", n)
	}
}

func TestNew_TwiceOnOneRegistryFails(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := metrics.New(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := metrics.New(reg); err == nil {
		t.Error("a second New on one registry succeeded; its collectors would clash")
	}
}

// TestLeases_ObserverOfARealGenerator plugs the option into a Snowflake generator on
// a memory store: New acquires, Close releases.
func TestLeases_ObserverOfARealGenerator(t *testing.T) {
	m, reg := newMetrics(t)
	g, err := snowflake.New(t.Context(), memstore.New(), snowflake.DefaultLayout(),
		snowflake.WithOwnerKey("host-a"), snowflake.WithNamespace("app/event"), m.SnowflakeOption())
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatal(err)
	}
	want := `
# HELP cosid_lease_events_total Slot lease events (acquired, renewed, lost, released), by namespace.
# TYPE cosid_lease_events_total counter
cosid_lease_events_total{event="acquired",namespace="app/event"} 1
cosid_lease_events_total{event="lost",namespace="app/event"} 0
cosid_lease_events_total{event="released",namespace="app/event"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "cosid_lease_events_total"); err != nil {
		t.Error(err)
	}
}

func TestStatsCollector_ReadsSnapshotsAtScrape(t *testing.T) {
	reg := prometheus.NewRegistry()
	stats := []segment.Stats{{Key: "app/order", Reserves: 3, Failures: 1, Batch: 200, Rate: 12.5, LastReserve: 2 * time.Millisecond}}
	reg.MustRegister(metrics.NewStatsCollector(func() []segment.Stats { return stats }))
	want := `
# HELP cosid_segment_batch Size of a segment generator's last reservation.
# TYPE cosid_segment_batch gauge
cosid_segment_batch{key="app/order"} 200
# HELP cosid_segment_rate Measured rate of a segment generator, in ids per second.
# TYPE cosid_segment_rate gauge
cosid_segment_rate{key="app/order"} 12.5
# HELP cosid_segment_reservation_failures_total Reservations of a segment generator that failed since it was built.
# TYPE cosid_segment_reservation_failures_total counter
cosid_segment_reservation_failures_total{key="app/order"} 1
# HELP cosid_segment_reservations_total Ranges a segment generator reserved since it was built.
# TYPE cosid_segment_reservations_total counter
cosid_segment_reservations_total{key="app/order"} 3
# HELP cosid_segment_last_reservation_seconds Latency of a segment generator's last reservation.
# TYPE cosid_segment_last_reservation_seconds gauge
cosid_segment_last_reservation_seconds{key="app/order"} 0.002
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	stats[0].Reserves = 4
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP cosid_segment_reservations_total Ranges a segment generator reserved since it was built.
# TYPE cosid_segment_reservations_total counter
cosid_segment_reservations_total{key="app/order"} 4
`), "cosid_segment_reservations_total"); err != nil {
		t.Errorf("a later scrape: %v", err)
	}
}

func TestLeaseCollector_ReadsLeasesAtScrape(t *testing.T) {
	reg := prometheus.NewRegistry()
	leases := []store.Lease{{Namespace: "app/event", OwnerKey: "host-a", Slot: 7, ExpiresAt: time.UnixMilli(1893553445500)}}
	reg.MustRegister(metrics.NewLeaseCollector(func() []store.Lease { return leases }))
	want := `
# HELP cosid_lease_expires_seconds When a Snowflake generator's lease expires unless renewed, by the store clock, in Unix seconds.
# TYPE cosid_lease_expires_seconds gauge
cosid_lease_expires_seconds{namespace="app/event",owner="host-a"} 1.8935534455e+09
# HELP cosid_lease_slot The slot a Snowflake generator holds a lease of.
# TYPE cosid_lease_slot gauge
cosid_lease_slot{namespace="app/event",owner="host-a"} 7
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

// TestSegment_StoreLastReservationAndFailingSince follows a store through a
// success, a row of failures and a success, on a fake clock.
func TestSegment_StoreLastReservationAndFailingSince(t *testing.T) {
	at := time.Unix(1800000000, 0)
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.WithClock(func() time.Time { return at }))
	if err != nil {
		t.Fatal(err)
	}
	o := m.Segment("db")
	read := func() (last, since float64) {
		t.Helper()
		return gauge(t, reg, "cosid_store_last_reservation_timestamp_seconds", "db"),
			gauge(t, reg, "cosid_store_failing_since_timestamp_seconds", "db")
	}
	o.Reserved("app/order", store.Range{Start: 1, End: 11}, time.Millisecond)
	if last, since := read(); last != 1800000000 || since != 0 {
		t.Errorf("after a success: last %v, failing since %v; want 1800000000, 0", last, since)
	}
	if v := gauge(t, reg, "cosid_reservation_failures_total", "app/order"); v != 0 {
		t.Errorf("failures %v after a success, want a series at 0", v)
	}
	at = at.Add(10 * time.Second)
	o.RefillFailed("app/order", errors.New("down"), time.Second)
	at = at.Add(50 * time.Second)
	o.RefillFailed("app/other", errors.New("down"), time.Second)
	if last, since := read(); last != 1800000000 || since != 1800000010 {
		t.Errorf("after failures from the 10th second: last %v, failing since %v; want 1800000000, 1800000010", last, since)
	}
	at = at.Add(time.Second)
	o.Reserved("app/other", store.Range{Start: 1, End: 11}, time.Millisecond)
	if last, since := read(); last != 1800000061 || since != 0 {
		t.Errorf("after a success again: last %v, failing since %v; want 1800000061, 0", last, since)
	}
}

func TestLeases_LostSeriesStartsAtZero(t *testing.T) {
	m, reg := newMetrics(t)
	m.Leases().LeaseAcquired(store.Lease{Namespace: "app/event", Slot: 1})
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP cosid_lease_events_total Slot lease events (acquired, renewed, lost, released), by namespace.
# TYPE cosid_lease_events_total counter
cosid_lease_events_total{event="acquired",namespace="app/event"} 1
cosid_lease_events_total{event="lost",namespace="app/event"} 0
`), "cosid_lease_events_total"); err != nil {
		t.Error(err)
	}
}
