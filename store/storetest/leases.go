package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"

	"github.com/cosid-go/cosid/store/storekit"
)

func (k *leaseKit) arguments(t *testing.T) {
	st := k.one(t)
	ns := k.namespace(t, "args")
	ok := request(ns, "owner", 4)
	bad := []struct {
		name    string
		mod     func(*store.LeaseRequest)
		mention string
	}{
		{"EmptyNamespace", func(r *store.LeaseRequest) { r.Namespace = "" }, "Namespace"},
		{"Namespace101Bytes", func(r *store.LeaseRequest) { r.Namespace = strings.Repeat("n", store.MaxNamespaceLen+1) }, "Namespace"},
		{"NamespaceNotUTF8", func(r *store.LeaseRequest) { r.Namespace += "\xff" }, "Namespace"},
		{"NamespaceNUL", func(r *store.LeaseRequest) { r.Namespace += "\x00" }, "Namespace"},
		{"EmptyOwnerKey", func(r *store.LeaseRequest) { r.OwnerKey = "" }, "OwnerKey"},
		{"OwnerKey256Bytes", func(r *store.LeaseRequest) { r.OwnerKey = strings.Repeat("o", store.MaxKeyLen+1) }, "OwnerKey"},
		{"OwnerKeyNotUTF8", func(r *store.LeaseRequest) { r.OwnerKey = "owner\xc3(" }, "OwnerKey"},
		{"OwnerKeyNUL", func(r *store.LeaseRequest) { r.OwnerKey = "own\x00er" }, "OwnerKey"},
		{"LimitZero", func(r *store.LeaseRequest) { r.Limit = 0 }, "Limit"},
		{"LimitNegative", func(r *store.LeaseRequest) { r.Limit = -4 }, "Limit"},
		{"LimitOverMax", func(r *store.LeaseRequest) { r.Limit = store.MaxSlots + 1 }, "Limit"},
		{"ToleranceNegative", func(r *store.LeaseRequest) { r.Tolerance = -time.Millisecond }, "Tolerance"},
		{"TTLZero", func(r *store.LeaseRequest) { r.TTL = 0 }, "TTL"},
		{"TTLUnderAMillisecond", func(r *store.LeaseRequest) { r.TTL = 999 * time.Microsecond }, "TTL"},
		{"PreferredAtLimit", func(r *store.LeaseRequest) { r.Preferred = r.Limit }, "Preferred"},
		{"PreferredBelowNone", func(r *store.LeaseRequest) { r.Preferred = -2 }, "Preferred"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			req := ok
			tc.mod(&req)
			l, err := st.Acquire(t.Context(), req)
			if !errors.Is(err, store.ErrInvalidArgument) {
				t.Fatalf("Acquire = slot %d, %v; want an error wrapping ErrInvalidArgument", l.Slot, err)
			}
			if !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error %q does not name %q", err, tc.mention)
			}
		})
	}
	t.Run("InvalidRequestLeavesNoNamespace", func(t *testing.T) {
		fresh := request(k.namespace(t, "fresh"), "owner", 0)
		if _, err := st.Acquire(t.Context(), fresh); err == nil {
			t.Fatal("Acquire with limit 0 succeeded")
		}
		fresh.Limit, fresh.Tolerance = 3, -time.Second
		if _, err := st.Acquire(t.Context(), fresh); err == nil {
			t.Fatal("Acquire with a negative tolerance succeeded")
		}
		fresh.Tolerance = tolerance
		mustAcquire(t, st, fresh) // no ErrNamespaceConflict: the refused requests recorded nothing
	})
	t.Run("BadLease", func(t *testing.T) {
		l := mustAcquire(t, st, ok)
		leases := []struct {
			name, mention string
			mod           func(*store.Lease)
		}{
			{"NoIncarnation", "Incarnation", func(l *store.Lease) { l.Incarnation = "" }},
			{"SlotNegative", "Slot", func(l *store.Lease) { l.Slot = -1 }},
			{"EmptyNamespace", "Namespace", func(l *store.Lease) { l.Namespace = "" }},
			{"EmptyOwnerKey", "OwnerKey", func(l *store.Lease) { l.OwnerKey = "" }},
			{"NamespaceNUL", "Namespace", func(l *store.Lease) { l.Namespace += "\x00" }},
			{"NamespaceNotUTF8", "Namespace", func(l *store.Lease) { l.Namespace += "\xff" }},
			{"OwnerKeyNUL", "OwnerKey", func(l *store.Lease) { l.OwnerKey += "\x00" }},
			{"OwnerKeyNotUTF8", "OwnerKey", func(l *store.Lease) { l.OwnerKey += "\xc3" }},
		}
		for _, tc := range leases {
			bad := l
			tc.mod(&bad)
			if _, err := st.Renew(t.Context(), bad, time.Minute); !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("%s: Renew: %v, want an error wrapping ErrInvalidArgument naming %q", tc.name, err, tc.mention)
			}
			if err := st.Release(t.Context(), bad, l.Floor); !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("%s: Release: %v, want an error wrapping ErrInvalidArgument naming %q", tc.name, err, tc.mention)
			}
		}
		for _, ttl := range []time.Duration{0, -time.Second, 999 * time.Microsecond} {
			if _, err := st.Renew(t.Context(), l, ttl); !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), "TTL") {
				t.Errorf("Renew with TTL %v: %v, want an error wrapping ErrInvalidArgument naming the TTL", ttl, err)
			}
		}
		mustRenew(t, st, l, time.Hour) // the refusals left the lease as it was
	})
	t.Run("UnknownLeaseLost", func(t *testing.T) {
		l := mustAcquire(t, st, ok)
		forged := l
		forged.Incarnation = storekit.NewIncarnation()
		checkLost(t, st, forged, "a lease with an incarnation the store never gave")
		elsewhere := l
		elsewhere.Namespace = k.namespace(t, "never-used")
		checkLost(t, st, elsewhere, "a lease of a namespace never used")
		beyond := l
		beyond.Slot = ok.Limit + 100
		if _, err := st.Renew(t.Context(), beyond, time.Minute); !errors.Is(err, store.ErrLeaseLost) && !errors.Is(err, store.ErrInvalidArgument) {
			t.Errorf("Renew of slot %d in a namespace of %d: %v, want ErrLeaseLost or ErrInvalidArgument", beyond.Slot, ok.Limit, err)
		}
		mustRenew(t, st, l, time.Hour)
	})
	t.Run("ReleaseAboveCeiling", func(t *testing.T) {
		l := mustAcquire(t, st, request(k.namespace(t, "ceiling"), "owner", 1))
		if err := st.Release(t.Context(), l, l.Ceiling+1); !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), "lastUsedMs") {
			t.Fatalf("Release at Ceiling+1: %v, want an error wrapping ErrInvalidArgument naming lastUsedMs", err)
		}
		l = mustRenew(t, st, l, time.Hour) // still held
		mustRelease(t, st, l, l.Ceiling)
	})
	t.Run("CanceledContext", func(t *testing.T) {
		l := mustAcquire(t, st, request(k.namespace(t, "canceled"), "owner", 1))
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := st.Acquire(ctx, request(k.namespace(t, "canceled-new"), "owner", 1)); !isContextErr(err) {
			t.Errorf("Acquire with a canceled context: %v, want an error wrapping context.Canceled", err)
		}
		if _, err := st.Renew(ctx, l, time.Hour); !isContextErr(err) {
			t.Errorf("Renew with a canceled context: %v, want an error wrapping context.Canceled", err)
		}
		if err := st.Release(ctx, l, l.Floor); !isContextErr(err) {
			t.Errorf("Release with a canceled context: %v, want an error wrapping context.Canceled", err)
		}
		mustRenew(t, st, l, time.Hour)
	})
}

