package redisstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
)

// TestRestart_NoOverlap reserves ranges and leases a slot on a durable server, stops
// it with SHUTDOWN, starts it again on the same directory, and checks that the
// store remembers both: the next range starts above the last, and the slot is still
// held.
func TestRestart_NoOverlap(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	st := openStore(t, srv.addr)
	const key, ns = "restart/order", "restart/machines"
	var last store.Range
	for range 5 {
		r, err := st.Reserve(t.Context(), key, 100, 1)
		if err != nil {
			t.Fatal(err)
		}
		last = r
	}
	req := store.LeaseRequest{Namespace: ns, OwnerKey: "before", Limit: 1, Tolerance: time.Second, TTL: time.Hour, Preferred: -1}
	held, err := st.Acquire(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}

	srv.shutdown()
	srv.start()

	next, err := st.Reserve(t.Context(), key, 100, 1)
	if err != nil {
		t.Fatalf("Reserve after the restart: %v", err)
	}
	if next.Start < last.End {
		t.Errorf("range %v after the restart overlaps %v from before it", next, last)
	}
	req.OwnerKey = "after"
	if l, err := st.Acquire(t.Context(), req); !errors.Is(err, store.ErrNoFreeSlot) {
		t.Errorf("Acquire of the only slot, held before the restart = slot %d, %v; want ErrNoFreeSlot", l.Slot, err)
	}
	if _, err := st.Renew(t.Context(), held, time.Hour); err != nil {
		t.Errorf("Renew of the lease from before the restart: %v", err)
	}
}
