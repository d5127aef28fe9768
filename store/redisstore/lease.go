package redisstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// Acquire implements store.SlotLeaseStore: one script, one round trip. The script
// records the namespace's limit and tolerance at its first use, frees the slots whose
// leases expired by the store clock, and takes the owner key's earlier slot, else
// the preferred one, else the lowest free one (a BITPOS on the namespace's bitmap of
// held slots).
func (s *Store) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	if err := store.CheckLeaseRequest(req); err != nil {
		return store.Lease{}, fmt.Errorf("%s: acquire: %w", s.name, err)
	}
	return s.acquire(ctx, req, storekit.NewIncarnation())
}

// acquire runs the acquire script for a lease whose incarnation is incarnation. A
// second run with the same incarnation, as a client's retry sends, answers the lease
// the first one took.
func (s *Store) acquire(ctx context.Context, req store.LeaseRequest, incarnation string) (store.Lease, error) {
	op := fmt.Sprintf("acquire a slot of namespace %q for %q", req.Namespace, req.OwnerKey)
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return store.Lease{}, s.leaseFail(op, err)
	}
	defer cancel()
	k := namespaceKeys(s.prefix, req.Namespace)
	toleranceMs, ttlMs := storekit.MillisUp(req.Tolerance), storekit.MillisUp(req.TTL)
	reply, err := s.run(ctx, acquireScript, []string{k.meta, k.slots, k.owners, k.held, k.busy},
		s.offset(), req.OwnerKey, req.Limit, toleranceMs, ttlMs, req.Preferred, incarnation).Slice()
	if err != nil {
		return store.Lease{}, s.leaseFail(op, err)
	}
	l, err := parseLease(reply, req.Namespace, req.OwnerKey, incarnation)
	if err != nil {
		if errors.Is(err, store.ErrNamespaceConflict) {
			err = fmt.Errorf("asked for limit %d and tolerance %v: %w", req.Limit, req.Tolerance, err)
		}
		return store.Lease{}, s.leaseFail(op, err)
	}
	return l, nil
}

// Renew implements store.SlotLeaseStore: one script that extends the lease if its
// row still holds l's owner key, incarnation and fence.
func (s *Store) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	if err := storekit.CheckRenew(l, ttl); err != nil {
		return store.Lease{}, fmt.Errorf("%s: renew: %w", s.name, err)
	}
	op := fmt.Sprintf("renew slot %d of namespace %q (fence %d) for %q", l.Slot, l.Namespace, l.Fence, l.OwnerKey)
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return store.Lease{}, s.leaseFail(op, err)
	}
	defer cancel()
	k := namespaceKeys(s.prefix, l.Namespace)
	reply, err := s.run(ctx, renewScript, []string{k.meta, k.slots, k.held, k.busy},
		s.offset(), l.Slot, l.OwnerKey, l.Incarnation, l.Fence, storekit.MillisUp(ttl)).Slice()
	if err != nil {
		return store.Lease{}, s.leaseFail(op, err)
	}
	r, err := parseLease(reply, l.Namespace, l.OwnerKey, l.Incarnation)
	if err != nil {
		return store.Lease{}, s.leaseFail(op, err)
	}
	return r, nil
}

// Release implements store.SlotLeaseStore: one script that frees the slot if its row
// still holds l, so that the next owner starts above lastUsedMs. A client that sends
// the call again after losing its answer gets store.ErrLeaseLost for the second
// one; the slot was freed by the first.
func (s *Store) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	if err := storekit.CheckLease(l); err != nil {
		return fmt.Errorf("%s: release: %w", s.name, err)
	}
	op := fmt.Sprintf("release slot %d of namespace %q (fence %d) for %q", l.Slot, l.Namespace, l.Fence, l.OwnerKey)
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return s.leaseFail(op, err)
	}
	defer cancel()
	k := namespaceKeys(s.prefix, l.Namespace)
	reply, err := s.run(ctx, releaseScript, []string{k.meta, k.slots, k.held, k.busy},
		s.offset(), l.Slot, l.OwnerKey, l.Incarnation, l.Fence, lastUsedMs).Slice()
	if err != nil {
		return s.leaseFail(op, err)
	}
	if err := parseRelease(reply, lastUsedMs); err != nil {
		return s.leaseFail(op, err)
	}
	return nil
}

func (s *Store) leaseFail(op string, err error) error {
	return fmt.Errorf("%s: %s: %w", s.name, op, err)
}

// parseLease reads the reply of the acquire and renew scripts:
// {"ok", slot, fence, expires, floor, ceiling, now}, {"lost"}, {"full"} or
// {"conflict", limit, tolerance}.
func parseLease(reply []any, namespace, owner, incarnation string) (store.Lease, error) {
	status, err := replyStatus(reply)
	if err != nil {
		return store.Lease{}, err
	}
	switch status {
	case "ok":
		n, err := replyInts(reply, 6)
		if err != nil {
			return store.Lease{}, err
		}
		if n[0] < 0 || n[0] >= store.MaxSlots || n[1] < 1 {
			return store.Lease{}, fmt.Errorf("the script answered slot %d and fence %d, want a slot in [0, %d) and a fence ≥ 1", n[0], n[1], store.MaxSlots)
		}
		r := storekit.SlotRow{Owner: owner, Incarnation: incarnation, Fence: n[1], ExpiresMs: n[2], FloorMs: n[3], CeilingMs: n[4]}
		return r.Lease(namespace, int(n[0]), n[5]), nil
	case "lost":
		return store.Lease{}, store.ErrLeaseLost
	case "full":
		return store.Lease{}, fmt.Errorf("every slot is leased: %w", store.ErrNoFreeSlot)
	case "conflict":
		n, err := replyInts(reply, 2)
		if err != nil {
			return store.Lease{}, err
		}
		return store.Lease{}, fmt.Errorf("the namespace has limit %d and tolerance %v: %w", n[0], time.Duration(n[1])*time.Millisecond, store.ErrNamespaceConflict)
	}
	return store.Lease{}, fmt.Errorf("the script answered status %q, want ok, lost, full or conflict", status)
}

// parseRelease reads the reply of the release script: {"ok"}, {"lost"} or
// {"ceiling", ceiling}.
func parseRelease(reply []any, lastUsedMs int64) error {
	status, err := replyStatus(reply)
	if err != nil {
		return err
	}
	switch status {
	case "ok":
		return nil
	case "lost":
		return store.ErrLeaseLost
	case "ceiling":
		n, err := replyInts(reply, 1)
		if err != nil {
			return err
		}
		return fmt.Errorf("%w: lastUsedMs %d lies above the lease's ceiling %d", store.ErrInvalidArgument, lastUsedMs, n[0])
	}
	return fmt.Errorf("the script answered status %q, want ok, lost or ceiling", status)
}

func replyStatus(reply []any) (string, error) {
	if len(reply) == 0 {
		return "", errors.New("the script answered an empty array")
	}
	status, ok := reply[0].(string)
	if !ok {
		return "", fmt.Errorf("the script answered %v (%T) as its status, want text", reply[0], reply[0])
	}
	return status, nil
}

// replyInts returns the n integers that follow the status of reply.
func replyInts(reply []any, n int) ([]int64, error) {
	if len(reply) != n+1 {
		return nil, fmt.Errorf("the script answered %d values after %v, want %d", len(reply)-1, reply[0], n)
	}
	out := make([]int64, n)
	for i, v := range reply[1:] {
		x, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("the script answered %v (%T) as value %d, want an integer", v, v, i+1)
		}
		out[i] = x
	}
	return out, nil
}
