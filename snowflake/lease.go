package snowflake

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cosid-go/cosid/store"
)

// New acquires a slot of the namespace (WithNamespace) from leases and returns a
// generator whose machine is that slot. It refuses a clock that is off the store's
// by more than the tolerance (ErrClockSkew), and waits, under ctx, until the clock
// reaches the lease's Floor: at most about twice the tolerance, since no owner
// stamps further ahead of the store's time than the tolerance. A slot whose Floor
// lies further ahead than New waits (twice the tolerance and the broken threshold
// of WithClockBackwards), as one left by an owner of an older version could, New
// skips for another free one, up to eight; with none free it fails with an error
// wrapping ErrClockBackwards. The lease is renewed in the background every third of
// its TTL, and during a long wait for the Floor; Close releases it. The store is not
// closed with the generator.
func New(ctx context.Context, leases store.SlotLeaseStore, l Layout, opts ...Option) (*Generator, error) {
	if leases == nil {
		return nil, fmt.Errorf("snowflake: %w: nil SlotLeaseStore", store.ErrInvalidArgument)
	}
	g, err := newGenerator(0, l, opts)
	if err != nil {
		return nil, err
	}
	if g.o.statePath != "" {
		return nil, fmt.Errorf("snowflake: %w: a state file is for a fixed machine (NewFixed); a lease carries the last time in its Floor", store.ErrInvalidArgument)
	}
	req, err := g.o.leaseRequest(l)
	if err != nil {
		return nil, err
	}
	sent := time.Now()
	lease, err := leases.Acquire(ctx, req)
	if err != nil {
		return nil, acquireError(req, err)
	}
	var skipped []store.Lease // held until New ends, so that the store offers other slots
	defer func() { g.releaseUnused(leases, skipped, nil) }()
	for {
		err := g.useLease(ctx, leases, req, lease, sent)
		if err == nil {
			break
		}
		held := *g.lease.Load()
		if _, far := errors.AsType[floorAheadError](err); !far || len(skipped) == maxSkips {
			return nil, g.releaseUnused(leases, []store.Lease{held}, err)
		}
		g.o.logger.Warn("snowflake: skipping a slot whose floor lies too far ahead", "namespace", held.Namespace, "slot", held.Slot, "error", err)
		skipped = append(skipped, held)
		sent = time.Now()
		next, aerr := leases.Acquire(ctx, req)
		switch {
		case errors.Is(aerr, store.ErrNoFreeSlot):
			return nil, err // the slot's floor is the trouble, not the namespace
		case aerr != nil:
			return nil, acquireError(req, aerr)
		}
		lease = next
	}
	lease = *g.lease.Load()
	g.o.logger.Info("snowflake: slot acquired", "namespace", lease.Namespace, "owner", lease.OwnerKey,
		"slot", lease.Slot, "fence", lease.Fence, "floor_ms", lease.Floor)
	g.o.observer.LeaseAcquired(lease)
	g.start()
	return g, nil
}

// maxSkips is how many slots whose floors lie too far ahead New skips.
const maxSkips = 8

// floorAheadError is the error of a slot whose floor lies further ahead of the
// clock than New waits; New then asks for another slot.
type floorAheadError struct{ error }

func (e floorAheadError) Unwrap() error { return e.error }

// releaseUnused releases leases New took and will not use, as having stamped
// nothing, and returns err with the errors of the releases.
func (g *Generator) releaseUnused(leases store.SlotLeaseStore, held []store.Lease, err error) error {
	if len(held) == 0 {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.renewEvery)
	defer cancel()
	for _, l := range held {
		if rerr := leases.Release(ctx, l, l.Floor-1); rerr != nil {
			g.o.logger.Warn("snowflake: releasing an unused slot failed", "namespace", l.Namespace, "slot", l.Slot, "error", rerr)
			if err != nil {
				err = fmt.Errorf("%w (and its release failed: %w)", err, rerr)
			}
		}
	}
	return err
}

// acquireError wraps the error of an Acquire, saying what New asked for unless the
// store's error says so already, as sqlstore's does.
func acquireError(req store.LeaseRequest, err error) error {
	if strings.Contains(err.Error(), "acquire a slot of namespace") {
		return fmt.Errorf("snowflake: %w", err)
	}
	return fmt.Errorf("snowflake: acquire a slot of namespace %q for %q: %w", req.Namespace, req.OwnerKey, err)
}

// useLease makes lease, which the store answered to a request sent at sent, the
// generator's: its slot the machine, its Floor and Ceiling the bounds of the
// stamps. It refuses a clock off the store's beyond the tolerance, and waits for the
// clock to reach the Floor.
func (g *Generator) useLease(ctx context.Context, leases store.SlotLeaseStore, req store.LeaseRequest, lease store.Lease, sent time.Time) error {
	g.leases, g.ttl, g.renewEvery = leases, req.TTL, req.TTL/3
	g.slot, g.namespace = lease.Slot, lease.Namespace
	g.ceil.Store(g.floorTick(lease.Ceiling)) // adopt only raises it, from the end of time of a generator without a lease
	g.adopt(lease, sent)
	if lease.Slot < 0 || lease.Slot >= req.Limit {
		return fmt.Errorf("snowflake: the store leased slot %d of namespace %q, outside [0, %d)", lease.Slot, lease.Namespace, req.Limit)
	}
	if err := g.checkSkew(true); err != nil {
		return err
	}
	g.machine = int64(g.o.base+lease.Slot) << g.seqBits
	floor := max(g.ceilTick(lease.Floor), 0)
	if plantIgnoreFloor {
		floor = 0
	}
	if floor > g.maxTick {
		return fmt.Errorf("snowflake: slot %d of namespace %q has its floor %v past the layout's last time %v: %w",
			lease.Slot, lease.Namespace, time.UnixMilli(lease.Floor).UTC(), g.timeOf(g.maxTick), store.ErrExhausted)
	}
	g.state.Store(floor<<g.seqBits - 1)
	return g.awaitFloor(ctx, floor, req.Tolerance)
}

