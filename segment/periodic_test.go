package segment_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// In a synctest bubble the clock starts at 2000-01-01 00:00:00 UTC.

func newPeriodic(t *testing.T, st store.RangeStore, period segment.Period, loc *time.Location,
	b segment.BatchPolicy, p segment.PeriodicPolicy, opts ...segment.Option) *segment.Periodic {
	t.Helper()
	opts = append([]segment.Option{segment.WithLogger(nil)}, opts...)
	pd, err := segment.NewPeriodic(st, "app/bill", period, loc, b, p, opts...)
	if err != nil {
		t.Fatalf("NewPeriodic: %v", err)
	}
	t.Cleanup(func() { pd.Close() })
	return pd
}

func mustNextGrouped(t *testing.T, p *segment.Periodic) segment.GroupedID {
	t.Helper()
	id, err := p.Next()
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return id
}

func TestPeriodic_KeysPerPeriod(t *testing.T) {
	tests := []struct {
		period segment.Period
		key    string
	}{
		{segment.Year, "2000"},
		{segment.YearMonth, "200001"},
		{segment.YearMonthDay, "20000101"},
	}
	for _, tc := range tests {
		synctest.Test(t, func(t *testing.T) {
			st := newTestStore()
			p := newPeriodic(t, st, tc.period, time.UTC, segment.DefaultBatchPolicy(), segment.DefaultPeriodicPolicy())
			if id := mustNextGrouped(t, p); id != (segment.GroupedID{Period: tc.key, Value: 1}) {
				t.Errorf("%v: Next = %v, want %s/1", tc.period, id, tc.key)
			}
			if keys := st.keys(); len(keys) != 1 || keys[0] != "app/bill/"+tc.key {
				t.Errorf("%v: store keys %q, want [app/bill/%s]", tc.period, keys, tc.key)
			}
		})
	}
}

func TestPeriodic_ValuesRestartEachPeriodAtInitialOffset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := segment.DefaultBatchPolicy()
		b.InitialOffset = 1000
		p := newPeriodic(t, newTestStore(), segment.YearMonthDay, time.UTC, b, segment.DefaultPeriodicPolicy())
		for want := int64(1000); want < 1003; want++ {
			if id := mustNextGrouped(t, p); id != (segment.GroupedID{Period: "20000101", Value: want}) {
				t.Fatalf("Next = %v, want 20000101/%d", id, want)
			}
		}
		elapse(24 * time.Hour)
		if id := mustNextGrouped(t, p); id != (segment.GroupedID{Period: "20000102", Value: 1000}) {
			t.Errorf("Next on the next day = %v, want 20000102/1000", id)
		}
	})
}

// TestPeriodic_BoundaryNoStoreCallNoWait runs a Periodic at 1,000 ids/s across
// midnight on a store that takes 20ms a reservation: the store sees no call near the
// boundary, and no Next waits for it.
func TestPeriodic_BoundaryNoStoreCallNoWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		elapse(23*time.Hour + 58*time.Minute)
		midnight := time.Date(2000, 1, 2, 0, 0, 0, 0, time.UTC)
		st := newTestStore()
		st.delay = 20 * time.Millisecond
		obs := &waitObserver{}
		p := newPeriodic(t, st, segment.YearMonthDay, time.UTC, segment.DefaultBatchPolicy(),
			segment.DefaultPeriodicPolicy(), segment.WithObserver(obs))
		waitsWarm := -1
		var last segment.GroupedID
		for time.Now().Before(midnight.Add(time.Minute)) {
			if waitsWarm < 0 && !time.Now().Before(midnight.Add(-90*time.Second)) {
				waitsWarm = obs.waitCount()
			}
			for range 10 {
				id := mustNextGrouped(t, p)
				if id.Period == last.Period && id.Value <= last.Value {
					t.Fatalf("%v after %v", id, last)
				}
				if id.Period != last.Period && last.Period != "" && id.Value != 1 {
					t.Fatalf("first id of period %s is %d, want 1", id.Period, id.Value)
				}
				last = id
			}
			elapse(10 * time.Millisecond)
		}
		if last.Period != "20000102" {
			t.Fatalf("last id %v, want one of 20000102", last)
		}
		for _, c := range st.snapshot() {
			if d := c.at.Sub(midnight).Abs(); d < 500*time.Millisecond {
				t.Errorf("store call for %s at %v, %v from midnight", c.key, c.at.Format("15:04:05.000"), d)
			}
		}
		if n := obs.waitCount(); n != waitsWarm {
			t.Errorf("%d callers waited for the store near the boundary", n-waitsWarm)
		}
	})
}

