package memstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

var _ store.Admin = (*Store)(nil)

// Keys implements store.Admin. It sorts the matching keys for every page: fine for
// the tests and single processes a memstore serves.
func (s *Store) Keys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	if err := s.check(ctx); err != nil {
		return nil, err
	}
	if err := storekit.CheckKeys(prefix, after, limit); err != nil {
		return nil, fmt.Errorf("memstore: keys: %w", err)
	}
	d := s.data
	d.mu.Lock()
	var keys []store.KeyInfo
	for k, row := range d.ranges {
		if strings.HasPrefix(k, prefix) && k > after {
			keys = append(keys, store.KeyInfo{Key: k, Next: row.next, Sealed: row.sealed})
		}
	}
	d.mu.Unlock()
	slices.SortFunc(keys, func(a, b store.KeyInfo) int { return strings.Compare(a.Key, b.Key) })
	return keys[:min(limit, len(keys))], nil
}

// RaiseTo implements store.Admin.
func (s *Store) RaiseTo(ctx context.Context, key string, next int64) (store.Raised, error) {
	if err := s.check(ctx); err != nil {
		return store.Raised{}, err
	}
	if err := storekit.CheckRaise(key, next); err != nil {
		return store.Raised{}, fmt.Errorf("memstore: raise: %w", err)
	}
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	row := d.ranges[key]
	if row == nil {
		d.ranges[key] = &rangeRow{next: next}
		return store.Raised{Key: key, After: next, Created: true}, nil
	}
	r := store.Raised{Key: key, Before: row.next, Sealed: row.sealed}
	row.next = max(row.next, next)
	r.After = row.next
	return r, nil
}

// Delete implements store.Admin.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := s.check(ctx); err != nil {
		return err
	}
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("memstore: delete: %w", err)
	}
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.ranges, key)
	return nil
}

// Slots implements store.Admin.
func (s *Store) Slots(ctx context.Context, namespace string) (store.NamespaceInfo, error) {
	if err := s.check(ctx); err != nil {
		return store.NamespaceInfo{}, err
	}
	if err := storekit.CheckNamespace(namespace); err != nil {
		return store.NamespaceInfo{}, fmt.Errorf("memstore: slots: %w", err)
	}
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	ns := d.namespaces[namespace]
	if ns == nil {
		return store.NamespaceInfo{}, fmt.Errorf("memstore: namespace %q: %w", namespace, store.ErrNotFound)
	}
	info := storekit.NewNamespaceInfo(namespace, ns.limit, ns.toleranceMs, d.now().UnixMilli())
	info.Slots = storekit.ListedSlots(ns.slots, storekit.DerefSlotRow)
	return info, nil
}

// LeaseOf implements store.Admin.
func (s *Store) LeaseOf(ctx context.Context, namespace, ownerKey string) (store.Lease, error) {
	if err := s.check(ctx); err != nil {
		return store.Lease{}, err
	}
	if err := storekit.CheckLeaseOf(namespace, ownerKey); err != nil {
		return store.Lease{}, fmt.Errorf("memstore: lease of: %w", err)
	}
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	if ns := d.namespaces[namespace]; ns != nil {
		if slot, ok := storekit.OwnedSlot(ns.slots, storekit.DerefSlotRow, ownerKey); ok {
			return ns.slots[slot].Lease(namespace, slot, d.now().UnixMilli()), nil
		}
	}
	return store.Lease{}, fmt.Errorf("memstore: no lease of %q in namespace %q: %w", ownerKey, namespace, store.ErrNotFound)
}

// RaiseFloor implements store.Admin.
func (s *Store) RaiseFloor(ctx context.Context, req store.FloorRequest) (store.SlotInfo, error) {
	if err := s.check(ctx); err != nil {
		return store.SlotInfo{}, err
	}
	if err := storekit.CheckFloorRequest(req); err != nil {
		return store.SlotInfo{}, fmt.Errorf("memstore: raise floor: %w", err)
	}
	d := s.data
	d.mu.Lock()
	defer d.mu.Unlock()
	ns := d.namespaces[req.Namespace]
	toleranceMs := storekit.MillisUp(req.Tolerance)
	switch {
	case ns == nil && req.Limit == 0:
		return store.SlotInfo{}, fmt.Errorf("memstore: namespace %q: %w", req.Namespace, store.ErrNotFound)
	case ns == nil:
		ns = &namespace{limit: req.Limit, toleranceMs: toleranceMs, slots: map[int]*storekit.SlotRow{}}
		d.namespaces[req.Namespace] = ns
	case req.Limit != 0 && (ns.limit != req.Limit || ns.toleranceMs != toleranceMs):
		return store.SlotInfo{}, fmt.Errorf("memstore: namespace %q has limit %d and tolerance %v, asked for limit %d and tolerance %v: %w",
			req.Namespace, ns.limit, time.Duration(ns.toleranceMs)*time.Millisecond, req.Limit, req.Tolerance, store.ErrNamespaceConflict)
	case req.Slot >= ns.limit:
		return store.SlotInfo{}, fmt.Errorf("memstore: %w: slot %d of namespace %q, whose limit is %d", store.ErrInvalidArgument, req.Slot, req.Namespace, ns.limit)
	}
	r := ns.slots[req.Slot]
	if r == nil {
		r = &storekit.SlotRow{}
		ns.slots[req.Slot] = r
	}
	if r.Owner != "" {
		return store.SlotInfo{}, fmt.Errorf("memstore: slot %d of namespace %q is %q's: %w", req.Slot, req.Namespace, r.Owner, store.ErrSlotHeld)
	}
	r.NextFloorMs = max(r.NextFloorMs, req.FloorMs)
	return r.Info(req.Slot), nil
}

var _ store.Identifier = (*Store)(nil)

// StoreID implements store.Identifier: the identity is a sealed key of the store
// (storekit.StoreID), written by the first call on new data; its Siblings share it.
func (s *Store) StoreID(ctx context.Context) (string, error) { return storekit.StoreID(ctx, s) }
