package storetest

import (
	"fmt"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// provisionedAsTaken checks that a namespace's slots are provisioned as they are
// taken. In a namespace of 40 slots, more than a store provisions at first, every
// slot is leased once, one after another on two instances, and the 41st acquirer
// finds none free: a store that makes its records as it needs them still offers
// every slot of the limit (L4, L7). In a namespace of store.MaxSlots slots, 32
// concurrent acquirers and one preferring the last slot get distinct slots; with
// WithSlotRows, the backend then holds a record for about as many slots as were
// taken (storekit.SlotsToProvision), and no more after they are released and taken
// again.
func (k *leaseKit) provisionedAsTaken(t *testing.T) {
	stores := k.instances(t, instanceCount)

	fill(t, stores, k.namespace(t, "grow"), 40)

	ns := k.namespace(t, "wide")
	won := race(t, stores, ns, store.MaxSlots)
	if len(won) != acquirers {
		t.Fatalf("%d of %d concurrent acquirers got a slot of %d", len(won), acquirers, store.MaxSlots)
	}
	held := map[int]bool{}
	for _, l := range won {
		if held[l.Slot] {
			t.Fatalf("L1: slot %d leased twice", l.Slot)
		}
		held[l.Slot] = true
	}
	last := request(ns, "last", store.MaxSlots)
	last.Preferred = store.MaxSlots - 1
	if l := mustAcquire(t, stores[0], last); l.Slot != last.Preferred {
		t.Errorf("preferring free slot %d got slot %d", last.Preferred, l.Slot)
	}
	if k.rows == nil {
		t.Log("no count of the backend's slot records (WithSlotRows): the records a namespace holds are not checked")
		return
	}
	taken := len(won) + 1
	most := storekit.SlotsToProvision(len(won), store.MaxSlots) + 1 // the preferred slot, alone
	k.checkRows(t, ns, taken, most)

	for i, l := range won {
		mustRelease(t, stores[i%2], l, l.Floor-1)
	}
	for i := range won {
		mustAcquire(t, stores[i%2], request(ns, fmt.Sprint("again-", i), store.MaxSlots))
	}
	k.checkRows(t, ns, taken, most)
}

// checkRows checks that the backend holds between least and most records for the
// slots of ns.
func (k *leaseKit) checkRows(t *testing.T, ns string, least, most int) {
	t.Helper()
	n, err := k.rows(t.Context(), ns)
	switch {
	case err != nil:
		t.Fatalf("counting the records of namespace %q: %v", ns, err)
	case n > most:
		t.Errorf("namespace %q of %d slots, %d of them taken, has %d slot records in the backend, want at most %d: records are made as slots are taken (storekit.SlotsToProvision), not one per slot",
			ns, store.MaxSlots, least, n, most)
	case n < least:
		t.Errorf("namespace %q has %d slot records with %d slots leased: the count of WithSlotRows misses some", ns, n, least)
	}
}