func TestPeriodic_PrewarmsWithoutTraffic(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		newPeriodic(t, st, segment.YearMonthDay, time.UTC, segment.DefaultBatchPolicy(), segment.PeriodicPolicy{Prewarm: 5 * time.Minute})
		elapse(24*time.Hour - time.Minute)
		prewarmAt := time.Date(2000, 1, 1, 23, 55, 0, 0, time.UTC)
		var found bool
		for _, c := range st.snapshot() {
			if c.key == "app/bill/20000102" {
				found = true
				if c.at.Before(prewarmAt) {
					t.Errorf("next period reserved at %v, before the prewarm at %v", c.at, prewarmAt)
				}
			}
		}
		if !found {
			t.Errorf("no reservation for the next period by 23:59: calls %v", st.snapshot())
		}
	})
}

// TestPeriodic_AtMostTwoGenerators runs across several days on a store that never
// answers, so every generator keeps a reservation under way: at most two are under way
// at once (the current period's and the next one's), and each ended period's
// generator is closed, which cancels its reservation.
func TestPeriodic_AtMostTwoGenerators(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		st.gate = make(chan struct{}) // never opened
		b := policy(1, 0)
		b.ReserveTimeout = time.Second
		p := newPeriodic(t, st, segment.YearMonthDay, time.UTC, b, segment.DefaultPeriodicPolicy())
		for range 4 * 24 {
			if _, err := p.Next(); !errors.Is(err, segment.ErrUnavailable) {
				t.Fatalf("Next on a store that never answers: %v, want ErrUnavailable", err)
			}
			elapse(time.Hour)
		}
		synctest.Wait()
		st.mu.Lock()
		defer st.mu.Unlock()
		if st.maxActive > 2 {
			t.Errorf("%d reservations under way at once, want at most 2 generators", st.maxActive)
		}
		if len(st.canceled) != 3 { // the calls crossed the ends of days 1 to 3
			t.Errorf("%d reservations canceled, want the 3 of the ended days' generators", len(st.canceled))
		}
		for _, c := range st.calls {
			day := c.at.Format("20060102")
			next := c.at.Add(24 * time.Hour).Format("20060102")
			if k := strings.TrimPrefix(c.key, "app/bill/"); k != day && k != next {
				t.Errorf("reservation for %s at %v: a generator of an ended period is alive", k, c.at)
			}
		}
	})
}

func TestPeriodic_SealAfter_LaggingInstanceFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		backend := memstore.New()
		pp := segment.PeriodicPolicy{Prewarm: time.Minute, SealAfter: time.Hour}
		p := newPeriodic(t, backend, segment.YearMonthDay, time.UTC, segment.DefaultBatchPolicy(), pp)
		mustNextGrouped(t, p)
		elapse(24*time.Hour + time.Hour + time.Second) // 01:00:01 the next day
		if id := mustNextGrouped(t, p); id.Period != "20000102" {
			t.Fatalf("Next = %v", id)
		}
		lagging := func() time.Time { return time.Now().Add(-2 * time.Hour) } // still on 2000-01-01
		q := newPeriodic(t, backend.Sibling(), segment.YearMonthDay, time.UTC, segment.DefaultBatchPolicy(), pp, segment.WithClock(lagging))
		if id, err := q.Next(); !errors.Is(err, store.ErrSealed) {
			t.Errorf("lagging instance: Next = %v, %v; want an error wrapping ErrSealed", id, err)
		}
	})
}

func TestPeriodic_SealAfter_RestartSealsMissedPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		backend := memstore.New()
		elapse(24*time.Hour + 30*time.Minute) // start on 2000-01-02 00:30
		pp := segment.PeriodicPolicy{Prewarm: time.Minute, SealAfter: time.Hour}
		newPeriodic(t, backend, segment.YearMonthDay, time.UTC, segment.DefaultBatchPolicy(), pp)
		check := func(wantSealed bool) {
			t.Helper()
			_, err := backend.Reserve(t.Context(), "app/bill/20000101", 1, 1)
			if sealed := errors.Is(err, store.ErrSealed); sealed != wantSealed {
				t.Errorf("at %v: sealed %v, want %v (%v)", time.Now().Format("15:04"), sealed, wantSealed, err)
			}
		}
		elapse(29 * time.Minute)
		check(false)
		elapse(2 * time.Minute)
		check(true)
	})
}

