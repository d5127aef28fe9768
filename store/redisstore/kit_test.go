package redisstore_test

import (
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
	"github.com/cosid-go/cosid/store/storetest"
)

// The kit runs its S7 cases only on a store.GiveBacker.
var _ store.GiveBacker = (*redisstore.Store)(nil)

// TestRangeStoreKit runs the store test kit on the durable server, and on the
// volatile one accepted with WithVolatileServer; every store the kit opens has a
// client of its own, as a second process would.
func TestRangeStoreKit(t *testing.T) {
	servers := []struct {
		name, env string
		opts      []redisstore.Option
	}{
		{"durable", testenv.RedisDurable, nil},
		{"volatile", testenv.Redis, []redisstore.Option{redisstore.WithVolatileServer()}},
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			addr := testenv.Server(t, srv.env)
			prefix := testPrefix(t, addr)
			storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore {
				return openStore(t, addr, append(srv.opts, redisstore.WithPrefix(prefix))...)
			})
		})
	}
}

// movedStore is a Store whose clock, Redis TIME moved by a ClockOffset shared by
// every store of the test, the kit may move (storetest.ClockMover).
type movedStore struct {
	*redisstore.Store
	clock *redisstore.ClockOffset
}

func (s movedStore) MoveClock(d time.Duration) { s.clock.Move(d) }

// TestSlotLeaseStoreKit runs the lease test kit on the durable server, moving the
// store clock instead of waiting for it; every store has a client of its own.
func TestSlotLeaseStoreKit(t *testing.T) {
	t.Parallel()
	addr := durable(t)
	prefix := testPrefix(t, addr)
	clock := new(redisstore.ClockOffset)
	storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore {
		return movedStore{openStore(t, addr, redisstore.WithPrefix(prefix), redisstore.WithClockOffset(clock)), clock}
	}, storetest.WithSlotRows(openStore(t, addr, redisstore.WithPrefix(prefix)).SlotRecords))
}

// TestSlotLeaseStoreKit_RealClock runs the lease test kit on Redis's own clock:
// short leases, and polling of the store clock.
func TestSlotLeaseStoreKit_RealClock(t *testing.T) {
	t.Parallel()
	addr := durable(t)
	prefix := testPrefix(t, addr)
	storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore {
		return openStore(t, addr, redisstore.WithPrefix(prefix))
	}, storetest.WithSlotRows(openStore(t, addr, redisstore.WithPrefix(prefix)).SlotRecords))
}
