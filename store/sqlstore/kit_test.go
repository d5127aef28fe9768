package sqlstore_test

import (
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
	"github.com/cosid-go/cosid/store/storetest"
)

// TestRangeStoreKit runs the store test kit on every live dialect with both fetch
// plans; two Stores, each with its own pool, stand in for two processes.
func TestRangeStoreKit(t *testing.T) {
	for _, b := range backends {
		for _, plan := range []sqlstore.FetchPlan{sqlstore.FetchStatement, sqlstore.FetchTransaction} {
			t.Run(b.name+"/"+string(plan), func(t *testing.T) {
				t.Parallel()
				dsn := b.dsn(t)
				storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore {
					st := openStore(t, b, dsn, sqlstore.WithFetchPlan(plan))
					if st.Dialect() != b.name {
						t.Fatalf("dialect detected as %q, want %q", st.Dialect(), b.name)
					}
					return st
				})
			})
		}
	}
}

// movedStore is a Store whose clock, the database's moved by a ClockOffset shared by
// every store of the test, the kit may move (storetest.ClockMover).
type movedStore struct {
	*sqlstore.Store
	clock *sqlstore.ClockOffset
}

func (s movedStore) MoveClock(d time.Duration) { s.clock.Move(d) }

// TestSlotLeaseStoreKit runs the lease test kit on every live dialect, moving the
// database's clock instead of waiting for it; two Stores, each with its own pool,
// stand in for two processes.
func TestSlotLeaseStoreKit(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			clock := new(sqlstore.ClockOffset)
			storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore {
				return movedStore{openStore(t, b, dsn, sqlstore.WithClockOffset(clock)), clock}
			})
		})
	}
}

// TestSlotLeaseStoreKit_RealClock runs the lease test kit on SQLite as on a store
// whose clock cannot be moved: short leases, and polling of the store clock.
func TestSlotLeaseStoreKit_RealClock(t *testing.T) {
	t.Parallel()
	b := backend{name: "sqlite", driver: "sqlite"}
	dsn := b.dsn(t)
	storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore { return openStore(t, b, dsn) })
}
