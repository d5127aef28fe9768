package etcdstore

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// Slots implements store.Admin: one read of the namespace at one revision. etcd
// has no clock to read, so StoreNow is the store's clock, the one of its leases'
// times.
func (s *Store) Slots(ctx context.Context, namespace string) (store.NamespaceInfo, error) {
	if err := storekit.CheckNamespace(namespace); err != nil {
		return store.NamespaceInfo{}, fmt.Errorf("%s: slots: %w", s.name, err)
	}
	ns, err := s.readForAdmin(ctx, namespace)
	if err != nil {
		return store.NamespaceInfo{}, s.failed(ctx, fmt.Sprintf("slots of namespace %q", namespace), err)
	}
	info := storekit.NewNamespaceInfo(namespace, ns.meta.Limit, ns.meta.ToleranceMs, s.now().UnixMilli())
	info.Slots = storekit.ListedSlots(ns.rows, rowAt.slotRow)
	return info, nil
}

// LeaseOf implements store.Admin: of the slots whose row names ownerKey as owner,
// the lowest, whether or not etcd expired its held key.
func (s *Store) LeaseOf(ctx context.Context, namespace, ownerKey string) (store.Lease, error) {
	if err := storekit.CheckLeaseOf(namespace, ownerKey); err != nil {
		return store.Lease{}, fmt.Errorf("%s: lease of: %w", s.name, err)
	}
	ns, err := s.readForAdmin(ctx, namespace)
	found, ok := storekit.OwnedSlot(ns.rows, rowAt.slotRow, ownerKey)
	if err == nil && !ok {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.Lease{}, s.failed(ctx, fmt.Sprintf("lease of %q in namespace %q", ownerKey, namespace), err)
	}
	return ns.rows[found].Lease(namespace, found, s.now().UnixMilli()), nil
}

// readForAdmin reads the namespace within the store's timeout, or fails with
// store.ErrNotFound.
func (s *Store) readForAdmin(ctx context.Context, namespace string) (nsRead, error) {
	ctx, cancel, err := s.begin(ctx)
	defer cancel()
	if err != nil {
		return nsRead{}, err
	}
	ns, err := s.readNamespace(ctx, s.nsKeys(namespace))
	if err == nil && !ns.found {
		err = store.ErrNotFound
	}
	return ns, err
}

// RaiseFloor implements store.Admin: it creates the namespace when asked to, reads
// its settings, the slot's row and held key, and raises the row's next floor with a
// compare-and-swap on the row and the held key's absence as read, reading again
// when another call changed them in between. A slot never leased gets a row of
// fence 0, which its first Acquire takes like any other.
func (s *Store) RaiseFloor(ctx context.Context, req store.FloorRequest) (store.SlotInfo, error) {
	if err := storekit.CheckFloorRequest(req); err != nil {
		return store.SlotInfo{}, fmt.Errorf("%s: raise floor: %w", s.name, err)
	}
	info, err := storekit.DoCall(ctx, s.begin, func(ctx context.Context) (store.SlotInfo, error) {
		return s.raiseFloor(ctx, req)
	})
	if err != nil {
		return store.SlotInfo{}, s.failed(ctx, fmt.Sprintf("raise the floor of slot %d of namespace %q to %d", req.Slot, req.Namespace, req.FloorMs), err)
	}
	return info, nil
}

func (s *Store) raiseFloor(ctx context.Context, req store.FloorRequest) (store.SlotInfo, error) {
	keys := s.nsKeys(req.Namespace)
	rowKey, holdKey := keys.row(req.Slot), keys.hold(req.Slot)
	toleranceMs := storekit.MillisUp(req.Tolerance)
	if req.Limit > 0 {
		if err := s.createNamespace(ctx, keys, meta{Limit: req.Limit, ToleranceMs: toleranceMs}); err != nil {
			return store.SlotInfo{}, fmt.Errorf("creating the namespace: %w", err)
		}
	}
	for {
		resp, err := s.client.Txn(ctx).Then(clientv3.OpGet(keys.meta), clientv3.OpGet(rowKey), clientv3.OpGet(holdKey)).Commit()
		if err != nil {
			return store.SlotInfo{}, err
		}
		metaKvs, rowKvs := resp.Responses[0].GetResponseRange().GetKvs(), resp.Responses[1].GetResponseRange().GetKvs()
		if len(metaKvs) == 0 {
			return store.SlotInfo{}, store.ErrNotFound
		}
		m, err := parseMeta(metaKvs[0].Value)
		if err != nil {
			return store.SlotInfo{}, fmt.Errorf("%w: %s: %w", ErrCorrupt, keys.meta, err)
		}
		switch {
		case req.Limit > 0 && (m.Limit != req.Limit || m.ToleranceMs != toleranceMs):
			return store.SlotInfo{}, storekit.NamespaceConflict(m.Limit, m.ToleranceMs, req.Limit, req.Tolerance)
		case req.Slot >= m.Limit:
			return store.SlotInfo{}, fmt.Errorf("%w: slot %d lies outside the namespace's limit %d", store.ErrInvalidArgument, req.Slot, m.Limit)
		}
		var old row
		var rowRev int64
		if len(rowKvs) > 0 {
			if old, err = parseRow(rowKvs[0].Value); err != nil {
				return store.SlotInfo{}, fmt.Errorf("%w: %s: %w", ErrCorrupt, rowKey, err)
			}
			rowRev = rowKvs[0].ModRevision
		}
		if old.Owner != "" || len(resp.Responses[2].GetResponseRange().GetKvs()) > 0 {
			return store.SlotInfo{}, fmt.Errorf("the slot is %q's: %w", old.Owner, store.ErrSlotHeld)
		}
		next := old
		next.NextFloorMs = max(next.NextFloorMs, req.FloorMs)
		if next == old {
			return old.SlotRow.Info(req.Slot), nil
		}
		resp, err = s.client.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(rowKey), "=", rowRev),
				clientv3.Compare(clientv3.ModRevision(holdKey), "=", 0)).
			Then(clientv3.OpPut(rowKey, next.encode())).
			Commit()
		if err != nil {
			return store.SlotInfo{}, err
		}
		if resp.Succeeded {
			return next.SlotRow.Info(req.Slot), nil
		}
	}
}
