package etcdstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/etcdstore"
	"github.com/cosid-go/cosid/store/storetest"
)

// The kit runs its S7 cases only on a store.GiveBacker.
var _ store.GiveBacker = (*etcdstore.Store)(nil)

// TestRangeStoreKit runs the store test kit; two Stores, each with a client of its
// own, stand in for two processes.
func TestRangeStoreKit(t *testing.T) {
	t.Parallel()
	ep, prefix := endpoint(t), newPrefix()
	storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore { return openStore(t, ep, prefix) })
}

// movedStore is a Store whose clock the kit may move (storetest.ClockMover). Moving
// it forward does what etcd does when that much time passes: it revokes the etcd
// leases of the slots that expire by then, which deletes their held keys.
type movedStore struct {
	*etcdstore.Store
	clock *etcdstore.Clock
	t     *testing.T
}

func (s movedStore) MoveClock(d time.Duration) {
	s.clock.Move(d)
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	if err := s.ExpireLeases(ctx, s.clock.Now()); err != nil {
		s.t.Errorf("expiring the leases at the moved clock: %v", err)
	}
}

// TestSlotLeaseStoreKit runs the lease test kit, moving the clock and expiring the
// etcd leases it passes instead of waiting for them; two Stores, each with a client
// of its own, stand in for two processes.
func TestSlotLeaseStoreKit(t *testing.T) {
	t.Parallel()
	ep, prefix := endpoint(t), newPrefix()
	clock := new(etcdstore.Clock)
	storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore {
		return movedStore{openStore(t, ep, prefix, etcdstore.WithClock(clock)), clock, t}
	}, storetest.WithSlotRows(openStore(t, ep, prefix).SlotRecords))
}
