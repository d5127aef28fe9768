// Package snowflake hands out Snowflake ids: non-negative int64s made of a time, a
// machine and a sequence (see Layout), unique across every generator of a namespace
// without a store call per id.
//
// New takes the machine from a slot lease (store.SlotLeaseStore), so that no two
// live instances share one, and renews the lease in the background. The lease's
// Floor and Ceiling bound the times the generator stamps: it never stamps a time
// below the Floor (above every time the slot's earlier owner could have used) nor
// above the Ceiling (below every time its next owner will use), whatever the clocks
// do. When the lease is lost, or the clock reaches the Ceiling because renewals kept
// failing, the generator stops for good with an error wrapping ErrLeaseLost rather
// than risk a duplicate. NewFixed takes the machine from the caller instead, and
// with WithStateFile keeps, in a file of its own, the time up to which its ids may
// be stamped, so that a restart with the clock set back stamps none of them again.
//
// A layout wider than an int64 (WithWideIDs, as CosIDGeneratorLayout's 80 bits) has
// the same guards: its generator hands out each id's time and sequence (NextStamp),
// which the caller writes with the machine.
//
// The clock may be off the store's by the tolerance (WithTolerance) either way. New
// refuses a clock off by more, with an error wrapping ErrClockSkew. A generator whose
// clock then gets ahead of the store's time by more than the tolerance, judged by
// the last lease answer and the monotonic clock since, stops before it stamps such
// a time, with an error wrapping ErrLeaseLost and ErrClockSkew, and releases its
// slot at its last id. So no owner leaves a slot a Floor further ahead of the
// store's time than the tolerance, and New waits for a Floor at most about twice
// the tolerance. A clock that falls behind the store's only makes the ids' times
// late; the generator logs it. The monotonic clock stands still while the machine
// sleeps in a system suspend, so a generator on a machine resumed from a suspend
// longer than the tolerance stops as if its clock had jumped ahead.
//
// Within one generator the ids strictly increase. A clock that moves back behind
// the last id is waited for, up to a threshold (WithClockBackwards), then refused
// with ErrClockBackwards; a sequence used up within one Unit waits for the next.
//
// # How old a stamp can be
//
// Reading the clock costs more than the rest of Next, so Next does not read it for
// every id. With the default clock a goroutine of the generator reads it at each
// Unit's start and publishes the Unit; Next stamps the published Unit, and reads the
// clock itself for the first id of a Unit and every 1,024th id. So a stamp lies
// behind the time Next returns by less than one Unit (the truncation every
// Snowflake id has) plus the delay with which the runtime runs that goroutine:
// microseconds on an idle machine. When every processor is busy, callers that make
// ids in a stream still read the clock every 1,024 ids; only a lone call can then
// get a stamp late by up to the Go scheduler's preemption delay, about 10ms. After a
// few idle Units the goroutine parks, and the next call reads the clock itself. An
// injected clock (WithClock) is read on every call.
//
// A stamp is never ahead of the clock, unless the clock moved back: the generator
// then keeps to its last id's time and waits as above, after at most one Unit, or
// 1,024 ids, at that time before it notices.
package snowflake

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
	// ErrLeaseLost means the generator stopped because its slot lease was lost, or
	// could not be renewed before the clock reached its ceiling. The error also
	// wraps the store's error where there is one. It matches store.ErrUnavailable
	// (and so cosid.ErrUnavailable) with errors.Is: a new generator (New) leases a
	// slot again once the store answers.
	ErrLeaseLost = store.Sentinel("slot lease lost", store.ErrUnavailable)
	// ErrClockBackwards means the clock is further behind the last id's time than
	// the generator waits for. It matches store.ErrUnavailable (and so
	// cosid.ErrUnavailable) with errors.Is: a later call may succeed.
	ErrClockBackwards = store.Sentinel("clock moved backwards", store.ErrUnavailable)
	// ErrClockSkew means the clock is off the store's by more than the tolerance
	// (WithTolerance): New refuses such a clock, and a generator whose clock gets
	// ahead of the store's stops with an error wrapping both this and ErrLeaseLost.
	ErrClockSkew = errors.New("clock off the store's by more than the tolerance")
	// ErrClosed means the generator was closed.
	ErrClosed = errors.New("generator closed")
	// ErrWideIDs means Next was called on a generator of ids wider than an int64
	// (WithWideIDs), whose ids NextStamp hands out.
	ErrWideIDs = errors.New("ids wider than an int64")
)

