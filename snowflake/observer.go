package snowflake

import "github.com/cosid-go/cosid/store"

// Observer receives a Generator's lease events, for metrics and status pages. Its methods are
// called off the hot path and must not block.
//
// A generator made by New reports LeaseAcquired once, before New returns, then
// LeaseRenewed for every renewal, and ends with exactly one of LeaseReleased (Close
// released the lease) or LeaseLost (the lease was lost, ran out before a renewal, or
// its release failed). A generator made by NewFixed reports nothing.
type Observer interface {
	LeaseAcquired(l store.Lease)
	LeaseRenewed(l store.Lease)
	LeaseLost(l store.Lease, err error)
	LeaseReleased(l store.Lease)
}

// WithObserver sets the Observer of the generator's lease events (default none).
func WithObserver(o Observer) Option { return func(opts *options) { opts.observer = o } }

// Lease returns the generator's current lease; ok is false for a NewFixed generator.
// After the generator stopped it returns the last lease it held.
func (g *Generator) Lease() (l store.Lease, ok bool) {
	p := g.lease.Load()
	if p == nil {
		return store.Lease{}, false
	}
	return *p, true
}

// noObserver is the Observer of a generator without WithObserver.
type noObserver struct{}

func (noObserver) LeaseAcquired(store.Lease)    {}
func (noObserver) LeaseRenewed(store.Lease)     {}
func (noObserver) LeaseLost(store.Lease, error) {}
func (noObserver) LeaseReleased(store.Lease)    {}
