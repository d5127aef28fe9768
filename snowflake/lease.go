package snowflake

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cosid-go/cosid/store"
)

// New acquires a slot of the namespace (WithNamespace) from leases and returns a
// generator whose machine is that slot. It waits, under ctx, until the clock reaches
// the lease's Floor, which takes at most about twice the tolerance when the slot's
// earlier owner ran ahead. The lease is renewed in the background every third of its
// TTL; Close releases it. The store is not closed with the generator.
func New(ctx context.Context, leases store.SlotLeaseStore, l Layout, opts ...Option) (*Generator, error) {
	if leases == nil {
		return nil, fmt.Errorf("snowflake: %w: nil SlotLeaseStore", store.ErrInvalidArgument)
	}
	g, err := newGenerator(0, l, opts)
	if err != nil {
		return nil, err
	}
	req, err := g.o.leaseRequest(l)
	if err != nil {
		return nil, err
	}
	lease, err := leases.Acquire(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("snowflake: acquire a slot of namespace %q for %q: %w", req.Namespace, req.OwnerKey, err)
	}
	if err := g.useLease(ctx, leases, req, lease); err != nil {
		rctx, cancel := context.WithTimeout(context.Background(), g.renewEvery)
		defer cancel()
		if rerr := leases.Release(rctx, lease, lease.Floor-1); rerr != nil {
			err = fmt.Errorf("%w (and its release failed: %w)", err, rerr)
		}
		return nil, err
	}
	g.o.logger.Info("snowflake: slot acquired", "namespace", lease.Namespace, "owner", lease.OwnerKey,
		"slot", lease.Slot, "fence", lease.Fence, "floor_ms", lease.Floor)
	g.o.observer.LeaseAcquired(lease)
	g.start()
	return g, nil
}

// useLease makes lease the generator's: its slot the machine, its Floor and Ceiling
// the bounds of the stamps. It waits for the clock to reach the Floor.
func (g *Generator) useLease(ctx context.Context, leases store.SlotLeaseStore, req store.LeaseRequest, lease store.Lease) error {
	g.leases, g.ttl, g.renewEvery = leases, req.TTL, req.TTL/3
	g.lease.Store(&lease)
	g.slot, g.namespace = lease.Slot, lease.Namespace
	if lease.Slot < 0 || lease.Slot >= req.Limit {
		return fmt.Errorf("snowflake: the store leased slot %d of namespace %q, outside [0, %d)", lease.Slot, lease.Namespace, req.Limit)
	}
	g.machine = int64(lease.Slot) << g.seqBits
	floor := max(g.ceilTick(lease.Floor), 0)
	if floor > g.maxTick {
		return fmt.Errorf("snowflake: slot %d of namespace %q has its floor %v past the layout's last time %v: %w",
			lease.Slot, lease.Namespace, time.UnixMilli(lease.Floor).UTC(), g.timeOf(g.maxTick), store.ErrExhausted)
	}
	g.state.Store(floor<<g.seqBits - 1)
	g.ceil.Store(g.floorTick(lease.Ceiling))
	now, _ := g.clock()
	g.checkSkew(now, lease)
	ahead := g.timeOf(floor).Sub(now)
	if ahead <= 0 {
		return nil
	}
	if limit := 2*req.Tolerance + g.o.broken; ahead > limit {
		return fmt.Errorf("snowflake: slot %d of namespace %q: %w: the clock reads %v, %v behind the slot's floor %v, more than twice the tolerance and %v",
			lease.Slot, lease.Namespace, ErrClockBackwards, now, ahead, g.timeOf(floor), g.o.broken)
	}
	t := time.NewTimer(ahead)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("snowflake: waiting %v for the clock to reach the floor of slot %d: %w", ahead, lease.Slot, ctx.Err())
	}
}

// renewLease renews the lease and returns when to renew it next.
func (g *Generator) renewLease() time.Duration {
	ctx, cancel := context.WithTimeout(g.ctx, g.renewEvery)
	l, err := g.leases.Renew(ctx, *g.lease.Load(), g.ttl)
	cancel()
	switch {
	case err == nil:
		g.lease.Store(&l)
		g.raiseCeiling(l.Ceiling)
		now, _ := g.clock()
		g.checkSkew(now, l)
		g.o.observer.LeaseRenewed(l)
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

func (g *Generator) reportLost() {
	err := *g.err.Load()
	g.o.logger.Error("snowflake: generator stopped", "namespace", g.namespace, "slot", g.slot, "error", err)
	g.o.observer.LeaseLost(*g.lease.Load(), err)
	if g.o.onLost != nil {
		g.o.onLost(err)
	}
}

// checkSkew logs a clock that runs ahead of the store by more than the tolerance:
// it reaches the lease's ceiling early.
func (g *Generator) checkSkew(now time.Time, l store.Lease) {
	if skew := now.Sub(l.StoreNow); skew > g.o.tolerance {
		g.o.logger.Warn("snowflake: the clock runs ahead of the store by more than the tolerance",
			"namespace", l.Namespace, "slot", l.Slot, "skew", skew, "tolerance", g.o.tolerance, "store_now", l.StoreNow)
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