const (
	stopped   = math.MaxInt64 // the state of a stopped generator
	noTick    = math.MinInt64 // cur when no goroutine publishes the Unit
	readEvery = 1024          // Next reads the clock itself at least once every readEvery ids
	maxSpins  = 1 << 14       // clock reads a wait spins for at most before it sleeps
	parkAfter = 8             // idle Units before the clock goroutine parks
)

// Generator hands out the Snowflake ids of one machine. It is safe for concurrent
// use.
type Generator struct {
	// Read by every Next: cur changes once a Unit, the rest never.
	cur   atomic.Int64 // the Unit last read from the clock, or noTick
	kmask int64        // the low sequence bits that make Next read the clock when they wrap; 0 for wide ids
	// smask is kmask for NextStamp. A generator of wide ids (WithWideIDs) has a
	// kmask of 0, so that its Next always takes the slow path, which refuses it:
	// the fast path of Next pays nothing for the refusal.
	smask   int64
	seqMask int64
	machine int64 // shifted into place
	seqBits uint
	macBits uint
	_       [8]byte

	// state is tick<<SequenceBits | sequence of the last id, or stopped. Every Next
	// writes it, so it has a cache line of its own.
	state atomic.Int64
	_     [56]byte

	layout          Layout
	epochMs, unitMs int64
	maxTick         int64
	ceil            atomic.Int64 // the last Unit the lease, or the state file, allows
	now             func() time.Time
	watch           bool // a goroutine publishes the Unit in cur
	o               options

	parked    atomic.Bool
	wake      chan struct{}
	err       atomic.Pointer[error] // why the generator stopped
	final     int64                 // the state of the last id, when the lease stopped it; read after lost is closed
	lost      chan struct{}         // closed when the lease is lost
	done      chan struct{}         // closed by Close
	closeOnce sync.Once
	wg        sync.WaitGroup
	ctx       context.Context // canceled by Close; every renewal runs under it
	cancel    context.CancelFunc

	saved *stateFile // a NewFixed generator's state file (WithStateFile); nil without one

	leases     store.SlotLeaseStore        // nil for NewFixed
	lease      atomic.Pointer[store.Lease] // nil for NewFixed; replaced by the background goroutine
	ref        atomic.Pointer[storeClock]  // the store's clock by the last lease answer; nil for NewFixed
	ttl        time.Duration
	renewEvery time.Duration
	slot       int
	namespace  string
}

// newGenerator returns a generator of machine without a lease: its ceiling is the
// end of time and its first id may have any time. It starts no goroutine.
func newGenerator(machine int, l Layout, opts []Option) (*Generator, error) {
	o := buildOptions(opts)
	if err := l.validate(o.wide); err != nil {
		return nil, err
	}
	if maxM := int64(1)<<l.MachineBits - 1; machine < 0 || int64(machine) > maxM {
		return nil, fmt.Errorf("snowflake: %w: machine %d, want 0–%d (%d MachineBits)", store.ErrInvalidArgument, machine, maxM, l.MachineBits)
	}
	if err := o.check(l); err != nil {
		return nil, err
	}
	g := &Generator{
		seqMask: int64(1)<<l.SequenceBits - 1,
		machine: int64(machine) << l.SequenceBits,
		seqBits: uint(l.SequenceBits),
		macBits: uint(l.MachineBits),
		layout:  l,
		epochMs: l.Epoch.UnixMilli(),
		unitMs:  l.Unit.Milliseconds(),
		maxTick: int64(1)<<l.TimestampBits - 1,
		now:     o.now,
		watch:   o.now == nil,
		o:       o,
		wake:    make(chan struct{}, 1),
		lost:    make(chan struct{}),
		done:    make(chan struct{}),
		slot:    machine,
	}
	g.smask = min(readEvery, g.seqMask+1) - 1
	if !o.wide {
		g.kmask = g.smask
	}
	if g.watch {
		g.now = time.Now
		g.parked.Store(true)
	}
	g.cur.Store(noTick)
	g.ceil.Store(math.MaxInt64)
	g.state.Store(-1) // tick -1 with its sequence used up: the first id starts a tick
	g.ctx, g.cancel = context.WithCancel(context.Background())
	now, tick := g.clock()
	switch {
	case tick < 0:
		return nil, fmt.Errorf("snowflake: %w: the clock reads %v, before the layout's epoch %v", ErrClockBackwards, now.UTC(), l.Epoch)
	case tick > g.maxTick:
		return nil, fmt.Errorf("snowflake: the clock reads %v, past the layout's last time %v: %w", now.UTC(), g.timeOf(g.maxTick), store.ErrExhausted)
	}
	return g, nil
}

