package store

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"
)

// LeaseRequest asks a SlotLeaseStore for a slot of a namespace.
type LeaseRequest struct {
	// Namespace groups the slots that must never collide, such as one Snowflake
	// generator shared by the instances of a service.
	Namespace string
	// OwnerKey is the stable identity of the instance (host name, pod name). An owner
	// that acquires again gets its earlier slot back when that slot is free (L5).
	OwnerKey string
	// Limit fixes the slots to [0, Limit) at the namespace's first use (L4).
	Limit int
	// Tolerance is the clock skew allowed between an instance and the store, fixed at
	// the namespace's first use (L4).
	Tolerance time.Duration
	// TTL is how long the lease lasts, by the store clock, unless renewed.
	TTL time.Duration
	// Preferred is a slot to try first; -1 for none.
	Preferred int
}

// Lease is a slot of a namespace held by one owner until ExpiresAt.
type Lease struct {
	Namespace   string
	OwnerKey    string
	Incarnation string    // a fresh random UUID for every acquisition
	Slot        int       // in [0, Limit)
	Fence       int64     // strictly increases with every acquisition of this slot (L2)
	ExpiresAt   time.Time // by the store clock (L6)
	Floor       int64     // epoch ms: the owner issues no id stamped below it (L3)
	Ceiling     int64     // epoch ms: the owner issues no id stamped above it before renewing
	StoreNow    time.Time // the store clock when the answer was made
}

// SlotLeaseStore hands out slots of namespaces under leases. Implementations are safe
// for concurrent use, also by several processes sharing one backend, and keep the
// invariants L1–L7 (see storetest):
//
//	L1 at any store time, at most one unexpired lease per (namespace, slot)
//	L2 Fence strictly increases with every acquisition of a slot; a renew or release
//	   with a stale fence or incarnation fails with ErrLeaseLost
//	L3 a new owner's Floor is above every timestamp an earlier owner of the slot could
//	   still use: its last reported one on release, its Ceiling on expiry
//	L4 slots lie in [0, Limit); a namespace's limit and tolerance are set once, and
//	   asking with others fails with ErrNamespaceConflict
//	L5 an owner key that acquires again gets its previous slot when that slot is free
//	L6 expiry is judged by the store clock only, never the client's
//	L7 of concurrent acquirers for the last free slot exactly one wins; the others get
//	   ErrNoFreeSlot
type SlotLeaseStore interface {
	// Acquire leases a free slot of req.Namespace to req.OwnerKey.
	Acquire(ctx context.Context, req LeaseRequest) (Lease, error)
	// Renew extends l by ttl from the store's now and returns the renewed lease, or
	// an error wrapping ErrLeaseLost when l is no longer the owner's.
	Renew(ctx context.Context, l Lease, ttl time.Duration) (Lease, error)
	// Release frees l's slot. lastUsedMs is the last timestamp (epoch ms) the owner
	// stamped; the slot's next owner starts above it. An error wrapping ErrLeaseLost
	// means l was no longer the owner's.
	Release(ctx context.Context, l Lease, lastUsedMs int64) error
	Close() error
}

// Limits of the lease arguments that every store accepts.
const (
	MaxNamespaceLen = 100
	MaxSlots        = 1 << 22
)

// CheckLeaseRequest reports whether req keeps the contract's rules, with an error
// wrapping ErrInvalidArgument that names the field.
func CheckLeaseRequest(req LeaseRequest) error {
	switch {
	case req.Namespace == "" || len(req.Namespace) > MaxNamespaceLen || !utf8.ValidString(req.Namespace):
		return fmt.Errorf("%w: Namespace %.40q must be 1–%d bytes of UTF-8", ErrInvalidArgument, req.Namespace, MaxNamespaceLen)
	case req.OwnerKey == "" || len(req.OwnerKey) > MaxKeyLen || !utf8.ValidString(req.OwnerKey):
		return fmt.Errorf("%w: OwnerKey %.40q must be 1–%d bytes of UTF-8", ErrInvalidArgument, req.OwnerKey, MaxKeyLen)
	case req.Limit < 1 || req.Limit > MaxSlots:
		return fmt.Errorf("%w: Limit %d for namespace %q, want 1–%d", ErrInvalidArgument, req.Limit, req.Namespace, MaxSlots)
	case req.Tolerance < 0:
		return fmt.Errorf("%w: Tolerance %v for namespace %q, want ≥ 0", ErrInvalidArgument, req.Tolerance, req.Namespace)
	case req.TTL < time.Millisecond:
		return fmt.Errorf("%w: TTL %v for namespace %q, want ≥ 1ms", ErrInvalidArgument, req.TTL, req.Namespace)
	case req.Preferred < -1 || req.Preferred >= req.Limit:
		return fmt.Errorf("%w: Preferred slot %d for namespace %q, want -1 or 0–%d", ErrInvalidArgument, req.Preferred, req.Namespace, req.Limit-1)
	}
	return nil
}
