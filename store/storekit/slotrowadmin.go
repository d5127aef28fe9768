package storekit

import (
	"maps"
	"slices"
	"time"

	"github.com/cosid-go/cosid/store"
)

// The answers of store.Admin's Slots and LeaseOf from the rows a store read. A store
// keeps its rows beside what it needs to write them again (a version, a revision),
// so these take the store's map and a func that gives the SlotRow of one of its
// values.

// NewNamespaceInfo returns namespace, with the limit and tolerance it was created
// with, as Slots answers it when read at nowMs; ListedSlots gives its Slots.
func NewNamespaceInfo(namespace string, limit int, toleranceMs, nowMs int64) store.NamespaceInfo {
	return store.NamespaceInfo{
		Namespace: namespace,
		Limit:     limit,
		Tolerance: time.Duration(toleranceMs) * time.Millisecond,
		StoreNow:  time.UnixMilli(nowMs).UTC(),
	}
}

// ListedSlots returns the slots of rows that Slots lists, in slot order: those ever
// leased (a fence above 0) or whose floor was raised. A row of neither is one that
// no store writes, and is left out.
func ListedSlots[R any](rows map[int]R, row func(R) SlotRow) []store.SlotInfo {
	var out []store.SlotInfo
	for _, slot := range slices.Sorted(maps.Keys(rows)) {
		if r := row(rows[slot]); r.Fence > 0 || r.NextFloorMs > 0 {
			out = append(out, r.Info(slot))
		}
	}
	return out
}

// OwnedSlot returns the lowest slot of rows whose row names owner as its owner,
// expired or not, which is the lease LeaseOf answers with; ok is false when no row
// does.
func OwnedSlot[R any](rows map[int]R, row func(R) SlotRow, owner string) (slot int, ok bool) {
	slot = -1
	for s, r := range rows {
		if row(r).Owner == owner && (slot < 0 || s < slot) {
			slot = s
		}
	}
	return slot, slot >= 0
}

// DerefSlotRow is the row func of ListedSlots and OwnedSlot for a store that keeps
// its rows as *SlotRow.
func DerefSlotRow(r *SlotRow) SlotRow { return *r }