// NewFixed returns a generator of the given machine, for deployments that assign
// machines by hand; nothing stops two instances from using one machine. Close stops
// its clock goroutine.
//
// The Unit current at NewFixed is never stamped: the generator starts at the next
// one, so its first Next waits for the rest of that Unit (up to a second with a
// one-second Unit), unless it comes later. An earlier generator of the machine, such
// as the last run of a one-shot command, may have stamped that Unit before it
// stopped; without a store the new one cannot know, and a restart within the Unit
// would otherwise repeat its ids. What this cannot catch is a clock set back across
// a restart, below the Units the earlier generator stamped, unless the generator
// keeps a state file (WithStateFile), as a leased slot (New) keeps the last time in
// its Floor.
func NewFixed(machine int, l Layout, opts ...Option) (*Generator, error) {
	if buildOptions(opts).base != 0 {
		return nil, fmt.Errorf("snowflake: %w: WithMachineBase is of a leased machine (New); NewFixed takes the machine itself", store.ErrInvalidArgument)
	}
	g, err := newGenerator(machine, l, opts)
	if err != nil {
		return nil, err
	}
	_, tick := g.clock()
	first := tick + 1
	if path := g.o.statePath; path != "" {
		if first, err = g.startState(path, first); err != nil {
			return nil, err
		}
	}
	g.state.Store(first<<g.seqBits - 1) // the Unit before first with its sequence used up
	g.start()
	return g, nil
}

func (g *Generator) start() {
	if g.watch || g.leases != nil || g.saved != nil {
		g.wg.Add(1)
		go g.run()
	}
}

// Machine returns the generator's machine: for a generator made by New, its slot
// plus the base of WithMachineBase.
func (g *Generator) Machine() int { return g.o.base + g.slot }

// Layout returns the generator's layout, to take its ids apart.
func (g *Generator) Layout() Layout { return g.layout }

// Next returns the next id. It takes no lock and allocates nothing: most calls make
// two atomic loads and one compare-and-swap. It fails with an error wrapping
// ErrLeaseLost (and ErrClockSkew when the clock got ahead of the store's), ErrClosed,
// ErrClockBackwards, ErrStateFile, or store.ErrExhausted when the layout's time has
// run out. A generator of wide ids (WithWideIDs) has no int64 ids: its Next fails
// with an error wrapping ErrWideIDs.
func (g *Generator) Next() (int64, error) {
	v := g.state.Load()
	if n := v + 1; n&g.kmask != 0 && v>>g.seqBits == g.cur.Load() && g.state.CompareAndSwap(v, n) {
		return g.compose(n), nil
	}
	if g.o.wide {
		return 0, fmt.Errorf("snowflake: machine %d: %w: its ids do not fit an int64; use NextStamp", g.slot, ErrWideIDs)
	}
	n, err := g.advance()
	if err != nil {
		return 0, err
	}
	return g.compose(n), nil
}

