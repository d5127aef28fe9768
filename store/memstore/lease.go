package memstore

import (
	"context"
	"fmt"
	"time"

	"github.com/cosid-go/cosid/store"
)

// namespace is a row of cosid_namespace (seed 003) with the slot rows made so far:
// a slot without a row has never been leased.
type namespace struct {
	limit       int
	toleranceMs int64
	slots       map[int]*slotRow
}

// slotRow is a row of cosid_slot: the lease on one slot, or what is left of the last.
type slotRow struct {
	owner       string // "" once released
	incarnation string
	lastOwner   string // the most recent owner, kept after release and expiry (L5)
	fence       int64
	expiresMs   int64
	floorMs     int64
	ceilingMs   int64
	nextFloorMs int64 // the next owner's Floor after a release; the holder's Floor before
}

func (r *slotRow) free(nowMs int64) bool { return r.owner == "" || r.expiresMs <= nowMs }

// nextFloor is the Floor of the slot's next owner (L3): above the last timestamp the
// earlier owner reported when it released the slot, or above its Ceiling when it let
// the lease expire.
func (r *slotRow) nextFloor() int64 {
	if r.owner == "" {
		return r.nextFloorMs
	}
	return max(r.nextFloorMs, r.ceilingMs+1)
}

// Acquire implements store.SlotLeaseStore.
func (s *Store) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	if err := s.check(ctx); err != nil {
		return store.Lease{}, err
	}
	if err := store.CheckLeaseRequest(req); err != nil {
		return store.Lease{}, fmt.Errorf("memstore: acquire: %w", err)
	}
	toleranceMs, ttlMs := millisUp(req.Tolerance), millisUp(req.TTL)
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	now := d.now().UnixMilli()
	ns := d.namespaces[req.Namespace]
	if ns == nil {
		ns = &namespace{limit: req.Limit, toleranceMs: toleranceMs, slots: map[int]*slotRow{}}
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
		r = &slotRow{}
		ns.slots[slot] = r
	}
	floor, expires := r.nextFloor(), now+ttlMs
	*r = slotRow{
		owner:       req.OwnerKey,
		incarnation: store.NewIncarnation(),
		lastOwner:   req.OwnerKey,
		fence:       r.fence + 1,
		expiresMs:   expires,
		floorMs:     floor,
		ceilingMs:   expires + toleranceMs,
		nextFloorMs: floor,
	}
	return lease(req.Namespace, slot, r, now), nil
}

// pick returns the slot to lease: the owner's earlier slot (L5), else the preferred
// one, else the lowest free one; -1 when every slot is leased.
func (ns *namespace) pick(req store.LeaseRequest, now int64) int {
	earlier := -1
	for slot, r := range ns.slots {
		if r.lastOwner == req.OwnerKey && r.free(now) && (earlier < 0 || slot < earlier) {
			earlier = slot
		}
	}
	if earlier >= 0 {
		return earlier
	}
	if p := req.Preferred; p >= 0 && (ns.slots[p] == nil || ns.slots[p].free(now)) {
		return p
	}
	for slot := range ns.limit {
		if r := ns.slots[slot]; r == nil || r.free(now) {
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
	if err := store.CheckRenew(l, ttl); err != nil {
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
	r.expiresMs = now + millisUp(ttl)
	r.ceilingMs = max(r.ceilingMs, r.expiresMs+ns.toleranceMs)
	return lease(l.Namespace, l.Slot, r, now), nil
}

// Release implements store.SlotLeaseStore.
func (s *Store) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if err := store.CheckLease(l); err != nil {
		return fmt.Errorf("memstore: release: %w", err)
	}
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	_, r, err := d.held("release", l)
	if err != nil {
		return err
	}
	if lastUsedMs > r.ceilingMs {
		return fmt.Errorf("memstore: release slot %d of namespace %q: %w: lastUsedMs %d lies above the lease's ceiling %d",
			l.Slot, l.Namespace, store.ErrInvalidArgument, lastUsedMs, r.ceilingMs)
	}
	r.nextFloorMs = max(r.floorMs, lastUsedMs+1)
	r.owner, r.incarnation = "", ""
	return nil
}

// held returns the row of l, or an error wrapping ErrLeaseLost when another
// acquisition or a release ended l.
func (d *data) held(op string, l store.Lease) (*namespace, *slotRow, error) {
	ns := d.namespaces[l.Namespace]
	if ns != nil {
		if r := ns.slots[l.Slot]; r != nil && r.owner == l.OwnerKey && r.incarnation == l.Incarnation && r.fence == l.Fence {
			return ns, r, nil
		}
	}
	return nil, nil, fmt.Errorf("memstore: %s slot %d of namespace %q (fence %d) for %q: %w",
		op, l.Slot, l.Namespace, l.Fence, l.OwnerKey, store.ErrLeaseLost)
}

func lease(namespace string, slot int, r *slotRow, nowMs int64) store.Lease {
	return store.Lease{
		Namespace:   namespace,
		OwnerKey:    r.owner,
		Incarnation: r.incarnation,
		Slot:        slot,
		Fence:       r.fence,
		ExpiresAt:   time.UnixMilli(r.expiresMs).UTC(),
		Floor:       r.floorMs,
		Ceiling:     r.ceilingMs,
		StoreNow:    time.UnixMilli(nowMs).UTC(),
	}
}

// millisUp returns d in whole milliseconds, rounded up.
func millisUp(d time.Duration) int64 {
	ms := int64(d / time.Millisecond)
	if d%time.Millisecond != 0 {
		ms++
	}
	return ms
}
