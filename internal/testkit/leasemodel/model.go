// Package leasemodel checks the slot-lease protocol by exhaustive exploration: every
// interleaving of acquisitions, renewals, releases, expiries, pauses, clock steps and
// crashes of a few owners over a few slots, up to a bound on store time. The rules
// that change a slot's row are storekit.SlotRow's, the ones every store runs; the
// model adds the owners (Snowflake generators: they stamp only within their lease's
// [Floor, Ceiling] and never below their last stamp) and the network (an answer can
// be lost after its write landed).
//
// Explore reports the first state that breaks L1, L2, L3 or "no two acquisitions of
// a slot stamp the same (slot, timestamp)", with the steps that lead to it.
// ExploreForeign adds a caller that is no owner and releases any held lease at any
// time (a forged 4.x revert or store release); L1 is then not checked, as such a
// release breaks it by design.
package leasemodel

import (
	"strconv"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// Bounds are the sizes of the explored world. Times are whole milliseconds of the
// store clock, as storekit.SlotRow keeps them.
type Bounds struct {
	Owners    int   // at most MaxOwners
	Slots     int   // at most MaxSlots
	Horizon   int64 // store time runs from 0 to Horizon
	TTL       int64 // lease TTL
	Tolerance int64 // the namespace's tolerance; an owner's clock is within it of the store's
	// Skew bounds how far an owner's clock may be from the store's (|offset| ≤ Skew);
	// the contract promises uniqueness for Skew ≤ Tolerance.
	Skew int64
	// Takes bounds the acquisitions of each slot (at most 7): with releases, a slot
	// can change hands any number of times within one millisecond.
	Takes int
}

// The largest world a State holds.
const (
	MaxOwners = 3
	MaxSlots  = 2
	maxTime   = 24 // times lie in 0..maxTime-1
	maxFences = 7  // acquisitions of one slot explored; later ones are beyond the bounds
)

// Take is how an acquisition turns a free slot's row into the new owner's. The
// protocol's is storekit.SlotRow.Take; a planted defect passes another.
type Take func(r storekit.SlotRow, owner string, nowMs, ttlMs, toleranceMs int64) storekit.SlotRow

// RealTake is storekit.SlotRow's rule, the one the stores run.
func RealTake(r storekit.SlotRow, owner string, nowMs, ttlMs, toleranceMs int64) storekit.SlotRow {
	return r.Take(owner, nowMs, ttlMs, toleranceMs)
}

// TakeIgnoringCeiling is a planted defect: the new owner's Floor ignores the Ceiling
// of an owner whose lease expired, as if that owner had released the slot.
func TakeIgnoringCeiling(r storekit.SlotRow, owner string, nowMs, ttlMs, toleranceMs int64) storekit.SlotRow {
	r.Owner = ""
	return r.Take(owner, nowMs, ttlMs, toleranceMs)
}

// Foreign is how a release by a caller that is not the lease's owner turns a held
// slot's row into a free one, at store time nowMs: what a forged revert or release
// may do at most. ExploreForeign lets such a caller release any held lease at any
// time; the owner is not told, and stamps on until a renewal or its Ceiling stops it.
type Foreign func(r storekit.SlotRow, nowMs int64) storekit.SlotRow

// RealForeign is the protocol's rule for a release that cannot prove it comes from
// the owner: the lease's Ceiling is its last use (storekit.SlotRow.ReleaseUnproven).
func RealForeign(r storekit.SlotRow, _ int64) storekit.SlotRow { return r.ReleaseUnproven() }

// ForeignReleaseAtNow is a planted defect, the 4.x revert before issue 18: the
// release records min(now, Ceiling) as the owner's last use, so the next owner may
// start below what the running owner still stamps.
func ForeignReleaseAtNow(r storekit.SlotRow, nowMs int64) storekit.SlotRow {
	released, _ := r.Release(min(nowMs, r.CeilingMs))
	return released
}

// owner is what one owner (a Snowflake generator and its process) knows.
type owner struct {
	holds   bool
	slot    int8
	fence   int8
	floor   int8
	ceiling int8 // the highest Ceiling the store answered this acquisition
	expires int8 // the expiry of the latest answer
	offset  int8 // owner clock minus store clock
}

// row is a storekit.SlotRow in a comparable, compact form: owners by index (-1 none),
// the incarnation implied by the fence.
type row struct {
	owner, lastOwner                       int8
	fence, expires, floor, ceil, nextFloor int8
}

// State is one state of the world. It is comparable, so that explored states are
// kept in a map.
type State struct {
	now    int8
	owners [MaxOwners]owner
	rows   [MaxSlots]row
	// stamps[s][f-1] spans the times that acquisition f of slot s may have stamped:
	// from its Floor to its last stamp. A stamp of another acquisition inside the
	// span is reported as a duplicate: stricter than an equal time, and what L3
	// promises, since each acquisition's stamps lie above every earlier one's.
	stamps [MaxSlots][maxFences]span
	// maxFence[s] is the highest fence slot s ever had (L2).
	maxFence [MaxSlots]int8
}

// span is an acquisition's Floor and its last stamp; hi -1 before its first.
type span struct{ lo, hi int8 }

var ownerNames = [MaxOwners]string{"owner-0", "owner-1", "owner-2"}

func ownerName(i int8) string {
	if i < 0 {
		return ""
	}
	return ownerNames[i]
}

func ownerIndex(name string) int8 {
	for i, n := range ownerNames {
		if n == name {
			return int8(i)
		}
	}
	return -1
}

var incarnations = func() (t [MaxSlots][maxFences + 1]string) {
	for s := range t {
		for f := range t[s] {
			t[s][f] = "slot-" + strconv.Itoa(s) + "-fence-" + strconv.Itoa(f)
		}
	}
	return t
}()

// incarnation stands for the random UUID a store makes: one per (slot, fence), so
// that equal states compare equal.
func incarnation(slot, fence int8) string { return incarnations[slot][fence] }

// canonical returns s with its owners renamed into the least order, so that states
// that differ only by which owner is which are explored once: owners are alike but
// for their names.
// It returns the renaming too: owner i of s is owner p[i] of the result.
func (s State) canonical(owners int) (State, [MaxOwners]int8) {
	best, bestP := s, perms[owners][0]
	for _, p := range perms[owners][1:] {
		if c := s.renamed(p); c.less(best) {
			best, bestP = c, p
		}
	}
	return best, bestP
}

// perms lists the orders of 1, 2 and 3 owners.
var perms = [MaxOwners + 1][][MaxOwners]int8{
	1: {{0, 1, 2}},
	2: {{0, 1, 2}, {1, 0, 2}},
	3: {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}},
}

