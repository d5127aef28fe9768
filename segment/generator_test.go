package segment_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

func TestNext_HotPathAllocatesNothing(t *testing.T) {
	for _, lookahead := range []time.Duration{0, time.Second} {
		g := newGen(t, memstore.New(), policy(1<<20, lookahead))
		mustNext(t, g) // installs the first range
		if allocs := testing.AllocsPerRun(10_000, func() { g.Next() }); allocs != 0 {
			t.Errorf("Lookahead %v: Next allocates %v times a call, want 0", lookahead, allocs)
		}
	}
}

func TestNext_StartsAtInitialOffsetAndCountsUp(t *testing.T) {
	g := newGen(t, memstore.New(), policy(3, 0))
	for want := int64(1); want <= 10; want++ {
		if v := mustNext(t, g); v != want {
			t.Fatalf("Next = %d, want %d", v, want)
		}
	}
}

// TestNext_S4_UniqueAndIncreasing runs goroutines on two generators of one key, on two
// store instances sharing a backend: every id is unique, and every goroutine sees its
// ids strictly increase.
func TestNext_S4_UniqueAndIncreasing(t *testing.T) {
	backend := memstore.New()
	gens := []*segment.Generator{
		newGen(t, backend, policy(7, time.Millisecond)),
		newGen(t, backend.Sibling(), policy(13, 0)),
	}
	const goroutines, each = 8, 5000
	ids := make([][]int64, goroutines)
	var wg sync.WaitGroup
	for i := range goroutines {
		wg.Go(func() {
			g := gens[i%len(gens)]
			for range each {
				v, err := g.Next()
				if err != nil {
					t.Errorf("Next: %v", err)
					return
				}
				ids[i] = append(ids[i], v)
			}
			if n := len(ids[i]); n > 0 {
				for j := 1; j < n; j++ {
					if ids[i][j] <= ids[i][j-1] {
						t.Errorf("goroutine %d: id %d after %d", i, ids[i][j], ids[i][j-1])
						return
					}
				}
			}
		})
	}
	wg.Wait()
	all := slices.Concat(ids...)
	slices.Sort(all)
	if dup := slices.Compact(slices.Clone(all)); len(dup) != len(all) {
		t.Fatalf("%d duplicate ids among %d", len(all)-len(dup), len(all))
	}
}

func TestNextRange_GivesConsecutiveIds(t *testing.T) {
	g := newGen(t, memstore.New(), policy(10, 0)) // ranges of exactly 10 from 1
	steps := []struct {
		n    int64 // 0: call Next
		want store.Range
	}{
		{3, store.Range{Start: 1, End: 4}},
		{0, store.Range{Start: 4, End: 5}},
		{6, store.Range{Start: 5, End: 11}},   // the rest of [1, 11)
		{25, store.Range{Start: 11, End: 36}}, // a new range of 30
		{0, store.Range{Start: 36, End: 37}},
		{5, store.Range{Start: 37, End: 42}}, // [37, 41) holds 4: joined to [41, 51)
	}
	for i, s := range steps {
		var got store.Range
		if s.n == 0 {
			v := mustNext(t, g)
			got = store.Range{Start: v, End: v + 1}
		} else {
			r, err := g.NextRange(s.n)
			if err != nil {
				t.Fatalf("step %d: NextRange(%d): %v", i, s.n, err)
			}
			got = r
		}
		if got != s.want {
			t.Fatalf("step %d: got %v, want %v", i, got, s.want)
		}
	}
	for _, n := range []int64{0, -1} {
		if _, err := g.NextRange(n); !errors.Is(err, store.ErrInvalidArgument) {
			t.Errorf("NextRange(%d) = %v, want ErrInvalidArgument", n, err)
		}
	}
}