func TestPeriodic_SealAfter_RetriesOnlyWhatARetryCanMend(t *testing.T) {
	transient := errors.New("connection reset")
	tests := []struct {
		name       string
		fail       []error
		wantSeals  int
		wantSealed bool
	}{
		{"transient failures are retried with backoff", []error{transient, transient}, 3, true},
		{"a refused key is not retried", []error{fmt.Errorf("%w: key too long", store.ErrInvalidArgument)}, 1, false},
		{"a store that cannot seal is not retried", []error{errors.ErrUnsupported}, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				st := newTestStore()
				st.set(func(s *testStore) { s.sealFail = tt.fail })
				elapse(24*time.Hour + 30*time.Minute) // start on 2000-01-02 00:30: 2000-01-01 is sealed at 01:00
				pp := segment.PeriodicPolicy{Prewarm: time.Minute, SealAfter: time.Hour}
				newPeriodic(t, st, segment.YearMonthDay, time.UTC, segment.DefaultBatchPolicy(), pp)
				elapse(2 * time.Hour)
				st.mu.Lock()
				seals := slices.Clone(st.seals)
				st.mu.Unlock()
				if len(seals) != tt.wantSeals {
					t.Fatalf("Seal called %d times at %v, want %d", len(seals), seals, tt.wantSeals)
				}
				for i := 1; i < len(seals); i++ { // 1 s, then 2 s
					if got, want := seals[i].Sub(seals[i-1]), time.Second<<(i-1); got != want {
						t.Errorf("retry %d came %v after the one before, want %v", i, got, want)
					}
				}
				_, err := st.inner.Reserve(t.Context(), "app/bill/20000101", 1, 1)
				if sealed := errors.Is(err, store.ErrSealed); sealed != tt.wantSealed {
					t.Errorf("sealed = %v, want %v (%v)", sealed, tt.wantSealed, err)
				}
			})
		})
	}
}

func TestPeriodic_ZoneIsExplicit(t *testing.T) {
	if _, err := segment.NewPeriodic(memstore.New(), "app/bill", segment.YearMonthDay, nil,
		segment.DefaultBatchPolicy(), segment.DefaultPeriodicPolicy()); !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("nil zone: %v, want ErrInvalidArgument", err)
	}
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	synctest.Test(t, func(t *testing.T) {
		p := newPeriodic(t, newTestStore(), segment.YearMonthDay, shanghai, segment.DefaultBatchPolicy(), segment.DefaultPeriodicPolicy())
		if id := mustNextGrouped(t, p); id.Period != "20000101" { // 08:00 in Shanghai
			t.Errorf("Next = %v", id)
		}
		elapse(16 * time.Hour) // 16:00 UTC is midnight in Shanghai
		if id := mustNextGrouped(t, p); id != (segment.GroupedID{Period: "20000102", Value: 1}) {
			t.Errorf("Next at midnight in Shanghai = %v, want 20000102/1", id)
		}
	})
}

func TestPeriodic_ClockStepsBackStaysInNewerPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var offset atomic.Int64
		clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
		p := newPeriodic(t, newTestStore(), segment.YearMonthDay, time.UTC, segment.DefaultBatchPolicy(),
			segment.DefaultPeriodicPolicy(), segment.WithClock(clock))
		elapse(24*time.Hour + time.Second)
		a := mustNextGrouped(t, p)
		offset.Store(int64(-time.Minute)) // back to 23:59:01 the day before
		b := mustNextGrouped(t, p)
		if a.Period != "20000102" || b.Period != a.Period || b.Value <= a.Value {
			t.Errorf("ids %v then %v: want both in 20000102, increasing", a, b)
		}
	})
}

