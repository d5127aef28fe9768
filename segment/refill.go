package segment

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid/internal/backoff"
	"github.com/cosid-go/cosid/store"
)

// refill is one reservation. Whoever wins claim runs it: the executor's task, or a
// goroutine that a caller who needs ids before the executor got to it starts.
type refill struct {
	size int64 // ids to reserve
	min  int64 // the least that serves the caller, tried when size is past the end (S5)
	// tooBig: the store refused min ids past the end (S5), where a Step might still
	// fit. The refusal is the caller's, not the generator's.
	tooBig bool
	claim  atomic.Bool
	// cancel cancels the reservation's context: Close calls it for the one under
	// way. A context a reservation, not one a generator, because an idle generator
	// then holds none (a keyed runtime holds a generator a key).
	cancel context.CancelFunc
	done   chan struct{} // closed when the reservation ended; err is set before
	err    error
}

// waiter bounds one caller's wait for ranges by ReserveTimeout, across every advance
// the call makes, and reports it to the observer.
type waiter struct {
	timer *time.Timer
	start time.Time
}

func (w *waiter) expired(g *Generator, now time.Time) <-chan time.Time {
	if w.timer == nil {
		w.start, w.timer = now, time.NewTimer(g.p.ReserveTimeout)
	}
	return w.timer.C
}

func (w *waiter) done(g *Generator) {
	if w.timer != nil {
		w.timer.Stop()
		g.o.observer.Waited(g.o.obsKey, g.o.now().Sub(w.start))
	}
}

// advance installs a new range in place of s and takes need ids from it for the
// caller, returning the first. It returns ok false when another caller replaced s
// first. Only advance and reserve change the generator's state, under g.mu, and
// neither holds it across I/O.
func (g *Generator) advance(s *span, need int64, w *waiter) (v int64, ok bool, err error) {
	for {
		g.mu.Lock()
		if g.cur.Load() != s {
			g.unlock()
			return 0, false, nil
		}
		if g.closed {
			g.unlock()
			return 0, false, g.errClosed()
		}
		now := g.o.now()
		if sp := g.takeSpareLocked(need, now); sp != nil {
			g.installLocked(sp, need, now)
			g.unlock()
			return sp.start, true, nil
		}
		f := g.inflight
		switch {
		case f == nil:
			if err := g.failures.check(now); err != nil {
				g.unlock()
				return 0, false, g.unavailable(err)
			}
			f = g.startRefillLocked(need, now, true)
		case f.claim.CompareAndSwap(false, true):
			// The executor has not started it: start it here, on a goroutine of its
			// own, so that this wait stays bounded by ReserveTimeout.
			g.wg.Go(func() { g.reserve(f) })
		}
		g.unlock()

		select {
		case <-f.done:
			if f.tooBig && roundUp(need, g.p.Step) < f.min {
				continue // refused for its size, bigger than this caller needs
			}
			switch {
			case errors.Is(f.err, ErrClosed):
				return 0, false, f.err
			case f.err != nil:
				return 0, false, g.unavailable(f.err)
			}
		case <-w.expired(g, now):
			return 0, false, fmt.Errorf("segment %q: %w: none within ReserveTimeout %v (the reservation goes on)",
				g.key, ErrUnavailable, g.p.ReserveTimeout)
		}
	}
}

// prefetch reserves the next range ahead of need; the caller that takes the id at
// the prefetch point calls it, once a range. From then on the hot path hands out the
// rest of the range with no check.
func (g *Generator) prefetch(s *span) {
	g.mu.Lock()
	defer g.unlock()
	if g.cur.Load() == s {
		g.startPrefetchLocked(g.o.now())
	}
	if !s.hasTTL {
		s.fast.Store(s.size)
	}
}

func (g *Generator) startPrefetchLocked(now time.Time) {
	if g.spare == nil && g.inflight == nil && !g.closed && g.failures.check(now) == nil {
		g.startRefillLocked(1, now, false)
	}
}

