package segment

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid/store"
)

// PeriodicPolicy says when a Periodic prepares the next period and seals past ones.
type PeriodicPolicy struct {
	// Prewarm is how long before a period ends the next period's generator starts
	// reserving, so that crossing the boundary needs no store call.
	Prewarm time.Duration
	// SealAfter seals a past period's key this long after the period ended: an
	// instance whose clock lags and still asks for that period then fails with
	// store.ErrSealed instead of handing out a number of a closed period. Zero never
	// seals; use a day or more.
	SealAfter time.Duration
}

// DefaultPeriodicPolicy returns Prewarm 1m and no sealing.
func DefaultPeriodicPolicy() PeriodicPolicy { return PeriodicPolicy{Prewarm: time.Minute} }

// Validate reports the first field of p that NewPeriodic would refuse, as a
// *PolicyError.
func (p PeriodicPolicy) Validate() error {
	switch {
	case p.Prewarm < 0:
		return &PolicyError{Policy: "PeriodicPolicy", Field: "Prewarm", Reason: fmt.Sprintf("is %v, want ≥ 0", p.Prewarm)}
	case p.SealAfter < 0:
		return &PolicyError{Policy: "PeriodicPolicy", Field: "SealAfter", Reason: fmt.Sprintf("is %v, want ≥ 0 (0: never)", p.SealAfter)}
	}
	return nil
}

// Periodic hands out ids of a sequence that restarts every period (year, month or
// day, in an explicit zone), for bill numbers like 20261027-000042. Each period's
// values come from a Generator of the key "{key}/{period}", such as
// "app/bill/20261027", and start at the BatchPolicy's InitialOffset.
//
// A Periodic holds at most two generators: the current period's and, from Prewarm
// before the period ends, the next one's, so crossing the boundary makes no store
// call on the hot path. Periods only move forward: when the clock steps back across a
// boundary, ids stay in the newer period. Keys are never deleted at run time; old
// periods are removed offline (cosid purge). A Periodic is safe for concurrent use.
type Periodic struct {
	cur    atomic.Pointer[epoch]
	base   string
	st     store.RangeStore
	period Period
	loc    *time.Location
	batch  BatchPolicy
	policy PeriodicPolicy
	opts   []Option // of every period's Generator
	// Of the options, those a Periodic uses itself: a keyed runtime holds one a
	// key, so it keeps no copy of the rest, which its generators have.
	now    func() time.Time
	logger *slog.Logger

	wg sync.WaitGroup // seal attempts and closes of retired generators under way

	mu       sync.Mutex
	next     *epoch // the next period's, once prewarmed
	closed   bool
	noTimers bool
	prewarm  *time.Timer
	sealing  *sealing // with SealAfter only
}

// sealing is the state of a Periodic that seals past periods.
type sealing struct {
	ctx    context.Context // canceled by Close
	cancel context.CancelFunc
	timers map[string]*time.Timer // by period key
}

// epoch is one period and its generator.
type epoch struct {
	key        string // "20261027"
	start, end int64  // unix ns: [start, end)
	prewarmAt  int64
	gen        *Generator
	// fastUntil bounds the hot path: until prewarmAt while the next period is not
	// prepared, then until end.
	fastUntil atomic.Int64
}

