package cosid_test

import (
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid"
)

// openYAML parses and opens a configuration (as the root's tests do).
func openYAML(t *testing.T, text string) (*cosid.Runtime, error) {
	t.Helper()
	cfg, err := cosid.ParseConfig([]byte(text))
	if err != nil {
		return nil, err
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err == nil {
		t.Cleanup(func() { rt.Close() })
	}
	return rt, err
}

func mustOpen(t *testing.T, text string) *cosid.Runtime {
	t.Helper()
	rt, err := openYAML(t, text)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return rt
}

// fakeClock is the clock of the runtime's retry backoff (cosid.WithRetryClock).
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
