package cosid

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid/segment"
)

// keyedSet is the live generators of a keyed template, one a key: a map to find a
// key's and a list in the order of use to find the one to close, under one lock.
// No key has a goroutine or a timer of its own: a call that takes the lock closes
// the idle keys it finds at the list's end, and the runtime's one janitor sweeps
// the rest.
//
// A call on the most recently used key takes no lock: its place in the list stays.
// On a segment key, NextInt and Next take it without counting the call either
// (hot): the generator's own add is the call's one locked instruction. No call on a
// live key reads the clock either, which costs more than the rest of
// the call on some VMs: it stamps its use on tick, the set's latest reading of the
// clock, which a key's opening and the janitor advance. Idle-close needs only
// coarse time, so a use is stamped with the latest time it can have had, tick plus
// slack: a key closes no earlier than idle-close after its last use (while the
// janitor runs on time), and at most slack later.
type keyedSet struct {
	g     *generator
	opts  []segment.Option // of every key's generator
	now   func() time.Time
	tick  atomic.Int64             // unix ns of the latest reading of now
	slack int64                    // the janitor's period: how far tick lags the clock at most
	mru   atomic.Pointer[keyEntry] // head, read without the lock

	mu         sync.Mutex
	live       map[string]*keyEntry
	head, tail *keyEntry // the most and the least recently used
	closed     bool
	retired    counts // of the keys closed
	reported   counts // the latest totals of stats, which never go down
	opened     int64
	evicted    int64 // closed for max-live-keys
	idled      int64 // closed for idle-close
	closing    sync.WaitGroup
}

// keyEntry is a live key and its generator.
type keyEntry struct {
	key        string
	b          built
	last       atomic.Int64 // unix ns of its latest use, or the latest it can have been
	prev, next *keyEntry
	gone       atomic.Bool  // taken out of the set: closed or to be closed
	refs       atomic.Int32 // calls using b through get: it closes when the last one ends
}

// counts are the counters of Stats that a template sums over its keys.
type counts struct{ reserves, failures int64 }

// sweepPerCall is how many idle keys a call closes at most: the janitor does the
// rest, so that no call pays for a long sweep.
const sweepPerCall = 2

func newKeyedSet(rt *Runtime, g *generator) *keyedSet {
	p := g.plan
	opts := append(rt.segmentOptions(p), segment.WithObserverKey(p.key), segment.WithoutTimers())
	return &keyedSet{g: g, opts: opts, now: rt.o.keyNow, slack: janitorEvery(p.idleClose).Nanoseconds(), live: map[string]*keyEntry{}}
}

// clock reads the clock and advances tick to it.
func (s *keyedSet) clock() int64 {
	now := s.now().UnixNano()
	for t := s.tick.Load(); now > t && !s.tick.CompareAndSwap(t, now); t = s.tick.Load() {
	}
	return now
}

// get returns the live generator of key, opening it when it is not live. The caller
// holds it until put: a key taken out of the set meanwhile closes only then, so no
// call finds its generator closed under it. Runtime.Source, the only maker of a
// keyed Source, has checked key.
func (s *keyedSet) get(ctx context.Context, key string) (*keyEntry, error) {
	if e := s.mru.Load(); e != nil && e.key == key {
		e.refs.Add(1)
		if !e.gone.Load() {
			if t := s.tick.Load() + s.slack; e.last.Load() < t {
				e.last.Store(t)
			}
			return e, nil
		}
		s.put(e)
	}
	s.mu.Lock()
	if e := s.live[key]; e != nil {
		e.refs.Add(1)
		t := s.tick.Load()
		victims := s.touchLocked(e, t+s.slack, t)
		s.mu.Unlock()
		s.retire(victims)
		return e, nil
	}
	s.mu.Unlock()
	p := s.g.plan
	sb, err := s.g.rt.stores[p.store].get(ctx)
	if err != nil {
		return nil, fmt.Errorf("generator %q: %w", p.name, err)
	}
	now := s.clock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, fmt.Errorf("generator %q: %w", p.name, errClosed)
	}
	e := s.live[key]
	if e == nil {
		full := p.key + "/" + key
		b, err := p.impl.(keyable).buildKey(p, sb.st, full, s.opts)
		if err != nil {
			s.mu.Unlock()
			var pe *segment.PolicyError
			if errors.As(err, &pe) {
				return nil, configErr(policyErr(p.path, err))
			}
			return nil, fmt.Errorf("generator %q key %q: %w", p.name, key, err)
		}
		// The entry's key shares the store key's bytes, and not the caller's.
		e = &keyEntry{key: full[len(p.key)+1:], b: b}
		s.live[e.key] = e
		s.opened++
		s.g.rt.startJanitor()
	}
	e.refs.Add(1)
	victims := s.touchLocked(e, now, now)
	for len(s.live) > p.maxLive {
		victims = append(victims, s.removeLocked(s.tail))
		s.evicted++
	}
	s.mu.Unlock()
	s.retire(victims)
	return e, nil
}

