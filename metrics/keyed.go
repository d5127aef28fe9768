package metrics

import "github.com/prometheus/client_golang/prometheus"

// KeyCount is what a keyed generator counts of its keys (cosid.KeyStats), for
// NewKeyCollector.
type KeyCount struct {
	Generator string // the template's name
	Live      int    // keys open now
	// Opened counts the keys opened; Evicted those closed for max-live-keys,
	// IdleClosed those closed for idle-close.
	Opened, Evicted, IdleClosed int64
}

// keyCollector exports the key counts of keyed generators, read at every scrape.
type keyCollector struct {
	snapshot       func() []KeyCount
	live, opened   *prometheus.Desc
	closedByReason *prometheus.Desc
}

// NewKeyCollector returns a collector of the key counts that snapshot returns at
// every scrape, by generator: cosid_keyed_live_keys, cosid_keyed_keys_opened_total
// and cosid_keyed_keys_closed_total by reason (max-live-keys, idle-close). A
// template has these series and no key has any, however many keys it serves.
func NewKeyCollector(snapshot func() []KeyCount) prometheus.Collector {
	gen := []string{"generator"}
	return &keyCollector{
		snapshot: snapshot,
		live:     prometheus.NewDesc("cosid_keyed_live_keys", "Keys of a keyed generator open now.", gen, nil),
		opened:   prometheus.NewDesc("cosid_keyed_keys_opened_total", "Keys a keyed generator opened.", gen, nil),
		closedByReason: prometheus.NewDesc("cosid_keyed_keys_closed_total", "Keys a keyed generator closed, by reason: max-live-keys or idle-close.",
			[]string{"generator", "reason"}, nil),
	}
}

func (c *keyCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.live, c.opened, c.closedByReason} {
		ch <- d
	}
}

func (c *keyCollector) Collect(ch chan<- prometheus.Metric) {
	for _, k := range c.snapshot() {
		ch <- prometheus.MustNewConstMetric(c.live, prometheus.GaugeValue, float64(k.Live), k.Generator)
		ch <- prometheus.MustNewConstMetric(c.opened, prometheus.CounterValue, float64(k.Opened), k.Generator)
		ch <- prometheus.MustNewConstMetric(c.closedByReason, prometheus.CounterValue, float64(k.Evicted), k.Generator, "max-live-keys")
		ch <- prometheus.MustNewConstMetric(c.closedByReason, prometheus.CounterValue, float64(k.IdleClosed), k.Generator, "idle-close")
	}
}
