package testenv

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
)

// EndedCalls checks how st ends calls: each call on a canceled context fails with
// context.Canceled, and once st is closed each call fails with store.ErrClosed. The calls
// are Reserve and Seal, Acquire when st is a store.SlotLeaseStore, and every call of
// store.Admin when st is one. It closes st.
func EndedCalls(t *testing.T, st store.RangeStore) {
	t.Helper()
	calls := map[string]func(context.Context) error{
		"Reserve": func(ctx context.Context) error { _, err := st.Reserve(ctx, "k", 1, 0); return err },
		"Seal":    func(ctx context.Context) error { return st.Seal(ctx, "k") },
	}
	if ls, ok := st.(store.SlotLeaseStore); ok {
		req := store.LeaseRequest{Namespace: "n", OwnerKey: "o", Limit: 1, TTL: time.Minute, Preferred: -1}
		calls["Acquire"] = func(ctx context.Context) error { _, err := ls.Acquire(ctx, req); return err }
	}
	if a, ok := st.(store.Admin); ok {
		calls["Keys"] = func(ctx context.Context) error { _, err := a.Keys(ctx, "", "", 10); return err }
		calls["RaiseTo"] = func(ctx context.Context) error { _, err := a.RaiseTo(ctx, "k", 5); return err }
		calls["Delete"] = func(ctx context.Context) error { return a.Delete(ctx, "k") }
		calls["Slots"] = func(ctx context.Context) error { _, err := a.Slots(ctx, "n"); return err }
		calls["LeaseOf"] = func(ctx context.Context) error { _, err := a.LeaseOf(ctx, "n", "o"); return err }
		calls["RaiseFloor"] = func(ctx context.Context) error {
			_, err := a.RaiseFloor(ctx, store.FloorRequest{Namespace: "n", Limit: 2, FloorMs: 5})
			return err
		}
	}
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	for name, call := range calls {
		if err := call(canceled); !errors.Is(err, context.Canceled) {
			t.Errorf("%s on a canceled context: %v, want context.Canceled", name, err)
		}
	}
	st.Close()
	for name, call := range calls {
		if err := call(t.Context()); !errors.Is(err, store.ErrClosed) {
			t.Errorf("%s on a closed store: %v, want store.ErrClosed", name, err)
		}
	}
}