// hot returns the entry of key when it is the most recently used key and live,
// stamping its use as get does; else nil. The caller does not hold it, as get's
// caller does: the key may be taken out of the set and its generator closed under
// the call, which then fails (segment.ErrClosed, or the reservation it waited for
// canceled). A caller that meets an error and finds e.gone set takes the key again
// with get, so no call fails for a close it raced, as with get; an id it had by
// then is good, since a segment generator's Close stops handing out before it
// gives back (S7). It spares the call the two atomic adds of get and put on the
// key's counter of calls: of three locked instructions a call, they were two, the
// generator's own add the third (the CPU profile of a held keyed Source).
func (s *keyedSet) hot(key string) *keyEntry {
	if e := s.mru.Load(); e != nil && e.key == key && !e.gone.Load() {
		if t := s.tick.Load() + s.slack; e.last.Load() < t {
			e.last.Store(t)
		}
		return e
	}
	return nil
}

// put ends a use of e that get began.
func (s *keyedSet) put(e *keyEntry) {
	if e.refs.Add(-1) == 0 && e.gone.Load() {
		s.retire([]*keyEntry{e})
	}
}

// touchLocked records a use of e at last, and takes out the keys idle at now at the
// end of the list, at most sweepPerCall of them.
func (s *keyedSet) touchLocked(e *keyEntry, last, now int64) []*keyEntry {
	if e.last.Load() < last {
		e.last.Store(last)
	}
	if s.head != e {
		s.unlinkLocked(e)
		e.next = s.head
		if s.head != nil {
			s.head.prev = e
		}
		s.head = e
		if s.tail == nil {
			s.tail = e
		}
		s.mru.Store(e)
	}
	return s.sweepLocked(now, sweepPerCall)
}

// sweepLocked takes out the keys idle at now, from the least recently used, at most
// limit of them (all when limit < 0).
func (s *keyedSet) sweepLocked(now int64, limit int) []*keyEntry {
	var victims []*keyEntry
	idle := s.g.plan.idleClose.Nanoseconds()
	for s.tail != nil && limit != 0 && now-s.tail.last.Load() >= idle {
		victims = append(victims, s.removeLocked(s.tail))
		s.idled++
		limit--
	}
	return victims
}