// startRefillLocked starts the one reservation in flight, sized by the rate measured
// since the previous one. A caller that needs ids (forCaller) starts it on a
// goroutine of its own; a background one goes to the executor, if there is one, when
// the lock is released (unlock): exec may block or run the task then and there.
func (g *Generator) startRefillLocked(need int64, now time.Time, forCaller bool) *refill {
	cur := g.cur.Load()
	rate := g.meter.measure(now, g.meter.retired+min(cur.used.Load(), cur.size), g.p.Lookahead/growthLimit)
	f := &refill{size: g.p.size(rate, need), min: roundUp(need, g.p.Step), done: make(chan struct{})}
	g.inflight = f
	if g.o.exec == nil || forCaller {
		// A new goroutine always gets to the job, so it owns it from the start: the
		// caller's wait stays bounded by ReserveTimeout whatever the store's timeout.
		f.claim.Store(true)
		g.wg.Go(func() { g.reserve(f) })
		return f
	}
	g.handover = true
	return f
}

// unlock releases g.mu, then hands the background reservation started under it, if
// any, to the executor.
func (g *Generator) unlock() {
	var f *refill
	if g.handover {
		f, g.handover = g.inflight, false
	}
	g.mu.Unlock()
	if f != nil {
		g.o.exec(func() {
			if f.claim.CompareAndSwap(false, true) {
				g.reserve(f)
			}
		})
	}
}

// reserve runs f against the store and files the result: a spare range, or a failure
// that starts the backoff. A reservation whose caller stopped waiting is kept.
func (g *Generator) reserve(f *refill) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g.mu.Lock()
	f.cancel = cancel
	closed := g.closed // Close came first: it saw no cancel to call
	g.mu.Unlock()

	start := g.o.now()
	var r store.Range
	var err error
	if !closed {
		r, err = g.st.Reserve(ctx, g.key, f.size, g.p.InitialOffset)
		if errors.Is(err, store.ErrExhausted) && f.size > f.min {
			// A smaller range may still fit below math.MaxInt64.
			f.size = f.min
			r, err = g.st.Reserve(ctx, g.key, f.size, g.p.InitialOffset)
		}
	}
	end := g.o.now()
	took := end.Sub(start)

	storeEnd := r.End
	if err == nil {
		g.mu.Lock()
		err = g.checkRangeLocked(r, f.size) // lastEnd moves only here, one reservation at a time
		g.mu.Unlock()
		if err == nil && r.End > g.valueEnd {
			r, err = g.clip(r)
		}
		if err == nil && !closed {
			// The observer has a range before it is filed, where callers take ids
			// of it: a metric of reserved ids is never behind the ids handed out.
			g.o.observer.Reserved(g.o.obsKey, r, took)
		}
	}

	g.mu.Lock()
	g.inflight = nil
	closed = g.closed
	var recovered int
	var retryIn time.Duration
	f.tooBig = errors.Is(err, store.ErrExhausted) && f.min > g.p.Step
	switch {
	case closed:
	case f.tooBig: // no backoff, and not for good: a smaller reservation may fit
	case err == nil:
		g.lastEnd = storeEnd
		recovered = g.recoverLocked()
		if sp := g.newSpan(r, end); g.cur.Load().size == 0 {
			// The first range goes into use at once, so that its prefetch, if due,
			// starts now rather than at the first call.
			g.installLocked(sp, 0, end)
		} else {
			g.keepSpareLocked(sp)
		}
	default:
		retryIn = g.failing().fail(err, end, g.retryRefill)
	}
	if closed {
		err = g.errClosed() // what it reserved, if anything, is a gap (S4)
	} else {
		g.recordLocked(f.size, took, err)
	}
	f.err = err
	if g.handover {
		// The reservation ahead of need that the first range started: this may run
		// on the executor, which must not wait for room in itself.
		h := g.inflight
		g.handover = false
		h.claim.Store(true)
		g.wg.Go(func() { g.reserve(h) })
	}
	g.mu.Unlock()

	switch {
	case closed:
	case err == nil:
		g.o.logger.Debug("segment: reserved", "key", g.key, "range", r, "took", took)
		if recovered > 0 {
			g.o.logger.Info("segment: reservations work again", "key", g.key, "failures", recovered)
		}
	default:
		g.o.observer.RefillFailed(g.o.obsKey, err, took)
		if g.o.onFailed != nil {
			g.o.onFailed(err)
		}
		if f.tooBig {
			g.o.logger.Warn("segment: reservation refused for its size", "key", g.key, "size", f.size, "err", err)
		} else if retryIn > 0 {
			g.o.logger.Warn("segment: reservation failed", "key", g.key, "size", f.size, "err", err, "retry_in", retryIn)
		} else {
			g.o.logger.Error("segment: reservation failed for good", "key", g.key, "err", err)
		}
	}
	// The callers that wait for f go on only now, after the observer had a failure
	// too: its metric is never behind what a caller was told.
	close(f.done)
}

