package segment

import (
	"testing"

	"github.com/cosid-go/cosid/store"
)

func TestUnusedTail_S7_OnlyFromTheLastRange(t *testing.T) {
	sp := func(start, size int64) *span { return &span{start: start, size: size} }
	none := &span{prefetchAt: -1}
	tests := []struct {
		name    string
		cur     *span
		taken   int64
		spare   *span
		lastEnd int64
		want    store.Range
		ok      bool
	}{
		{"NoRangeYet", none, 0, nil, -1, store.Range{}, false},
		{"CurrentIsTheLast", sp(1, 10), 3, nil, 11, store.Range{Start: 4, End: 11}, true},
		{"CurrentUsedUp", sp(1, 10), 10, nil, 11, store.Range{}, false},
		{"SpareJoinsCurrent", sp(1, 10), 3, sp(11, 10), 21, store.Range{Start: 4, End: 21}, true},
		{"SpareApartFromCurrent", sp(1, 10), 3, sp(31, 10), 41, store.Range{Start: 31, End: 41}, true},
		{"OnlyASpare", none, 0, sp(11, 10), 21, store.Range{Start: 11, End: 21}, true},
		// A range after the current one was dropped (its TTL) or arrived after Close:
		// the current one's tail is below the last range, a gap.
		{"CurrentBelowADroppedRange", sp(1, 10), 3, nil, 21, store.Range{}, false},
		{"SpareBelowTheLastRange", sp(1, 10), 3, sp(11, 10), 31, store.Range{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := unusedTail(tc.cur, tc.taken, tc.spare, tc.lastEnd)
			if got != tc.want || ok != tc.ok {
				t.Errorf("unusedTail = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