func (s *keyedSet) unlinkLocked(e *keyEntry) {
	if e.prev != nil {
		e.prev.next = e.next
	} else if s.head == e {
		s.head = e.next
		s.mru.Store(s.head)
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else if s.tail == e {
		s.tail = e.prev
	}
	e.prev, e.next = nil, nil
}

// removeLocked takes e out of the set; its counts go to the retired ones.
func (s *keyedSet) removeLocked(e *keyEntry) *keyEntry {
	s.unlinkLocked(e)
	delete(s.live, e.key)
	e.gone.Store(true)
	for _, st := range e.b.stats() {
		s.retired.reserves += st.Reserves
		s.retired.failures += st.Failures
	}
	return e
}

// retire closes the generators of keys taken out, on a goroutine of their own:
// a Close waits for a reservation under way, which no caller should wait for.
// What they had reserved and not handed out is never handed out (S4): a key opened
// again reserves a new range, above every earlier one.
// A generator still in use is closed by its last call's put; both may close it,
// which Close allows.
func (s *keyedSet) retire(victims []*keyEntry) {
	idle := victims[:0:0]
	for _, e := range victims {
		if e.refs.Load() == 0 {
			idle = append(idle, e)
		}
	}
	if len(idle) == 0 {
		return
	}
	s.closing.Go(func() {
		for _, e := range idle {
			if err := e.b.close(); err != nil {
				s.g.rt.o.logger.Warn("cosid: closing a key of a keyed generator", "generator", s.g.plan.name, "key", e.key, "error", err)
			}
		}
	})
}

// sweep closes every idle key.
func (s *keyedSet) sweep() {
	now := s.clock()
	s.mu.Lock()
	victims := s.sweepLocked(now, -1)
	s.mu.Unlock()
	s.retire(victims)
}

// shut closes every key and makes later calls fail.
func (s *keyedSet) shut() error {
	s.mu.Lock()
	s.closed = true
	var all []*keyEntry
	for s.tail != nil {
		all = append(all, s.removeLocked(s.tail))
	}
	s.mu.Unlock()
	var errs []error
	for _, e := range all {
		errs = append(errs, e.b.close())
	}
	s.closing.Wait()
	return errors.Join(errs...)
}

// stats sums the Stats of the template's keys, live and closed: its counters never
// go down, so a metric of them is a counter of the template.
func (s *keyedSet) stats() (segment.Stats, bool) {
	s.mu.Lock()
	if s.opened == 0 {
		s.mu.Unlock()
		return segment.Stats{}, false
	}
	entries := make([]*keyEntry, 0, len(s.live))
	for e := s.head; e != nil; e = e.next {
		entries = append(entries, e)
	}
	agg := segment.Stats{Key: s.g.plan.key, Reserves: s.retired.reserves, Failures: s.retired.failures}
	s.mu.Unlock()
	// Outside the lock: a generator's Stats takes its own, and a key's call must not wait
	// for a sweep of every key.
	for _, e := range entries {
		for _, st := range e.b.stats() {
			agg.Reserves += st.Reserves
			agg.Failures += st.Failures
			agg.Rate += st.Rate
			agg.Batch = max(agg.Batch, st.Batch)
			agg.LastReserve = max(agg.LastReserve, st.LastReserve)
			if agg.LastError == nil {
				agg.LastError = st.LastError // of the most recently used key that failed
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// A key closed while it was being read is counted once in each; a reservation
	// that ended as it was closed may be missing from the retired counts.
	agg.Reserves = max(agg.Reserves, s.reported.reserves)
	agg.Failures = max(agg.Failures, s.reported.failures)
	s.reported = counts{agg.Reserves, agg.Failures}
	return agg, true
}

// keyStats returns the key counts of the set.
func (s *keyedSet) keyStats() KeyStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return KeyStats{Live: len(s.live), MaxLive: s.g.plan.maxLive, Opened: s.opened, Evicted: s.evicted, IdleClosed: s.idled}
}

// peek returns the live generator of key without opening it, or nil; it does not
// count as a use of the key.
func (s *keyedSet) peek(key string) built {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.live[key]; e != nil {
		return e.b
	}
	return nil
}

// janitorEvery is how often the janitor sweeps a template whose idle-close is d.
func janitorEvery(d time.Duration) time.Duration { return min(max(d/4, time.Second), time.Minute) }

// janitor is the runtime's one goroutine that closes idle keys, started with the
// first key a keyed generator opens.
type janitor struct {
	once     sync.Once
	started  atomic.Bool
	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

func (rt *Runtime) startJanitor() {
	rt.jan.once.Do(func() {
		rt.jan.started.Store(true)
		every := time.Duration(1<<63 - 1)
		var sets []*keyedSet
		for _, name := range sortedKeys(rt.gens) {
			if s := rt.gens[name].keys; s != nil {
				sets = append(sets, s)
				every = min(every, janitorEvery(rt.gens[name].plan.idleClose))
			}
		}
		go func() {
			defer close(rt.jan.done)
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-rt.jan.stop:
					return
				case <-t.C:
					for _, s := range sets {
						s.sweep()
					}
				}
			}
		}()
	})
}

// stopJanitor stops the janitor, if it runs, and keeps it from starting.
func (rt *Runtime) stopJanitor() {
	rt.jan.stopOnce.Do(func() { close(rt.jan.stop) })
	rt.jan.once.Do(func() {})
	if rt.jan.started.Load() {
		<-rt.jan.done
	}
}
