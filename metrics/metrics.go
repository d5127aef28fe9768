// Package metrics exports CosId's events as Prometheus metrics: the reservations and
// waits of segment generators, the slot leases of Snowflake generators, and the
// requests of a server. Nothing here runs on a generator's hot path: ids are counted
// by the ranges reserved, not one by one.
//
//	m, err := metrics.New(prometheus.DefaultRegisterer)
//	…
//	g, err := segment.New(st, "app/order", policy, m.SegmentOption("db"))
package metrics

import (
	"errors"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// Metrics holds CosId's collectors, registered with one registry.
type Metrics struct {
	reservations *prometheus.CounterVec
	reservedIDs  *prometheus.CounterVec
	reserveTime  *prometheus.HistogramVec
	failures     *prometheus.CounterVec
	waits        *prometheus.HistogramVec
	leasesHeld   *prometheus.GaugeVec
	leaseEvents  *prometheus.CounterVec
	requests     *prometheus.CounterVec
	requestTime  *prometheus.HistogramVec
	lastReserve  *prometheus.GaugeVec
	failingSince *prometheus.GaugeVec
	openStreams  prometheus.Gauge

	now      func() time.Time // WithClock
	storesMu sync.Mutex
	failing  map[string]bool // by store: its last reservation failed

	// routes holds the collectors of each (route, code) a server answered, so that
	// a request looks them up in a plain map instead of hashing its labels and
	// formatting its code: a map replaced whole under routesMu at a new pair.
	routes   atomic.Pointer[map[routeCode]routeMetrics]
	routesMu sync.Mutex
}

type routeCode struct {
	route string
	code  int
}

type routeMetrics struct {
	requests prometheus.Counter
	took     prometheus.Observer
}

// latencyBuckets span a local store's tens of microseconds to a slow network's
// seconds.
var latencyBuckets = prometheus.ExponentialBuckets(50e-6, 4, 10)

// Option configures New.
type Option func(*Metrics)

// WithClock sets the clock of the timestamps of reservations (default time.Now).
func WithClock(now func() time.Time) Option { return func(m *Metrics) { m.now = now } }

// New returns the collectors, registered with reg.
func New(reg prometheus.Registerer, opts ...Option) (*Metrics, error) {
	m := &Metrics{
		now: time.Now, failing: map[string]bool{},
		lastReserve: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "cosid_store_last_reservation_timestamp_seconds",
			Help: "When this process last reserved a range from the store, in Unix seconds. If it stops moving while ids are taken, the store is failing: see cosid_store_failing_since_timestamp_seconds and the server's log.",
		}, []string{"store"}),
		failingSince: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "cosid_store_failing_since_timestamp_seconds",
			Help: "When the reservations from the store started failing, in Unix seconds; 0 while the last one succeeded. Generators hand out what they hold meanwhile: check the store and the log's errors before the ranges at hand run out.",
		}, []string{"store"}),
		reservations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cosid_reservations_total", Help: "Ranges reserved from a store, by store and key.",
		}, []string{"store", "key"}),
		reservedIDs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cosid_reserved_ids_total", Help: "Ids in the ranges reserved, by store and key: the ids a generator may issue.",
		}, []string{"store", "key"}),
		reserveTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "cosid_reservation_seconds", Help: "Latency of reservations that succeeded, by store.", Buckets: latencyBuckets,
		}, []string{"store"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cosid_reservation_failures_total", Help: "Reservations that failed, by store and key.",
		}, []string{"store", "key"}),
		waits: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "cosid_caller_wait_seconds", Help: "Callers of Next that waited for a reservation, and how long, by key.", Buckets: latencyBuckets,
		}, []string{"key"}),
		leasesHeld: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "cosid_leases_held", Help: "Slot leases held by this process, by namespace.",
		}, []string{"namespace"}),
		leaseEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cosid_lease_events_total", Help: "Slot lease events (acquired, renewed, lost, released), by namespace.",
		}, []string{"namespace", "event"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cosid_http_requests_total", Help: "HTTP requests served, by route and status code.",
		}, []string{"route", "code"}),
		requestTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "cosid_http_request_seconds", Help: "Latency of HTTP requests, by route.", Buckets: latencyBuckets,
		}, []string{"route"}),
		openStreams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "cosid_open_streams", Help: "StreamRanges and ReadRanges calls open on this server, on both listeners; cosid.serve.limits.max-streams caps them.",
		}),
	}
	var errs []error
	for _, c := range []prometheus.Collector{m.reservations, m.reservedIDs, m.reserveTime, m.failures, m.waits,
		m.leasesHeld, m.leaseEvents, m.requests, m.requestTime, m.lastReserve, m.failingSince, m.openStreams} {
		errs = append(errs, reg.Register(c))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	m.routes.Store(&map[routeCode]routeMetrics{})
	for _, opt := range opts {
		opt(m)
	}
	return m, nil
}

// Segment returns the observer of segment generators on the store named storeName.
func (m *Metrics) Segment(storeName string) segment.Observer {
	return segmentObserver{m: m, store: storeName}
}