func TestPeriodic_ClockJumpsPastPreparedPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var offset atomic.Int64
		clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
		st := newTestStore()
		p := newPeriodic(t, st, segment.YearMonthDay, time.UTC, segment.DefaultBatchPolicy(),
			segment.DefaultPeriodicPolicy(), segment.WithClock(clock))
		elapse(23*time.Hour + 59*time.Minute + 30*time.Second) // the next day is prepared
		offset.Store(int64(72 * time.Hour))
		if id := mustNextGrouped(t, p); id != (segment.GroupedID{Period: "20000104", Value: 1}) {
			t.Errorf("Next after the jump = %v, want 20000104/1", id)
		}
	})
}

func TestNewPeriodic_RefusesBadArguments(t *testing.T) {
	good := segment.DefaultPeriodicPolicy()
	tests := []struct {
		name    string
		key     string
		period  segment.Period
		p       segment.PeriodicPolicy
		b       segment.BatchPolicy
		mention string
	}{
		{"BadPeriod", "k", segment.Period(9), good, segment.DefaultBatchPolicy(), "Period(9)"},
		{"NegativePrewarm", "k", segment.Year, segment.PeriodicPolicy{Prewarm: -1}, segment.DefaultBatchPolicy(), "Prewarm"},
		{"NegativeSealAfter", "k", segment.Year, segment.PeriodicPolicy{SealAfter: -1}, segment.DefaultBatchPolicy(), "SealAfter"},
		{"KeyTooLongWithPeriod", strings.Repeat("k", 250), segment.YearMonthDay, good, segment.DefaultBatchPolicy(), "over the limit"},
		{"BadBatchPolicy", "k", segment.Year, good, segment.BatchPolicy{}, "Step"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := segment.NewPeriodic(memstore.New(), tc.key, tc.period, time.UTC, tc.b, tc.p)
			if err == nil {
				p.Close()
				t.Fatal("NewPeriodic succeeded")
			}
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("NewPeriodic: %v; want ErrInvalidArgument naming %q", err, tc.mention)
			}
		})
	}
}

// TestPeriodic_BoundaryDoesNotWaitForRetiredReservation crosses midnight while the
// ending day's generator waits for a store that ignores cancellation: the Next that
// crosses does not wait for it.
func TestPeriodic_BoundaryDoesNotWaitForRetiredReservation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		hung := make(chan struct{})
		b := policy(10, 0)
		p := newPeriodic(t, st, segment.YearMonthDay, time.UTC, b, segment.DefaultPeriodicPolicy())
		for range 10 {
			mustNextGrouped(t, p)
		}
		st.set(func(s *testStore) { s.deaf = map[string]chan struct{}{"app/bill/20000101": hung} })
		if _, err := p.Next(); !errors.Is(err, segment.ErrUnavailable) {
			t.Fatalf("Next with the day's key hung: %v, want ErrUnavailable", err)
		}
		elapse(24 * time.Hour) // past midnight; the next day is prepared
		done := make(chan error, 1)
		go func() {
			_, err := p.Next()
			done <- err
		}()
		synctest.Wait()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Next across midnight: %v", err)
			}
			close(hung)
		default:
			t.Error("the Next that crosses midnight waits for the ended day's reservation")
			close(hung)
			<-done
		}
	})
}

// TestPeriodic_PoolOfOneDoesNotWaitForItself runs a Periodic with an executor of one
// worker whose submit blocks while the worker is busy. The next period's generator
// starts busy, so its first reservation, run by the worker, is followed at once by
// one ahead of need: the worker must not submit it to itself.
func TestPeriodic_PoolOfOneDoesNotWaitForItself(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tasks := make(chan func())
		defer close(tasks)
		go func() {
			for task := range tasks {
				task()
			}
		}()
		pool := segment.WithExecutor(func(task func()) { tasks <- task })
		elapse(23*time.Hour + 58*time.Minute)
		p := newPeriodic(t, newTestStore(), segment.YearMonthDay, time.UTC, policy(10, time.Second),
			segment.DefaultPeriodicPolicy(), pool)
		for range 4 * 60 * 10 { // 100 ids/s for 4 minutes, across midnight
			for range 10 {
				mustNextGrouped(t, p)
			}
			elapse(100 * time.Millisecond)
		}
		if id := mustNextGrouped(t, p); id.Period != "20000102" {
			t.Errorf("last id %v, want one of 20000102", id)
		}
	})
}
