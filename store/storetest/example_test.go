package storetest_test

import (
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/storetest"
)

// A store's own test runs the kit. The stores that open returns within one test must
// share one backend, as two processes share a database; here two memstore Siblings.
// (The example has no output to check: a *testing.T comes only from go test.)
func ExampleRunRangeStore() {
	var t *testing.T // the *testing.T of a TestXxx function
	backend := memstore.New()
	storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore {
		return backend.Sibling()
	})
}

// A store whose clock is an option reads a storetest.Clock, and Clocked lets the kit
// move it, so that leases expire without waiting. A store on a server's clock returns
// its instances as they are, and the kit waits for that clock instead.
func ExampleRunSlotLeaseStore() {
	var t *testing.T // the *testing.T of a TestXxx function
	clock := storetest.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	backend := memstore.New(memstore.WithClock(clock.Now))
	storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore {
		return storetest.Clocked(backend.Sibling(), clock)
	})
}