// closed checks that a closed store refuses its calls with store.ErrClosed, and that
// closing it releases nothing: the lease it took stays the backend's, which a second
// instance releases.
func (k *leaseKit) closed(t *testing.T) {
	stores := k.instances(t, 2)
	ns := k.namespace(t, "ns")
	l := mustAcquire(t, stores[0], request(ns, "owner", 2))
	if err := stores[0].Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got, err := stores[0].Acquire(t.Context(), request(ns, "other", 2)); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Acquire after Close = %+v, %v; want an error wrapping store.ErrClosed", got, err)
	}
	if got, err := stores[0].Renew(t.Context(), l, time.Hour); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Renew after Close = %+v, %v; want an error wrapping store.ErrClosed", got, err)
	}
	if err := stores[0].Release(t.Context(), l, l.Floor); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Release after Close: %v, want an error wrapping store.ErrClosed", err)
	}
	mustRelease(t, stores[1], l, l.Floor)
}

func (k *leaseKit) l1OneLeasePerSlot(t *testing.T) {
	stores := k.instances(t, instanceCount)
	const limit = 4
	ns := k.namespace(t, "race")
	won := race(t, stores, ns, limit)
	if len(won) != limit {
		t.Errorf("%d of %d concurrent acquirers got a slot of %d", len(won), acquirers, limit)
	}
	holders := map[int]string{}
	for _, l := range won {
		if other, dup := holders[l.Slot]; dup {
			t.Errorf("L1: slot %d leased to %q and %q at once", l.Slot, other, l.OwnerKey)
		}
		holders[l.Slot] = l.OwnerKey
	}
	for i, l := range won {
		late := request(ns, "late", limit)
		late.Preferred = l.Slot
		acquireErr(t, stores[i%len(stores)], late, store.ErrNoFreeSlot)
	}
	if len(won) > 0 {
		mustRelease(t, stores[1], won[0], won[0].Floor-1)
		if l := mustAcquire(t, stores[0], request(ns, "late", limit)); l.Slot != won[0].Slot {
			t.Errorf("after slot %d was released, the only free one, Acquire got slot %d", won[0].Slot, l.Slot)
		}
	}

	twin := k.namespace(t, "twin")
	a := mustAcquire(t, stores[0], request(twin, "twin", 2))
	b := mustAcquire(t, stores[1], request(twin, "twin", 2))
	if a.Slot == b.Slot {
		t.Errorf("L1: one owner key acquiring twice got slot %d both times", a.Slot)
	}
	acquireErr(t, stores[0], request(twin, "twin", 2), store.ErrNoFreeSlot)
}