// renamed returns s with owner i called p[i].
func (s State) renamed(p [MaxOwners]int8) State {
	c := s
	for i, o := range s.owners {
		c.owners[p[i]] = o
	}
	for k, r := range s.rows {
		if r.owner >= 0 {
			c.rows[k].owner = p[r.owner]
		}
		if r.lastOwner >= 0 {
			c.rows[k].lastOwner = p[r.lastOwner]
		}
	}
	return c
}

func (s State) less(t State) bool {
	for i := range s.owners {
		if a, b := s.owners[i], t.owners[i]; a != b {
			return a.less(b)
		}
	}
	for k := range s.rows {
		if a, b := s.rows[k], t.rows[k]; a != b {
			return a.owner < b.owner || a.owner == b.owner && a.lastOwner < b.lastOwner
		}
	}
	return false
}

func (o owner) less(p owner) bool {
	a := [...]int8{b2i(o.holds), o.slot, o.fence, o.floor, o.ceiling, o.expires, o.offset}
	b := [...]int8{b2i(p.holds), p.slot, p.fence, p.floor, p.ceiling, p.expires, p.offset}
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func b2i(b bool) int8 {
	if b {
		return 1
	}
	return 0
}

func (r row) toSlotrow(slot int8) storekit.SlotRow {
	sr := storekit.SlotRow{
		Owner: ownerName(r.owner), LastOwner: ownerName(r.lastOwner), Fence: int64(r.fence),
		ExpiresMs: int64(r.expires), FloorMs: int64(r.floor), CeilingMs: int64(r.ceil), NextFloorMs: int64(r.nextFloor),
	}
	if r.owner >= 0 {
		sr.Incarnation = incarnation(slot, r.fence)
	}
	return sr
}

func fromSlotrow(sr storekit.SlotRow) row {
	return row{
		owner: ownerIndex(sr.Owner), lastOwner: ownerIndex(sr.LastOwner), fence: int8(sr.Fence),
		expires: int8(sr.ExpiresMs), floor: int8(sr.FloorMs), ceil: int8(sr.CeilingMs), nextFloor: int8(sr.NextFloorMs),
	}
}

// holdsRow reports, by storekit.SlotRow's rule, whether r is still owner i's acquisition.
func (o owner) holdsRow(i int8, r storekit.SlotRow) bool {
	return r.Holds(store.Lease{OwnerKey: ownerName(i), Incarnation: incarnation(o.slot, o.fence), Fence: int64(o.fence)})
}
