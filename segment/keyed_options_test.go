package segment_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// TestPeriodic_WithoutTimersPrewarmsOnACall leaves a Periodic WithoutTimers without
// traffic into its prewarm window: nothing reserves the next period until a call
// comes inside the window, which then does, in the background.
func TestPeriodic_WithoutTimersPrewarmsOnACall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := newTestStore()
		p := newPeriodic(t, st, segment.YearMonthDay, time.UTC, segment.DefaultBatchPolicy(),
			segment.PeriodicPolicy{Prewarm: 5 * time.Minute}, segment.WithoutTimers())
		reservedNext := func() bool {
			for _, c := range st.snapshot() {
				if c.key == "app/bill/20000102" {
					return true
				}
			}
			return false
		}
		elapse(24*time.Hour - time.Minute)
		if reservedNext() {
			t.Fatalf("the next period was reserved with no call, WithoutTimers: %v", st.snapshot())
		}
		mustNextGrouped(t, p) // at 23:59, inside the window
		synctest.Wait()
		if !reservedNext() {
			t.Errorf("a call inside the prewarm window did not prepare the next period: %v", st.snapshot())
		}
	})
}

func TestPeriodic_WithoutTimersRefusesSealAfter(t *testing.T) {
	_, err := segment.NewPeriodic(newTestStore(), "app/bill", segment.Year, time.UTC, segment.DefaultBatchPolicy(),
		segment.PeriodicPolicy{SealAfter: time.Hour}, segment.WithoutTimers())
	var pe *segment.PolicyError
	if !errors.As(err, &pe) || pe.Field != "SealAfter" || !strings.Contains(err.Error(), "WithoutTimers arms no timer") {
		t.Errorf("NewPeriodic(SealAfter, WithoutTimers) = %v; want a PolicyError of SealAfter", err)
	}
}

// keyObserver keeps the keys events are reported under.
type keyObserver struct {
	mu   sync.Mutex
	keys []string
}

func (o *keyObserver) add(key string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.keys = append(o.keys, key)
}
func (o *keyObserver) Reserved(key string, _ store.Range, _ time.Duration) { o.add(key) }
func (o *keyObserver) RefillFailed(key string, _ error, _ time.Duration)   { o.add(key) }
func (o *keyObserver) Waited(key string, _ time.Duration)                  { o.add(key) }

func TestWithObserverKey_ReportsUnderTheGivenKey(t *testing.T) {
	for _, tt := range []struct {
		opts []segment.Option
		want string
	}{
		{nil, "app/tenant/acme"},
		{[]segment.Option{segment.WithObserverKey("app/tenant")}, "app/tenant"},
	} {
		obs := &keyObserver{}
		g, err := segment.New(newTestStore(), "app/tenant/acme", segment.DefaultBatchPolicy(),
			append([]segment.Option{segment.WithLogger(nil), segment.WithObserver(obs)}, tt.opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Next(); err != nil {
			t.Fatal(err)
		}
		g.Close()
		obs.mu.Lock()
		if len(obs.keys) == 0 {
			t.Errorf("no events reported")
		}
		for _, k := range obs.keys {
			if k != tt.want {
				t.Errorf("an event reported under %q; want %q", k, tt.want)
			}
		}
		obs.mu.Unlock()
	}
}

// gateObserver holds every Reserved until its gate opens, and says when one came.
type gateObserver struct {
	entered chan store.Range
	gate    chan struct{}
}

func (o *gateObserver) Reserved(_ string, r store.Range, _ time.Duration) {
	o.entered <- r
	<-o.gate
}
func (o *gateObserver) RefillFailed(string, error, time.Duration) {}
func (o *gateObserver) Waited(string, time.Duration)              {}

// TestObserver_ReservedBeforeAnIdOfTheRangeIsHandedOut holds the observer's Reserved
// of the first range, which New starts: a caller that comes while the observer has
// it, or that was waiting already, gets no id of the range until the observer is
// done, so a metric of reserved ids is never behind the ids handed out.
func TestObserver_ReservedBeforeAnIdOfTheRangeIsHandedOut(t *testing.T) {
	for _, callFirst := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			obs := &gateObserver{entered: make(chan store.Range, 1), gate: make(chan struct{})}
			g, err := segment.New(newTestStore(), "app/order", segment.DefaultBatchPolicy(),
				segment.WithLogger(nil), segment.WithObserver(obs))
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			ids := make(chan int64, 1)
			next := func() {
				v, err := g.Next()
				if err != nil {
					t.Error(err)
				}
				ids <- v
			}
			var r store.Range
			if callFirst {
				go next() // waits for the first range
				r = <-obs.entered
			} else {
				r = <-obs.entered // the first range is reserved: its observer has it
				go next()
			}
			synctest.Wait() // every goroutine is blocked: the observer on its gate
			select {
			case v := <-ids:
				close(obs.gate)
				t.Fatalf("Next (called first: %v) handed out %d of %v before the observer had the range", callFirst, v, r)
			default:
			}
			close(obs.gate)
			if v := <-ids; v != r.Start {
				t.Errorf("Next = %d; want %d, the first of %v", v, r.Start, r)
			}
		})
	}
}
