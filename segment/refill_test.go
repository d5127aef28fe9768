package segment_test

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// TestReserveSize_FollowsRate runs generators at steady rates and checks that their
// reservations settle at min(MaxBatch, roundUp(rate×Lookahead, Step)).
func TestReserveSize_FollowsRate(t *testing.T) {
	tests := []struct {
		perTick  int // ids every 100ms
		wantSize int64
	}{
		{1, 10},     // 10/s: Step
		{5, 50},     // 50/s
		{20, 200},   // 200/s
		{100, 1000}, // 1000/s
		{500, 1000}, // 5000/s: MaxBatch
	}
	for _, tc := range tests {
		synctest.Test(t, func(t *testing.T) {
			p := policy(10, time.Second)
			p.MaxBatch = 1000
			st := newTestStore()
			g := newGen(t, st, p)
			for range 100 { // 10 s
				for range tc.perTick {
					mustNext(t, g)
				}
				elapse(100 * time.Millisecond)
			}
			sizes := st.sizes()
			if last := sizes[len(sizes)-1]; last != tc.wantSize {
				t.Errorf("%d ids/s: reservations %v, want them to settle at %d", tc.perTick*10, sizes, tc.wantSize)
			}
		})
	}
}

// TestReserveSize_GrowsWhenBusyShrinksWhenQuiet checks that a busy generator's ranges
// grow to MaxBatch and a quiet one's shrink back to Step.
func TestReserveSize_GrowsWhenBusyShrinksWhenQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := policy(10, time.Second)
		p.MaxBatch = 1000
		st := newTestStore()
		g := newGen(t, st, p)
		for range 50 { // 10,000 ids/s for 5 s
			for range 1000 {
				mustNext(t, g)
			}
			elapse(100 * time.Millisecond)
		}
		busy := st.sizes()
		if slices.Max(busy) != 1000 {
			t.Fatalf("busy: reservations %v, want them to reach MaxBatch 1000", busy)
		}
		for range 1000 { // 5 ids/s for 200 s: uses up the big ranges, then small ones
			for range 5 {
				mustNext(t, g)
			}
			elapse(time.Second)
		}
		quiet := st.sizes()[len(busy):]
		if len(quiet) == 0 || quiet[len(quiet)-1] != 10 {
			t.Errorf("quiet: reservations %v, want them to shrink back to Step 10", quiet)
		}
	})
}

// TestRefill_OneInFlight holds back the store while many callers find no ids: the
// store sees one reservation at a time, and every caller gets a unique id.
func TestRefill_OneInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		st.gate = make(chan struct{})
		g := newGen(t, st, policy(10, 0))
		const callers = 32
		ids := make(chan int64, callers)
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				v, err := g.Next()
				if err != nil {
					t.Errorf("Next: %v", err)
				}
				ids <- v
			})
		}
		synctest.Wait()
		if n := st.callCount(); n != 1 {
			t.Fatalf("%d callers waiting started %d reservations, want 1", callers, n)
		}
		close(st.gate)
		wg.Wait()
		close(ids)
		var got []int64
		for v := range ids {
			got = append(got, v)
		}
		slices.Sort(got)
		if len(slices.Compact(got)) != callers {
			t.Errorf("ids %v are not unique", got)
		}
		st.mu.Lock()
		maxActive := st.maxActive
		st.mu.Unlock()
		if maxActive != 1 || st.callCount() != 4 {
			t.Errorf("%d reservations, at most %d at once; want 4 ranges of 10, one at a time", st.callCount(), maxActive)
		}
	})
}

// TestNext_WaitsAtMostReserveTimeout_RangeKept checks that a caller gives up after
// ReserveTimeout, and that the reservation it gave up on is used when it arrives.
func TestNext_WaitsAtMostReserveTimeout_RangeKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		st.gate = make(chan struct{})
		p := policy(10, 0)
		p.ReserveTimeout = 3 * time.Second
		g := newGen(t, st, p)
		start := time.Now()
		_, err := g.Next()
		if !errors.Is(err, segment.ErrUnavailable) {
			t.Fatalf("Next with a hung store: %v, want ErrUnavailable", err)
		}
		if waited := time.Since(start); waited != p.ReserveTimeout {
			t.Errorf("Next waited %v, want ReserveTimeout %v", waited, p.ReserveTimeout)
		}
		st.gate <- struct{}{} // the reservation arrives late
		synctest.Wait()
		if v := mustNext(t, g); v != 1 {
			t.Errorf("Next after the late range arrived = %d, want its first id 1", v)
		}
		if n := st.callCount(); n != 1 {
			t.Errorf("%d reservations, want 1: the late one is used, not canceled", n)
		}
	})
}