// l1Churn acquires, renews and releases slots from many goroutines on two instances,
// and checks each acquisition against what the goroutines saw before: the slot has
// no other holder (L1), a higher fence (L2) and a floor above the last use (L3).
func (k *leaseKit) l1Churn(t *testing.T) {
	stores := k.instances(t, instanceCount)
	const limit = 3
	ns := k.namespace(t, "churn")
	type slotState struct {
		holder   int // goroutine, or -1
		fence    int64
		lastUsed int64
	}
	var mu sync.Mutex
	state := make([]slotState, limit)
	for i := range state {
		state[i] = slotState{holder: -1, lastUsed: -1}
	}
	concurrently(stores, func(g int, st store.SlotLeaseStore) {
		for i := range churnRounds {
			l, err := st.Acquire(t.Context(), request(ns, owner(g), limit))
			if errors.Is(err, store.ErrNoFreeSlot) {
				continue
			}
			if err != nil {
				t.Errorf("goroutine %d: Acquire: %v", g, err)
				return
			}
			if l.Slot < 0 || l.Slot >= limit {
				t.Errorf("L4: goroutine %d got slot %d of %d", g, l.Slot, limit)
				return
			}
			mu.Lock()
			s := &state[l.Slot]
			if s.holder >= 0 {
				t.Errorf("L1: goroutine %d got slot %d while goroutine %d holds it", g, l.Slot, s.holder)
			}
			if l.Fence <= s.fence {
				t.Errorf("L2: slot %d acquired with fence %d after fence %d", l.Slot, l.Fence, s.fence)
			}
			if l.Floor <= s.lastUsed {
				t.Errorf("L3: slot %d acquired with floor %d, not above %d, its last use", l.Slot, l.Floor, s.lastUsed)
			}
			s.holder, s.fence = g, l.Fence
			mu.Unlock()
			if i%2 == 0 {
				if l, err = st.Renew(t.Context(), l, keepTTL); err != nil {
					t.Errorf("goroutine %d: Renew: %v", g, err)
					return
				}
			}
			used := min(l.Floor+int64(g+i), l.Ceiling)
			mu.Lock()
			s.holder, s.lastUsed = -1, max(s.lastUsed, used)
			mu.Unlock()
			if err := st.Release(t.Context(), l, used); err != nil {
				t.Errorf("goroutine %d: Release: %v", g, err)
				return
			}
		}
	})
}

