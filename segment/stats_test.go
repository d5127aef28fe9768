package segment_test

import (
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

func TestStats_FollowsReservationsAndIds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		st.delay = 20 * time.Millisecond
		st.fail = []error{errStoreDown}
		g := newGen(t, st, policy(10, 0))

		if s := g.Stats(); s != (segment.Stats{Key: "test/key"}) {
			t.Errorf("before the first reservation: %+v, want only the key", s)
		}
		synctest.Wait()
		elapse(20 * time.Millisecond) // the first reservation fails
		synctest.Wait()
		s := g.Stats()
		if s.Failures != 1 || s.Reserves != 0 || !errors.Is(s.LastError, errStoreDown) {
			t.Errorf("after a failure: Failures %d Reserves %d LastError %v, want 1, 0, %v", s.Failures, s.Reserves, s.LastError, errStoreDown)
		}

		elapse(200 * time.Millisecond) // the retry after the backoff succeeds
		synctest.Wait()
		s = g.Stats()
		want := segment.Stats{Key: "test/key", Current: store.Range{Start: 1, End: 11}, Next: 1, Batch: 10,
			LastReserve: 20 * time.Millisecond, Reserves: 1, Failures: 1}
		if s != want {
			t.Errorf("after the retry: %+v, want %+v", s, want)
		}

		for range 3 {
			mustNext(t, g)
		}
		if s := g.Stats(); s.Next != 4 {
			t.Errorf("after 3 ids: Next %d, want 4", s.Next)
		}
		for range 7 {
			mustNext(t, g)
		}
		if s := g.Stats(); s.Next != s.Current.End {
			t.Errorf("range used up: Next %d, want Current.End %d", s.Next, s.Current.End)
		}
		g.Close()
		if s := g.Stats(); s.Current != (store.Range{}) {
			t.Errorf("after Close: Current %v, want [0,0)", s.Current)
		}
	})
}

func TestStats_RateIsMeasured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := newGen(t, newTestStore(), policy(10, time.Second))
		for range 300 { // 100 ids/s for 3 s
			mustNext(t, g)
			elapse(10 * time.Millisecond)
		}
		if r := g.Stats().Rate; r < 80 || r > 120 {
			t.Errorf("Rate %v at 100 ids/s, want about 100", r)
		}
	})
}

// TestStats_ConcurrentWithNext reads Stats while goroutines take ids, under -race:
// Stats.Next never goes back within one range and never passes its end.
func TestStats_ConcurrentWithNext(t *testing.T) {
	g := newGen(t, memstore.New(), policy(100, time.Millisecond))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := g.Next(); err != nil {
					t.Errorf("Next: %v", err)
					return
				}
			}
		})
	}
	var last segment.Stats
	for range 2000 {
		s := g.Stats()
		if s.Next < s.Current.Start || s.Next > s.Current.End {
			t.Fatalf("Next %d outside Current %v", s.Next, s.Current)
		}
		if s.Current == last.Current && s.Next < last.Next {
			t.Fatalf("Next went back from %d to %d in %v", last.Next, s.Next, s.Current)
		}
		last = s
	}
	close(stop)
	wg.Wait()
}

func TestPeriodic_Stats_CurrentThenPrewarmedThenOnlyTheNewDay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeriodic(t, newTestStore(), segment.YearMonthDay, time.UTC, segment.DefaultBatchPolicy(),
			segment.PeriodicPolicy{Prewarm: time.Minute})
		mustNextGrouped(t, p)
		if s := p.Stats(); len(s) != 1 || s[0].Key != "app/bill/20000101" || s[0].Next != 2 {
			t.Errorf("before the prewarm: %+v, want app/bill/20000101 at 2", s)
		}
		elapse(24*time.Hour - 30*time.Second)
		synctest.Wait()
		s := p.Stats()
		if len(s) != 2 || s[0].Key != "app/bill/20000101" || s[1].Key != "app/bill/20000102" || s[1].Reserves != 1 {
			t.Errorf("after the prewarm: %+v, want today's and tomorrow's with a reservation", s)
		}
		// Past midnight the old day is gone from Stats, and so from the metrics
		// read from it at each scrape: at most two periods a generator stay.
		elapse(time.Minute)
		mustNextGrouped(t, p)
		if s := p.Stats(); len(s) != 1 || s[0].Key != "app/bill/20000102" {
			t.Errorf("the next day: %+v, want app/bill/20000102 alone", s)
		}
	})
}
