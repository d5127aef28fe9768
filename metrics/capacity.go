package metrics

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
)

// Capacity says what a capacity collector reports: how long each generator has
// before it runs out of something (NewCapacityCollector).
type Capacity struct {
	// Targets returns the generators to report, at every scrape. It must be bounded:
	// the configured generators, never one per key a caller names.
	Targets func() []CapacityTarget
	// Store returns the store name, for the reads of free slots, headroom and
	// unsealed periods; a store that is not a store.Admin has none of those series.
	Store func(ctx context.Context, name string) (store.RangeStore, error)
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Timeout bounds the store reads of one scrape (default 5s).
	Timeout time.Duration
	// Every is how often a scrape reads the stores (default 30s): the scrapes in
	// between report the last reads, so that many scrapers do not load a store.
	Every time.Duration
}

// CapacityTarget is a generator whose capacity a scrape reports. The fields that
// are set say what is read.
type CapacityTarget struct {
	Generator string // its name, for the labels
	Store     string // the name of its store; "" for none
	// Layout is a Snowflake generator's: cosid_snowflake_layout_seconds_left.
	Layout *snowflake.Layout
	// Namespace is the lease namespace of a Snowflake generator that leases its
	// machine id: cosid_lease_slots_free and cosid_lease_slots_limit.
	Namespace string
	// SegmentKey is a segment generator's key: cosid_segment_headroom_ids.
	SegmentKey string
	// PeriodicKey, Period and Zone are a periodic-segment generator's:
	// cosid_periodic_unsealed_past_periods counts the keys PeriodicKey/PERIOD
	// of the periods before the current one that are not sealed.
	PeriodicKey string
	Period      segment.Period
	Zone        *time.Location
	// Codec is the capacity of a generator's codec that has a width:
	// cosid_generator_capacity_ids, and cosid_generator_headroom_ids, the ids left
	// at SegmentKey or at the key of PeriodicKey's current period.
	Codec *cosid.Capacity
	// Exhausted reports whether the generator, or a key of a keyed template, is
	// full: cosid_generator_exhausted. It must do no I/O.
	Exhausted func() bool
}

// RuntimeCapacity is the Capacity of rt's configured generators, on rt's stores.
func RuntimeCapacity(rt *cosid.Runtime) Capacity {
	return Capacity{
		Store: rt.Store,
		Targets: func() []CapacityTarget {
			var all []CapacityTarget
			for _, info := range rt.Generators() {
				// Each series is asked of what the generator has, never of its
				// strategy: a bit layout, a leased machine id, a key of one sequence
				// (a generator of ranges) or one per period, a codec's width.
				t := CapacityTarget{Generator: info.Name, Store: info.Store}
				if c, ok := rt.Capacity(info.Name); ok {
					name := info.Name
					t.Exhausted = func() bool { return rt.Exhausted(name).Full }
					if c.Bounded() {
						t.Codec = &c
					}
				}
				if info.Keyed {
					// A template's keys are the callers' to name and unbounded in
					// number: no series per key (docs/keyed.md), and only what
					// needs no store read for the template.
					all = append(all, t)
					continue
				}
				if l, ok := rt.Layout(info.Name); ok {
					t.Layout = &l
				}
				if info.Leases {
					t.Namespace = info.Key
				}
				if p, loc, ok := rt.Period(info.Name); ok {
					t.PeriodicKey, t.Period, t.Zone = info.Key, p, loc
				} else if info.Ranges {
					t.SegmentKey = info.Key
				}
				all = append(all, t)
			}
			return all
		},
	}
}

// maxPeriodKeys bounds the keys a scrape lists for one periodic generator: ten
// years of days, and more.
const maxPeriodKeys = 10000

// capacityCollector is the collector of NewCapacityCollector.
type capacityCollector struct {
	c Capacity

	secondsLeft, slotsFree, slotsLimit, headroom, unsealed, readFailures *prometheus.Desc
	exhausted, codecCapacity, codecHeadroom                              *prometheus.Desc

	mu       sync.Mutex
	readAt   time.Time
	read     []prometheus.Metric  // the series of the last store reads
	heads    map[string]*Headroom // by generator: the figures of the last store reads
	failures map[string]float64   // by store: reads that failed
}

