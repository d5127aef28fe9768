// Package segment hands out ids from ranges reserved in a store: Generator for one
// sequence, Periodic for a sequence that restarts every year, month or day.
//
// A Generator reserves a range [start, end) of its key in one atomic step of the
// store, then hands the values out from memory, one atomic add each. Ids are unique
// across every generator of the key, in every process, and strictly increasing
// within one generator. The next range is reserved in the background before the
// current one runs out, sized so that the ids at hand last BatchPolicy.Lookahead, so
// callers almost never wait for the store.
package segment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid/store"
)

var (
	// ErrUnavailable means no id could be had: the store failed, is backing off after
	// a failure, or did not answer within BatchPolicy.ReserveTimeout. The error also
	// wraps the store's error where there is one. It matches store.ErrUnavailable
	// (and so cosid.ErrUnavailable) with errors.Is.
	ErrUnavailable = store.Sentinel("no range available", store.ErrUnavailable)
	// ErrClosed means the generator was closed.
	ErrClosed = errors.New("generator closed")
)

// Generator hands out the ids of one key of a RangeStore. It is safe for concurrent
// use.
//
// Its layout is for the hot path and for memory, since a keyed generator holds one a
// live key: cur, read by every Next and changed once a range, comes first, and the
// first cache line holds nothing else that changes. The allocator puts a Generator
// at the start of a line (its size class is a multiple of 64 bytes, and objects of
// at most 512 bytes carry no header), so no padding is needed to keep cur's line
// apart; TestGenerator_LayoutKeepsCurOnItsOwnLine checks both.
type Generator struct {
	cur atomic.Pointer[span]
	// stride and residue map a store value v to the id v·stride + residue
	// (WithStride); values from valueEnd on have no id. Next reads them on cur's
	// line, which they share since they never change.
	stride, residue, valueEnd int64
	key                       string
	st                        store.RangeStore
	p                         BatchPolicy
	o                         options

	wg sync.WaitGroup // background reservations

	mu       sync.Mutex
	spare    *span   // the next range, reserved and not yet in use
	inflight *refill // the one reservation under way, or nil
	// handover: inflight is a background reservation that unlock hands over to
	// the executor.
	handover bool
	closed   bool
	failures *failureState // nil but from a failure to the next success
	lastEnd  int64         // the end of the last range the store gave: the next must not start below it
	meter    rateMeter
	stats    stats
}

// span is a range being handed out. used counts the ids taken: every Next writes it,
// so it has a cache line of its own, and the fields that Next only reads share
// another that stays valid in every core's cache.
type span struct {
	start int64
	size  int64
	// fast is how many ids Next may hand out with no check but this one: up to the
	// prefetch point, the whole range once the prefetch started, none with a TTL.
	fast       atomic.Int64
	prefetchAt int64 // reserve the next range when this many ids are taken; -1: never
	hasTTL     bool
	expires    time.Time

	used atomic.Int64
	_    [56]byte
}

// close takes the span's remaining ids out of use and reports how many were taken.
func (s *span) close() int64 {
	for {
		u := s.used.Load()
		if u >= s.size {
			return s.size
		}
		if s.used.CompareAndSwap(u, s.size) {
			return u
		}
	}
}

