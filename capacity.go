package cosid

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// A codec's width is a capacity (issue 30 §2): the store values whose ids the
// codec writes. This file computes it, caps ranges at it, remembers the generators
// and keys found full, and warns at Open of a configuration that can fill it.

// Capacity is what a generator's codec can write, in the values of its store key:
// Runtime.Capacity.
type Capacity struct {
	// First is the first value of a key (initial-offset).
	First int64
	// Max is the largest value whose id the codec writes: math.MaxInt64 for a codec
	// without a width, 999,999 for radix 10 of width 6.
	Max int64
	// Periodic says the capacity is a period's: each period starts again at First.
	Periodic bool
}

// Bounded reports whether the codec's width ends c before math.MaxInt64.
func (c Capacity) Bounded() bool { return c.Max < math.MaxInt64 }

// IDs returns how many ids c holds: the values from First to Max.
func (c Capacity) IDs() int64 {
	if c.Max < c.First {
		return 0
	}
	if c.First <= 0 && c.Max == math.MaxInt64 {
		return math.MaxInt64
	}
	return c.Max - c.First + 1
}

// Left returns how many ids c has left when next is the next value of the key to
// reserve: none once next passes Max.
func (c Capacity) Left(next int64) int64 {
	switch {
	case next > c.Max:
		return 0
	case next < c.First:
		return c.IDs()
	case next <= 0 && c.Max == math.MaxInt64:
		return math.MaxInt64
	}
	return c.Max - next + 1
}

// valueWriter is a strategy whose ids are its store key's values written by a
// codec, which may have a width.
type valueWriter interface {
	// writes returns the codec's error for the value v: wrapping codec.ErrRange when
	// v is wider than the codec's width.
	writes(v int64) error
	// perPeriod reports whether the values start again every period.
	perPeriod() bool
}

// capacity is the capacity of p's ids, ok false for a generator whose ids are not
// its store values (a Snowflake). It is the one place that maps a codec's width to
// store values: a generator that writes v·stride + residue has its Max as (the
// codec's largest value − residue) / stride.
func capacity(p *plan) (Capacity, bool) {
	w, ok := p.impl.(valueWriter)
	r, reserves := p.impl.(reserver)
	if !ok || !reserves {
		return Capacity{}, false
	}
	max := largestWritten(w.writes)
	if s, ok := p.impl.(strider); ok && s.idStride().strided() {
		// The ids are v·stride + residue of the store values v.
		st := s.idStride()
		if max < st.r {
			max = -1
		} else {
			max = (max - st.r) / st.n
		}
	}
	return Capacity{First: r.batchPolicy().InitialOffset, Max: max, Periodic: w.perPeriod()}, true
}