// Headroom is what one generator has left, from the reads of a CapacityReader: the
// figures its collector reports, for the status page.
type Headroom struct {
	Generator string
	// Exhausted: cosid_generator_exhausted.
	Exhausted bool
	// Capacity, and IDsLeft when Read: cosid_generator_capacity_ids and
	// cosid_generator_headroom_ids, of a codec with a width (Capacity > 0);
	// PeriodKey names the period IDsLeft is of, for a periodic generator.
	Capacity  int64
	IDsLeft   int64
	Read      bool
	PeriodKey string
	// LayoutEnds is when a Snowflake layout's timestamp bits run out; zero for
	// another generator.
	LayoutEnds time.Time
	// Namespace, SlotsFree and SlotsLimit are the slots of a leasing generator's
	// namespace, when Namespace is set.
	Namespace             string
	SlotsFree, SlotsLimit int
}

// CapacityReader reads what c's generators have left, from c's stores at most every
// c.Every: its Collector reports the figures, and Headroom returns the same ones.
type CapacityReader struct{ col *capacityCollector }

// NewCapacityReader returns the reader of c's generators' capacity.
func NewCapacityReader(c Capacity) *CapacityReader {
	return &CapacityReader{col: NewCapacityCollector(c).(*capacityCollector)}
}

// Collector returns the collector of r's figures (NewCapacityCollector). Register
// it once per registry.
func (r *CapacityReader) Collector() prometheus.Collector { return r.col }

// Headroom returns what each of r's generators has left, sorted as the targets
// are, reading the stores when the last read is older than Capacity.Every.
func (r *CapacityReader) Headroom() []Headroom {
	c := r.col
	now := c.c.Now()
	targets := c.c.Targets()
	c.mu.Lock()
	c.refresh(targets, now)
	heads := c.heads
	c.mu.Unlock()
	out := make([]Headroom, 0, len(targets))
	for _, t := range targets {
		h := Headroom{Generator: t.Generator}
		if read := heads[t.Generator]; read != nil {
			h = *read
		}
		if t.Exhausted != nil {
			h.Exhausted = t.Exhausted()
		}
		if t.Codec != nil {
			h.Capacity = t.Codec.IDs()
		}
		if t.Layout != nil {
			h.LayoutEnds = layoutEnd(*t.Layout)
		}
		out = append(out, h)
	}
	return out
}

// refresh reads the stores of targets when the last read is older than c.Every,
// under c.mu.
func (c *capacityCollector) refresh(targets []CapacityTarget, now time.Time) {
	if c.read == nil || !now.Before(c.readAt.Add(c.c.Every)) {
		c.heads = map[string]*Headroom{}
		c.read, c.readAt = c.readStores(targets, now), now
	}
}

