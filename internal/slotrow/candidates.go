package slotrow

import "slices"

// Candidates returns up to n slots of [0, limit) that are free at nowMs, in the
// order an acquirer tries them: those owner had before (L5), the preferred one (-1:
// none), then the lowest. rows holds the slots that have a row; a slot without one
// was never taken and is free.
func Candidates(rows map[int]Row, limit int, owner string, preferred int, nowMs int64, n int) []int {
	var out []int
	add := func(slot int) {
		if r, ok := rows[slot]; (!ok || r.Free(nowMs)) && !slices.Contains(out, slot) && len(out) < n {
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
