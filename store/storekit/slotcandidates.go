package storekit

import "slices"

// SlotCandidates returns up to n slots of [0, limit) that are free at nowMs, in the
// order an acquirer tries them: those owner had before (L5), the preferred one (-1:
// none), then the lowest. A store that takes slots with compare-and-swaps tries them
// in turn, so that of concurrent acquirers for the last free slot one wins (L7). rows holds the slots that have a row; a slot without one
// was never taken and is free.
func SlotCandidates(rows map[int]SlotRow, limit int, owner string, preferred int, nowMs int64, n int) []int {
	return SlotCandidatesWhere(rows, limit, owner, preferred, n, func(slot int) bool {
		r, ok := rows[slot]
		return !ok || r.Free(nowMs)
	})
}

// SlotCandidatesWhere is SlotCandidates for a store whose backend, not the rows'
// expiry, tells which slots are free (etcd expires a slot's held key): free reports
// it.
func SlotCandidatesWhere(rows map[int]SlotRow, limit int, owner string, preferred, n int, free func(slot int) bool) []int {
	var out []int
	add := func(slot int) {
		if len(out) < n && free(slot) && !slices.Contains(out, slot) {
			out = append(out, slot)
		}
	}
	var had []int
	for slot, r := range rows {
		if r.LastOwner == owner {
			had = append(had, slot)
		}
	}
	slices.Sort(had)
	for _, slot := range had {
		add(slot)
	}
	if preferred >= 0 {
		add(preferred)
	}
	for slot := 0; slot < limit && len(out) < n; slot++ {
		add(slot)
	}
	return out
}

// SlotRows returns the SlotRow of each slot of rows, a store's map whose values row
// reads.
func SlotRows[R any](rows map[int]R, row func(R) SlotRow) map[int]SlotRow {
	out := make(map[int]SlotRow, len(rows))
	for slot, r := range rows {
		out[slot] = row(r)
	}
	return out
}
