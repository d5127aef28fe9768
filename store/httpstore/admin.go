package httpstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
	"github.com/cosid-go/cosid/store/storekit"
)

var _ store.Admin = (*Store)(nil)

// Keys implements store.Admin through the server's admin API.
func (s *Store) Keys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	if err := storekit.CheckKeys(prefix, after, limit); err != nil {
		return nil, fmt.Errorf("httpstore: keys: %w", err)
	}
	var out wire.Keys
	if err := s.call(ctx, wire.PathKeys, wire.KeysRequest{Prefix: prefix, After: after, Limit: limit}, &out); err != nil {
		return nil, fmt.Errorf("httpstore: keys under %q after %q: %w", prefix, after, err)
	}
	keys := make([]store.KeyInfo, len(out.Keys))
	for i, k := range out.Keys {
		keys[i] = store.KeyInfo(k)
	}
	return keys, nil
}

// RaiseTo implements store.Admin through the server's admin API.
func (s *Store) RaiseTo(ctx context.Context, key string, next int64) (store.Raised, error) {
	if err := storekit.CheckRaise(key, next); err != nil {
		return store.Raised{}, fmt.Errorf("httpstore: raise: %w", err)
	}
	var out wire.Raised
	if err := s.call(ctx, wire.PathRaise, wire.RaiseRequest{Key: key, Next: next}, &out); err != nil {
		return store.Raised{}, fmt.Errorf("httpstore: raise %q to %d: %w", key, next, err)
	}
	return store.Raised(out), nil
}

// Delete implements store.Admin: it is never done over the network, as its contract
// is offline only (a deleted key starts anew, and generators still running would
// hand its ids out again), so it answers errors.ErrUnsupported. Delete a key on the
// server's own store, with the servers stopped.
func (s *Store) Delete(_ context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("httpstore: delete: %w", err)
	}
	return fmt.Errorf("httpstore: delete %q: %w: deleting a key is offline only; run it on the server's own store with the servers stopped",
		key, errors.ErrUnsupported)
}

// Slots implements store.Admin through the server's admin API.
func (s *Store) Slots(ctx context.Context, namespace string) (store.NamespaceInfo, error) {
	if err := storekit.CheckNamespace(namespace); err != nil {
		return store.NamespaceInfo{}, fmt.Errorf("httpstore: slots: %w", err)
	}
	var out wire.NamespaceInfo
	if err := s.call(ctx, wire.PathSlots, wire.SlotsRequest{Namespace: namespace}, &out); err != nil {
		return store.NamespaceInfo{}, fmt.Errorf("httpstore: slots of %q: %w", namespace, err)
	}
	info, err := out.Store()
	if err != nil {
		return store.NamespaceInfo{}, fmt.Errorf("httpstore: slots of %q: %w: %w", namespace, wire.ErrRemote, err)
	}
	return info, nil
}

// LeaseOf implements store.Admin through the server's admin API.
func (s *Store) LeaseOf(ctx context.Context, namespace, ownerKey string) (store.Lease, error) {
	if err := storekit.CheckLeaseOf(namespace, ownerKey); err != nil {
		return store.Lease{}, fmt.Errorf("httpstore: lease of: %w", err)
	}
	var out wire.Lease
	if err := s.call(ctx, wire.PathLeaseOf, wire.LeaseOfRequest{Namespace: namespace, OwnerKey: ownerKey}, &out); err != nil {
		return store.Lease{}, fmt.Errorf("httpstore: lease of %q in %q: %w", ownerKey, namespace, err)
	}
	return out.Store(), nil
}

// RaiseFloor implements store.Admin through the server's admin API.
func (s *Store) RaiseFloor(ctx context.Context, req store.FloorRequest) (store.SlotInfo, error) {
	if err := storekit.CheckFloorRequest(req); err != nil {
		return store.SlotInfo{}, fmt.Errorf("httpstore: raise floor: %w", err)
	}
	var out wire.SlotInfo
	body := wire.RaiseFloorRequest{Namespace: req.Namespace, Limit: req.Limit, Tolerance: req.Tolerance.String(), Slot: req.Slot, FloorMs: req.FloorMs}
	if err := s.call(ctx, wire.PathRaiseFloor, body, &out); err != nil {
		return store.SlotInfo{}, fmt.Errorf("httpstore: raise the floor of slot %d of %q: %w", req.Slot, req.Namespace, err)
	}
	return store.SlotInfo(out), nil
}
