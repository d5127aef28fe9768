package redisstore_test

import (
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"

	"github.com/cosid-go/cosid/store/redisstore"
	"github.com/cosid-go/cosid/store/storekit"
)

// TestAcquire_RetryAnswersTheSameLease runs the acquire script twice with one
// incarnation, as a client does that sends a call again after losing its answer: the
// second run answers the lease the first took, and takes no second slot.
func TestAcquire_RetryAnswersTheSameLease(t *testing.T) {
	addr := durable(t)
	st := openStore(t, addr, redisstore.WithPrefix(testPrefix(t, addr)))
	req := store.LeaseRequest{Namespace: "retry", OwnerKey: "a", Limit: 2, Tolerance: time.Second, TTL: time.Hour, Preferred: -1}
	inc := storekit.NewIncarnation()
	first, err := st.AcquireAs(t.Context(), req, inc)
	if err != nil {
		t.Fatal(err)
	}
	again, err := st.AcquireAs(t.Context(), req, inc)
	if err != nil {
		t.Fatal(err)
	}
	if again.Slot != first.Slot || again.Fence != first.Fence || again.Incarnation != inc || again.Floor != first.Floor || !again.ExpiresAt.Equal(first.ExpiresAt) {
		t.Errorf("the retried acquisition = %+v, want the first one's lease %+v", again, first)
	}
	req.OwnerKey = "b"
	if _, err := st.Acquire(t.Context(), req); err != nil {
		t.Errorf("the other slot is not free after a retried acquisition: %v", err)
	}
}
