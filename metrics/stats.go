package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// statsCollector exports segment generators' Stats, read at every scrape.
type statsCollector struct {
	snapshot                                 func() []segment.Stats
	reserves, failures, batch, rate, latency *prometheus.Desc
}

// NewStatsCollector returns a collector of the snapshots that snapshot returns at
// every scrape, by key: for generators built without an Observer, such as a
// runtime's. Its metrics are cosid_segment_*; register it once per registry.
func NewStatsCollector(snapshot func() []segment.Stats) prometheus.Collector {
	key := []string{"key"}
	return &statsCollector{
		snapshot: snapshot,
		reserves: prometheus.NewDesc("cosid_segment_reservations_total", "Ranges a segment generator reserved since it was built.", key, nil),
		failures: prometheus.NewDesc("cosid_segment_reservation_failures_total", "Reservations of a segment generator that failed since it was built.", key, nil),
		batch:    prometheus.NewDesc("cosid_segment_batch", "Size of a segment generator's last reservation.", key, nil),
		rate:     prometheus.NewDesc("cosid_segment_rate", "Measured rate of a segment generator, in ids per second.", key, nil),
		latency:  prometheus.NewDesc("cosid_segment_last_reservation_seconds", "Latency of a segment generator's last reservation.", key, nil),
	}
}

func (c *statsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.reserves, c.failures, c.batch, c.rate, c.latency} {
		ch <- d
	}
}

func (c *statsCollector) Collect(ch chan<- prometheus.Metric) {
	for _, st := range c.snapshot() {
		ch <- prometheus.MustNewConstMetric(c.reserves, prometheus.CounterValue, float64(st.Reserves), st.Key)
		ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(st.Failures), st.Key)
		ch <- prometheus.MustNewConstMetric(c.batch, prometheus.GaugeValue, float64(st.Batch), st.Key)
		ch <- prometheus.MustNewConstMetric(c.rate, prometheus.GaugeValue, st.Rate, st.Key)
		ch <- prometheus.MustNewConstMetric(c.latency, prometheus.GaugeValue, st.LastReserve.Seconds(), st.Key)
	}
}

// leaseCollector exports the leases that a snapshot returns, read at every scrape.
type leaseCollector struct {
	snapshot      func() []store.Lease
	held, expires *prometheus.Desc
}

// NewLeaseCollector returns a collector of the slot leases that snapshot returns at
// every scrape: cosid_lease_slot (the slot held) and cosid_lease_expires_seconds (its
// expiry, by the store clock, in Unix seconds), by namespace and owner. It is for
// generators built without an Observer, such as a runtime's.
func NewLeaseCollector(snapshot func() []store.Lease) prometheus.Collector {
	labels := []string{"namespace", "owner"}
	return &leaseCollector{
		snapshot: snapshot,
		held:     prometheus.NewDesc("cosid_lease_slot", "The slot a Snowflake generator holds a lease of.", labels, nil),
		expires:  prometheus.NewDesc("cosid_lease_expires_seconds", "When a Snowflake generator's lease expires unless renewed, by the store clock, in Unix seconds.", labels, nil),
	}
}

func (c *leaseCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.held
	ch <- c.expires
}

func (c *leaseCollector) Collect(ch chan<- prometheus.Metric) {
	for _, l := range c.snapshot() {
		ch <- prometheus.MustNewConstMetric(c.held, prometheus.GaugeValue, float64(l.Slot), l.Namespace, l.OwnerKey)
		ch <- prometheus.MustNewConstMetric(c.expires, prometheus.GaugeValue, float64(l.ExpiresAt.UnixMilli())/1000, l.Namespace, l.OwnerKey)
	}
}