// TestNextRange_RestJoinsTheNextRangeOrIsAGap checks what becomes of the rest of
// the range in use when a NextRange needs more: the first ids of the key when the
// store's next range follows it, a gap when another process took ids in between.
func TestNextRange_RestJoinsTheNextRangeOrIsAGap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memstore.New()
		g := newGen(t, st, policy(10, 0))
		if r, err := g.NextRange(25); err != nil || r != (store.Range{Start: 1, End: 26}) {
			t.Errorf("NextRange(25) of a new key = %v, %v; want [1, 26): the first range [1, 11) goes first", r, err)
		}
		synctest.Wait()                                          // a reservation ahead of need, if any, is done
		other, err := st.Reserve(t.Context(), "test/key", 10, 1) // another process of the key
		if err != nil {
			t.Fatal(err)
		}
		r, err := g.NextRange(100) // more than the rest and any range reserved ahead
		if err != nil {
			t.Fatal(err)
		}
		if r.Start < other.End {
			t.Errorf("NextRange(100) = %v, with %v another process's: want a range above it, the rest a gap", r, other)
		}
	})
}

func TestNextRange_BeyondMaxBatch(t *testing.T) {
	p := policy(10, time.Second)
	p.MaxBatch = 100
	g := newGen(t, memstore.New(), p)
	r, err := g.NextRange(1000)
	if err != nil || r.Len() != 1000 {
		t.Fatalf("NextRange(1000) = %v, %v; want 1000 ids", r, err)
	}
	if v := mustNext(t, g); v < r.End {
		t.Errorf("Next after NextRange = %d, want ≥ %d", v, r.End)
	}
}

type timeoutStore struct {
	*memstore.Store
	timeout time.Duration
}

func (s timeoutStore) Timeout() time.Duration { return s.timeout }

func TestNew_RefusesBadArguments(t *testing.T) {
	mod := func(f func(*segment.BatchPolicy)) segment.BatchPolicy {
		p := segment.DefaultBatchPolicy()
		f(&p)
		return p
	}
	tests := []struct {
		name    string
		st      store.RangeStore
		key     string
		p       segment.BatchPolicy
		mention string
	}{
		{"NilStore", nil, "k", segment.DefaultBatchPolicy(), "nil store"},
		{"EmptyKey", memstore.New(), "", segment.DefaultBatchPolicy(), "key"},
		{"LongKey", memstore.New(), strings.Repeat("k", 256), segment.DefaultBatchPolicy(), "key"},
		{"StepZero", memstore.New(), "k", mod(func(p *segment.BatchPolicy) { p.Step = 0 }), "Step"},
		{"OffsetNegative", memstore.New(), "k", mod(func(p *segment.BatchPolicy) { p.InitialOffset = -1 }), "InitialOffset"},
		{"LookaheadNegative", memstore.New(), "k", mod(func(p *segment.BatchPolicy) { p.Lookahead = -time.Second }), "Lookahead"},
		{"MaxBatchBelowStep", memstore.New(), "k", mod(func(p *segment.BatchPolicy) { p.Step, p.MaxBatch = 100, 99 }), "MaxBatch"},
		{"MaxBatchNegative", memstore.New(), "k", mod(func(p *segment.BatchPolicy) { p.MaxBatch = -1 }), "MaxBatch"},
		{"ReserveTimeoutZero", memstore.New(), "k", mod(func(p *segment.BatchPolicy) { p.ReserveTimeout = 0 }), "ReserveTimeout"},
		{"RangeTTLNegative", memstore.New(), "k", mod(func(p *segment.BatchPolicy) { p.RangeTTL = -1 }), "RangeTTL"},
		{"StoreTimeoutAboveReserveTimeout", timeoutStore{memstore.New(), 4 * time.Second}, "k", segment.DefaultBatchPolicy(), "ReserveTimeout 3s is below the store's timeout 4s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := segment.New(tc.st, tc.key, tc.p)
			if err == nil {
				g.Close()
				t.Fatal("New succeeded")
			}
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("New: %v; want ErrInvalidArgument naming %q", err, tc.mention)
			}
		})
	}
	g, err := segment.New(timeoutStore{memstore.New(), 3 * time.Second}, "k", segment.DefaultBatchPolicy())
	if err != nil {
		t.Fatalf("a store timeout equal to ReserveTimeout: %v", err)
	}
	g.Close()
}

