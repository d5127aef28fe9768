package storetest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"

	"github.com/cosid-go/cosid/store/memstore"
	"github.com/cosid-go/cosid/store/storekit"
	"github.com/cosid-go/cosid/store/storetest"
)

// flawedLeases is a memstore with one deliberate flaw in what it answers, to show that
// the kit notices it.
type flawedLeases struct {
	flaw   string
	inner  *memstore.Store
	shared *flawShared
}

// flawShared is what the instances of one flawed backend share.
type flawShared struct {
	mu     sync.Mutex
	real   map[string]store.Lease // by incarnation: the lease the memstore gave
	bonus  map[string]bool        // namespaces that got their extra last slot
	serial int
}

func (s *flawedLeases) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	if s.flaw == "no-validation" && (req.Namespace == "" || req.OwnerKey == "" || req.TTL < time.Millisecond) {
		return store.Lease{Namespace: req.Namespace, OwnerKey: req.OwnerKey, Incarnation: "x", Fence: 1}, nil
	}
	inner := req
	switch s.flaw {
	case "forgets-owner":
		s.shared.mu.Lock()
		s.shared.serial++
		inner.OwnerKey = fmt.Sprint(req.OwnerKey, "#", s.shared.serial)
		s.shared.mu.Unlock()
	case "slots-from-one":
		inner.Preferred = max(-1, req.Preferred-1)
	}
	l, err := s.inner.Acquire(ctx, inner)
	if errors.Is(err, store.ErrNamespaceConflict) && s.flaw == "ignores-conflict" {
		inner.Namespace = fmt.Sprint(req.Namespace, "#", req.Limit, "#", req.Tolerance)
		l, err = s.inner.Acquire(ctx, inner)
		l.Namespace = req.Namespace
	}
	if errors.Is(err, store.ErrNoFreeSlot) && (s.flaw == "double-lease" || s.flaw == "last-slot-twice" && s.extra(req.Namespace)) {
		now := time.Now()
		return store.Lease{Namespace: req.Namespace, OwnerKey: req.OwnerKey, Incarnation: storekit.NewIncarnation(), Fence: 1,
			ExpiresAt: now.Add(req.TTL), StoreNow: now, Ceiling: now.Add(req.TTL + req.Tolerance).UnixMilli()}, nil
	}
	if err != nil {
		return l, err
	}
	s.shared.mu.Lock()
	s.shared.real[l.Incarnation] = l
	s.shared.mu.Unlock()
	out := l
	out.OwnerKey = req.OwnerKey
	switch s.flaw {
	case "fence-kept":
		out.Fence = 1
	case "floor-zero":
		out.Floor = 0
	case "slots-from-one":
		out.Slot++
	}
	return out, nil
}

// extra reports whether ns may get one slot more than its limit, once.
func (s *flawedLeases) extra(ns string) bool {
	s.shared.mu.Lock()
	defer s.shared.mu.Unlock()
	if s.shared.bonus[ns] {
		return false
	}
	s.shared.bonus[ns] = true
	return true
}

// unflaw returns the lease the memstore knows for l.
func (s *flawedLeases) unflaw(l store.Lease) store.Lease {
	switch s.flaw {
	case "slots-from-one":
		l.Slot--
	case "fence-kept", "forgets-owner":
		s.shared.mu.Lock()
		if real, ok := s.shared.real[l.Incarnation]; ok {
			l.Fence, l.OwnerKey = real.Fence, real.OwnerKey
		}
		s.shared.mu.Unlock()
	}
	return l
}

func (s *flawedLeases) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	r, err := s.inner.Renew(ctx, s.unflaw(l), ttl)
	if errors.Is(err, store.ErrLeaseLost) && s.flaw == "renews-any" {
		return l, nil
	}
	if err == nil {
		r.OwnerKey, r.Fence, r.Slot, r.Floor = l.OwnerKey, l.Fence, l.Slot, l.Floor
	}
	return r, err
}

func (s *flawedLeases) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	err := s.inner.Release(ctx, s.unflaw(l), lastUsedMs)
	if errors.Is(err, store.ErrLeaseLost) && s.flaw == "renews-any" {
		return nil
	}
	return err
}

func (s *flawedLeases) Close() error {
	if s.flaw == "serves-after-close" {
		return nil
	}
	return s.inner.Close()
}

// TestFlawedLeaseStoreHelper runs the kit on the flawed store that COSID_TCK_FLAW
// names; it is the body of the child processes of TestLeaseKit_FindsFlaws.
func TestFlawedLeaseStoreHelper(t *testing.T) {
	flaw := os.Getenv("COSID_TCK_FLAW")
	if flaw == "" {
		t.Skip("runs only as a child of TestLeaseKit_FindsFlaws")
	}
	clock := storetest.NewClock(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	storeClock := clock.Now
	if flaw == "client-clock" {
		storeClock = time.Now // the kit moves a clock the store does not read
	}
	backend := memstore.New(memstore.WithClock(storeClock))
	shared := &flawShared{real: map[string]store.Lease{}, bonus: map[string]bool{}}
	storetest.RunSlotLeaseStore(t, func(*testing.T) store.SlotLeaseStore {
		return storetest.Clocked(&flawedLeases{flaw: flaw, inner: backend.Sibling(), shared: shared}, clock)
	})
}

// TestLeaseKit_FindsFlaws runs the kit on stores that each break one rule, in a child
// process so that their failures do not fail this test, and checks that the subtest
// named after the rule fails.
func TestLeaseKit_FindsFlaws(t *testing.T) {
	tests := []struct{ flaw, failing string }{
		{"none", ""}, // the wrapper itself keeps the contract
		{"no-validation", "Arguments"},
		{"serves-after-close", "Closed"},
		{"double-lease", "L1_OneLeasePerSlot"},
		{"fence-kept", "L2_FenceIncreases"},
		{"renews-any", "L2_StaleLeaseLost"},
		{"floor-zero", "L3_FloorAboveEarlierOwner"},
		{"slots-from-one", "L4_SlotsWithinLimit"},
		{"ignores-conflict", "L4_NamespaceConflict"},
		{"forgets-owner", "L5_OwnerGetsSlotBack"},
		{"client-clock", "L6_StoreClockOnly"},
		{"last-slot-twice", "L7_LastSlotOneWinner"},
	}
	for _, tc := range tests {
		t.Run(tc.flaw+"/"+tc.failing, func(t *testing.T) {
			t.Parallel()
			checkFails(t, "TestFlawedLeaseStoreHelper", tc.flaw, tc.failing)
		})
	}
}