func (k *leaseKit) l2FenceIncreases(t *testing.T) {
	stores := k.instances(t, instanceCount)
	ns := k.namespace(t, "fence")
	var prev store.Lease
	seen := map[string]bool{}
	for i := range 10 {
		l := mustAcquire(t, stores[i%2], request(ns, owner(i%3), 1))
		if i > 0 && l.Fence <= prev.Fence {
			t.Errorf("L2: acquisition %d has fence %d, not above %d", i, l.Fence, prev.Fence)
		}
		if seen[l.Incarnation] {
			t.Errorf("acquisition %d reuses incarnation %q", i, l.Incarnation)
		}
		seen[l.Incarnation] = true
		l = mustRenew(t, stores[(i+1)%2], l, time.Hour)
		mustRelease(t, stores[i%2], l, l.Floor-1)
		prev = l
	}
	old := mustAcquire(t, stores[0], expiring(stores[0], request(ns, "expires", 1)))
	k.expire(t, stores[0], old)
	if l := mustAcquire(t, stores[1], request(ns, "takes-over", 1)); l.Fence <= old.Fence {
		t.Errorf("L2: the acquisition after an expiry has fence %d, not above %d", l.Fence, old.Fence)
	}
}

func (k *leaseKit) l2StaleLeaseLost(t *testing.T) {
	stores := k.instances(t, instanceCount)
	ns := k.namespace(t, "stale")
	a := mustAcquire(t, stores[0], request(ns, "a", 1))
	mustRelease(t, stores[0], a, a.Floor-1)
	checkLost(t, stores[1], a, "a released lease")
	b := mustAcquire(t, stores[1], request(ns, "b", 1))
	checkLost(t, stores[0], a, "a lease whose slot was acquired again")
	forgeries := []struct {
		name string
		mod  func(*store.Lease)
	}{
		{"the incarnation of the earlier lease", func(l *store.Lease) { l.Incarnation = a.Incarnation }},
		{"an older fence", func(l *store.Lease) { l.Fence-- }},
		{"a newer fence", func(l *store.Lease) { l.Fence++ }},
		{"the earlier owner key", func(l *store.Lease) { l.OwnerKey = a.OwnerKey }},
	}
	for _, f := range forgeries {
		forged := b
		f.mod(&forged)
		checkLost(t, stores[0], forged, "the current lease with "+f.name)
	}
	mustRenew(t, stores[0], b, keepTTL) // the refused calls left b held
	acquireErr(t, stores[1], request(ns, "c", 1), store.ErrNoFreeSlot)

	// A lease that expired is the owner's until another acquisition takes the slot.
	ns = k.namespace(t, "expired")
	old := mustAcquire(t, stores[0], expiring(stores[0], request(ns, "old", 1)))
	k.expire(t, stores[0], old)
	old = mustRenew(t, stores[1], old, old.ExpiresAt.Sub(old.StoreNow))
	k.expire(t, stores[0], old)
	mustAcquire(t, stores[1], request(ns, "new", 1))
	checkLost(t, stores[0], old, "a lease taken over after it expired")
}

