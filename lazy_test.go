package cosid_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
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

// downConfig has a generator on a SQLite store whose directory does not exist yet
// (the store is down until the test makes it), and one on the memory store.
func downConfig(dir string) string {
	return `
cosid:
  namespace: app
  stores:
    mem: { type: memory }
    db: { type: sql, driver: sqlite, dsn: ` + filepath.Join(dir, "later", "ids.db") + `, timeout: 1s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: db, step: 10, lookahead: 0s }
    bill: { strategy: periodic-segment, store: db, period: YEAR, zone: UTC, step: 10, lookahead: 0s }
    event: { strategy: snowflake, store: db, owner-key: test-host }
    local: { strategy: segment, store: mem }
`
}

func openDown(t *testing.T) (*cosid.Runtime, *fakeClock, string) {
	t.Helper()
	dir := t.TempDir()
	cfg, err := cosid.ParseConfig([]byte(downConfig(dir)))
	if err != nil {
		t.Fatal(err)
	}
	clock := &fakeClock{now: time.Date(2026, 10, 27, 9, 0, 0, 0, time.UTC)}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil), cosid.WithClock(clock.Now))
	if err != nil {
		t.Fatalf("Open with a store down: %v", err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt, clock, filepath.Join(dir, "later")
}

// TestRuntime_StoreDownThenUp is the service that starts while its database is down:
// Open succeeds, a generator on another store works, the generators on the down
// store answer ErrUnavailable with the cause, and they work once the store is back,
// without a restart.
func TestRuntime_StoreDownThenUp(t *testing.T) {
	rt, clock, later := openDown(t)
	if text, err := rt.Next("local"); err != nil || text != "1" {
		t.Fatalf("Next(local) while another store is down = %q, %v", text, err)
	}
	for _, name := range []string{"order", "bill", "event"} {
		_, err := rt.Next(name)
		if !errors.Is(err, cosid.ErrUnavailable) || errors.Is(err, cosid.ErrConfig) {
			t.Fatalf("Next(%s) on a down store: %v; want ErrUnavailable, not ErrConfig", name, err)
		}
		if !strings.Contains(err.Error(), `store "db"`) || !strings.Contains(err.Error(), "unable to open database file") {
			t.Errorf("Next(%s): %v; want it to name the store and say the cause", name, err)
		}
	}
	if _, err := rt.Store(t.Context(), "db"); !errors.Is(err, cosid.ErrUnavailable) {
		t.Errorf("Store(db) while down: %v, want ErrUnavailable", err)
	}
	if err := os.Mkdir(later, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err := rt.Next("order")
	if !errors.Is(err, cosid.ErrUnavailable) || !strings.Contains(err.Error(), "retrying in") {
		t.Errorf("Next(order) within the backoff: %v; want it to say when it retries", err)
	}
	clock.Add(5 * time.Second)
	if text, err := rt.Next("order"); err != nil || text != "1" {
		t.Fatalf("Next(order) after the store came back = %q, %v", text, err)
	}
	if text, err := rt.Next("bill"); err != nil || !regexp.MustCompile(`^\d{4}-1$`).MatchString(text) {
		t.Errorf("Next(bill) after the store came back = %q, %v", text, err)
	}
	if _, err := rt.Next("event"); err != nil {
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