// SegmentOption returns the option that reports a segment generator's events on the
// store named storeName.
func (m *Metrics) SegmentOption(storeName string) segment.Option {
	return segment.WithObserver(m.Segment(storeName))
}

type segmentObserver struct {
	m     *Metrics
	store string
}

func (o segmentObserver) Reserved(key string, r store.Range, took time.Duration) {
	o.m.reservations.WithLabelValues(o.store, key).Inc()
	o.m.reservedIDs.WithLabelValues(o.store, key).Add(float64(r.Len()))
	o.m.reserveTime.WithLabelValues(o.store).Observe(took.Seconds())
	// The failures series starts at 0, so that an alert's increase() sees the first.
	o.m.failures.WithLabelValues(o.store, key)
	o.m.storeAnswered(o.store, true)
}

func (o segmentObserver) RefillFailed(key string, _ error, _ time.Duration) {
	o.m.failures.WithLabelValues(o.store, key).Inc()
	o.m.storeAnswered(o.store, false)
}

// storeAnswered files the outcome of a reservation from the store st: the time of a
// success, or the start of a row of failures.
func (m *Metrics) storeAnswered(st string, ok bool) {
	m.storesMu.Lock()
	defer m.storesMu.Unlock()
	now := float64(m.now().UnixMilli()) / 1000
	switch {
	case ok:
		m.lastReserve.WithLabelValues(st).Set(now)
		m.failingSince.WithLabelValues(st).Set(0)
		m.failing[st] = false
	case !m.failing[st]:
		m.failingSince.WithLabelValues(st).Set(now)
		m.failing[st] = true
	}
}

func (o segmentObserver) Waited(key string, took time.Duration) {
	o.m.waits.WithLabelValues(key).Observe(took.Seconds())
}

// Leases returns the observer of Snowflake generators' slot leases.
func (m *Metrics) Leases() *LeaseObserver { return &LeaseObserver{m: m} }

// LeaseObserver counts the lease events of Snowflake generators; it is a
// snowflake.Observer.
type LeaseObserver struct{ m *Metrics }

// LeaseAcquired counts a lease taken.
func (o *LeaseObserver) LeaseAcquired(l store.Lease) {
	o.m.leasesHeld.WithLabelValues(l.Namespace).Inc()
	o.m.leaseEvents.WithLabelValues(l.Namespace, "acquired").Inc()
	// The lost series starts at 0, so that an alert's increase() sees the first loss.
	o.m.leaseEvents.WithLabelValues(l.Namespace, "lost")
}

// LeaseRenewed counts a lease renewed.
func (o *LeaseObserver) LeaseRenewed(l store.Lease) {
	o.m.leaseEvents.WithLabelValues(l.Namespace, "renewed").Inc()
}

// LeaseLost counts a lease lost, which stops its generator until it acquires
// another (cosid_lease_events_total{event="lost"}).
func (o *LeaseObserver) LeaseLost(l store.Lease, _ error) {
	o.m.leasesHeld.WithLabelValues(l.Namespace).Dec()
	o.m.leaseEvents.WithLabelValues(l.Namespace, "lost").Inc()
}

// LeaseReleased counts a lease given back.
func (o *LeaseObserver) LeaseReleased(l store.Lease) {
	o.m.leasesHeld.WithLabelValues(l.Namespace).Dec()
	o.m.leaseEvents.WithLabelValues(l.Namespace, "released").Inc()
}

// ObserveHTTP counts a request of route answered with code after took.
func (m *Metrics) ObserveHTTP(route string, code int, took time.Duration) {
	rm, ok := (*m.routes.Load())[routeCode{route, code}]
	if !ok {
		rm = m.addRoute(route, code)
	}
	rm.requests.Inc()
	rm.took.Observe(took.Seconds())
}

// addRoute returns the collectors of (route, code), adding them to m.routes.
func (m *Metrics) addRoute(route string, code int) routeMetrics {
	m.routesMu.Lock()
	defer m.routesMu.Unlock()
	old := *m.routes.Load()
	if rm, ok := old[routeCode{route, code}]; ok {
		return rm
	}
	rm := routeMetrics{m.requests.WithLabelValues(route, strconv.Itoa(code)), m.requestTime.WithLabelValues(route)}
	routes := make(map[routeCode]routeMetrics, len(old)+1)
	maps.Copy(routes, old)
	routes[routeCode{route, code}] = rm
	m.routes.Store(&routes)
	return rm
}

// StreamOpened counts a server stream opened (cosid_open_streams); StreamClosed
// counts it closed.
func (m *Metrics) StreamOpened() { m.openStreams.Inc() }

// StreamClosed counts a server stream closed, one that StreamOpened counted.
func (m *Metrics) StreamClosed() { m.openStreams.Dec() }

// SnowflakeOption returns the option that reports a Snowflake generator's lease
// events.
func (m *Metrics) SnowflakeOption() snowflake.Option { return snowflake.WithObserver(m.Leases()) }