func (k *leaseKit) l3FloorAboveEarlierOwner(t *testing.T) {
	t.Run("Release", func(t *testing.T) {
		stores := k.instances(t, instanceCount)
		ns := k.namespace(t, "release")
		a := mustAcquire(t, stores[0], request(ns, "a", 1))
		used := max(a.StoreNow.UnixMilli()+1000, a.Floor)
		mustRelease(t, stores[0], a, used)
		b := mustAcquire(t, stores[1], request(ns, "b", 1))
		if b.Floor <= used {
			t.Errorf("L3: floor %d after a release at %d", b.Floor, used)
		}
		mustRelease(t, stores[1], b, b.Floor-1) // stamped nothing
		c := mustAcquire(t, stores[0], request(ns, "c", 1))
		if c.Floor < b.Floor {
			t.Errorf("L3: floor %d after an owner with floor %d that stamped nothing", c.Floor, b.Floor)
		}
		mustRelease(t, stores[0], c, 0)
		d := mustAcquire(t, stores[1], request(ns, "d", 1))
		if d.Floor < c.Floor {
			t.Errorf("L3: floor %d after an owner with floor %d released at 0", d.Floor, c.Floor)
		}
		mustRelease(t, stores[1], d, d.Ceiling)
		if e := mustAcquire(t, stores[0], request(ns, "e", 1)); e.Floor <= d.Ceiling {
			t.Errorf("L3: floor %d after a release at the ceiling %d", e.Floor, d.Ceiling)
		}
	})
	t.Run("Expiry", func(t *testing.T) {
		stores := k.instances(t, instanceCount)
		ns := k.namespace(t, "expiry")
		a := mustAcquire(t, stores[0], expiring(stores[0], request(ns, "a", 1)))
		ttl, ceiling := a.ExpiresAt.Sub(a.StoreNow), a.Ceiling
		m, moves := stores[0].(ClockMover)
		for i := range 2 {
			if moves {
				m.MoveClock(ttl / 2)
			}
			a = mustRenew(t, stores[(i+1)%2], a, ttl)
			if a.Ceiling < ceiling || moves && a.Ceiling == ceiling {
				t.Errorf("renewal %d moved the ceiling from %d to %d, want it higher", i, ceiling, a.Ceiling)
			}
			ceiling = max(ceiling, a.Ceiling)
		}
		k.expire(t, stores[0], a)
		b := mustAcquire(t, stores[1], request(ns, "b", 1))
		if b.Floor <= ceiling {
			t.Errorf("L3: floor %d after a lease with ceiling %d expired", b.Floor, ceiling)
		}
	})
	t.Run("CeilingNeverLowered", func(t *testing.T) {
		stores := k.instances(t, instanceCount)
		m, ok := stores[0].(ClockMover)
		if !ok {
			t.Skip("the store clock cannot be moved back: the store is not a ClockMover")
		}
		ns := k.namespace(t, "back")
		a := mustAcquire(t, stores[0], request(ns, "a", 1))
		const back = 48 * time.Hour
		m.MoveClock(-back)
		defer m.MoveClock(back)
		r := mustRenew(t, stores[1], a, time.Minute)
		if r.Ceiling < a.Ceiling {
			t.Errorf("L3: a renewal after the store clock stepped back lowered the ceiling from %d to %d", a.Ceiling, r.Ceiling)
		}
		k.expire(t, stores[0], r)
		if b := mustAcquire(t, stores[1], request(ns, "b", 1)); b.Floor <= a.Ceiling {
			t.Errorf("L3: floor %d below %d, the ceiling of the earlier owner before the clock stepped back", b.Floor, a.Ceiling)
		}
	})
}

