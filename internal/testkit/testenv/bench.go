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

// Op is an operation that a benchmark times, under the name of its sub-benchmark.
type Op struct {
	Name string
	Run  func() error
}

// Beside times operations in one run, so that a store's operation stands beside
// the bare round trips of its backend: each of serial from one goroutine, as the
// sub-benchmark of its Name, then each of parallel from GOMAXPROCS goroutines, as
// "parallel/<Name>". An operation's first error fails b.
func Beside(b *testing.B, serial, parallel []Op) {
	b.Helper()
	for _, op := range serial {
		b.Run(op.Name, func(b *testing.B) {
			for b.Loop() {
				if err := op.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, op := range parallel {
		b.Run("parallel/"+op.Name, func(b *testing.B) {
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := op.Run(); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
