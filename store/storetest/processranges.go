package storetest

import (
	"cmp"
	"slices"
	"testing"

	"github.com/cosid-go/cosid/store"
)

// CheckProcessRanges checks the ranges that several processes reserved of one key,
// for the tests of a store that run real processes: it fails t for every two that
// share a value (S1), and, when from is not negative, unless together they cover
// [from, from+their total size) exactly, so that no value was lost. It sorts ranges.
func CheckProcessRanges(t testing.TB, ranges []store.Range, from int64) {
	t.Helper()
	slices.SortFunc(ranges, func(a, b store.Range) int { return cmp.Compare(a.Start, b.Start) })
	var total int64
	for i, r := range ranges {
		total += r.End - r.Start
		if i > 0 && r.Start < ranges[i-1].End {
			t.Errorf("ranges %v and %v of two processes overlap", ranges[i-1], r)
		}
	}
	if n := len(ranges); from >= 0 && n > 0 && (ranges[0].Start != from || ranges[n-1].End != from+total) {
		t.Errorf("the ranges of the processes span [%d, %d), want [%d, %d): none lost, none twice", ranges[0].Start, ranges[n-1].End, from, from+total)
	}
}
