package cosid_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// fakeClock is the clock of the runtime's retry backoff in tests.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// downConfig has a generator of each strategy on a store that is down until the test
// brings it up (the test-flaky type below), and one on the memory store.
func downConfig() string {
	return `
cosid:
  namespace: app
  stores:
    mem: { type: memory }
    db: { type: test-flaky }
  generators:
    order: { strategy: segment, store: db, step: 10, lookahead: 0s }
    bill: { strategy: periodic-segment, store: db, period: YEAR, zone: UTC, step: 10, lookahead: 0s }
    event: { strategy: snowflake, store: db, owner-key: test-host }
    local: { strategy: segment, store: mem }
`
}

func openDown(t *testing.T) (*cosid.Runtime, *fakeClock) {
	t.Helper()
	setFlaky(true, nil)
	t.Cleanup(func() { setFlaky(false, nil) })
	cfg, err := cosid.ParseConfig([]byte(downConfig()))
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{now: time.Date(2026, 10, 27, 9, 0, 0, 0, time.UTC)}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil), cosid.WithRetryClock(clock.Now))
	if err != nil {
		t.Fatalf("Open with a store down: %v", err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt, clock
}

// TestRuntime_StoreDownThenUp is the service that starts while its database is down:
// Open succeeds, a generator on another store works, the generators on the down
// store answer ErrUnavailable with the cause, and they work once the store is back,
// without a restart.
func TestRuntime_StoreDownThenUp(t *testing.T) {
	rt, clock := openDown(t)
	if text, err := rt.Next(t.Context(), "local"); err != nil || text != "1" {
		t.Fatalf("Next(local) while another store is down = %q, %v", text, err)
	}
	for _, name := range []string{"order", "bill", "event"} {
		_, err := rt.Next(t.Context(), name)
		if !errors.Is(err, cosid.ErrUnavailable) || errors.Is(err, cosid.ErrConfig) {
			t.Fatalf("Next(%s) on a down store: %v; want ErrUnavailable, not ErrConfig", name, err)
		}
		if !strings.Contains(err.Error(), `store "db"`) || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("Next(%s): %v; want it to name the store and say the cause", name, err)
		}
	}
	if _, err := rt.Store(t.Context(), "db"); !errors.Is(err, cosid.ErrUnavailable) || !strings.HasPrefix(err.Error(), `cosid: store "db" unavailable: `) {
		t.Errorf("Store(db) while down: %v, want ErrUnavailable naming the store", err)
	}
	setFlaky(false, nil)
	_, err := rt.Next(t.Context(), "order")
	if !errors.Is(err, cosid.ErrUnavailable) || !strings.Contains(err.Error(), "retrying in") {
		t.Errorf("Next(order) within the backoff: %v; want it to say when it retries", err)
	}
	clock.Add(5 * time.Second)
	if text, err := rt.Next(t.Context(), "order"); err != nil || text != "1" {
		t.Fatalf("Next(order) after the store came back = %q, %v", text, err)
	}
	if text, err := rt.Next(t.Context(), "bill"); err != nil || !regexp.MustCompile(`^\d{4}-1$`).MatchString(text) {
		t.Errorf("Next(bill) after the store came back = %q, %v", text, err)
	}
	if _, err := rt.Next(t.Context(), "event"); err != nil {
		t.Errorf("Next(event) after the store came back: %v", err)
	}
	if _, err := rt.Store(t.Context(), "db"); err != nil {
		t.Errorf("Store(db) after it came back: %v", err)
	}
}

func TestRuntime_StoreByName(t *testing.T) {
	rt := mustOpen(t, memConfig)
	st, err := rt.Store(t.Context(), "mem")
	if err != nil || st == nil {
		t.Fatalf("Store(mem) = %v, %v", st, err)
	}
	if again, _ := rt.Store(t.Context(), "mem"); again != st {
		t.Errorf("Store(mem) opened the store twice")
	}
	if _, err := rt.Store(t.Context(), "nope"); !errors.Is(err, cosid.ErrUnknownStore) || !strings.Contains(err.Error(), "configured: mem") {
		t.Errorf("Store(nope) = %v; want ErrUnknownStore listing the stores", err)
	}
	rt.Close()
	if _, err := rt.Store(t.Context(), "mem"); err == nil {
		t.Errorf("Store after Close succeeded")
	}
}