func (k *leaseKit) l4SlotsWithinLimit(t *testing.T) {
	stores := k.instances(t, instanceCount)
	fill(t, stores, k.namespace(t, "fill"), 5)
	if l := mustAcquire(t, stores[0], request(k.namespace(t, "one"), "only", 1)); l.Slot != 0 {
		t.Errorf("L4: the slot of a namespace of 1 is %d, want 0", l.Slot)
	}

	ns := k.namespace(t, "preferred")
	const wide = 1024
	prefer := func(owner string, slot int) store.LeaseRequest {
		req := request(ns, owner, wide)
		req.Preferred = slot
		return req
	}
	if l := mustAcquire(t, stores[0], prefer("a", wide-1)); l.Slot != wide-1 {
		t.Errorf("preferring free slot %d got slot %d", wide-1, l.Slot)
	}
	b := mustAcquire(t, stores[1], prefer("b", wide-1))
	if b.Slot == wide-1 {
		t.Errorf("L1: preferring held slot %d got it", wide-1)
	}
	if l := mustAcquire(t, stores[0], prefer("c", wide-2)); l.Slot != wide-2 && b.Slot != wide-2 {
		t.Errorf("preferring free slot %d got slot %d", wide-2, l.Slot)
	}
}

func (k *leaseKit) l4NamespaceConflict(t *testing.T) {
	stores := k.instances(t, instanceCount)
	ns := k.namespace(t, "set-once")
	first := request(ns, "a", 4)
	a := mustAcquire(t, stores[0], first)
	others := []struct {
		name string
		mod  func(*store.LeaseRequest)
	}{
		{"MoreSlots", func(r *store.LeaseRequest) { r.Limit = 8 }},
		{"FewerSlots", func(r *store.LeaseRequest) { r.Limit = 3 }},
		{"MoreTolerance", func(r *store.LeaseRequest) { r.Tolerance = 2 * tolerance }},
		{"NoTolerance", func(r *store.LeaseRequest) { r.Tolerance = 0 }},
	}
	for _, tc := range others {
		req := first
		req.OwnerKey = "b"
		tc.mod(&req)
		for i, st := range stores {
			t.Run(fmt.Sprint(tc.name, "/instance", i), func(t *testing.T) { acquireErr(t, st, req, store.ErrNamespaceConflict) })
		}
	}
	mustRelease(t, stores[0], a, a.Floor-1)
	again := first
	again.Limit = 8
	acquireErr(t, stores[1], again, store.ErrNamespaceConflict)
	mustAcquire(t, stores[1], first)

	// Of concurrent first uses with different limits, one sets the namespace.
	ns = k.namespace(t, "first-use")
	type result struct {
		limit int
		err   error
	}
	var mu sync.Mutex
	var results []result
	concurrently(stores, func(g int, st store.SlotLeaseStore) {
		limit := 2 + g%2
		_, err := st.Acquire(t.Context(), request(ns, owner(g), limit))
		mu.Lock()
		results = append(results, result{limit, err})
		mu.Unlock()
	})
	won := map[int]int{}
	for _, r := range results {
		if r.err == nil {
			won[r.limit]++
		}
	}
	if len(won) != 1 {
		t.Fatalf("L4: acquirers with limits %v all got slots of one new namespace", won)
	}
	for limit, n := range won {
		if n != limit {
			t.Errorf("%d acquirers with limit %d got a slot, want %d", n, limit, limit)
		}
		for _, r := range results {
			switch {
			case r.err == nil:
			case r.limit == limit && !errors.Is(r.err, store.ErrNoFreeSlot):
				t.Errorf("an acquirer with the namespace's limit %d: %v, want ErrNoFreeSlot", limit, r.err)
			case r.limit != limit && !errors.Is(r.err, store.ErrNamespaceConflict):
				t.Errorf("an acquirer with limit %d of a namespace of %d: %v, want ErrNamespaceConflict", r.limit, limit, r.err)
			}
		}
	}
}

