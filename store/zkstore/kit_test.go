package zkstore_test

import (
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storetest"
	"github.com/cosid-go/cosid/store/zkstore"
)

// The kit runs its S7 cases only on a store.GiveBacker.
var _ store.GiveBacker = (*zkstore.Store)(nil)

// TestRangeStoreKit runs the store test kit; every store the kit opens has a
// connection and a session of its own, as a second process would.
func TestRangeStoreKit(t *testing.T) {
	t.Parallel()
	addr := server(t)
	root := testRoot(t, addr)
	storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore {
		return openStore(t, addr, zkstore.WithRoot(root))
	})
}

// movedStore is a Store whose clock, ZooKeeper's moved by a ClockOffset shared by
// every store of the test, the kit may move (storetest.ClockMover).
type movedStore struct {
	*zkstore.Store
	clock *zkstore.ClockOffset
}

func (s movedStore) MoveClock(d time.Duration) { s.clock.Move(d) }

// TestSlotLeaseStoreKit runs the lease test kit twice: moving the store clock
// instead of waiting for it, and on ZooKeeper's own clock (short leases, polling);
// every store has a connection of its own.
func TestSlotLeaseStoreKit(t *testing.T) {
	for _, moved := range []bool{true, false} {
		t.Run(map[bool]string{true: "moved", false: "real"}[moved], func(t *testing.T) {
			t.Parallel()
			addr := server(t)
			root := testRoot(t, addr)
			clock := new(zkstore.ClockOffset)
			storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore {
				st := openStore(t, addr, zkstore.WithRoot(root), zkstore.WithClockOffset(clock))
				if !moved {
					return st
				}
				return movedStore{st, clock}
			}, storetest.WithSlotRows(openStore(t, addr, zkstore.WithRoot(root)).SlotRecords))
		})
	}
}