// flaky is a store type whose opener fails while down is set, counting its calls;
// when up it opens a memory store.
var flaky struct {
	mu    sync.Mutex
	down  bool
	opens int
	gate  chan struct{} // when set, an opener waits for it
}

func init() {
	check := func(spec store.Spec) (store.Facts, error) { return store.Facts{Leases: true}, spec.Decode(&struct{}{}) }
	store.Register("test-flaky", store.Type{Check: check, Open: func(_ context.Context, spec store.Spec) (store.RangeStore, error) {
		if _, err := check(spec); err != nil {
			return nil, err
		}
		flaky.mu.Lock()
		flaky.opens++
		down, gate := flaky.down, flaky.gate
		flaky.mu.Unlock()
		if gate != nil {
			<-gate
		}
		if down {
			return nil, errors.New("connection refused")
		}
		return memstore.New(), nil
	}})
}

func setFlaky(down bool, gate chan struct{}) {
	flaky.mu.Lock()
	flaky.down, flaky.opens, flaky.gate = down, 0, gate
	flaky.mu.Unlock()
}

func flakyOpens() int {
	flaky.mu.Lock()
	defer flaky.mu.Unlock()
	return flaky.opens
}

// TestRuntime_OneOpenAtATimeAndBackoff checks that callers of a store that is down
// make one attempt between them, wait for it or fail at once during the backoff with
// a message that says when the next attempt is, and that the first success ends the
// backoff for every caller.
func TestRuntime_OneOpenAtATimeAndBackoff(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 10, 27, 9, 0, 0, 0, time.UTC)}
	cfg, err := cosid.ParseConfig([]byte("cosid:\n  stores: {f: {type: test-flaky}}\n  generators:\n    a: {strategy: segment, store: f, step: 1000}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil), cosid.WithRetryClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	gate := make(chan struct{})
	setFlaky(true, gate)
	const callers = 32
	errs := make(chan error, callers)
	for range callers {
		go func() { _, err := rt.Next(t.Context(), "a"); errs <- err }()
	}
	close(gate)
	for range callers {
		if err := <-errs; !errors.Is(err, cosid.ErrUnavailable) {
			t.Errorf("Next while down: %v, want ErrUnavailable", err)
		}
	}
	if n := flakyOpens(); n != 1 {
		t.Errorf("%d callers made %d attempts to open; want 1", callers, n)
	}
	clock.Add(50 * time.Millisecond)
	_, err = rt.Next(t.Context(), "a")
	if want := `cosid: generator "a": store "f" unavailable: retrying in 50ms (1 failure since 09:00:00): cosid.stores.f: connection refused`; err == nil || err.Error() != want {
		t.Errorf("Next during the backoff:\n  %v\nwant\n  %s", err, want)
	}
	clock.Add(50 * time.Millisecond)
	rt.Next(t.Context(), "a") // the second failure doubles the backoff
	clock.Add(150 * time.Millisecond)
	if _, err := rt.Next(t.Context(), "a"); err == nil || !strings.Contains(err.Error(), "retrying in 50ms (2 failures since 09:00:00)") {
		t.Errorf("Next after two failures: %v; want a backoff of 200ms", err)
	}
	setFlaky(false, nil)
	clock.Add(50 * time.Millisecond)
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			if _, err := rt.Next(t.Context(), "a"); err != nil {
				t.Errorf("Next once the store is back: %v", err)
			}
		})
	}
	wg.Wait()
	if n := flakyOpens(); n != 1 {
		t.Errorf("opened the store %d times once it was back; want 1", n)
	}
}