// largestWritten returns the largest v that writes accepts, given that it accepts 0
// and that the values it accepts are those up to a bound (a width): a binary
// search, 63 calls at most.
func largestWritten(writes func(int64) error) int64 {
	if writes(math.MaxInt64) == nil {
		return math.MaxInt64
	}
	lo, hi := int64(0), int64(math.MaxInt64) // writes(lo) holds, writes(hi) fails
	if writes(lo) != nil {
		return -1
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if writes(mid) == nil {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// Capacity returns the capacity of the generator name's codec, ok false for an
// unknown name and for a generator whose ids are not values of a store key (a
// Snowflake's). It does no I/O.
func (rt *Runtime) Capacity(name string) (Capacity, bool) {
	if g := rt.gens[name]; g != nil {
		return g.capacity, g.hasCap
	}
	return Capacity{}, false
}

// fit caps r, a range of g's, at g's codec's largest value, so that no caller of a
// range gets a value the codec cannot write; a range that starts past it is the
// codec's error, which failed and keyFailed turn into ErrExhausted.
func (g *generator) fit(r store.Range) (store.Range, error) {
	if !g.hasCap || r.End-1 <= g.capacity.Max {
		return r, nil
	}
	if r.Start > g.capacity.Max {
		w := g.plan.impl.(valueWriter)
		return store.Range{}, w.writes(r.Start)
	}
	r.End = g.capacity.Max + 1
	return r, nil
}

// maxFullKeys bounds the keys of one keyed template that the runtime names as
// full: the rest are counted.
const maxFullKeys = 16

// fullSet is what a runtime has seen of a generator's fullness: the calls that
// failed with ErrExhausted, by key ("" for a generator that is not keyed) and
// period ("" for one that is not periodic).
type fullSet struct {
	mu    sync.Mutex
	keys  map[string]string // key → the period it was full in
	extra int               // full keys past maxFullKeys
	in    string            // the period of extra
}

// period returns the key of g's current period, "" for a generator that is not
// periodic.
func (g *generator) period() string {
	if !g.capacity.Periodic {
		return ""
	}
	if p, loc, ok := g.rt.Period(g.plan.name); ok {
		return p.Key(g.rt.o.now().In(loc))
	}
	return ""
}

// markFull records that key of g failed with err, when err is ErrExhausted.
func (g *generator) markFull(key string, err error) {
	if err == nil || !errors.Is(err, ErrExhausted) {
		return
	}
	period := g.period()
	f := &g.full
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prune(period)
	if f.keys == nil {
		f.keys = map[string]string{}
	}
	if _, ok := f.keys[key]; ok || len(f.keys) < maxFullKeys {
		f.keys[key] = period
		return
	}
	f.extra++
	f.in = period
}

// prune drops what was full in a period before current, under f.mu: a new period
// starts again.
func (f *fullSet) prune(current string) {
	for k, p := range f.keys {
		if p != current {
			delete(f.keys, k)
		}
	}
	if f.in != current {
		f.extra, f.in = 0, ""
	}
}

// Exhaustion is what a runtime has seen of a generator's codec being full:
// Runtime.Exhausted.
type Exhaustion struct {
	// Full says a call of the generator, or of a key of a keyed template, failed
	// with ErrExhausted (in the current period, for a periodic one).
	Full bool
	// Keys names the full keys of a keyed template, sorted, at most 16 of them;
	// More counts the others.
	Keys []string
	More int
}

// Exhausted returns what this runtime has seen of the generator name running out
// of ids its codec writes: a call that failed with ErrExhausted, since Open, in
// the current period for a periodic generator. Another process's calls, and calls
// before a restart, are not seen: a full generator shows again on its next call.
// It does no I/O.
func (rt *Runtime) Exhausted(name string) Exhaustion {
	g := rt.gens[name]
	if g == nil {
		return Exhaustion{}
	}
	period := g.period()
	f := &g.full
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prune(period)
	var e Exhaustion
	for k := range f.keys {
		if k != "" {
			e.Keys = append(e.Keys, k)
		}
	}
	slices.Sort(e.Keys)
	e.More = f.extra
	e.Full = len(f.keys) > 0 || f.extra > 0
	return e
}

// periodLongest is the longest a period lasts: the span a period's ids must fit.
func periodLongest(p segment.Period) time.Duration {
	switch p {
	case segment.Year:
		return 366 * 24 * time.Hour
	case segment.YearMonth:
		return 31 * 24 * time.Hour
	}
	return 24 * time.Hour
}

// warnCapacity logs at WARN each generator of rt whose configuration can take
// more ids than its codec writes: one reservation of its max-batch, or, for a
// periodic one, a period at the rate of a step per lookahead, the least a
// generator that reserves more than once a lookahead takes. Only what the
// configuration states counts: a default max-batch or step says nothing of the
// use expected, and a range is capped at the codec's largest value anyway, so a
// configuration of defaults starts without a warning.
func (rt *Runtime) warnCapacity() {
	for _, name := range sortedKeys(rt.gens) {
		g := rt.gens[name]
		c := g.capacity
		if !g.hasCap || !c.Bounded() {
			continue
		}
		r := g.plan.impl.(reserver)
		b := r.batchPolicy()
		stepSet, maxBatchSet := r.stated()
		attrs := []any{"generator", name, "codec-largest", c.Max, "capacity", c.IDs(), "path", g.plan.path}
		if maxBatchSet && b.MaxBatch > c.IDs() {
			rt.o.logger.Warn(fmt.Sprintf("cosid: generator %q: one reservation of max-batch %d takes more ids than its codec writes (%d, up to %d): a busy instance can fill it at once; set max-batch below it, or widen the codec",
				name, b.MaxBatch, c.IDs(), c.Max), append(attrs, "max-batch", b.MaxBatch)...)
		}
		p, _, ok := rt.Period(name)
		if !ok || !stepSet || b.Lookahead <= 0 {
			continue
		}
		span := periodLongest(p)
		use := float64(b.Step) * span.Seconds() / b.Lookahead.Seconds()
		if use > float64(c.IDs()) {
			rt.o.logger.Warn(fmt.Sprintf("cosid: generator %q: a period of %v at a step (%d) per lookahead (%v) takes %.0f ids, more than its codec writes a period (%d): past %.2f ids/s on average the period's ids run out; widen the codec if it may get busier",
				name, span, b.Step, b.Lookahead, use, c.IDs(), float64(c.IDs())/span.Seconds()),
				append(attrs, "period-use", int64(use), "step", b.Step, "lookahead", b.Lookahead.String())...)
		}
	}
}
