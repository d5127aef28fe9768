// Package storetest is the test kit every CosId store must pass, the way testing/fstest
// checks a file system: RunRangeStore checks the range invariants S1–S6 of
// store.RangeStore (and S7 when the store is a store.GiveBacker), and
// RunSlotLeaseStore the slot invariants L1–L7 of store.SlotLeaseStore, each in a subtest named after it, under concurrency and across
// two store instances on one backend. RunRangeStore checks, in StoreID, that a
// store.Identifier answers one identity per backend. Both check, in their subtest Closed, that a
// closed store fails its calls with an error wrapping store.ErrClosed.
// RunSlotLeaseStore also checks, in ProvisionedAsTaken, that a namespace of
// store.MaxSlots slots works when a few are leased, and, given a count of the
// backend's records (WithSlotRows), that it holds about as many as were leased
// (storekit.SlotsToProvision), not one per slot.
//
// A third party's store, or a new SQL dialect, calls them from its own test:
//
//	func TestContract(t *testing.T) {
//		storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore {
//			return mystore.New(…) // every call within one test: the same backend
//		})
//	}
//
// # Store time
//
// Lease expiry and floors depend on the store clock (L6). RunSlotLeaseStore moves that
// clock instead of waiting when the stores it opens implement ClockMover: a store
// that takes its clock as an option reads a Clock and is wrapped with Clocked, as
// memstore's test does; a store whose clock is its server's may implement
// MoveClock itself, say by adding a test-only offset to the server's time in its
// queries, shared by every instance on the backend.
//
// Without a ClockMover the kit runs on the store's real clock: the leases it lets
// expire live 300ms, and it waits for their expiry by polling the store clock (the
// StoreNow of a scratch lease, every 20ms) until it passes the lease's ExpiresAt,
// failing when that takes 30s more than the TTL. The checks that need the clock to
// step back are skipped. Such a run takes a few seconds more.
package storetest

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cosid-go/cosid/store"
)

// Sizes of the concurrency tests: enough goroutines to make a store's races likely,
// few enough reserves that a durable SQL store passes in seconds.
const (
	goroutines    = 32
	reservesEach  = 25
	createRounds  = 5
	instanceCount = 2
)

// RunRangeStore checks that the stores open returns keep the store.RangeStore
// contract. open is called one or more times in every subtest; all the stores it
// returns within one test must share one backend, as two processes would share a
// database. Keys are unique to each run, so one backend may serve every subtest and
// every run. RunRangeStore closes the stores it opens.
func RunRangeStore(t *testing.T, open func(t *testing.T) store.RangeStore) {
	t.Helper()
	k := &kit{prefix: "tck/" + rand.Text()[:12], open: open}
	t.Run("Arguments", k.arguments)
	t.Run("Closed", k.closed)
	t.Run("S1_NoOverlapGrowing", k.s1NoOverlapGrowing)
	t.Run("S1_GrowingInCompletionOrder", k.s1GrowingInCompletionOrder)
	t.Run("S2_FirstRangeAtOffset", k.s2FirstRangeAtOffset)
	t.Run("S2_ConcurrentCreateOnce", k.s2ConcurrentCreateOnce)
	t.Run("S3_ReturnedRangeIsTruth", k.s3ReturnedRangeIsTruth)
	t.Run("S4_NoDuplicates", k.s4NoDuplicates)
	t.Run("S4_CanceledReserveLeavesNoOverlap", k.s4CanceledReserve)
	t.Run("S5_Exhausted", k.s5Exhausted)
	t.Run("S6_SealedNeverRecreated", k.s6SealedNeverRecreated)
	t.Run("S6_SealDuringReserves", k.s6SealDuringReserves)
	k.runGiveBack(t)
	t.Run("StoreID", k.storeID)
}

type kit struct {
	prefix string
	open   func(t *testing.T) store.RangeStore
}

// key returns a key unique to this run and subtest.
func (k *kit) key(t *testing.T, name string) string {
	sub := t.Name()
	if i := strings.LastIndexByte(sub, '/'); i >= 0 {
		sub = sub[i+1:]
	}
	return k.prefix + "/" + sub + "/" + name
}

// instances opens n stores on one backend and closes them when t ends.
func (k *kit) instances(t *testing.T, n int) []store.RangeStore {
	t.Helper()
	return openInstances(t, n, k.open)
}

// openInstances opens n stores with open and closes them when t ends.
func openInstances[S interface{ Close() error }](t *testing.T, n int, open func(*testing.T) S) []S {
	t.Helper()
	stores := make([]S, n)
	for i := range stores {
		st := open(t)
		if any(st) == nil {
			t.Fatal("open returned a nil store")
		}
		t.Cleanup(func() {
			if err := st.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		stores[i] = st
	}
	return stores
}

func (k *kit) one(t *testing.T) store.RangeStore { return k.instances(t, 1)[0] }

func mustReserve(t *testing.T, st store.RangeStore, key string, size, offset int64) store.Range {
	t.Helper()
	r, err := st.Reserve(t.Context(), key, size, offset)
	if err != nil {
		t.Fatalf("Reserve(%q, %d, %d): %v", key, size, offset, err)
	}
	if r.Len() != size {
		t.Fatalf("Reserve(%q, %d, %d) = %v: holds %d values, want %d", key, size, offset, r, r.Len(), size)
	}
	return r
}

// checkDisjoint fails t for every two ranges that share a value.
func checkDisjoint(t *testing.T, key string, ranges []store.Range) {
	t.Helper()
	sorted := slices.Clone(ranges)
	slices.SortFunc(sorted, func(a, b store.Range) int { return cmp.Compare(a.Start, b.Start) })
	for i := 1; i < len(sorted); i++ {
		if sorted[i].Start < sorted[i-1].End {
			t.Errorf("key %q: ranges %v and %v overlap", key, sorted[i-1], sorted[i])
		}
	}
}

// concurrently runs f(g, st) on goroutines goroutines, spread over the stores, all
// released at once.
func concurrently[S any](stores []S, f func(g int, st S)) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range goroutines {
		st := stores[g%len(stores)]
		wg.Go(func() {
			<-start
			f(g, st)
		})
	}
	close(start)
	wg.Wait()
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// storeID checks store.Identifier, when the stores implement it: every instance on
// one backend, asked at once (the first time, on a new backend), answers one
// identity, and again when reopened.
func (k *kit) storeID(t *testing.T) {
	if _, ok := k.one(t).(store.Identifier); !ok {
		t.Skip("the store implements no store.Identifier")
	}
	ids := make([]string, goroutines)
	errs := make([]error, goroutines)
	concurrently(k.instances(t, instanceCount), func(g int, st store.RangeStore) {
		ids[g], errs[g] = st.(store.Identifier).StoreID(t.Context())
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("StoreID: %v", err)
	}
	if ids[0] == "" {
		t.Fatal("StoreID returned an empty identity")
	}
	reopened, err := k.one(t).(store.Identifier).StoreID(t.Context())
	if err != nil {
		t.Fatalf("StoreID of a reopened store: %v", err)
	}
	for g, id := range append(ids, reopened) {
		if id != ids[0] {
			t.Fatalf("StoreID: call %d answered %q, call 0 %q: want one identity per backend", g, id, ids[0])
		}
	}
}