// checkRangeLocked refuses a range that would break the generator's promises, whatever
// the store did: the wrong size, or one that does not lie above every earlier range.
func (g *Generator) checkRangeLocked(r store.Range, size int64) error {
	if r.Len() != size || r.Start < 0 || r.Start < g.lastEnd {
		return fmt.Errorf("store returned %v for a reservation of %d ids; want %d ids at or above %d",
			r, size, size, max(g.lastEnd, 0))
	}
	return nil
}

// clip cuts r, a range of a strided generator, to the values whose ids fit an
// int64; none fitting is the end of the generator's ids, as math.MaxInt64 is a
// store's. What it cuts off is a gap that no id stands for.
func (g *Generator) clip(r store.Range) (store.Range, error) {
	if r.Start >= g.valueEnd {
		return r, fmt.Errorf("segment %q: %w: value %d with stride %d and residue %d is past math.MaxInt64; the key has no id left",
			g.key, store.ErrExhausted, r.Start, g.stride, g.residue)
	}
	r.End = g.valueEnd
	return r, nil
}

// retryRefill is the background retry after a failure, at the end of its backoff.
func (g *Generator) retryRefill() {
	g.mu.Lock()
	defer g.unlock()
	if !g.closed && g.spare == nil && g.inflight == nil && !g.failures.isFatal() {
		g.startRefillLocked(1, g.o.now(), false)
	}
}

func (g *Generator) newSpan(r store.Range, arrived time.Time) *span {
	s := &span{start: r.Start, size: r.Len(), prefetchAt: -1}
	if g.p.RangeTTL > 0 {
		s.hasTTL, s.expires = true, arrived.Add(g.p.RangeTTL)
	}
	return s
}

// takeSpareLocked returns the spare range if it can serve need ids. It drops one older
// than RangeTTL, and keeps one too small for a NextRange: the reservation made for it
// is joined to the spare when the two are adjacent (see reserve).
func (g *Generator) takeSpareLocked(need int64, now time.Time) *span {
	sp := g.spare
	switch {
	case sp == nil:
		return nil
	case sp.hasTTL && now.After(sp.expires):
		g.spare = nil
		return nil
	case sp.size < need:
		return nil
	}
	g.spare = nil
	return sp
}

// keepSpareLocked files sp, a range just reserved, as the spare. A spare kept for
// lack of size is joined to sp when sp starts where it ends, so that its ids are used;
// otherwise they are a gap: ids handed out later must be larger.
func (g *Generator) keepSpareLocked(sp *span) {
	if old := g.spare; old != nil && old.start+old.size == sp.start {
		sp.start, sp.size = old.start, old.size+sp.size
		if old.hasTTL {
			sp.expires = old.expires
		}
	}
	g.spare = sp
}

// installLocked makes sp the range in use, with its first need ids taken. Every
// field that Next reads without the lock is set before sp is published.
func (g *Generator) installLocked(sp *span, need int64, now time.Time) {
	old := g.cur.Load()
	taken := old.close()
	g.meter.retired += taken
	if taken < old.size && old.start+old.size == sp.start && !old.hasTTL && !sp.hasTTL {
		// The rest of the range in use, too small for a NextRange, lies just below
		// sp: it is handed out from sp rather than left as a gap.
		sp.start, sp.size = old.start+taken, sp.size+old.size-taken
		if plantJoin {
			sp.start, sp.size = old.start, sp.size+taken
		}
	}
	sp.used.Store(need)
	sp.prefetchAt = g.p.prefetchAt(sp.size, g.meter.est)
	due := sp.prefetchAt >= 0 && sp.prefetchAt <= need // the hot path would not see the point
	if due {
		sp.prefetchAt = -1
	}
	switch {
	case sp.hasTTL:
		sp.fast.Store(0)
	case sp.prefetchAt < 0:
		sp.fast.Store(sp.size)
	default:
		sp.fast.Store(sp.prefetchAt)
	}
	g.cur.Store(sp)
	if due {
		g.startPrefetchLocked(now) // after the Store: the rate it measures counts sp's ids
	}
}