func TestDefaultBatchPolicy(t *testing.T) {
	p := segment.DefaultBatchPolicy()
	want := segment.BatchPolicy{Step: 100, InitialOffset: 1, Lookahead: time.Second, MaxBatch: 1048500, ReserveTimeout: 3 * time.Second}
	if p != want {
		t.Errorf("DefaultBatchPolicy() = %+v, want %+v", p, want)
	}
}

func TestClose_StopsBackgroundWork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		st.gate = make(chan struct{}) // the first reservation hangs
		g := newGen(t, st, segment.DefaultBatchPolicy())
		synctest.Wait()
		if err := g.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if len(st.canceled) != 1 {
			t.Errorf("Close canceled %d reservations, want the 1 under way", len(st.canceled))
		}
		if _, err := g.Next(); !errors.Is(err, segment.ErrClosed) {
			t.Errorf("Next after Close: %v, want ErrClosed", err)
		}
		if _, err := g.NextRange(2); !errors.Is(err, segment.ErrClosed) {
			t.Errorf("NextRange after Close: %v, want ErrClosed", err)
		}
		if err := g.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		// synctest.Test fails if a goroutine of the generator is left behind.
	})
}

func TestClose_StopsRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		st.failAll = errStoreDown
		g := newGen(t, st, segment.DefaultBatchPolicy())
		synctest.Wait()
		g.Close()
		calls := st.callCount()
		elapse(time.Minute)
		if n := st.callCount(); n != calls {
			t.Errorf("%d reservations after Close", n-calls)
		}
	})
}

func TestNext_ErrorsNameTheKey(t *testing.T) {
	st := newTestStore()
	st.failAll = errStoreDown
	g, err := segment.New(st, "app/order", policy(10, 0), segment.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	_, err = g.Next()
	if !errors.Is(err, segment.ErrUnavailable) || !errors.Is(err, errStoreDown) || !strings.Contains(err.Error(), `"app/order"`) {
		t.Errorf("Next = %v; want ErrUnavailable and the store's error, naming the key", err)
	}
}

func TestNext_S5_StopsBelowMaxInt64(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := policy(10, time.Second)
		p.MaxBatch = 1000
		p.InitialOffset = math.MaxInt64 - 25
		st := newTestStore()
		g := newGen(t, st, p)
		var got []int64
		var err error
		for range 30 {
			var v int64
			if v, err = g.Next(); err != nil {
				break
			}
			got = append(got, v)
		}
		if !errors.Is(err, segment.ErrUnavailable) || !errors.Is(err, store.ErrExhausted) {
			t.Fatalf("Next after the last id: %v, want ErrUnavailable wrapping ErrExhausted", err)
		}
		// The ranges grow to 1000, which does not fit; the generator falls back to
		// Step and hands out every id of the whole ranges left.
		if len(got) != 20 || got[0] != math.MaxInt64-25 || got[19] != math.MaxInt64-6 {
			t.Errorf("got %d ids from %d to %d, want 20 from MaxInt64-25 to MaxInt64-6", len(got), got[0], got[len(got)-1])
		}
		calls := st.callCount()
		if _, err := g.Next(); !errors.Is(err, store.ErrExhausted) {
			t.Errorf("Next again: %v", err)
		}
		if st.callCount() != calls {
			t.Error("an exhausted generator asked the store again")
		}
	})
}

