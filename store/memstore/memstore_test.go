package memstore_test

import (
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/storetest"
)

func TestRangeStoreContract(t *testing.T) {
	shared := memstore.New()
	storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore { return shared.Sibling() })
}

func TestSlotLeaseStoreContract(t *testing.T) {
	clock := storetest.NewClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	shared := memstore.New(memstore.WithClock(clock.Now))
	storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore {
		return storetest.Clocked(shared.Sibling(), clock)
	}, storetest.WithSlotRows(shared.SlotRecords))
}

// TestSlotLeaseStoreContract_RealClock runs the kit as it runs on a store whose clock
// is its server's: short leases and polling instead of a moved clock.
func TestSlotLeaseStoreContract_RealClock(t *testing.T) {
	shared := memstore.New()
	storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore { return shared.Sibling() }, storetest.WithSlotRows(shared.SlotRecords))
}

// TestStore_GiveBacker asserts that memstore.Store is a store.GiveBacker, so that the
// kit runs its S7 cases instead of skipping them.
func TestStore_GiveBacker(t *testing.T) {
	if _, ok := any(memstore.New()).(store.GiveBacker); !ok {
		t.Fatal("memstore.Store implements no store.GiveBacker")
	}
}
