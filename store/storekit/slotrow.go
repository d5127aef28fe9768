package storekit

import (
	"fmt"
	"time"

	"github.com/cosid-go/cosid/store"
)

// SlotRow is the state of one slot: the lease on it, or what is left of the last.
// Its methods are the rules by which acquisitions, renewals and releases change the
// row, so that every store of slot leases hands out the same fences (L2), floors
// and ceilings (L3): a store reads the row, asks the method for the next one, and
// writes that with a compare-and-swap on the row as read (or under a lock). Times are
// whole milliseconds of the store clock (L6).
type SlotRow struct {
	Owner       string // "" once released
	Incarnation string // "" once released
	LastOwner   string // the most recent owner, kept after release and expiry (L5)
	Fence       int64
	ExpiresMs   int64
	FloorMs     int64
	CeilingMs   int64
	NextFloorMs int64 // the next owner's Floor after a release; the holder's Floor before
}

// Free reports whether the slot has no owner, or its lease expired by nowMs.
func (r SlotRow) Free(nowMs int64) bool { return r.Owner == "" || r.ExpiresMs <= nowMs }

// NextFloor is the Floor of the slot's next owner (L3): above the last timestamp the
// earlier owner reported when it released the slot, or above its Ceiling when it let
// the lease expire.
func (r SlotRow) NextFloor() int64 {
	if r.Owner == "" {
		return r.NextFloorMs
	}
	return max(r.NextFloorMs, r.CeilingMs+1)
}

// Take returns the row of a free slot leased to owner at nowMs for ttlMs: a new
// incarnation, the next fence (L2), the floor NextFloor, and a ceiling toleranceMs
// past the expiry.
func (r SlotRow) Take(owner string, nowMs, ttlMs, toleranceMs int64) SlotRow {
	floor, expires := r.NextFloor(), nowMs+ttlMs
	return SlotRow{
		Owner:       owner,
		Incarnation: NewIncarnation(),
		LastOwner:   owner,
		Fence:       r.Fence + 1,
		ExpiresMs:   expires,
		FloorMs:     floor,
		CeilingMs:   expires + toleranceMs,
		NextFloorMs: floor,
	}
}

// Renew returns the row with its lease extended to expire ttlMs after nowMs. The
// ceiling moves up with the expiry, and never down, even when the clock stepped back.
func (r SlotRow) Renew(nowMs, ttlMs, toleranceMs int64) SlotRow {
	r.ExpiresMs = nowMs + ttlMs
	r.CeilingMs = max(r.CeilingMs, r.ExpiresMs+toleranceMs)
	return r
}

// Release returns the row freed by an owner whose last stamp was lastUsedMs, so that
// the next owner starts above it. A lastUsedMs above the ceiling breaks the contract:
// the error wraps store.ErrInvalidArgument.
func (r SlotRow) Release(lastUsedMs int64) (SlotRow, error) {
	if lastUsedMs > r.CeilingMs {
		return r, fmt.Errorf("%w: lastUsedMs %d lies above the lease's ceiling %d", store.ErrInvalidArgument, lastUsedMs, r.CeilingMs)
	}
	r.NextFloorMs = max(r.FloorMs, lastUsedMs+1)
	r.Owner, r.Incarnation = "", ""
	return r, nil
}

// ReleaseUnproven returns the row freed by a caller that cannot prove it is the
// lease's owner (an operator's release, a lease found by its owner key): the owner
// may still be stamping up to its Ceiling, so the Ceiling is recorded as its last
// stamp, and the next owner starts above it (L3), never at "now".
func (r SlotRow) ReleaseUnproven() SlotRow {
	released, _ := r.Release(r.CeilingMs) // the Ceiling is never above itself
	return released
}

// Holds reports whether the row is still l's: no acquisition or release came since.
func (r SlotRow) Holds(l store.Lease) bool {
	return r.Owner == l.OwnerKey && r.Incarnation == l.Incarnation && r.Fence == l.Fence
}

// Lease returns the row as the lease on slot of namespace, answered at nowMs.
func (r SlotRow) Lease(namespace string, slot int, nowMs int64) store.Lease {
	return store.Lease{
		Namespace:   namespace,
		OwnerKey:    r.Owner,
		Incarnation: r.Incarnation,
		Slot:        slot,
		Fence:       r.Fence,
		ExpiresAt:   time.UnixMilli(r.ExpiresMs).UTC(),
		Floor:       r.FloorMs,
		Ceiling:     r.CeilingMs,
		StoreNow:    time.UnixMilli(nowMs).UTC(),
	}
}

// MillisUp returns d in whole milliseconds, rounded up, as stores keep TTLs and
// tolerances.
func MillisUp(d time.Duration) int64 {
	ms := int64(d / time.Millisecond)
	if d%time.Millisecond > 0 {
		ms++
	}
	return ms
}

// Info is the row of slot as store.Admin's Slots lists it.
func (r SlotRow) Info(slot int) store.SlotInfo {
	return store.SlotInfo{
		Slot: slot, OwnerKey: r.Owner, LastOwnerKey: r.LastOwner, Fence: r.Fence,
		ExpiresAt: time.UnixMilli(r.ExpiresMs).UTC(), Floor: r.FloorMs, Ceiling: r.CeilingMs, NextFloor: r.NextFloor(),
	}
}

// NamespaceConflict is the error of a namespace that has limit and toleranceMs,
// asked for with wantLimit and wantTolerance (L4): it wraps
// store.ErrNamespaceConflict and names both settings.
func NamespaceConflict(limit int, toleranceMs int64, wantLimit int, wantTolerance time.Duration) error {
	return fmt.Errorf("the namespace has limit %d and tolerance %v, asked for limit %d and tolerance %v: %w",
		limit, time.Duration(toleranceMs)*time.Millisecond, wantLimit, wantTolerance, store.ErrNamespaceConflict)
}