func (g *Generator) unavailable(err error) error {
	return fmt.Errorf("segment %q: %w: %w", g.key, ErrUnavailable, err)
}

func (g *Generator) errClosed() error { return fmt.Errorf("segment %q: %w", g.key, ErrClosed) }

// failureState is the backoff after failed reservations: callers fail fast until
// the retry time (internal/backoff). A Generator has one only from a failure to the
// next success: a nil one is the state of a generator that has not failed, which
// is most of them, and each key of a keyed runtime holds a Generator.
type failureState struct {
	backoff.Backoff
	fatal error       // a failure that no retry can mend: sealed, exhausted, refused
	retry *time.Timer // the background retry at the end of the backoff
	last  error       // of the last reservation, which failed: Stats.LastError
}

// failing returns g's failure state, making it at a failure.
func (g *Generator) failing() *failureState {
	if g.failures == nil {
		g.failures = new(failureState)
	}
	return g.failures
}

// recordLocked files the outcome of a reservation for Stats.
func (g *Generator) recordLocked(size int64, took time.Duration, err error) {
	g.stats.record(size, took, err)
	if err != nil {
		g.failing().last = err
	}
}

// recoverLocked ends the failure state after a success and returns the failures it
// ends.
func (g *Generator) recoverLocked() int {
	f := g.failures
	if f == nil {
		return 0
	}
	f.stopRetry()
	g.failures = nil
	return f.Reset()
}

// check returns nil when a reservation may start now, and otherwise why not.
func (f *failureState) check(now time.Time) error {
	switch {
	case f == nil:
		return nil
	case f.fatal != nil:
		return f.fatal
	}
	return f.Err(now)
}

func (f *failureState) isFatal() bool { return f != nil && f.fatal != nil }

// lastErr is the error of the last reservation, nil after a success.
func (f *failureState) lastErr() error {
	if f == nil {
		return nil
	}
	return f.last
}

// fail records err and schedules retry at the end of the backoff. It returns the
// backoff, or 0 when err is for good.
func (f *failureState) fail(err error, now time.Time, retry func()) time.Duration {
	if errors.Is(err, store.ErrSealed) || errors.Is(err, store.ErrExhausted) || errors.Is(err, store.ErrInvalidArgument) {
		f.fatal = err
		return 0
	}
	wait := f.Fail(err, now)
	f.stopRetry()
	f.retry = time.AfterFunc(wait, retry)
	return wait
}

func (f *failureState) stopRetry() {
	if f != nil && f.retry != nil {
		f.retry.Stop()
		f.retry = nil
	}
}

// growthLimit bounds how much faster than the ids taken since the previous
// reservation the next one may be sized: the rate is measured over windows of at
// least Lookahead/growthLimit, so a short burst (a few ids at start-up) does not look
// like a flood and burn a large block.
const growthLimit = 10

// rateMeter measures how fast ids are taken, over windows of at least a given length
// that end at reservation requests.
type rateMeter struct {
	retired int64     // ids taken from ranges no longer in use
	at      time.Time // the start of the current window
	issued  int64     // ids taken by then
	rate    float64   // ids/s over the last whole window
	est     float64   // the latest estimate
}

// measure returns the rate of ids taken at now, when issued ids have been taken in
// all: the rate of the last whole window, or of the current one if that is faster
// already. Requests close together thus neither inflate nor deflate it.
func (m *rateMeter) measure(now time.Time, issued int64, window time.Duration) float64 {
	elapsed := now.Sub(m.at)
	if m.at.IsZero() || elapsed < 0 {
		// The first request, or the clock stepped back (a clock with no monotonic
		// reading): the window would never end and the ids taken meanwhile would
		// look like a flood. Start a new one and keep the estimate.
		m.at, m.issued = now, issued
		return m.est // 0, or the rate a Periodic carried over from the period before
	}
	current := float64(issued-m.issued) / max(elapsed, window, time.Microsecond).Seconds()
	if elapsed >= window {
		m.rate, m.at, m.issued = current, now, issued
		m.est = current
	} else {
		m.est = max(m.rate, current)
	}
	return m.est
}