// New returns a Generator of key in st. It starts reserving the first range in the
// background and does no I/O itself. New refuses an invalid policy, and a store whose
// timeout (store.Timeouter) exceeds p.ReserveTimeout: callers would give up on
// reservations that the store could still finish.
func New(st store.RangeStore, key string, p BatchPolicy, opts ...Option) (*Generator, error) {
	if st == nil {
		return nil, fmt.Errorf("segment: %w: nil store for key %q", store.ErrInvalidArgument, key)
	}
	if err := store.CheckKey(key); err != nil {
		return nil, fmt.Errorf("segment: %w", err)
	}
	p, err := p.normalize()
	if err != nil {
		return nil, err
	}
	if t, ok := st.(store.Timeouter); ok && t.Timeout() > p.ReserveTimeout {
		return nil, &PolicyError{Policy: "BatchPolicy", Field: "ReserveTimeout", Reason: fmt.Sprintf(
			"%v is below the store's timeout %v: a caller would give up on reservations the store may still finish; "+
				"raise ReserveTimeout or lower the store's timeout", p.ReserveTimeout, t.Timeout())}
	}
	g := &Generator{key: key, st: st, p: p, o: buildOptions(opts), lastEnd: -1}
	if err := g.setStride(); err != nil {
		return nil, err
	}
	if g.o.obsKey == "" {
		g.o.obsKey = key
	}
	g.meter.rate, g.meter.est = g.o.seedRate, g.o.seedRate
	g.cur.Store(&span{prefetchAt: -1})
	g.mu.Lock()
	g.startRefillLocked(1, g.o.now(), false)
	g.unlock()
	return g, nil
}

// setStride checks the stride and residue of g's options and sets them.
func (g *Generator) setStride() error {
	g.stride, g.residue = max(g.o.stride, 1), g.o.residue
	if g.o.stride < 0 || g.o.stride == 0 && g.o.residue != 0 || g.residue < 0 || g.residue >= g.stride {
		return fmt.Errorf("segment %q: %w: stride %d, residue %d; want stride ≥ 1 and 0 ≤ residue < stride",
			g.key, store.ErrInvalidArgument, g.o.stride, g.o.residue)
	}
	// The values v with v·stride + residue ≤ math.MaxInt64, and one past them.
	g.valueEnd = (math.MaxInt64-g.residue)/g.stride + 1
	if g.stride == 1 {
		g.valueEnd = math.MaxInt64 // a store stops at math.MaxInt64 itself
	}
	return nil
}

// Stride returns the stride and residue of g's ids (WithStride): 1 and 0 unless
// set.
func (g *Generator) Stride() (stride, residue int64) { return g.stride, g.residue }

// rate returns the latest measured rate of ids taken, in ids/s.
func (g *Generator) rate() float64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.meter.est
}

// restartRate starts a new window of the rate measurement now: a prewarmed
// generator's idle wait for its period must not read as a slow rate.
func (g *Generator) restartRate() {
	g.mu.Lock()
	defer g.mu.Unlock()
	cur := g.cur.Load()
	g.meter.at, g.meter.issued = g.o.now(), g.meter.retired+min(cur.used.Load(), cur.size)
}

// Key returns the store key the generator reserves from.
func (g *Generator) Key() string { return g.key }

// Next returns the next id. When ids are at hand, which is nearly always, it takes
// one atomic load and one atomic add, no lock and no allocation. Otherwise it waits
// for the reservation under way, at most ReserveTimeout, and fails with an error
// wrapping ErrUnavailable (and the store's error) or ErrClosed.
func (g *Generator) Next() (int64, error) {
	s := g.cur.Load()
	n := s.used.Add(1) - 1
	if n < s.fast.Load() {
		return (s.start+n)*g.stride + g.residue, nil
	}
	return g.nextSlow(s, n)
}

// TryNext returns the next id and true when one is at hand with no check to make,
// which is nearly always; else it takes no id and returns false, and the caller
// calls Next, which waits or fails as it must. It is Next's hot path in a function
// small enough for the compiler to inline into its caller, which Next is not (the
// call of its slow path puts it over the inliner's budget): a caller that wraps a
// Generator, as cosid's Source does, then pays one call an id, not two. It takes
// the id with a compare-and-swap where Next adds: a swap that loses to another
// caller's take returns false rather than try again.
func (g *Generator) TryNext() (int64, bool) {
	s := g.cur.Load()
	if n := s.used.Load(); n < s.fast.Load() && s.used.CompareAndSwap(n, n+1) {
		return (s.start+n)*g.stride + g.residue, true
	}
	return 0, false
}

