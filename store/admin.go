package store

import (
	"context"
	"errors"
	"iter"
	"time"
)

var (
	// ErrNotFound means an Admin lookup found no such namespace or lease.
	ErrNotFound = errors.New("not found")
	// ErrSlotHeld means Admin.RaiseFloor found the slot leased: its owner, even
	// one whose lease expired, may still release it with a floor of its own.
	ErrSlotHeld = errors.New("slot held")
)

// KeyInfo is a key of a RangeStore as Admin lists it.
type KeyInfo struct {
	Key    string
	Next   int64 // the value the key's next Reserve starts at
	Sealed bool
}

// Raised is what RaiseTo found and left.
type Raised struct {
	Key     string
	Before  int64 // the next value as read just before the raise; 0 when Created
	After   int64 // the next value the raise left: at least the one asked for
	Created bool  // the key did not exist and was created at After
	Sealed  bool
}

// Changed reports whether the raise wrote anything.
func (r Raised) Changed() bool { return r.Created || r.After != r.Before }

// SlotInfo is a slot of a namespace as Admin lists it: the lease on it, or what is
// left of the last one.
type SlotInfo struct {
	Slot         int
	OwnerKey     string // "" when released; an expired lease keeps its owner until another takes the slot
	LastOwnerKey string
	Fence        int64
	ExpiresAt    time.Time // by the store clock
	Floor        int64     // epoch ms
	Ceiling      int64     // epoch ms
	NextFloor    int64     // epoch ms: the Floor of the slot's next owner
}

// Held reports whether the slot's lease is unexpired at now.
func (s SlotInfo) Held(now time.Time) bool { return s.OwnerKey != "" && s.ExpiresAt.After(now) }

// NamespaceInfo is a namespace of slot leases with the slots that were ever leased or
// had their floor raised, in slot order, as read at StoreNow.
type NamespaceInfo struct {
	Namespace string
	Limit     int
	Tolerance time.Duration
	StoreNow  time.Time
	Slots     []SlotInfo
}

// Admin is a RangeStore that also lets an operator's tools inspect and change what
// it holds. Generators never use it: Delete breaks S6 for anything still running on
// the key, and runtime code never deletes (D23). Every store of the project
// implements it; storetest.RunAdmin checks an implementation.
type Admin interface {
	RangeStore
	// Keys returns up to limit keys that start with prefix and sort after after, in
	// the byte order of their UTF-8, with their next values. A page shorter than
	// limit is the last; the next page starts after the last key of this one
	// (AllKeys pages so). limit is 1–MaxPage.
	Keys(ctx context.Context, prefix, after string, limit int) ([]KeyInfo, error)
	// RaiseTo makes key's next value at least next: it never lowers it, keeps a
	// sealed key sealed, and creates a missing key at next. next is 0–math.MaxInt64.
	RaiseTo(ctx context.Context, key string, next int64) (Raised, error)
	// Delete removes key, sealed or not; a missing key is no error. Only an offline
	// tool may call it, once nothing uses the key: a generator that reserves after
	// the delete starts the key again at its initial offset and repeats ids.
	Delete(ctx context.Context, key string) error
	// Slots returns namespace with its slots that were ever leased or had their
	// floor raised (RaiseFloor), or an error
	// wrapping ErrNotFound. A store without slot leases returns one wrapping
	// errors.ErrUnsupported.
	Slots(ctx context.Context, namespace string) (NamespaceInfo, error)
	// RaiseFloor makes the Floor of the next owner of a slot at least req.FloorMs,
	// so that ids stamped by another system with that slot as its machine id never
	// repeat. It never lowers a floor. A namespace that does not exist is created
	// with req.Limit and req.Tolerance, or, when req.Limit is 0, is an error
	// wrapping ErrNotFound; one with another limit or tolerance is
	// ErrNamespaceConflict, unless req.Limit is 0. A slot that has an owner, even
	// one whose lease expired, fails with ErrSlotHeld. It returns the slot after.
	RaiseFloor(ctx context.Context, req FloorRequest) (SlotInfo, error)
	// LeaseOf returns the lease that ownerKey holds in namespace (of its slots, the
	// lowest), expired or not until another owner takes the slot, or an error
	// wrapping ErrNotFound. StoreNow says when it was read.
	LeaseOf(ctx context.Context, namespace, ownerKey string) (Lease, error)
}

// FloorRequest asks Admin.RaiseFloor to raise the floor of a slot.
type FloorRequest struct {
	Namespace string
	Limit     int           // the namespace's limit if RaiseFloor creates it; 0: it must exist
	Tolerance time.Duration // the namespace's tolerance if RaiseFloor creates it
	Slot      int
	FloorMs   int64 // epoch ms: the next owner stamps no id below it
}

// MaxPage is the largest page of Admin.Keys.
const MaxPage = 10000

// AllKeys streams every key of a that starts with prefix, in byte order, a page of
// pageSize at a time, so that a store of millions of keys is never read at once.
// It stops at the first error, which it yields.
func AllKeys(ctx context.Context, a Admin, prefix string, pageSize int) iter.Seq2[KeyInfo, error] {
	return func(yield func(KeyInfo, error) bool) {
		after := ""
		for {
			page, err := a.Keys(ctx, prefix, after, pageSize)
			if err != nil {
				yield(KeyInfo{}, err)
				return
			}
			for _, k := range page {
				if !yield(k, nil) {
					return
				}
			}
			if len(page) < pageSize {
				return
			}
			after = page[len(page)-1].Key
		}
	}
}