// NewPeriodic returns a Periodic of key in st that restarts every period in loc.
// Like New, it starts reserving in the background and does no I/O itself.
func NewPeriodic(st store.RangeStore, key string, period Period, loc *time.Location,
	b BatchPolicy, p PeriodicPolicy, opts ...Option) (*Periodic, error) {
	switch {
	case !period.valid():
		return nil, fmt.Errorf("segment: %w: %v for key %q, want Year, YearMonth or YearMonthDay", store.ErrInvalidArgument, period, key)
	case loc == nil:
		return nil, fmt.Errorf("segment: %w: nil time zone for periodic key %q: the zone is explicit", store.ErrInvalidArgument, key)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if err := store.CheckKey(key + "/" + period.layout()); err != nil {
		return nil, fmt.Errorf("segment: periodic key %q with its period: %w", key, err)
	}
	pd := &Periodic{
		base: key, st: st, period: period, loc: loc, batch: b, policy: p,
		opts: slices.Clip(opts),
	}
	o := buildOptions(opts)
	pd.now, pd.logger, pd.noTimers = o.now, o.logger, o.noTimers
	if pd.noTimers && p.SealAfter > 0 {
		return nil, &PolicyError{Policy: "PeriodicPolicy", Field: "SealAfter", Reason: fmt.Sprintf(
			"is %v, and WithoutTimers arms no timer to seal with; leave it 0 and seal past periods offline", p.SealAfter)}
	}
	if p.SealAfter > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		pd.sealing = &sealing{ctx: ctx, cancel: cancel, timers: map[string]*time.Timer{}}
	}
	now := pd.now().In(loc)
	first, err := pd.newEpoch(now, 0)
	if err != nil {
		return nil, err
	}
	pd.mu.Lock()
	defer pd.mu.Unlock()
	pd.installLocked(first, now.UnixNano())
	prev := period.Start(now).Add(-time.Nanosecond)
	pd.scheduleSealLocked(period.Key(prev), first.start, now.UnixNano()) // a restart seals what it missed
	return pd, nil
}

// Next returns the next id of the current period. On the hot path it reads the clock
// once and calls the period's Generator.Next.
func (p *Periodic) Next() (GroupedID, error) {
	for {
		e := p.cur.Load()
		if n := p.now().UnixNano(); n < e.start || n >= e.fastUntil.Load() {
			var err error
			if e, err = p.turn(n); err != nil {
				return GroupedID{}, err
			}
		}
		v, err := e.gen.Next()
		if err == nil {
			return GroupedID{Period: e.key, Value: v}, nil
		}
		if !errors.Is(err, ErrClosed) || p.isClosed() {
			return GroupedID{}, err
		}
		// e's period ended while this call ran, and its generator was closed: the
		// call completes in the period of now.
	}
}

// turn returns the epoch that serves a call at n (unix ns): the current one, after
// preparing the next period if it is time, or the period of n once the current one
// has ended.
func (p *Periodic) turn(n int64) (*epoch, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, fmt.Errorf("segment %q: %w", p.base, ErrClosed)
	}
	cur := p.cur.Load()
	if n < cur.end { // in the current period, or before it: periods never go back
		if n >= cur.prewarmAt {
			p.prewarmLocked(cur)
		}
		return cur, nil
	}
	t := time.Unix(0, n).In(p.loc)
	next := p.next
	p.next = nil
	if next == nil || next.key != p.period.Key(t) {
		if next != nil {
			p.retireLocked(next) // the clock jumped past it
		}
		var err error
		if next, err = p.newEpoch(t, cur.gen.rate()); err != nil {
			return nil, err
		}
	}
	p.retireLocked(cur)
	next.gen.restartRate()
	p.installLocked(next, n)
	return next, nil
}

// retireLocked closes e's generator in the background: Close waits for a reservation
// under way, which a store may finish late, and no caller should wait for that.
// Periodic.Close waits for it. A retired period is past, or one the clock jumped
// over: its unused tail is never given back (S7), so no restart hands out a number
// of a period that ended.
func (p *Periodic) retireLocked(e *epoch) {
	p.wg.Go(func() { e.gen.close(false) })
}

// newEpoch starts a generator for the period that holds t, its first reservation
// sized for rate ids/s.
func (p *Periodic) newEpoch(t time.Time, rate float64) (*epoch, error) {
	if plantHostZone {
		t = t.In(time.Local)
	}
	start, end := p.period.Start(t), p.period.Next(t)
	key := p.period.Key(t)
	gen, err := New(p.st, p.base+"/"+key, p.batch, append(p.opts, withSeedRate(rate))...)
	if err != nil {
		return nil, err
	}
	return &epoch{
		key: key, start: start.UnixNano(), end: end.UnixNano(),
		prewarmAt: end.Add(-p.policy.Prewarm).UnixNano(), gen: gen,
	}, nil
}