// NewCapacityCollector returns the collector of what c's generators have left,
// computed at scrape and never on a generator's path:
//
//   - cosid_snowflake_layout_seconds_left{generator}: the time until a Snowflake
//     layout's timestamp bits run out, from its epoch, bits and unit;
//   - cosid_lease_slots_free{namespace} and cosid_lease_slots_limit{namespace}: the
//     slots of a leasing Snowflake generator's namespace that no unexpired lease holds;
//   - cosid_segment_headroom_ids{store,key}: the ids a segment key has before
//     math.MaxInt64, from its next value in the store;
//   - cosid_periodic_unsealed_past_periods{store,key}: a periodic generator's past
//     periods whose keys are not sealed;
//   - cosid_generator_capacity_ids{generator} and cosid_generator_headroom_ids{generator}:
//     the ids a codec with a width writes (a period's, for a periodic generator), and
//     those left of them, from the next value of its key (of the current period's);
//   - cosid_generator_exhausted{generator}: 1 while the generator, or a key of a
//     keyed template, is full (Exhausted), else 0;
//   - cosid_capacity_read_failures_total{store}: the reads of these that failed.
//
// The store reads happen at most every c.Every, within c.Timeout. Register it once
// per registry.
func NewCapacityCollector(c Capacity) prometheus.Collector {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Timeout <= 0 {
		c.Timeout = 5 * time.Second
	}
	if c.Every <= 0 {
		c.Every = 30 * time.Second
	}
	return &capacityCollector{
		c:        c,
		failures: map[string]float64{},
		secondsLeft: prometheus.NewDesc("cosid_snowflake_layout_seconds_left",
			"Seconds until the Snowflake generator's layout runs out of timestamp bits (its epoch plus 2^timestamp-bits units); then it issues no ids. Under a year: move the generator to a layout with a later epoch or more timestamp bits (a new generator name, so no id repeats) before then.",
			[]string{"generator"}, nil),
		slotsFree: prometheus.NewDesc("cosid_lease_slots_free",
			"Slots of the lease namespace that no unexpired lease holds: the instances that can still start. Near 0: raise slots (or machine-bits), or find the instances that hold leases and do not release them (cosid slots).",
			[]string{"namespace"}, nil),
		slotsLimit: prometheus.NewDesc("cosid_lease_slots_limit",
			"Slots of the lease namespace: the most instances of its Snowflake generator that can run at once.",
			[]string{"namespace"}, nil),
		headroom: prometheus.NewDesc("cosid_segment_headroom_ids",
			"Ids the segment key has left before its next value passes 2^63-1, when every reservation fails with range exhausted. Under 1% of 2^63: move the generator to a new key before it runs out, and look for a step or raise that jumped it.",
			[]string{"store", "key"}, nil),
		unsealed: prometheus.NewDesc("cosid_periodic_unsealed_past_periods",
			"Past periods of the periodic-segment generator whose keys are not sealed: an instance whose clock lags can still issue ids of a closed period. Set seal-after on the generator, or seal them with cosid seal.",
			[]string{"store", "key"}, nil),
		codecCapacity: prometheus.NewDesc("cosid_generator_capacity_ids",
			"Ids the generator's codec writes, from initial-offset up to the largest value of its width (a period's, for a periodic generator): the capacity cosid_generator_headroom_ids is a part of.",
			[]string{"generator"}, nil),
		codecHeadroom: prometheus.NewDesc("cosid_generator_headroom_ids",
			"Ids the generator's codec has left within its width (this period's, for a periodic generator), from the next value of its key in the store. At 0 every call answers 409 exhausted: widen the codec (a new generator name or key, so that no id repeats), or lower the rate of its callers.",
			[]string{"generator"}, nil),
		exhausted: prometheus.NewDesc("cosid_generator_exhausted",
			"1 while the generator, or a key of a keyed template, is full: a call of this process failed with exhausted, its codec having no text for the next value (in this period, for a periodic generator). Widen the codec; for a keyed key, move its callers to a new key.",
			[]string{"generator"}, nil),
		readFailures: prometheus.NewDesc("cosid_capacity_read_failures_total",
			"Scrape-time reads of the store's keys or slots that failed, so that its capacity series are missing from that scrape. Check the store and its timeout.",
			[]string{"store"}, nil),
	}
}

func (c *capacityCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.secondsLeft, c.slotsFree, c.slotsLimit, c.headroom, c.unsealed, c.readFailures,
		c.codecCapacity, c.codecHeadroom, c.exhausted} {
		ch <- d
	}
}