func (k *leaseKit) l5OwnerGetsSlotBack(t *testing.T) {
	stores := k.instances(t, instanceCount)
	const limit = 4
	prefer := func(ns, owner string, slot int) store.LeaseRequest {
		req := request(ns, owner, limit)
		req.Preferred = slot
		return req
	}
	wantSlot := func(l store.Lease, want int, when string) {
		t.Helper()
		if l.Slot != want {
			t.Errorf("L5: %q got slot %d %s, want its earlier slot %d", l.OwnerKey, l.Slot, when, want)
		}
	}

	ns := k.namespace(t, "release")
	a := mustAcquire(t, stores[0], prefer(ns, "a", 2))
	wantSlot(a, 2, "preferring it")
	mustRelease(t, stores[0], a, a.Floor-1)
	a = mustAcquire(t, stores[1], request(ns, "a", limit))
	wantSlot(a, 2, "after releasing it")
	mustRelease(t, stores[1], a, a.Floor-1)
	wantSlot(mustAcquire(t, stores[0], prefer(ns, "a", 3)), 2, "while preferring slot 3")

	ns = k.namespace(t, "expiry")
	a = mustAcquire(t, stores[0], expiring(stores[0], prefer(ns, "a", 3)))
	k.expire(t, stores[0], a)
	wantSlot(mustAcquire(t, stores[1], request(ns, "a", limit)), 3, "after its lease expired")

	ns = k.namespace(t, "two")
	x := mustAcquire(t, stores[0], prefer(ns, "x", 1))
	y := mustAcquire(t, stores[1], prefer(ns, "y", 2))
	mustRelease(t, stores[0], x, x.Floor-1)
	mustRelease(t, stores[1], y, y.Floor-1)
	wantSlot(mustAcquire(t, stores[0], request(ns, "y", limit)), 2, "with another owner's slot free too")
	wantSlot(mustAcquire(t, stores[1], request(ns, "x", limit)), 1, "with another owner's slot free too")

	ns = k.namespace(t, "taken")
	a = mustAcquire(t, stores[0], prefer(ns, "a", 1))
	mustRelease(t, stores[0], a, a.Floor-1)
	b := mustAcquire(t, stores[1], prefer(ns, "b", 1))
	if b.Slot != 1 {
		t.Fatalf("preferring free slot 1 got slot %d", b.Slot)
	}
	if l := mustAcquire(t, stores[0], request(ns, "a", limit)); l.Slot == 1 {
		t.Errorf("L1: %q got back slot 1, held by %q", l.OwnerKey, b.OwnerKey)
	}
}

