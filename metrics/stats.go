package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cosid-go/cosid/segment"
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
