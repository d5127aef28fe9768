package storetest_test

import (
	"fmt"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storetest"
)

// recorder stands in for the t of a checker, to see what it reports.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestCheckProcessRanges_S1(t *testing.T) {
	tests := []struct {
		name     string
		ranges   []store.Range
		from     int64
		wantErrs int
	}{
		{name: "tight, out of order", ranges: []store.Range{{Start: 3, End: 6}, {Start: 0, End: 3}}, from: 0},
		{name: "overlap", ranges: []store.Range{{Start: 0, End: 3}, {Start: 2, End: 5}}, from: -1, wantErrs: 1},
		{name: "gap", ranges: []store.Range{{Start: 0, End: 3}, {Start: 4, End: 7}}, from: 0, wantErrs: 1},
		{name: "gap allowed", ranges: []store.Range{{Start: 0, End: 3}, {Start: 4, End: 7}}, from: -1},
		{name: "late start", ranges: []store.Range{{Start: 1, End: 4}}, from: 0, wantErrs: 1},
		{name: "none", from: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{TB: t}
			storetest.CheckProcessRanges(r, tt.ranges, tt.from)
			if len(r.errs) != tt.wantErrs {
				t.Errorf("reported %q, want %d errors", r.errs, tt.wantErrs)
			}
		})
	}
}
