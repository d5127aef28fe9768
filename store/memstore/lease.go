package memstore

import (
	"context"
	"fmt"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// namespace is a row of cosid_namespace (seed 003) with the slot rows made so far:
// a slot without a row has never been leased.
type namespace struct {
	limit       int
	toleranceMs int64
	slots       map[int]*storekit.SlotRow
}

// Acquire implements store.SlotLeaseStore.
func (s *Store) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	if err := s.check(ctx); err != nil {
		return store.Lease{}, err
	}
	if err := store.CheckLeaseRequest(req); err != nil {
		return store.Lease{}, fmt.Errorf("memstore: acquire: %w", err)
	}
	toleranceMs, ttlMs := storekit.MillisUp(req.Tolerance), storekit.MillisUp(req.TTL)
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now().UnixMilli()
	ns := d.namespaces[req.Namespace]
	if ns == nil {
		ns = &namespace{limit: req.Limit, toleranceMs: toleranceMs, slots: map[int]*storekit.SlotRow{}}
		d.namespaces[req.Namespace] = ns
	} else if ns.limit != req.Limit || ns.toleranceMs != toleranceMs {
		return store.Lease{}, fmt.Errorf("memstore: namespace %q has limit %d and tolerance %v, asked for limit %d and tolerance %v: %w",
			req.Namespace, ns.limit, time.Duration(ns.toleranceMs)*time.Millisecond, req.Limit, req.Tolerance, store.ErrNamespaceConflict)
	}
	slot := ns.pick(req, now)
	if slot < 0 {
		return store.Lease{}, fmt.Errorf("memstore: namespace %q: all %d slots are leased: %w", req.Namespace, ns.limit, store.ErrNoFreeSlot)
	}
	r := ns.slots[slot]
	if r == nil {
		r = &storekit.SlotRow{}
		ns.slots[slot] = r
	}
	*r = r.Take(req.OwnerKey, now, ttlMs, toleranceMs)
	return r.Lease(req.Namespace, slot, now), nil
}

// pick returns the slot to lease: the owner's earlier slot (L5), else the preferred
// one, else the lowest free one; -1 when every slot is leased.
func (ns *namespace) pick(req store.LeaseRequest, now int64) int {
	earlier := -1
	for slot, r := range ns.slots {
		if r.LastOwner == req.OwnerKey && r.Free(now) && (earlier < 0 || slot < earlier) {
			earlier = slot
		}
	}
	if earlier >= 0 {
		return earlier
	}
	if p := req.Preferred; p >= 0 && (ns.slots[p] == nil || ns.slots[p].Free(now)) {
		return p
	}
	for slot := range ns.limit {
		if r := ns.slots[slot]; r == nil || r.Free(now) {
			return slot
		}
	}
	return -1
}

// Renew implements store.SlotLeaseStore.
func (s *Store) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	if err := s.check(ctx); err != nil {
		return store.Lease{}, err
	}
	if err := storekit.CheckRenew(l, ttl); err != nil {
		return store.Lease{}, fmt.Errorf("memstore: renew: %w", err)
	}
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	ns, r, err := d.held("renew", l)
	if err != nil {
		return store.Lease{}, err
	}
	now := d.now().UnixMilli()
	*r = r.Renew(now, storekit.MillisUp(ttl), ns.toleranceMs)
	return r.Lease(l.Namespace, l.Slot, now), nil
}

// Release implements store.SlotLeaseStore.
func (s *Store) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if err := storekit.CheckLease(l); err != nil {
		return fmt.Errorf("memstore: release: %w", err)
	}
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	_, r, err := d.held("release", l)
	if err != nil {
		return err
	}
	released, err := r.Release(lastUsedMs)
	if err != nil {
		return fmt.Errorf("memstore: release slot %d of namespace %q: %w", l.Slot, l.Namespace, err)
	}
	*r = released
	return nil
}

// held returns the row of l, or an error wrapping ErrLeaseLost when another
// acquisition or a release ended l.
func (d *data) held(op string, l store.Lease) (*namespace, *storekit.SlotRow, error) {
	ns := d.namespaces[l.Namespace]
	if ns != nil {
		if r := ns.slots[l.Slot]; r != nil && r.Holds(l) {
			return ns, r, nil
		}
	}
	return nil, nil, fmt.Errorf("memstore: %s slot %d of namespace %q (fence %d) for %q: %w",
		op, l.Slot, l.Namespace, l.Fence, l.OwnerKey, store.ErrLeaseLost)
}
