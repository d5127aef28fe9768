package segment_test

import (
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/segment"
)

// TestTryNext_TakesWhatNextWouldOrNothing takes the first id with Next, then ids
// with TryNext until it says none is at hand, then one with Next: TryNext hands out
// the ids Next would, in order, and returns false without taking one where Next
// has a check to make (the range's end, the prefetch point, a range with a TTL, a
// closed generator). The id that Next then hands out is the one TryNext left, and
// the reservations the store saw are those of Next alone.
func TestTryNext_TakesWhatNextWouldOrNothing(t *testing.T) {
	withTTL := policy(10, 0)
	withTTL.RangeTTL = time.Hour
	for _, tc := range []struct {
		name     string
		p        segment.BatchPolicy
		close    bool
		wantTry  []int64 // the ids TryNext hands out before it returns false
		wantNext int64   // the id Next hands out then; 0: ErrClosed
		// wantReserves is how many reservations the store saw before Next, and
		// after it.
		wantReserves [2]int
	}{
		{"a range without prefetch, to its end", policy(10, 0), false, ids(2, 10), 11, [2]int{1, 2}},
		{"to the prefetch point, which Next takes", policy(10, time.Second), false, ids(2, 9), 10, [2]int{1, 2}},
		{"none from a range with a TTL", withTTL, false, nil, 2, [2]int{1, 1}},
		{"none once closed", policy(10, 0), true, nil, 0, [2]int{1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := newTestStore()
				g := newGen(t, st, tc.p)
				if v := mustNext(t, g); v != 1 {
					t.Fatalf("the first Next = %d, want 1", v)
				}
				if tc.close {
					g.Close()
				}
				var got []int64
				for v, ok := g.TryNext(); ok; v, ok = g.TryNext() {
					got = append(got, v)
				}
				if !slices.Equal(got, tc.wantTry) {
					t.Errorf("TryNext handed out %v, want %v", got, tc.wantTry)
				}
				synctest.Wait()
				if n := st.callCount(); n != tc.wantReserves[0] {
					t.Errorf("%d reservations after TryNext, want %d", n, tc.wantReserves[0])
				}
				v, err := g.Next()
				switch {
				case tc.wantNext == 0 && !errors.Is(err, segment.ErrClosed):
					t.Errorf("Next after TryNext = %d, %v; want ErrClosed", v, err)
				case tc.wantNext != 0 && (v != tc.wantNext || err != nil):
					t.Errorf("Next after TryNext = %d, %v; want %d", v, err, tc.wantNext)
				}
				synctest.Wait()
				if n := st.callCount(); n != tc.wantReserves[1] {
					t.Errorf("%d reservations after Next, want %d", n, tc.wantReserves[1])
				}
			})
		})
	}
}

// ids returns from, from+1, …, to.
func ids(from, to int64) []int64 {
	var s []int64
	for v := from; v <= to; v++ {
		s = append(s, v)
	}
	return s
}

func TestTryNext_AllocatesNothing(t *testing.T) {
	g := newGen(t, newTestStore(), policy(1<<20, 0))
	mustNext(t, g)
	if allocs := testing.AllocsPerRun(10_000, func() { g.TryNext() }); allocs != 0 {
		t.Errorf("TryNext allocates %v times a call, want 0", allocs)
	}
}
