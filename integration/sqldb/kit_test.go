package sqldb_test

import (
	"context"
	"database/sql"
	"strings"
	"sync/atomic"
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
				open := kitStores(t, b, b.dsn(t))
				storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore {
					st := open(t, sqlstore.WithFetchPlan(plan))
					if st.Dialect() != b.name {
						t.Fatalf("dialect detected as %q, want %q", st.Dialect(), b.name)
					}
					return st
				})
			})
		}
	}
}

// kitStores returns the function with which a run of a kit opens its stores on b.
// On a server, the stores take turns on two pools that live as long as t, each
// opened as Open opens its own: consecutive stores, which the kit's subtests open as
// the instances of two processes, have pools of their own, and a subtest finds its
// connections open, where a new pool would open up to 16 of them, for every store of
// every subtest (a PostgreSQL connection starts a server process). SQLite, whose
// connections cost no server, gets stores of Open.
func kitStores(t *testing.T, b backend, dsn string) func(*testing.T, ...sqlstore.Option) *sqlstore.Store {
	if b.envVar == "" {
		return func(t *testing.T, opts ...sqlstore.Option) *sqlstore.Store { return openStore(t, b, dsn, opts...) }
	}
	var pools [2]*sql.DB
	for i := range pools {
		pools[i] = openPool(t, b.driver, dsn, testTimeout)
	}
	var turn atomic.Int64
	return func(t *testing.T, opts ...sqlstore.Option) *sqlstore.Store {
		t.Helper()
		db := pools[turn.Add(1)%2]
		st, err := sqlstore.New(db, testTimeout, append([]sqlstore.Option{sqlstore.WithInitSchema(true), sqlstore.WithLogger(nil)}, opts...)...)
		if err != nil {
			t.Fatalf("New(%s): %v", b.name, err)
		}
		t.Cleanup(func() { st.Close() })
		return st
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
			open := kitStores(t, b, dsn)
			clock := new(sqlstore.ClockOffset)
			storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore {
				return movedStore{open(t, sqlstore.WithClockOffset(clock)), clock}
			}, slotRows(t, b, dsn))
		})
	}
}

// slotRows counts the rows of a namespace in the slot table of b's database at dsn,
// for the lease kit (storetest.WithSlotRows).
func slotRows(t *testing.T, b backend, dsn string) storetest.LeaseOption {
	db := openDB(t, b, dsn)
	query := "select count(*) from cosid_slot where namespace = ?"
	if b.name == "postgresql" {
		query = strings.Replace(query, "?", "$1", 1)
	}
	return storetest.WithSlotRows(func(ctx context.Context, namespace string) (int, error) {
		var n int
		err := db.QueryRowContext(ctx, query, namespace).Scan(&n)
		return n, err
	})
}

// TestSlotLeaseStoreKit_RealClock runs the lease test kit on SQLite as on a store
// whose clock cannot be moved: short leases, and polling of the store clock.
func TestSlotLeaseStoreKit_RealClock(t *testing.T) {
	t.Parallel()
	b := backend{name: "sqlite", driver: "sqlite"}
	dsn := b.dsn(t)
	storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore { return openStore(t, b, dsn) }, slotRows(t, b, dsn))
}