// NextStamp returns the time (a Unit since the layout's epoch) and the sequence of
// the next id, which Next would compose with the machine into an int64: for ids
// wider than an int64 holds (WithWideIDs), which the caller writes with Machine. It
// is Next in every other way: the same ids in the same order, the same guards and
// errors, no lock and no allocation.
func (g *Generator) NextStamp() (tick int64, seq int, err error) {
	v := g.state.Load()
	if n := v + 1; n&g.smask != 0 && v>>g.seqBits == g.cur.Load() && g.state.CompareAndSwap(v, n) {
		return n >> g.seqBits, int(n & g.seqMask), nil
	}
	n, err := g.advance()
	if err != nil {
		return 0, 0, err
	}
	return n >> g.seqBits, int(n & g.seqMask), nil
}

// advance is Next when the id is not one more of the published Unit: it reads the
// clock, and returns the state of the id, its Unit and its sequence.
func (g *Generator) advance() (int64, error) {
	for {
		v := g.state.Load()
		if v == stopped {
			return 0, *g.err.Load()
		}
		now, tick := g.clock()
		g.publish(tick)
		last := v >> g.seqBits
		switch {
		case tick > last:
			if err := g.checkAhead(now); err != nil {
				g.halt(err, true)
				continue
			}
			if tick > g.ceil.Load() && g.saved == nil {
				g.halt(fmt.Errorf("snowflake: slot %d of namespace %q: %w: the clock reached %v, past the lease's ceiling %v, before a renewal",
					g.slot, g.namespace, ErrLeaseLost, now.UTC(), g.timeOf(g.ceil.Load())), true)
				continue
			}
			if tick > g.maxTick {
				return 0, fmt.Errorf("snowflake: the clock reads %v, past the layout's last time %v: %w", now.UTC(), g.timeOf(g.maxTick), store.ErrExhausted)
			}
			if tick > g.ceil.Load() { // past what the state file allows: write it first
				if err := g.extend(now, tick); err != nil {
					return 0, err
				}
				continue
			}
			if n := tick << g.seqBits; g.state.CompareAndSwap(v, n) {
				return n, nil
			}
		case tick == last && v&g.seqMask != g.seqMask:
			if g.state.CompareAndSwap(v, v+1) {
				return v + 1, nil
			}
		case tick == last:
			g.waitFor(last+1, now)
		case tick < 0:
			return 0, fmt.Errorf("snowflake: %w: the clock reads %v, before the layout's epoch %v", ErrClockBackwards, now.UTC(), g.layout.Epoch)
		default:
			if behind := g.timeOf(last).Sub(now); behind > g.o.broken {
				return 0, fmt.Errorf("snowflake: %w: the clock reads %v, %v behind the last id's time %v, over the %v that Next waits",
					ErrClockBackwards, now.UTC(), behind, g.timeOf(last), g.o.broken)
			}
			g.waitFor(last, now)
		}
	}
}

func (g *Generator) compose(n int64) int64 {
	return (n&^g.seqMask)<<g.macBits | g.machine | n&g.seqMask
}

// halt stops the generator with err, and reports the state of its last id and
// whether this call stopped it. lost tells the background goroutine to report err.
func (g *Generator) halt(err error, lost bool) (int64, bool) {
	if !g.err.CompareAndSwap(nil, &err) {
		return 0, false
	}
	last := g.state.Swap(stopped)
	if lost {
		g.final = last
		close(g.lost)
	}
	return last, true
}

// Close stops the generator and its background work, and releases its lease with
// the time of the last id, so that the slot's next owner may start right above it.
// Later calls of Next fail with ErrClosed. Close does not close the store.
func (g *Generator) Close() error {
	last, first := g.halt(fmt.Errorf("snowflake: machine %d: %w", g.slot, ErrClosed), false)
	g.closeOnce.Do(func() {
		close(g.done)
		g.cancel()
	})
	g.wg.Wait()
	if first && g.saved != nil {
		return g.closeState(last)
	}
	if !first || g.leases == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.renewEvery)
	defer cancel()
	lastMs, _ := g.layout.msOf(last >> g.seqBits)
	l := *g.lease.Load()
	if err := g.leases.Release(ctx, l, lastMs); err != nil {
		err = fmt.Errorf("snowflake: release slot %d of namespace %q: %w", g.slot, g.namespace, err)
		g.o.observer.LeaseLost(l, err)
		return err
	}
	g.o.observer.LeaseReleased(l)
	return nil
}