// TestNext_WaitIsOneTimeoutAcrossRetries checks that a caller's wait is bounded by one
// ReserveTimeout, even when the range that arrives is too small for it.
func TestNext_WaitIsOneTimeoutAcrossRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		st.delay = 2 * time.Second
		p := policy(10, 0)
		p.ReserveTimeout = 3 * time.Second
		g := newGen(t, st, p)
		start := time.Now()
		_, err := g.NextRange(50) // the first reservation (10) is too small; the second arrives at 4s
		if !errors.Is(err, segment.ErrUnavailable) {
			t.Fatalf("NextRange: %v, want ErrUnavailable", err)
		}
		if waited := time.Since(start); waited != 3*time.Second {
			t.Errorf("waited %v, want 3s", waited)
		}
	})
}

func TestNext_CallerRunsRefillWhenExecutorIdle(t *testing.T) {
	var mu sync.Mutex
	var held []func()
	exec := func(task func()) {
		mu.Lock()
		defer mu.Unlock()
		held = append(held, task)
	}
	st := newTestStore()
	g := newGen(t, st, policy(10, 0), segment.WithExecutor(exec))
	if v := mustNext(t, g); v != 1 {
		t.Fatalf("Next = %d, want 1", v)
	}
	if n := st.callCount(); n != 1 {
		t.Fatalf("%d reservations, want the 1 the caller ran itself", n)
	}
	mu.Lock()
	tasks := held
	mu.Unlock()
	for _, task := range tasks {
		task() // the executor comes late: the job is taken
	}
	if n := st.callCount(); n != 1 {
		t.Errorf("%d reservations after the executor ran, want still 1", n)
	}
}

// TestRefill_BackoffFailsFastAndDoubles checks the retry schedule after failures:
// callers fail fast without touching the store, the background retries come after
// 100ms, 200ms, 400ms … up to 5s, every failure reaches OnRefillFailed, and a
// success ends it all.
func TestRefill_BackoffFailsFastAndDoubles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		st.failAll = errStoreDown
		var failed atomic.Int64
		g := newGen(t, st, segment.DefaultBatchPolicy(), segment.WithOnRefillFailed(func(error) { failed.Add(1) }))
		synctest.Wait() // the first reservation failed

		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				if _, err := g.Next(); !errors.Is(err, segment.ErrUnavailable) || !errors.Is(err, errStoreDown) {
					t.Errorf("Next while backing off: %v, want ErrUnavailable wrapping the store's error", err)
				}
			})
		}
		wg.Wait()
		if n := st.callCount(); n != 1 {
			t.Fatalf("%d reservations, want 1: callers must fail fast while backing off", n)
		}

		elapse(30 * time.Second)
		calls := st.snapshot()
		want := []time.Duration{100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000, 5000}
		for i, w := range want {
			if i+1 >= len(calls) {
				t.Fatalf("only %d reservations in 30s", len(calls))
			}
			if gap := calls[i+1].at.Sub(calls[i].at); gap != w*time.Millisecond {
				t.Errorf("retry %d came %v after the failure, want %v", i+1, gap, w*time.Millisecond)
			}
		}
		if n := failed.Load(); n != int64(len(calls)) {
			t.Errorf("OnRefillFailed saw %d failures of %d", n, len(calls))
		}

		st.set(func(s *testStore) { s.failAll = nil })
		elapse(5 * time.Second)
		if _, err := g.Next(); err != nil {
			t.Fatalf("Next after the store came back: %v", err)
		}
	})
}

func TestRefill_BackoffResetsAfterSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		st.fail = []error{errStoreDown, errStoreDown, errStoreDown}
		g := newGen(t, st, policy(10, 0))
		elapse(time.Second) // fails at 0, 100ms, 300ms; succeeds at 700ms
		mustNext(t, g)
		st.set(func(s *testStore) { s.fail = []error{errStoreDown} })
		for range 9 {
			mustNext(t, g) // the rest of the range
		}
		if _, err := g.Next(); !errors.Is(err, errStoreDown) {
			t.Fatalf("Next: %v, want the store's error", err)
		}
		before := st.callCount()
		elapse(100 * time.Millisecond)
		synctest.Wait()
		if st.callCount() != before+1 {
			t.Errorf("no retry 100ms after a fresh failure: the backoff did not reset")
		}
	})
}

// TestRefill_PrefetchFailureRetriedBeforeRunningOut checks that a failed reservation
// ahead of need is retried in the background, so callers need not wait for the store.
func TestRefill_PrefetchFailureRetriedBeforeRunningOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		obs := &waitObserver{}
		g := newGen(t, st, policy(100, time.Second), segment.WithObserver(obs))
		synctest.Wait()
		st.set(func(s *testStore) { s.fail = []error{errStoreDown, errStoreDown} })
		for range 100 {
			mustNext(t, g) // the last id of the range triggers a reservation, which fails
		}
		elapse(time.Second) // retries at 100ms (fails) and 300ms (works)
		mustNext(t, g)
		if n := obs.waitCount(); n > 1 {
			t.Errorf("%d callers waited; want at most the very first", n)
		}
		obs.mu.Lock()
		failed := len(obs.failed)
		obs.mu.Unlock()
		if failed != 2 {
			t.Errorf("%d failures observed, want 2", failed)
		}
	})
}