// awaitFloor waits until the clock reaches Unit floor, renewing the lease every
// renewEvery meanwhile, so that the lease New returns is live.
func (g *Generator) awaitFloor(ctx context.Context, floor int64, tolerance time.Duration) error {
	now, _ := g.clock()
	ahead := g.timeOf(floor).Sub(now)
	if limit := 2*tolerance + g.o.broken; ahead > limit {
		return floorAheadError{fmt.Errorf("snowflake: slot %d of namespace %q: %w: the clock reads %v, %v behind the slot's floor %v, more than twice the tolerance and %v",
			g.slot, g.namespace, ErrClockBackwards, now.UTC(), ahead, g.timeOf(floor), g.o.broken)}
	}
	for ahead > 0 {
		renewAt := g.ref.Load().sent.Add(g.renewEvery)
		t := time.NewTimer(min(ahead, time.Until(renewAt)))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("snowflake: waiting %v for the clock to reach the floor of slot %d: %w", ahead, g.slot, ctx.Err())
		}
		if !time.Now().Before(renewAt) {
			if err := g.renewNow(ctx); err != nil {
				return fmt.Errorf("snowflake: renew slot %d of namespace %q while waiting for its floor: %w", g.slot, g.namespace, err)
			}
			if err := g.checkSkew(true); err != nil {
				return err
			}
		}
		now, _ = g.clock()
		ahead = g.timeOf(floor).Sub(now)
	}
	return nil
}

// renewNow renews the lease under ctx, bounded by renewEvery, and makes the answer
// the generator's.
func (g *Generator) renewNow(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, g.renewEvery)
	defer cancel()
	sent := time.Now()
	l, err := g.leases.Renew(ctx, *g.lease.Load(), g.ttl)
	if err != nil {
		return err
	}
	g.adopt(l, sent)
	return nil
}

// renewLease renews the lease and returns when to renew it next.
func (g *Generator) renewLease() time.Duration {
	err := g.renewNow(g.ctx)
	switch {
	case err == nil:
		g.o.observer.LeaseRenewed(*g.lease.Load())
		if err := g.checkSkew(false); err != nil {
			g.halt(err, true)
		}
		return g.renewEvery
	case errors.Is(err, store.ErrLeaseLost):
		g.halt(fmt.Errorf("snowflake: slot %d of namespace %q: %w: %w", g.slot, g.namespace, ErrLeaseLost, err), true)
	case g.ctx.Err() != nil: // closing
	default:
		g.o.logger.Warn("snowflake: lease renewal failed", "namespace", g.namespace, "slot", g.slot, "error", err)
		if _, tick := g.clock(); tick > g.ceil.Load() {
			g.halt(fmt.Errorf("snowflake: slot %d of namespace %q: %w: the clock passed the lease's ceiling %v before a renewal succeeded: %w",
				g.slot, g.namespace, ErrLeaseLost, g.timeOf(g.ceil.Load()), err), true)
		}
	}
	return max(g.renewEvery/4, time.Millisecond)
}

// adopt makes l, which the store answered to a request sent at sent, the
// generator's lease and the reference of its skew checks.
func (g *Generator) adopt(l store.Lease, sent time.Time) {
	g.lease.Store(&l)
	g.raiseCeiling(l.Ceiling)
	g.ref.Store(&storeClock{sent: sent, storeNs: l.StoreNow.UnixNano()})
}

// stopped reports the error the generator stopped with, and releases the lease
// when the generator gave it up for a clock ahead of the store's: its next owner
// may then start right above the last id rather than wait for the lease's expiry.
func (g *Generator) stopped() {
	err := *g.err.Load()
	g.o.logger.Error("snowflake: generator stopped", "namespace", g.namespace, "slot", g.slot, "error", err)
	l := *g.lease.Load()
	g.o.observer.LeaseLost(l, err)
	if g.o.onLost != nil {
		g.o.onLost(err)
	}
	if !errors.Is(err, ErrClockSkew) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.renewEvery)
	defer cancel()
	lastMs, _ := g.layout.msOf(g.final >> g.seqBits)
	if err := g.leases.Release(ctx, l, lastMs); err != nil {
		g.o.logger.Warn("snowflake: release after the clock skew failed", "namespace", g.namespace, "slot", g.slot, "error", err)
	}
}

// raiseCeiling moves the last Unit the lease allows up to the one of ceilingMs.
func (g *Generator) raiseCeiling(ceilingMs int64) {
	t := g.floorTick(ceilingMs)
	for {
		c := g.ceil.Load()
		if t <= c || g.ceil.CompareAndSwap(c, t) {
			return
		}
	}
}

// floorTick returns the last Unit that starts at or before epoch milliseconds ms;
// ceilTick the first that starts at or after it.
func (g *Generator) floorTick(ms int64) int64 {
	d := ms - g.epochMs
	t := d / g.unitMs
	if d%g.unitMs < 0 {
		t--
	}
	return t
}

func (g *Generator) ceilTick(ms int64) int64 {
	d := ms - g.epochMs
	t := d / g.unitMs
	if d%g.unitMs > 0 {
		t++
	}
	return t
}