func (c *capacityCollector) Collect(ch chan<- prometheus.Metric) {
	now := c.c.Now()
	targets := c.c.Targets()
	for _, t := range targets {
		if t.Layout != nil {
			ch <- prometheus.MustNewConstMetric(c.secondsLeft, prometheus.GaugeValue, secondsLeft(*t.Layout, now), t.Generator)
		}
		if t.Codec != nil {
			ch <- prometheus.MustNewConstMetric(c.codecCapacity, prometheus.GaugeValue, float64(t.Codec.IDs()), t.Generator)
		}
		if t.Exhausted != nil {
			full := 0.0
			if t.Exhausted() {
				full = 1
			}
			ch <- prometheus.MustNewConstMetric(c.exhausted, prometheus.GaugeValue, full, t.Generator)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refresh(targets, now)
	for _, m := range c.read {
		ch <- m
	}
	for st, n := range c.failures {
		ch <- prometheus.MustNewConstMetric(c.readFailures, prometheus.CounterValue, n, st)
	}
}

// layoutEnd is when l's timestamp bits run out, to the millisecond.
func layoutEnd(l snowflake.Layout) time.Time {
	units := math.Ldexp(1, l.TimestampBits)
	if ms := units * float64(l.Unit.Milliseconds()); ms < float64(math.MaxInt64-l.Epoch.UnixMilli()) {
		return time.UnixMilli(l.Epoch.UnixMilli() + int64(ms)).UTC()
	}
	return time.UnixMilli(math.MaxInt64).UTC()
}

// secondsLeft is the time from now until l's timestamp bits run out.
func secondsLeft(l snowflake.Layout, now time.Time) float64 {
	end := float64(l.Epoch.UnixMilli())/1000 + math.Ldexp(l.Unit.Seconds(), l.TimestampBits)
	return end - float64(now.UnixMilli())/1000
}

// readStores reads the stores of targets, under c.mu, and returns their series.
func (c *capacityCollector) readStores(targets []CapacityTarget, now time.Time) []prometheus.Metric {
	ctx, cancel := context.WithTimeout(context.Background(), c.c.Timeout)
	defer cancel()
	read := []prometheus.Metric{}
	admins := map[string]store.Admin{}
	for _, t := range targets {
		if t.Store == "" || t.Namespace == "" && t.SegmentKey == "" && t.PeriodicKey == "" {
			continue
		}
		h := &Headroom{Generator: t.Generator}
		c.heads[t.Generator] = h
		a, ok := admins[t.Store]
		if !ok {
			st, err := c.c.Store(ctx, t.Store)
			if err != nil {
				c.failures[t.Store]++
				admins[t.Store] = nil
				continue
			}
			a, _ = st.(store.Admin)
			admins[t.Store] = a
		}
		if a == nil {
			continue
		}
		ms, err := c.readTarget(ctx, a, t, h, now)
		if err != nil {
			c.failures[t.Store]++
		}
		read = append(read, ms...)
	}
	return read
}

// readTarget reads what t has left in a, and files its figures in h.
func (c *capacityCollector) readTarget(ctx context.Context, a store.Admin, t CapacityTarget, h *Headroom, now time.Time) ([]prometheus.Metric, error) {
	var ms []prometheus.Metric
	if t.Namespace != "" {
		ns, err := a.Slots(ctx, t.Namespace)
		switch {
		case errors.Is(err, store.ErrNotFound), errors.Is(err, errors.ErrUnsupported):
			// No instance has leased a slot yet, or the store leases none.
		case err != nil:
			return ms, err
		default:
			free := ns.Limit
			for _, s := range ns.Slots {
				if s.Held(ns.StoreNow) {
					free--
				}
			}
			h.Namespace, h.SlotsFree, h.SlotsLimit = t.Namespace, free, ns.Limit
			ms = append(ms, prometheus.MustNewConstMetric(c.slotsFree, prometheus.GaugeValue, float64(free), t.Namespace),
				prometheus.MustNewConstMetric(c.slotsLimit, prometheus.GaugeValue, float64(ns.Limit), t.Namespace))
		}
	}
	if t.SegmentKey != "" {
		page, err := a.Keys(ctx, t.SegmentKey, "", 1)
		if err != nil {
			return ms, err
		}
		if len(page) == 1 && page[0].Key == t.SegmentKey {
			ms = append(ms, prometheus.MustNewConstMetric(c.headroom, prometheus.GaugeValue,
				float64(math.MaxInt64-page[0].Next), t.Store, t.SegmentKey))
		}
	}
	if t.Codec != nil {
		key := t.SegmentKey
		if t.PeriodicKey != "" && t.Zone != nil {
			h.PeriodKey = t.Period.Key(now.In(t.Zone))
			key = t.PeriodicKey + "/" + h.PeriodKey
		}
		if key != "" {
			next, err := nextValue(ctx, a, key)
			if err != nil {
				return ms, err
			}
			h.IDsLeft, h.Read = t.Codec.Left(next), true
			ms = append(ms, prometheus.MustNewConstMetric(c.codecHeadroom, prometheus.GaugeValue, float64(h.IDsLeft), t.Generator))
		}
	}
	if t.PeriodicKey != "" && t.Zone != nil {
		n, err := unsealedPast(ctx, a, t, now)
		if err != nil {
			return ms, err
		}
		ms = append(ms, prometheus.MustNewConstMetric(c.unsealed, prometheus.GaugeValue, float64(n), t.Store, t.PeriodicKey))
	}
	return ms, nil
}

// nextValue returns the next value of key in a; 0, below any initial-offset, for a
// key that has none yet.
func nextValue(ctx context.Context, a store.Admin, key string) (int64, error) {
	page, err := a.Keys(ctx, key, "", 1)
	if err != nil || len(page) == 0 || page[0].Key != key {
		return 0, err
	}
	return page[0].Next, nil
}

// unsealedPast counts the keys of t's periods before the current one that are not
// sealed. Keys sort by period, so the listing stops at the current period.
func unsealedPast(ctx context.Context, a store.Admin, t CapacityTarget, now time.Time) (int, error) {
	prefix := t.PeriodicKey + "/"
	current := t.Period.Key(now.In(t.Zone))
	n, listed := 0, 0
	for k, err := range store.AllKeys(ctx, a, prefix, 1000) {
		if err != nil {
			return 0, err
		}
		period := strings.TrimPrefix(k.Key, prefix)
		if period >= current || listed >= maxPeriodKeys {
			break
		}
		listed++
		if _, err := t.Period.ParseKey(period, t.Zone); err == nil && !k.Sealed {
			n++
		}
	}
	return n, nil
}