func TestLookaheadZero_ReservesOnlyWhenRunOut(t *testing.T) {
	st := newTestStore()
	g := newGen(t, st, policy(1, 0)) // 4.x's DefaultSegmentId
	for want := int64(1); want <= 50; want++ {
		if v := mustNext(t, g); v != want {
			t.Fatalf("Next = %d, want %d", v, want)
		}
		if n := st.callCount(); n != int(want) {
			t.Fatalf("after %d ids, %d reservations; want one per id, made when the range ran out", want, n)
		}
	}
}

func TestRangeTTL_DropsOldRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := policy(100, 0)
		p.RangeTTL = time.Second
		st := newTestStore()
		g := newGen(t, st, p)
		if v := mustNext(t, g); v != 1 {
			t.Fatalf("Next = %d", v)
		}
		elapse(900 * time.Millisecond)
		if v := mustNext(t, g); v != 2 {
			t.Fatalf("Next within the TTL = %d, want 2", v)
		}
		elapse(200 * time.Millisecond)
		if v := mustNext(t, g); v != 101 {
			t.Errorf("Next after the TTL = %d, want 101: the rest of [1, 101) is dropped", v)
		}
		if n := st.callCount(); n != 2 {
			t.Errorf("%d reservations, want 2", n)
		}
	})
}

// TestRangeTTL_OnlyThenHotPathReadsClock counts clock reads: none on the hot path
// without a RangeTTL, one a call with it.
func TestRangeTTL_OnlyThenHotPathReadsClock(t *testing.T) {
	for _, ttl := range []time.Duration{0, time.Hour} {
		var reads atomic.Int64
		clock := func() time.Time { reads.Add(1); return time.Now() }
		p := policy(1<<20, 0)
		p.RangeTTL = ttl
		g := newGen(t, memstore.New(), p, segment.WithClock(clock))
		mustNext(t, g)
		before := reads.Load()
		for range 1000 {
			mustNext(t, g)
		}
		got := reads.Load() - before
		if (ttl == 0 && got != 0) || (ttl > 0 && got != 1000) {
			t.Errorf("RangeTTL %v: %d clock reads in 1000 calls", ttl, got)
		}
	}
}

// TestRefill_RefusesRangeBelowPrevious feeds the generator a range that overlaps one
// it had: the generator refuses it rather than hand out an id twice.
func TestRefill_RefusesRangeBelowPrevious(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		g := newGen(t, st, policy(10, 0))
		for range 10 {
			mustNext(t, g)
		}
		st.set(func(s *testStore) { s.backwards = &store.Range{Start: 5, End: 15} })
		_, err := g.Next()
		if !errors.Is(err, segment.ErrUnavailable) {
			t.Fatalf("Next with a range below the previous: %v, want ErrUnavailable", err)
		}
		elapse(time.Second)
		if v := mustNext(t, g); v != 11 {
			t.Errorf("Next = %d, want 11", v)
		}
	})
}

// TestNext_SlowStoreNoWaitOnceWarm runs a generator at 100,000 ids/s on a store that
// takes 20ms a reservation: after the first second no caller waits for the store.
func TestNext_SlowStoreNoWaitOnceWarm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		st.delay = 20 * time.Millisecond
		obs := &waitObserver{}
		g := newGen(t, st, segment.DefaultBatchPolicy(), segment.WithObserver(obs))
		warmAt, end := time.Now().Add(time.Second), time.Now().Add(4*time.Second)
		waitsWhenWarm := -1
		for time.Now().Before(end) {
			if waitsWhenWarm < 0 && !time.Now().Before(warmAt) {
				waitsWhenWarm = obs.waitCount()
			}
			for range 100 {
				mustNext(t, g)
			}
			elapse(time.Millisecond)
		}
		if n := obs.waitCount(); n != waitsWhenWarm {
			t.Errorf("%d callers waited after the first second (%d before); reservations %v", n-waitsWhenWarm, waitsWhenWarm, st.snapshot())
		}
		if waitsWhenWarm == 0 {
			t.Error("no caller waited for the first range: the test did not warm up")
		}
	})
}

// hangs reports whether f is still running after a bound far above anything it
// should take: a deadlock detector, not a timing assertion.
func hangs(f func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return false
	case <-time.After(10 * time.Second):
		return true
	}
}

