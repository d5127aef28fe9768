package mongostore_test

import (
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/mongostore"
	"github.com/cosid-go/cosid/store/storetest"
)

// The kit runs its S7 cases only on a store.GiveBacker.
var _ store.GiveBacker = (*mongostore.Store)(nil)

// TestRangeStoreKit runs the store test kit; every store the kit opens has a client
// of its own, as a second process would. On FerretDB the stores take turns (see
// turns).
func TestRangeStoreKit(t *testing.T) {
	t.Parallel()
	uri := server(t)
	db := testDatabase(t, uri)
	mu := turns(t, uri)
	storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore {
		return taking{openStore(t, uri, db), mu}
	})
}

// movedStore is a Store whose clock, the server's moved by a ClockOffset shared by
// every store of the test, the kit may move (storetest.ClockMover).
type movedStore struct {
	taking
	clock *mongostore.ClockOffset
}

func (s movedStore) MoveClock(d time.Duration) { s.clock.Move(d) }

// TestSlotLeaseStoreKit runs the lease test kit twice: moving the store clock
// instead of waiting for it, and on the server's own clock (short leases, polling);
// every store has a client of its own. On FerretDB the stores take turns (see
// turns).
func TestSlotLeaseStoreKit(t *testing.T) {
	for _, moved := range []bool{true, false} {
		t.Run(map[bool]string{true: "moved", false: "real"}[moved], func(t *testing.T) {
			t.Parallel()
			uri := server(t)
			db := testDatabase(t, uri)
			clock := new(mongostore.ClockOffset)
			mu := turns(t, uri)
			storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore {
				st := taking{openStore(t, uri, db, mongostore.WithClockOffset(clock)), mu}
				if !moved {
					return st
				}
				return movedStore{st, clock}
			}, storetest.WithSlotRows(openStore(t, uri, db).SlotRecords))
		})
	}
}
