package extstore

import (
	"context"
	"fmt"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// Acquire implements store.SlotLeaseStore. It takes the first of the free slots in
// the order of storekit.SlotCandidates (the owner's earlier slot, L5), with the
// row that storekit.SlotRow.Take makes: the next fence (L2), a floor above every
// stamp an earlier owner could still use (L3). The exclusive lock makes one of
// concurrent acquirers for the last free slot the winner (L7).
func (s *Store) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	if err := store.CheckLeaseRequest(req); err != nil {
		return store.Lease{}, fmt.Errorf("extstore: acquire: %w", err)
	}
	ttlMs := storekit.MillisUp(req.TTL)
	return update(ctx, s, func(d *data) (store.Lease, bool, error) {
		ns, err := d.namespace(req.Namespace, req.Limit, req.Tolerance)
		if err != nil {
			return store.Lease{}, false, err
		}
		now := s.nowMs()
		rows := storekit.SlotRows(ns.Slots, rowOf)
		free := storekit.SlotCandidates(rows, ns.Limit, req.OwnerKey, req.Preferred, now, 1)
		if len(free) == 0 {
			return store.Lease{}, false, fmt.Errorf("extstore: namespace %q: all %d slots are leased: %w", req.Namespace, ns.Limit, store.ErrNoFreeSlot)
		}
		slot := free[0]
		taken := rows[slot].Take(req.OwnerKey, now, ttlMs, ns.ToleranceMs)
		ns.Slots[slot] = slotRow(taken)
		return taken.Lease(req.Namespace, slot, now), true, nil
	})
}

// Renew implements store.SlotLeaseStore with storekit.RenewLease.
func (s *Store) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	return storekit.RenewLease(ctx, "extstore", s.change, l, ttl)
}

// Release implements store.SlotLeaseStore with storekit.ReleaseLease.
func (s *Store) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	return storekit.ReleaseLease(ctx, "extstore", s.change, l, lastUsedMs)
}

// change is the store's storekit.SlotChange: under the exclusive lock, it reads the
// row of l's slot, refuses a row that is no longer l's (L2), and writes the row f
// makes of it.
func (s *Store) change(ctx context.Context, op string, l store.Lease, clock bool, f func(nowMs, toleranceMs int64, r storekit.SlotRow) (storekit.SlotRow, error)) error {
	_, err := update(ctx, s, func(d *data) (struct{}, bool, error) {
		ns := d.Namespaces[l.Namespace]
		if ns == nil {
			return struct{}{}, false, store.ErrLeaseLost
		}
		row, ok := ns.Slots[l.Slot]
		if !ok || !rowOf(row).Holds(l) {
			return struct{}{}, false, store.ErrLeaseLost
		}
		var now int64
		if clock {
			now = s.nowMs()
		}
		next, err := f(now, ns.ToleranceMs, rowOf(row))
		if err != nil {
			return struct{}{}, false, err
		}
		ns.Slots[l.Slot] = slotRow(next)
		return struct{}{}, true, nil
	})
	if err != nil {
		return fmt.Errorf("extstore: %s slot %d of namespace %q (fence %d) for %q: %w", op, l.Slot, l.Namespace, l.Fence, l.OwnerKey, err)
	}
	return nil
}
