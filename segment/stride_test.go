package segment_test

import (
	"errors"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// TestWithStride_IDsAreTheStoreValuesMapped: a generator with stride N and residue
// r hands out v·N + r for each store value v, dense in its class: one after the
// other, each N above the last, across ranges.
func TestWithStride_IDsAreTheStoreValuesMapped(t *testing.T) {
	for _, c := range []struct{ stride, residue int64 }{{1, 0}, {2, 0}, {2, 1}, {3, 2}, {1000, 999}} {
		st := memstore.New()
		g := newGen(t, st, policy(7, 0), segment.WithStride(c.stride, c.residue))
		if s, r := g.Stride(); s != c.stride || r != c.residue {
			t.Errorf("Stride() = %d, %d; want %d, %d", s, r, c.stride, c.residue)
		}
		want := 1*c.stride + c.residue // the initial offset 1, mapped
		for range 50 {
			if v := mustNext(t, g); v != want {
				t.Fatalf("stride %d residue %d: Next = %d, want %d", c.stride, c.residue, v, want)
			}
			want += c.stride
		}
	}
}

// TestWithStride_RefusesBadArguments: a stride below 1, a residue outside [0,
// stride), a residue without a stride.
func TestWithStride_RefusesBadArguments(t *testing.T) {
	for _, c := range []struct{ stride, residue int64 }{{-1, 0}, {0, 1}, {2, 2}, {2, -1}, {3, 7}} {
		_, err := segment.New(memstore.New(), "app/k", policy(10, 0), segment.WithStride(c.stride, c.residue))
		if !errors.Is(err, store.ErrInvalidArgument) {
			t.Errorf("WithStride(%d, %d): %v; want ErrInvalidArgument", c.stride, c.residue, err)
		}
	}
}

// TestWithStride_S5_ExhaustedPastMaxInt64: the ids of a stride stop at the last
// value whose id fits an int64, with ErrExhausted, never a wrap.
func TestWithStride_S5_ExhaustedPastMaxInt64(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const stride, residue = 10, 7
		last := int64(math.MaxInt64-residue) / stride // the last value with an id
		p := policy(10, time.Second)
		p.InitialOffset = last - 24
		g := newGen(t, newTestStore(), p, segment.WithStride(stride, residue))
		var got []int64
		var err error
		for range 40 {
			var v int64
			if v, err = g.Next(); err != nil {
				break
			}
			if v < 0 || v%stride != residue {
				t.Fatalf("Next = %d: wrapped, or not ≡ %d mod %d", v, residue, stride)
			}
			got = append(got, v)
		}
		if !errors.Is(err, store.ErrExhausted) {
			t.Fatalf("Next after the last id: %v, want ErrExhausted", err)
		}
		if len(got) != 25 || got[len(got)-1] != last*stride+residue {
			t.Errorf("got %d ids ending at %d; want 25 ending at %d", len(got), got[len(got)-1], last*stride+residue)
		}
	})
}

// TestWithStride_NextRangeRefused: a strided generator's ids are not consecutive,
// so NextRange fails, naming the stride.
func TestWithStride_NextRangeRefused(t *testing.T) {
	g := newGen(t, newTestStore(), policy(10, 0), segment.WithStride(2, 1))
	if _, err := g.NextRange(5); !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("NextRange of stride 2: %v; want ErrInvalidArgument", err)
	}
}

// TestWithStride_TwoRegionsNeverShareAnID: two regions, each a store of its own,
// stride 2, residues 0 and 1, hand out many ids from many goroutines; none twice.
func TestWithStride_TwoRegionsNeverShareAnID(t *testing.T) {
	const perCaller, callers = 2000, 4
	var mu sync.Mutex
	seen := map[int64]int64{}
	var wg sync.WaitGroup
	for residue := range int64(2) {
		g := newGen(t, memstore.New(), policy(50, 0), segment.WithStride(2, residue))
		for range callers {
			wg.Go(func() {
				ids := make([]int64, 0, perCaller)
				for range perCaller {
					v, err := g.Next()
					if err != nil {
						t.Error(err)
						return
					}
					ids = append(ids, v)
				}
				mu.Lock()
				defer mu.Unlock()
				for _, v := range ids {
					if r, dup := seen[v]; dup {
						t.Errorf("id %d from the regions of residue %d and %d", v, r, residue)
					}
					seen[v] = residue
				}
			})
		}
	}
	wg.Wait()
	if len(seen) != 2*callers*perCaller {
		t.Errorf("%d distinct ids, want %d", len(seen), 2*callers*perCaller)
	}
}

// TestWithStride_Periodic: a Periodic's generators take the stride too.
func TestWithStride_Periodic(t *testing.T) {
	p, err := segment.NewPeriodic(memstore.New(), "app/bill", segment.YearMonthDay, time.UTC, policy(10, 0),
		segment.DefaultPeriodicPolicy(), segment.WithStride(4, 3), segment.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := range int64(20) {
		id, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		if want := (1+i)*4 + 3; id.Value != want {
			t.Fatalf("Periodic.Next = %d, want %d", id.Value, want)
		}
	}
}