func TestNext_S6_SealedKeyFails(t *testing.T) {
	st := newTestStore()
	g := newGen(t, st, policy(10, 0))
	mustNext(t, g)
	if err := st.Seal(context.Background(), g.Key()); err != nil {
		t.Fatal(err)
	}
	for range 9 {
		mustNext(t, g) // the rest of the range in hand
	}
	if _, err := g.Next(); !errors.Is(err, store.ErrSealed) || !errors.Is(err, segment.ErrUnavailable) {
		t.Errorf("Next on a sealed key: %v, want ErrUnavailable wrapping ErrSealed", err)
	}
}

// TestNextRange_RefusedForItsSizeFailsThatCallerAlone asks for more ids than are left
// below math.MaxInt64, though a Step's worth still fits: that NextRange fails with
// ErrExhausted, and the generator goes on handing out the rest.
func TestNextRange_RefusedForItsSizeFailsThatCallerAlone(t *testing.T) {
	p := policy(10, 0)
	p.InitialOffset = math.MaxInt64 - 1000
	g := newGen(t, newTestStore(), p)
	first := mustNext(t, g)
	if _, err := g.NextRange(2000); !errors.Is(err, store.ErrExhausted) || !errors.Is(err, segment.ErrUnavailable) {
		t.Fatalf("NextRange(2000) with 990 ids left: %v, want ErrUnavailable wrapping ErrExhausted", err)
	}
	for i := range int64(100) {
		if v := mustNext(t, g); v != first+1+i {
			t.Fatalf("Next after the refused NextRange = %d, want %d", v, first+1+i)
		}
	}
	if r, err := g.NextRange(50); err != nil || r.Len() != 50 {
		t.Errorf("NextRange(50) after the refused one = %v, %v; want 50 ids", r, err)
	}
}

// TestNextRange_KeepsSpareItCannotUse asks for more ids than the range reserved ahead
// holds: that range is not thrown away, the ids start right after the last Next. When
// another instance reserved in between, so that the two ranges do not join, the ids
// still increase.
func TestNextRange_KeepsSpareItCannotUse(t *testing.T) {
	for _, between := range []int64{0, 7} {
		synctest.Test(t, func(t *testing.T) {
			st := newTestStore()
			g := newGen(t, st, policy(10, time.Second))
			var last int64
			for range 10 { // the first range, 10 ids; the next one is reserved ahead
				last = mustNext(t, g)
			}
			synctest.Wait()
			if between > 0 { // another instance
				if _, err := st.inner.Reserve(context.Background(), g.Key(), between, 1); err != nil {
					t.Fatal(err)
				}
			}
			calls := st.callCount()
			r, err := g.NextRange(100_000)
			if err != nil {
				t.Fatalf("NextRange: %v", err)
			}
			if between == 0 && r.Start != last+1 {
				t.Errorf("NextRange = %v after id %d: the ids in between were thrown away", r, last)
			}
			if r.Start <= last {
				t.Errorf("NextRange = %v after id %d", r, last)
			}
			// NextRange makes one reservation, of its own size; the range it leaves
			// in use then starts the next prefetch, sized by the rate it measured.
			synctest.Wait()
			if made := st.snapshot()[calls:]; len(made) == 0 || made[0].size != 100_000 || len(made) > 2 {
				t.Errorf("NextRange made the reservations %v, want one of 100000 and at most the prefetch after it", made)
			}
			if v := mustNext(t, g); v != r.End {
				t.Errorf("Next after NextRange = %d, want %d", v, r.End)
			}
		})
	}
}

func TestClose_WaitingCallerGetsErrClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		st.gate = make(chan struct{}) // the first reservation hangs until canceled
		g := newGen(t, st, segment.DefaultBatchPolicy())
		errc := make(chan error, 1)
		go func() {
			_, err := g.Next()
			errc <- err
		}()
		synctest.Wait()
		g.Close()
		if err := <-errc; !errors.Is(err, segment.ErrClosed) || errors.Is(err, segment.ErrUnavailable) {
			t.Errorf("Next waiting as Close ran: %v; want ErrClosed and not ErrUnavailable", err)
		}
	})
}
