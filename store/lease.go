package store

import (
	"context"
	"fmt"
	"strings"
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
//
// Floor and Ceiling bound the timestamps the owner may stamp, so that owners of one
// slot never share one: a new owner's Floor lies above every timestamp an earlier
// owner could still use (L3). The store sets Ceiling to at least ExpiresAt plus the
// namespace's Tolerance, so that an owner whose clock runs ahead of the store by up
// to the tolerance keeps stamping until the lease expires; a renewal never lowers
// it, even when the store clock steps back. Stores keep times, TTLs and tolerances
// in whole milliseconds, rounding a TTL or a tolerance up.
type Lease struct {
	Namespace   string
	OwnerKey    string
	Incarnation string    // a fresh random UUID for every acquisition (storekit.NewIncarnation)
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
	// an error wrapping ErrLeaseLost when l is no longer the owner's. The store
	// matches l by namespace, slot, owner key, incarnation and fence, and reads
	// nothing else of it. A lease that expired is still the owner's until another
	// acquisition takes its slot, so renewing it late succeeds.
	Renew(ctx context.Context, l Lease, ttl time.Duration) (Lease, error)
	// Release frees l's slot. lastUsedMs is the last timestamp (epoch ms) the owner
	// stamped, or anything below Floor when it stamped none; the slot's next owner
	// starts above it. A lastUsedMs above the lease's Ceiling breaks the contract
	// and fails with ErrInvalidArgument, leaving the lease held. An error wrapping
	// ErrLeaseLost means l was no longer the owner's.
	Release(ctx context.Context, l Lease, lastUsedMs int64) error
	Close() error
}

// Limits of the lease arguments that every store accepts.
const (
	MaxNamespaceLen = 100
	MaxSlots        = 1 << 22
)

// CheckLeaseRequest reports whether req keeps the contract's rules, with an error
// wrapping ErrInvalidArgument that names the field. A generator checks its request
// with it when it is built, so that a bad setting fails at start; a store checks
// every Acquire with it before it touches its backend.
func CheckLeaseRequest(req LeaseRequest) error {
	switch {
	case !validName(req.Namespace, MaxNamespaceLen):
		return fmt.Errorf("%w: Namespace %.40q must be 1–%d bytes of UTF-8 without NUL", ErrInvalidArgument, req.Namespace, MaxNamespaceLen)
	case !validName(req.OwnerKey, MaxKeyLen):
		return fmt.Errorf("%w: OwnerKey %.40q must be 1–%d bytes of UTF-8 without NUL", ErrInvalidArgument, req.OwnerKey, MaxKeyLen)
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

// validName reports whether a namespace or an owner key is 1–maxLen bytes of UTF-8
// without NUL: the rules of range keys (CheckKey), which every store can keep as given.
// storekit.CheckLease holds a lease to the same rules.
func validName(s string, maxLen int) bool {
	return s != "" && len(s) <= maxLen && utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}