func (k *leaseKit) l6StoreClockOnly(t *testing.T) {
	stores := k.instances(t, instanceCount)
	ns := k.namespace(t, "fields")
	l := mustAcquire(t, stores[0], request(ns, "a", 1))
	doctored := l
	doctored.ExpiresAt = time.Unix(0, 0)
	doctored.StoreNow = time.Unix(0, 0)
	doctored.Floor = 0
	doctored.Ceiling = l.Floor
	r, err := stores[1].Renew(t.Context(), doctored, keepTTL)
	if err != nil {
		t.Fatalf("Renew of a lease whose time fields the client changed: %v", err)
	}
	if r.Floor != l.Floor || r.Ceiling < l.Ceiling {
		t.Errorf("L6: Renew took floor %d and ceiling %d from the client's copy; the store gave %d and %d", r.Floor, r.Ceiling, l.Floor, l.Ceiling)
	}
	acquireErr(t, stores[1], request(ns, "b", 1), store.ErrNoFreeSlot) // expired only by the client's copy
	mustRelease(t, stores[0], doctored, l.Ceiling)
	if b := mustAcquire(t, stores[1], request(ns, "b", 1)); b.Floor <= l.Ceiling {
		t.Errorf("L3: floor %d after a release at %d", b.Floor, l.Ceiling)
	}

	t.Run("MovedClock", func(t *testing.T) {
		m, ok := stores[0].(ClockMover)
		if !ok {
			t.Skip("the store clock cannot be moved: the store is not a ClockMover")
		}
		ns := k.namespace(t, "moved")
		req := request(ns, "a", 1)
		req.TTL = time.Minute
		a := mustAcquire(t, stores[0], req)
		m.MoveClock(59 * time.Second)
		acquireErr(t, stores[1], request(ns, "b", 1), store.ErrNoFreeSlot)
		r := mustRenew(t, stores[1], a, time.Minute)
		if d := r.StoreNow.Sub(a.StoreNow); d < 59*time.Second || d > 59*time.Second+time.Minute {
			t.Errorf("L6: StoreNow moved by %v when the store clock moved by 59s", d)
		}
		const back = 2 * time.Hour
		m.MoveClock(-back) // whatever the client's clock says, the store's runs 2h behind
		acquireErr(t, stores[0], request(ns, "b", 1), store.ErrNoFreeSlot)
		m.MoveClock(back / 2)
		acquireErr(t, stores[0], request(ns, "b", 1), store.ErrNoFreeSlot)
		m.MoveClock(back / 2)
		k.expire(t, stores[0], r)
		if b := mustAcquire(t, stores[0], request(ns, "b", 1)); b.Floor <= r.Ceiling {
			t.Errorf("L3: floor %d after a lease with ceiling %d expired", b.Floor, r.Ceiling)
		}
	})
}

func (k *leaseKit) l7LastSlotOneWinner(t *testing.T) {
	stores := k.instances(t, instanceCount)
	lastSlot := func(ns string, limit int) {
		t.Helper()
		if won := race(t, stores, ns, limit); len(won) != 1 {
			t.Errorf("L7: %d of %d concurrent acquirers won the last slot of %q", len(won), acquirers, ns)
		}
	}
	for round := range createRounds {
		ns := k.namespace(t, fmt.Sprint("round-", round))
		mustAcquire(t, stores[0], request(ns, "held-0", 3))
		mustAcquire(t, stores[1], request(ns, "held-1", 3))
		lastSlot(ns, 3)
	}
	ns := k.namespace(t, "expired")
	mustAcquire(t, stores[0], request(ns, "held", 2))
	l := mustAcquire(t, stores[1], expiring(stores[1], request(ns, "expires", 2)))
	k.expire(t, stores[0], l)
	lastSlot(ns, 2)
}

// race makes acquirers acquire a slot of ns at once, each with its own owner key,
// spread over the stores, and returns the leases they got; the others must get
// ErrNoFreeSlot.
func race(t *testing.T, stores []store.SlotLeaseStore, ns string, limit int) []store.Lease {
	t.Helper()
	var mu sync.Mutex
	var won []store.Lease
	concurrently(stores, func(g int, st store.SlotLeaseStore) {
		l, err := st.Acquire(t.Context(), request(ns, owner(g), limit))
		switch {
		case err == nil:
			mu.Lock()
			won = append(won, l)
			mu.Unlock()
		case !errors.Is(err, store.ErrNoFreeSlot):
			t.Errorf("goroutine %d: Acquire: %v, want a lease or ErrNoFreeSlot", g, err)
		}
	})
	return won
}

// fill leases every slot of a namespace of limit, one after another on the stores
// in turn, each slot once (L1), and then finds none free (L4, L7).
func fill(t *testing.T, stores []store.SlotLeaseStore, ns string, limit int) {
	t.Helper()
	slots := map[int]bool{}
	for i := range limit {
		l := mustAcquire(t, stores[i%len(stores)], request(ns, owner(i), limit))
		if slots[l.Slot] {
			t.Errorf("L1: slot %d leased twice", l.Slot)
		}
		slots[l.Slot] = true
	}
	acquireErr(t, stores[len(stores)-1], request(ns, "extra", limit), store.ErrNoFreeSlot)
}