func (g *Generator) nextSlow(s *span, n int64) (int64, error) {
	var w waiter
	defer w.done(g)
	for {
		if v, ok := g.check(s, n); ok {
			return v*g.stride + g.residue, nil
		}
		v, ok, err := g.advance(s, 1, &w)
		if err != nil {
			return 0, err
		}
		if ok {
			return v*g.stride + g.residue, nil
		}
		// Another caller installed a new range first: take from it.
		s = g.cur.Load()
		n = s.used.Add(1) - 1
	}
}

// check makes the checks that the hot path leaves out, and returns id n of s if it is
// to be handed out.
func (g *Generator) check(s *span, n int64) (int64, bool) {
	if n >= s.size {
		return 0, false
	}
	if n == s.prefetchAt {
		g.prefetch(s)
	}
	if s.hasTTL && g.o.now().After(s.expires) {
		return 0, false // the id is dropped with the rest of the range
	}
	return s.start + n, true
}

// NextRange returns n consecutive ids [r.Start, r.End), for bulk inserts. When the
// range at hand holds fewer than n, the ids come from a new range of at least n,
// which the rest of the range at hand and the range reserved ahead, if any, join
// when the store gave them one after the other (no other process took ids of the
// key in between); a rest that does not join is skipped, a gap (S4).
//
// A generator with a stride above 1 (WithStride) hands out no run of consecutive
// ids: its NextRange fails with an error wrapping store.ErrInvalidArgument.
func (g *Generator) NextRange(n int64) (store.Range, error) {
	switch {
	case g.stride > 1:
		return store.Range{}, fmt.Errorf("segment %q: %w: NextRange of a generator with stride %d: its ids are every %d-th number, not consecutive; take them one at a time with Next",
			g.key, store.ErrInvalidArgument, g.stride, g.stride)
	case n < 1:
		return store.Range{}, fmt.Errorf("segment %q: %w: NextRange(%d), want n ≥ 1", g.key, store.ErrInvalidArgument, n)
	}
	var w waiter
	defer w.done(g)
	s := g.cur.Load()
	for {
		u := s.used.Load()
		if u < s.size && n <= s.size-u && !(s.hasTTL && g.o.now().After(s.expires)) {
			if !s.used.CompareAndSwap(u, u+n) {
				continue
			}
			if s.prefetchAt >= u && s.prefetchAt < u+n {
				g.prefetch(s)
			}
			return store.Range{Start: s.start + u, End: s.start + u + n}, nil
		}
		v, ok, err := g.advance(s, n, &w)
		if err != nil {
			return store.Range{}, err
		}
		if ok {
			return store.Range{Start: v, End: v + n}, nil
		}
		s = g.cur.Load()
	}
}

// Close stops the generator's background work and waits for it; a reservation under
// way is canceled. Later calls of Next fail with ErrClosed. Close does not close the
// store, which may serve other generators.
//
// When the store is a store.GiveBacker, Close then gives back the unused tail of the
// last range the generator reserved (S7), so that a restart continues from the first
// id it did not hand out rather than leave a gap; WithoutGiveBack turns this off. The
// give-back waits at most ReserveTimeout, and a failed one is logged: the tail is
// then a gap, as it would be without give-back (S4).
func (g *Generator) Close() error {
	g.close(true)
	return nil
}

// close is Close; giveBack false leaves the unused tail a gap, for a Periodic's
// generator of a period that is not current.
func (g *Generator) close(giveBack bool) {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return
	}
	g.closed = true
	// Hand-outs stop first: after cur.close no caller takes an id of cur, so taken is
	// final, a caller racing Close included.
	cur := g.cur.Load()
	taken := cur.close()
	if plantGiveBackAll {
		taken = 0
	}
	g.cur.Store(&span{prefetchAt: -1})
	spare := g.spare
	g.spare = nil
	g.failures.stopRetry()
	var cancel context.CancelFunc
	if f := g.inflight; f != nil {
		cancel = f.cancel
	}
	g.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	g.wg.Wait()
	if giveBack && !g.o.noGiveBack {
		g.giveBack(cur, taken, spare)
	}
}
