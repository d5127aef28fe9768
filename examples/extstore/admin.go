package extstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// Keys implements store.Admin: the file's keys sorted for every page, which suits
// the few thousand keys a file of this store holds.
func (s *Store) Keys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	if err := storekit.CheckKeys(prefix, after, limit); err != nil {
		return nil, fmt.Errorf("extstore: keys: %w", err)
	}
	keys, err := view(ctx, s, func(d *data) ([]store.KeyInfo, error) {
		var keys []store.KeyInfo
		for k, r := range d.Ranges {
			if strings.HasPrefix(k, prefix) && k > after {
				keys = append(keys, store.KeyInfo{Key: k, Next: r.Next, Sealed: r.Sealed})
			}
		}
		slices.SortFunc(keys, func(a, b store.KeyInfo) int { return strings.Compare(a.Key, b.Key) })
		return keys[:min(limit, len(keys))], nil
	})
	if err != nil {
		return nil, fmt.Errorf("extstore: keys: %w", err)
	}
	return keys, nil
}

// RaiseTo implements store.Admin.
func (s *Store) RaiseTo(ctx context.Context, key string, next int64) (store.Raised, error) {
	if err := storekit.CheckRaise(key, next); err != nil {
		return store.Raised{}, fmt.Errorf("extstore: raise: %w", err)
	}
	r, err := update(ctx, s, func(d *data) (store.Raised, bool, error) {
		row := d.Ranges[key]
		if row == nil {
			d.Ranges[key] = &rangeRow{Next: next}
			return store.Raised{Key: key, After: next, Created: true}, true, nil
		}
		r := store.Raised{Key: key, Before: row.Next, After: max(row.Next, next), Sealed: row.Sealed}
		row.Next = r.After
		return r, r.Changed(), nil
	})
	if err != nil {
		return store.Raised{}, fmt.Errorf("extstore: raise %q: %w", key, err)
	}
	return r, nil
}

// Delete implements store.Admin.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("extstore: delete: %w", err)
	}
	_, err := update(ctx, s, func(d *data) (struct{}, bool, error) {
		_, found := d.Ranges[key]
		delete(d.Ranges, key)
		return struct{}{}, found, nil
	})
	if err != nil {
		return fmt.Errorf("extstore: delete %q: %w", key, err)
	}
	return nil
}

// Slots implements store.Admin.
func (s *Store) Slots(ctx context.Context, namespace string) (store.NamespaceInfo, error) {
	if err := storekit.CheckNamespace(namespace); err != nil {
		return store.NamespaceInfo{}, fmt.Errorf("extstore: slots: %w", err)
	}
	return view(ctx, s, func(d *data) (store.NamespaceInfo, error) {
		ns := d.Namespaces[namespace]
		if ns == nil {
			return store.NamespaceInfo{}, fmt.Errorf("extstore: namespace %q: %w", namespace, store.ErrNotFound)
		}
		info := storekit.NewNamespaceInfo(namespace, ns.Limit, ns.ToleranceMs, s.nowMs())
		info.Slots = storekit.ListedSlots(ns.Slots, rowOf)
		return info, nil
	})
}

// LeaseOf implements store.Admin.
func (s *Store) LeaseOf(ctx context.Context, namespace, ownerKey string) (store.Lease, error) {
	if err := storekit.CheckLeaseOf(namespace, ownerKey); err != nil {
		return store.Lease{}, fmt.Errorf("extstore: lease of: %w", err)
	}
	return view(ctx, s, func(d *data) (store.Lease, error) {
		if ns := d.Namespaces[namespace]; ns != nil {
			if slot, ok := storekit.OwnedSlot(ns.Slots, rowOf, ownerKey); ok {
				return rowOf(ns.Slots[slot]).Lease(namespace, slot, s.nowMs()), nil
			}
		}
		return store.Lease{}, fmt.Errorf("extstore: no lease of %q in namespace %q: %w", ownerKey, namespace, store.ErrNotFound)
	})
}

// RaiseFloor implements store.Admin: the floor of a slot without an owner, even
// one whose lease expired, rises (L3 for the ids another system stamped).
func (s *Store) RaiseFloor(ctx context.Context, req store.FloorRequest) (store.SlotInfo, error) {
	if err := storekit.CheckFloorRequest(req); err != nil {
		return store.SlotInfo{}, fmt.Errorf("extstore: raise floor: %w", err)
	}
	return update(ctx, s, func(d *data) (store.SlotInfo, bool, error) {
		ns := d.Namespaces[req.Namespace]
		switch {
		case ns == nil && req.Limit == 0:
			return store.SlotInfo{}, false, fmt.Errorf("extstore: namespace %q: %w", req.Namespace, store.ErrNotFound)
		case req.Limit != 0:
			var err error
			if ns, err = d.namespace(req.Namespace, req.Limit, req.Tolerance); err != nil {
				return store.SlotInfo{}, false, err
			}
		case req.Slot >= ns.Limit:
			return store.SlotInfo{}, false, fmt.Errorf("extstore: %w: slot %d of namespace %q, whose limit is %d", store.ErrInvalidArgument, req.Slot, req.Namespace, ns.Limit)
		}
		r := rowOf(ns.Slots[req.Slot])
		if r.Owner != "" {
			return store.SlotInfo{}, false, fmt.Errorf("extstore: slot %d of namespace %q is %q's: %w", req.Slot, req.Namespace, r.Owner, store.ErrSlotHeld)
		}
		r.NextFloorMs = max(r.NextFloorMs, req.FloorMs)
		ns.Slots[req.Slot] = slotRow(r)
		return r.Info(req.Slot), true, nil
	})
}