// installLocked makes e the current epoch at n and arranges its prewarm and its seal.
func (p *Periodic) installLocked(e *epoch, n int64) {
	e.fastUntil.Store(e.prewarmAt)
	p.cur.Store(e)
	p.scheduleSealLocked(e.key, e.end, n)
	if p.prewarm != nil {
		p.prewarm.Stop()
	}
	if n >= e.prewarmAt {
		p.prewarmLocked(e)
		return
	}
	if p.noTimers {
		return // the first call inside the prewarm window prepares it (turn)
	}
	// Prepare the next period on time even if no call comes during the prewarm.
	p.prewarm = time.AfterFunc(time.Duration(e.prewarmAt-n), func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if !p.closed && p.cur.Load() == e {
			p.prewarmLocked(e)
		}
	})
}

// prewarmLocked starts the generator of the period after e's, and lets the hot path
// run to the end of e's period.
func (p *Periodic) prewarmLocked(e *epoch) {
	if p.next == nil && !p.closed {
		next, err := p.newEpoch(time.Unix(0, e.end).In(p.loc), e.gen.rate())
		if err != nil {
			p.logger.Error("segment: cannot prepare the next period", "key", p.base, "err", err)
			return
		}
		p.next = next
	}
	e.fastUntil.Store(e.end)
}

// scheduleSealLocked seals the period key that ended at end (unix ns), SealAfter later.
func (p *Periodic) scheduleSealLocked(key string, end, n int64) {
	if p.sealing == nil || p.sealing.timers[key] != nil {
		return
	}
	wait := max(time.Duration(end-n)+p.policy.SealAfter, 0)
	p.sealing.timers[key] = time.AfterFunc(wait, func() { p.seal(key, 0) })
}

const (
	sealBackoff    = time.Second
	sealBackoffMax = time.Minute
)

// seal seals a past period's key, retrying with backoff until it works or p closes.
// A store that cannot seal, or refuses the key, gets no retry: none could succeed.
func (p *Periodic) seal(key string, attempt int) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.wg.Add(1)
	p.mu.Unlock()
	defer p.wg.Done()

	full := p.base + "/" + key
	ctx, cancel := context.WithTimeout(p.sealing.ctx, p.batch.ReserveTimeout)
	err := p.st.Seal(ctx, full)
	cancel()
	switch {
	case err == nil:
		p.logger.Info("segment: sealed a past period", "key", full)
	case errors.Is(err, errors.ErrUnsupported):
		p.logger.Warn("segment: the store cannot seal past periods", "key", full, "err", err)
	case errors.Is(err, store.ErrInvalidArgument):
		p.logger.Error("segment: the store refused to seal a past period; not retried", "key", full, "err", err)
	default:
		wait := min(sealBackoff<<min(attempt, 6), sealBackoffMax)
		p.logger.Warn("segment: sealing a past period failed", "key", full, "err", err, "retry_in", wait)
		p.mu.Lock()
		if !p.closed {
			p.sealing.timers[key] = time.AfterFunc(wait, func() { p.seal(key, attempt+1) })
		}
		p.mu.Unlock()
	}
}

func (p *Periodic) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Close stops the Periodic's generators and background work, and waits for them.
// It does not close the store. Only the current period's generator gives back the
// unused tail of its last range (see Generator.Close), and only while its period is
// current by the Periodic's clock: a past or sealed period's key is never lowered,
// and the next period's, when prepared, keeps its first range as a gap.
func (p *Periodic) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	if p.prewarm != nil {
		p.prewarm.Stop()
	}
	if p.sealing != nil {
		for _, t := range p.sealing.timers {
			t.Stop()
		}
	}
	cur, next := p.cur.Load(), p.next
	p.next = nil
	current := p.now().UnixNano() < cur.end // periods never go back: before it is still it
	p.mu.Unlock()

	if p.sealing != nil {
		p.sealing.cancel()
	}
	cur.gen.close(current)
	if next != nil {
		next.gen.close(false)
	}
	p.wg.Wait()
	return nil
}
