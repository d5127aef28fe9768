package store

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"
	"unicode/utf8"
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

// CheckFloorRequest reports whether req keeps the rules of Admin.RaiseFloor, with an
// error wrapping ErrInvalidArgument that names the field.
func CheckFloorRequest(req FloorRequest) error {
	if err := CheckNamespace(req.Namespace); err != nil {
		return err
	}
	slots := MaxSlots
	if req.Limit > 0 {
		slots = req.Limit
	}
	switch {
	case req.Limit < 0 || req.Limit > MaxSlots:
		return fmt.Errorf("%w: Limit %d for namespace %q, want 0–%d", ErrInvalidArgument, req.Limit, req.Namespace, MaxSlots)
	case req.Tolerance < 0:
		return fmt.Errorf("%w: Tolerance %v for namespace %q, want ≥ 0", ErrInvalidArgument, req.Tolerance, req.Namespace)
	case req.Slot < 0 || req.Slot >= slots:
		return fmt.Errorf("%w: Slot %d of namespace %q, want 0–%d", ErrInvalidArgument, req.Slot, req.Namespace, slots-1)
	case req.FloorMs < 0:
		return fmt.Errorf("%w: FloorMs %d for slot %d of namespace %q, want ≥ 0", ErrInvalidArgument, req.FloorMs, req.Slot, req.Namespace)
	}
	return nil
}

// MaxPage is the largest page of Admin.Keys.
const MaxPage = 10000

// CheckKeys reports whether the arguments of Admin.Keys keep its rules, with an
// error wrapping ErrInvalidArgument that names the argument.
func CheckKeys(prefix, after string, limit int) error {
	switch {
	case len(prefix) > MaxKeyLen || !utf8.ValidString(prefix):
		return fmt.Errorf("%w: prefix %.40q must be 0–%d bytes of UTF-8", ErrInvalidArgument, prefix, MaxKeyLen)
	case len(after) > MaxKeyLen || !utf8.ValidString(after):
		return fmt.Errorf("%w: after %.40q must be 0–%d bytes of UTF-8", ErrInvalidArgument, after, MaxKeyLen)
	case limit < 1 || limit > MaxPage:
		return fmt.Errorf("%w: limit %d, want 1–%d", ErrInvalidArgument, limit, MaxPage)
	}
	return nil
}

// CheckRaise reports whether the arguments of Admin.RaiseTo keep its rules.
func CheckRaise(key string, next int64) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	if next < 0 {
		return fmt.Errorf("%w: next value %d for key %q, want ≥ 0", ErrInvalidArgument, next, key)
	}
	return nil
}

// CheckLeaseOf reports whether the arguments of Admin.LeaseOf keep its rules: a
// valid namespace (CheckNamespace) and owner key (CheckOwnerKey).
func CheckLeaseOf(namespace, ownerKey string) error {
	if err := CheckNamespace(namespace); err != nil {
		return err
	}
	return CheckOwnerKey(ownerKey)
}

// CheckNamespace reports whether namespace is 1–MaxNamespaceLen bytes of UTF-8.
func CheckNamespace(namespace string) error {
	if namespace == "" || len(namespace) > MaxNamespaceLen || !utf8.ValidString(namespace) {
		return fmt.Errorf("%w: namespace %.40q must be 1–%d bytes of UTF-8", ErrInvalidArgument, namespace, MaxNamespaceLen)
	}
	return nil
}

// CheckOwnerKey reports whether ownerKey is 1–MaxKeyLen bytes of UTF-8.
func CheckOwnerKey(ownerKey string) error {
	if ownerKey == "" || len(ownerKey) > MaxKeyLen || !utf8.ValidString(ownerKey) {
		return fmt.Errorf("%w: owner key %.40q must be 1–%d bytes of UTF-8", ErrInvalidArgument, ownerKey, MaxKeyLen)
	}
	return nil
}

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

// PrefixBounds returns the keys [lo, hi) that hold exactly the keys of valid UTF-8
// that start with prefix, in byte order: lo is prefix, and hi the least string above
// every such key (the prefix with its last rune stepped up), or ok false when none
// is (an empty prefix, or one of only the highest rune). Stores that scan an ordered
// index use it to stop at the prefix's end.
func PrefixBounds(prefix string) (lo, hi string, ok bool) {
	rs := []rune(prefix)
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i] + 1
		if r == 0xD800 { // surrogates are no runes of UTF-8
			r = 0xE000
		}
		if r <= utf8.MaxRune {
			rs[i] = r
			return prefix, string(rs[:i+1]), true
		}
	}
	return prefix, "", false
}
