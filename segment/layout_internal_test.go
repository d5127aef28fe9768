package segment

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// TestGenerator_LayoutKeepsCurOnItsOwnLine checks what Generator's layout counts on
// in place of padding: a Generator starts a cache line, and nothing that changes
// shares that line with cur.
func TestGenerator_LayoutKeepsCurOnItsOwnLine(t *testing.T) {
	const line = 64
	var g Generator
	if off := unsafe.Offsetof(g.cur); off != 0 {
		t.Errorf("cur is at offset %d; want 0", off)
	}
	// The first field after the ones that never change: wg, written by every
	// reservation, and the lock and state after it.
	if off := unsafe.Offsetof(g.wg); off < line {
		t.Errorf("wg is at offset %d, on cur's cache line; want ≥ %d", off, line)
	}
	// Objects of more than 512 bytes carry an 8-byte header, which would put cur
	// off the line's start.
	if size := unsafe.Sizeof(g); size > 512 {
		t.Errorf("Generator is %d bytes; want ≤ 512, or padding before cur again", size)
	}
	st := memstore.New()
	for i := range 64 {
		g, err := New(st, "layout/k", DefaultBatchPolicy(), WithLogger(nil))
		if err != nil {
			t.Fatal(err)
		}
		if p := uintptr(unsafe.Pointer(g)); p%line != 0 {
			t.Errorf("Generator %d at %#x: not at the start of a cache line", i, p)
		}
		g.Close()
	}
}

// failOnce is a memory store whose first reservation fails.
type failOnce struct {
	*memstore.Store
	failed bool
}

func (s *failOnce) Reserve(ctx context.Context, key string, size, offset int64) (store.Range, error) {
	if !s.failed {
		s.failed = true
		return store.Range{}, errors.New("store down")
	}
	return s.Store.Reserve(ctx, key, size, offset)
}

// TestGenerator_FailureStateOnlyWhileFailing checks that a Generator holds a
// failure state from a failure to the next success only, so that one that has not
// failed, each idle key's, holds none.
func TestGenerator_FailureStateOnlyWhileFailing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g, err := New(&failOnce{Store: memstore.New()}, "layout/k", DefaultBatchPolicy(), WithLogger(nil))
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		synctest.Wait()
		g.mu.Lock()
		failing := g.failures != nil && g.failures.lastErr() != nil
		g.mu.Unlock()
		if !failing {
			t.Fatal("after a failed reservation: no failure state with its error")
		}
		if _, err := g.Next(); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Next while backing off: %v; want ErrUnavailable", err)
		}
		time.Sleep(time.Second) // sleep-ok: fake time in the bubble, past the backoff, when the retry succeeds
		synctest.Wait()
		if _, err := g.Next(); err != nil {
			t.Fatalf("Next after the retry: %v", err)
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.failures != nil {
			t.Errorf("after a success: failure state %+v kept; want none", g.failures)
		}
	})
}
