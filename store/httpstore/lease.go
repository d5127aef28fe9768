package httpstore

import (
	"context"
	"fmt"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
	"github.com/cosid-go/cosid/store/storekit"
)

// Acquire implements store.SlotLeaseStore.
func (s *Store) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	if err := store.CheckLeaseRequest(req); err != nil {
		return store.Lease{}, fmt.Errorf("httpstore: acquire: %w", err)
	}
	var l wire.Lease
	if err := s.call(ctx, wire.PathAcquire, wire.FromLeaseRequest(req), &l); err != nil {
		return store.Lease{}, fmt.Errorf("httpstore: acquire a slot of %q for %q: %w", req.Namespace, req.OwnerKey, err)
	}
	if l.Slot < 0 || l.Slot >= req.Limit || l.Namespace != req.Namespace || l.OwnerKey != req.OwnerKey || l.Incarnation == "" || l.Fence < 1 {
		return store.Lease{}, fmt.Errorf("httpstore: acquire a slot of %q for %q: %s: %w: the server answered slot %d (fence %d, incarnation %q) of %q for %q, want a slot in [0, %d) of the namespace and owner asked for",
			req.Namespace, req.OwnerKey, s.server(), wire.ErrRemote, l.Slot, l.Fence, l.Incarnation, l.Namespace, l.OwnerKey, req.Limit)
	}
	return l.Store(), nil
}

// Renew implements store.SlotLeaseStore.
func (s *Store) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	if err := storekit.CheckRenew(l, ttl); err != nil {
		return store.Lease{}, fmt.Errorf("httpstore: renew: %w", err)
	}
	var out wire.Lease
	if err := s.call(ctx, wire.PathRenew, wire.RenewRequest{Lease: wire.FromLease(l), TTL: ttl.String()}, &out); err != nil {
		return store.Lease{}, fmt.Errorf("httpstore: renew slot %d of %q: %w", l.Slot, l.Namespace, err)
	}
	if got := out.Store(); got.Slot != l.Slot || got.Fence != l.Fence || got.Incarnation != l.Incarnation || got.OwnerKey != l.OwnerKey || got.Namespace != l.Namespace {
		return store.Lease{}, fmt.Errorf("httpstore: renew slot %d of %q: %s: %w: the server answered slot %d (fence %d) of %q for %q, want the lease renewed",
			l.Slot, l.Namespace, s.server(), wire.ErrRemote, got.Slot, got.Fence, got.Namespace, got.OwnerKey)
	}
	return out.Store(), nil
}

// Release implements store.SlotLeaseStore.
func (s *Store) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	if err := storekit.CheckLease(l); err != nil {
		return fmt.Errorf("httpstore: release: %w", err)
	}
	if err := s.call(ctx, wire.PathRelease, wire.ReleaseRequest{Lease: wire.FromLease(l), LastUsedMs: lastUsedMs}, nil); err != nil {
		return fmt.Errorf("httpstore: release slot %d of %q: %w", l.Slot, l.Namespace, err)
	}
	return nil
}
