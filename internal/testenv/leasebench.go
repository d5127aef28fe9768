package testenv

import (
	"fmt"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
)

// AcquireRelease benchmarks an acquisition and a release of a slot of st as the
// sub-benchmark "store=Acquire+Release", beside bare, the store's bare round trip,
// as "bare=<bareName>". The namespace has 1,024 slots, of which other owners hold
// the lower held first, so that an acquisition reads a namespace in use.
func AcquireRelease(b *testing.B, st store.SlotLeaseStore, held int, bareName string, bare func() error) {
	b.Helper()
	ctx := b.Context()
	req := store.LeaseRequest{Namespace: "bench", Limit: 1024, Tolerance: time.Second, TTL: time.Hour, Preferred: -1}
	for i := range held {
		req.OwnerKey = fmt.Sprint("held-", i)
		if _, err := st.Acquire(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("bare="+bareName, func(b *testing.B) {
		for b.Loop() {
			if err := bare(); err != nil {
				b.Fatal(err)
			}
		}
	})
	req.OwnerKey = "bench"
	b.Run("store=Acquire+Release", func(b *testing.B) {
		for b.Loop() {
			l, err := st.Acquire(ctx, req)
			if err != nil {
				b.Fatal(err)
			}
			if err := st.Release(ctx, l, l.Floor); err != nil {
				b.Fatal(err)
			}
		}
	})
}
