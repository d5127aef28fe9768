package cosid_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// losing is a memory store whose renewals fail with ErrLeaseLost while lose is set,
// as when another owner took the slot.
type losing struct {
	*memstore.Store
	lose *atomic.Bool
}

func (s losing) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	if s.lose.Load() {
		return store.Lease{}, fmt.Errorf("slot %d: %w", l.Slot, store.ErrLeaseLost)
	}
	return s.Store.Renew(ctx, l, ttl)
}

var losingStores = map[string]*atomic.Bool{}

func init() {
	check := func(spec store.Spec) (store.Facts, error) { return store.Facts{Leases: true}, spec.Decode(&struct{}{}) }
	store.Register("test-losing", store.Type{Check: check, Open: func(_ context.Context, spec store.Spec) (store.RangeStore, error) {
		if _, err := check(spec); err != nil {
			return nil, err
		}
		lose, ok := losingStores[spec.Name]
		if !ok {
			return nil, fmt.Errorf("no test switch for store %q", spec.Name)
		}
		return losing{memstore.New(), lose}, nil
	}})
}

// TestRuntime_SnowflakeLeaseLostThenLeasedAgain checks that a snowflake whose lease
// is lost answers ErrUnavailable (wrapping snowflake.ErrLeaseLost), and that the
// next call leases a slot again and works.
func TestRuntime_SnowflakeLeaseLostThenLeasedAgain(t *testing.T) {
	lose := &atomic.Bool{}
	losingStores["lossy"] = lose
	synctest.Test(t, func(t *testing.T) {
		// The bubble's clock starts in 2000: the epoch is before it.
		cfg, err := cosid.ParseConfig([]byte("cosid:\n  stores: {lossy: {type: test-losing}}\n  generators:\n" +
			"    ev: {strategy: snowflake, store: lossy, slots: 4, owner-key: host-a, lease-ttl: 30s, tolerance: 0s, epoch: 1999-01-01}\n"))
		if err != nil {
			t.Fatal(err)
		}
		rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		first, err := rt.Snowflake(t.Context(), "ev")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rt.Next(t.Context(), "ev"); err != nil {
			t.Fatalf("Next: %v", err)
		}
		lose.Store(true)
		time.Sleep(time.Minute) // sleep-ok: synctest's fake time; renewals fail with ErrLeaseLost
		synctest.Wait()
		_, err = rt.Next(t.Context(), "ev")
		if !errors.Is(err, cosid.ErrUnavailable) || !errors.Is(err, snowflake.ErrLeaseLost) {
			t.Fatalf("Next after the lease was lost: %v; want ErrUnavailable wrapping snowflake.ErrLeaseLost", err)
		}
		lose.Store(false)
		if _, err := rt.Next(t.Context(), "ev"); err != nil {
			t.Fatalf("Next after a new lease: %v", err)
		}
		if again, _ := rt.Snowflake(t.Context(), "ev"); again == first {
			t.Errorf("the runtime kept the generator that lost its lease")
		}
	})
}