// TestNew_CallerRunsExecutorDoesNotDeadlock runs reservations with an executor that
// runs each task on the goroutine that hands it over.
func TestNew_CallerRunsExecutorDoesNotDeadlock(t *testing.T) {
	callerRuns := segment.WithExecutor(func(task func()) { task() })
	var g *segment.Generator
	if hangs(func() { g = newGen(t, newTestStore(), policy(10, time.Second), callerRuns) }) {
		t.Fatal("New with a caller-runs executor hangs")
	}
	if hangs(func() {
		for want := int64(1); want <= 1000; want++ {
			if v := mustNext(t, g); v != want {
				t.Errorf("Next = %d, want %d", v, want)
				return
			}
		}
	}) {
		t.Fatal("Next with a caller-runs executor hangs")
	}
}

// TestNext_BlockingExecutorHoldsUpNoCaller uses a bounded pool whose submit blocks
// while it is full: a caller that needs ids does not wait for the pool, and no lock is
// held while a background reservation is handed over.
func TestNext_BlockingExecutorHoldsUpNoCaller(t *testing.T) {
	var full atomic.Bool
	release := make(chan struct{})
	defer close(release)
	pool := segment.WithExecutor(func(task func()) {
		if full.Load() {
			<-release
		}
		go task()
	})
	g := newGen(t, newTestStore(), policy(10, 0), pool)
	for range 10 {
		mustNext(t, g)
	}
	full.Store(true)
	for i := range 3 {
		if hangs(func() { mustNext(t, g) }) {
			t.Fatalf("Next %d hangs while the pool is full", i)
		}
	}
}

// TestNext_WithExecutor_WaitBoundedByReserveTimeout gives the reservation to an
// executor that never gets to it: the caller that runs it instead waits at most
// ReserveTimeout, and the reservation goes on and is used.
func TestNext_WithExecutor_WaitBoundedByReserveTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		st.delay = 5 * time.Second
		p := policy(10, 0)
		p.ReserveTimeout = 3 * time.Second
		g := newGen(t, st, p, segment.WithExecutor(func(func()) {}))
		start := time.Now()
		if _, err := g.Next(); !errors.Is(err, segment.ErrUnavailable) {
			t.Errorf("Next with a 5s store: %v, want ErrUnavailable", err)
		}
		if waited := time.Since(start); waited > p.ReserveTimeout {
			t.Errorf("Next waited %v, want at most ReserveTimeout %v", waited, p.ReserveTimeout)
		}
		elapse(2 * time.Second)
		if v := mustNext(t, g); v != 1 || st.callCount() != 1 {
			t.Errorf("Next after the reservation ended = %d with %d reservations, want 1 from the one", v, st.callCount())
		}
	})
}

// TestReserveSize_ClockStepsBackWithoutMonotonicReading runs a generator at 10 ids/s on
// a clock with no monotonic reading (like time.Now().In(loc)) that steps back an hour:
// its reservations stay sized for 10 ids/s.
func TestReserveSize_ClockStepsBackWithoutMonotonicReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var offset atomic.Int64
		wall := func() time.Time { return time.Now().Add(time.Duration(offset.Load())).Round(0) }
		p := policy(10, time.Second)
		st := newTestStore()
		g := newGen(t, st, p, segment.WithClock(wall))
		run := func(d time.Duration) {
			for range int(d / (100 * time.Millisecond)) {
				mustNext(t, g)
				elapse(100 * time.Millisecond)
			}
		}
		run(10 * time.Second)
		before := len(st.sizes())
		offset.Store(int64(-time.Hour))
		run(10 * time.Minute)
		if sizes := st.sizes()[before:]; slices.Max(sizes) > 20 {
			t.Errorf("reservations after the clock stepped back reach %d ids at 10 ids/s (Step 10): %v", slices.Max(sizes), sizes)
		}
	})
}

// TestRefill_BackoffErrorSaysWhenAndSince checks the text a caller gets while the
// generator backs off: how long until the retry, how many failures, since when.
func TestRefill_BackoffErrorSaysWhenAndSince(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		st.failAll = errStoreDown
		// A clock that does not read midnight, which a zero time would print too.
		clock := func() time.Time { return time.Now().Add(13*time.Hour + 2*time.Minute + 11*time.Second) }
		start := clock()
		g := newGen(t, st, segment.DefaultBatchPolicy(), segment.WithClock(clock))
		synctest.Wait() // the first reservation failed

		elapse(16 * time.Millisecond)
		_, err := g.Next()
		want := "retrying in 84ms (1 failure since " + start.Format(time.TimeOnly) + "): store down"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Next = %v, want an error containing %q", err, want)
		}

		elapse(150 * time.Millisecond) // the retry at 100ms failed: the next is at 300ms
		_, err = g.Next()
		want = "retrying in 134ms (2 failures since " + start.Format(time.TimeOnly) + "): store down"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Next = %v, want an error containing %q", err, want)
		}
	})
}
