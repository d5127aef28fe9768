package storetest

import (
	"crypto/rand"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
)

// RunAdmin checks that the stores open returns keep the store.Admin contract: paged
// listing in byte order within a prefix, raises that never lower, seal, delete, and,
// when the stores are also store.SlotLeaseStores, the slot table and the lease of an
// owner. open is called one or more times in every subtest; all the stores it
// returns within one test must share one backend. Keys and namespaces are unique to
// each run. RunAdmin closes the stores it opens.
func RunAdmin(t *testing.T, open func(t *testing.T) store.Admin, opts ...AdminOption) {
	t.Helper()
	k := &adminKit{prefix: "tck/" + rand.Text()[:12], open: open}
	for _, opt := range opts {
		opt(k)
	}
	t.Run("Arguments", k.arguments)
	t.Run("Keys_PagedInByteOrder", k.keysPaged)
	t.Run("Keys_PrefixBoundary", k.keysPrefixBoundary)
	t.Run("RaiseTo_NeverLowers", k.raiseNeverLowers)
	t.Run("RaiseTo_DuringReserves", k.raiseDuringReserves)
	t.Run("RaiseTo_KeepsSeal", k.raiseKeepsSeal)
	t.Run("Delete", k.delete)
	t.Run("Slots", k.slots)
	t.Run("LeaseOf", k.leaseOf)
	t.Run("RaiseFloor_NextOwnerAbove", k.raiseFloor)
}

type adminKit struct {
	prefix    string
	open      func(t *testing.T) store.Admin
	hiddenInc bool // LeaseOf answers no incarnation (LeaseOfHidesIncarnation)
}

// AdminOption changes what RunAdmin expects of a store.
type AdminOption func(*adminKit)

// LeaseOfHidesIncarnation expects LeaseOf to answer every field of the lease but its
// incarnation, which it leaves empty: a store whose LeaseOf crosses the network
// (httpstore) so hides the owner's proof, without which nobody can renew or
// release the lease.
func LeaseOfHidesIncarnation() AdminOption { return func(k *adminKit) { k.hiddenInc = true } }

func (k *adminKit) one(t *testing.T) store.Admin { return openInstances(t, 1, k.open)[0] }

// key returns a key unique to this run and subtest.
func (k *adminKit) key(t *testing.T, name string) string {
	return k.prefix + "/" + t.Name()[strings.LastIndexByte(t.Name(), '/')+1:] + "/" + name
}

// leases returns st as a SlotLeaseStore, skipping t when it is none.
func leases(t *testing.T, st store.Admin) store.SlotLeaseStore {
	t.Helper()
	l, ok := st.(store.SlotLeaseStore)
	if !ok {
		t.Skip("the store has no slot leases")
	}
	return l
}

func listAll(t *testing.T, st store.Admin, prefix string, page int) []store.KeyInfo {
	t.Helper()
	var keys []store.KeyInfo
	for ki, err := range store.AllKeys(t.Context(), st, prefix, page) {
		if err != nil {
			t.Fatalf("AllKeys(%q, %d): %v", prefix, page, err)
		}
		keys = append(keys, ki)
	}
	return keys
}

func (k *adminKit) arguments(t *testing.T) {
	st := k.one(t)
	ctx := t.Context()
	long := strings.Repeat("k", store.MaxKeyLen+1)
	cases := []struct {
		name    string
		call    func() error
		mention string
	}{
		{"KeysLimitZero", func() error { _, err := st.Keys(ctx, "", "", 0); return err }, "limit"},
		{"KeysLimitOverMax", func() error { _, err := st.Keys(ctx, "", "", store.MaxPage+1); return err }, "limit"},
		{"KeysPrefixNotUTF8", func() error { _, err := st.Keys(ctx, "\xff", "", 1); return err }, "prefix"},
		{"KeysAfterTooLong", func() error { _, err := st.Keys(ctx, "", long, 1); return err }, "after"},
		{"RaiseEmptyKey", func() error { _, err := st.RaiseTo(ctx, "", 1); return err }, "key"},
		{"RaiseNegative", func() error { _, err := st.RaiseTo(ctx, k.key(t, "neg"), -1); return err }, "next value"},
		{"DeleteEmptyKey", func() error { return st.Delete(ctx, "") }, "key"},
		{"SlotsEmptyNamespace", func() error { _, err := st.Slots(ctx, ""); return err }, "namespace"},
		{"RaiseFloorNegative", func() error {
			_, err := st.RaiseFloor(ctx, store.FloorRequest{Namespace: "ns", Limit: 2, Slot: 0, FloorMs: -1})
			return err
		}, "FloorMs"},
		{"RaiseFloorSlotOutside", func() error {
			_, err := st.RaiseFloor(ctx, store.FloorRequest{Namespace: "ns", Limit: 2, Slot: 2})
			return err
		}, "Slot"},
		{"LeaseOfEmptyOwner", func() error { _, err := st.LeaseOf(ctx, "ns", ""); return err }, "owner key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if errors.Is(err, errors.ErrUnsupported) {
				t.Skip(err)
			}
			if !errors.Is(err, store.ErrInvalidArgument) {
				t.Fatalf("got %v, want an error wrapping ErrInvalidArgument", err)
			}
			if !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error %q does not name %q", err, tc.mention)
			}
		})
	}
}

// keysPaged lists keys of several bytes' widths, some sealed, in pages of every size
// from 1 to past their number, from a second instance.
func (k *adminKit) keysPaged(t *testing.T) {
	st := openInstances(t, 2, k.open)
	p := k.key(t, "")
	names := []string{"a", "b", "a/1", "a/10", "a/2", "B", "é", "雪花", "🚀", "it's \"q\"", "a%_"}
	var want []store.KeyInfo
	for i, n := range names {
		r := mustReserve(t, st[0], p+n, int64(i+1), int64(10*i))
		info := store.KeyInfo{Key: p + n, Next: r.End}
		if i%3 == 0 {
			if err := st[0].Seal(t.Context(), p+n); err != nil {
				t.Fatalf("Seal(%q): %v", p+n, err)
			}
			info.Sealed = true
		}
		want = append(want, info)
	}
	slices.SortFunc(want, func(a, b store.KeyInfo) int { return strings.Compare(a.Key, b.Key) })
	for page := 1; page <= len(want)+1; page++ {
		if got := listAll(t, st[1], p, page); !slices.Equal(got, want) {
			t.Fatalf("keys under %q in pages of %d:\n got %v\nwant %v", p, page, got, want)
		}
	}
	first, err := st[1].Keys(t.Context(), p, "", 3)
	if err != nil || len(first) != 3 {
		t.Fatalf("Keys(%q, \"\", 3) = %v, %v; want 3 keys", p, first, err)
	}
	rest, err := st[1].Keys(t.Context(), p, first[2].Key, store.MaxPage)
	if err != nil || !slices.Equal(rest, want[3:]) {
		t.Errorf("Keys after %q = %v, %v; want %v", first[2].Key, rest, err, want[3:])
	}
}

// keysPrefixBoundary checks that a prefix holds its own key and keys that extend it,
// and not its neighbours in byte order, whatever its last rune.
func (k *adminKit) keysPrefixBoundary(t *testing.T) {
	st := k.one(t)
	base := k.key(t, "")
	for _, last := range []string{"a", "/", "\u007f", "\ud7ff", "\U0010ffff", "é"} {
		p := base + last
		inside := []string{p, p + "0", p + "\U0010ffff", p + "\U0010ffff\U0010ffff"}
		next := base + string(utf8Next(last))
		if last == "\U0010ffff" {
			next = base + "\U0010fffe"
		}
		for _, key := range slices.Concat(inside, []string{next, next + "0", base + "!"}) {
			mustReserve(t, st, key, 1, 0)
		}
		var got []string
		for _, ki := range listAll(t, st, p, 2) {
			got = append(got, ki.Key)
		}
		want := slices.Clone(inside)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("keys under %+q = %+q, want %+q", p, got, want)
		}
	}
}

// utf8Next returns the rune after r, skipping the surrogates.
func utf8Next(s string) rune {
	r := []rune(s)[0] + 1
	if r == 0xD800 {
		r = 0xE000
	}
	return r
}

func mustRaise(t *testing.T, st store.Admin, key string, next int64) store.Raised {
	t.Helper()
	r, err := st.RaiseTo(t.Context(), key, next)
	if err != nil {
		t.Fatalf("RaiseTo(%q, %d): %v", key, next, err)
	}
	return r
}

func (k *adminKit) raiseNeverLowers(t *testing.T) {
	st := openInstances(t, 2, k.open)
	key := k.key(t, "k")
	steps := []struct {
		to        int64
		want      store.Raised
		nextStart int64
	}{
		{100, store.Raised{Key: key, After: 100, Created: true}, 100},
		{50, store.Raised{Key: key, Before: 105, After: 105}, 105},
		{105, store.Raised{Key: key, Before: 110, After: 110}, 110},
		{200, store.Raised{Key: key, Before: 115, After: 200}, 200},
		{math.MaxInt64, store.Raised{Key: key, Before: 205, After: math.MaxInt64}, -1},
	}
	for i, s := range steps {
		got := mustRaise(t, st[i%2], key, s.to)
		if got != s.want {
			t.Fatalf("step %d: RaiseTo(%q, %d) = %+v, want %+v", i, key, s.to, got, s.want)
		}
		if got.Changed() != (s.want.Created || s.want.Before != s.want.After) {
			t.Errorf("step %d: Changed() = %v for %+v", i, got.Changed(), got)
		}
		if s.nextStart < 0 {
			if _, err := st[1-i%2].Reserve(t.Context(), key, 1, 0); !errors.Is(err, store.ErrExhausted) {
				t.Errorf("Reserve after RaiseTo(MaxInt64) = %v, want ErrExhausted", err)
			}
			continue
		}
		if r := mustReserve(t, st[1-i%2], key, 5, 0); r.Start != s.nextStart {
			t.Fatalf("step %d: Reserve after RaiseTo(%d) = %v, want it to start at %d", i, s.to, r, s.nextStart)
		}
	}
}

// raiseDuringReserves raises a key while other goroutines reserve it: no two ranges
// overlap, and every range reserved after a raise returned lies at or above it.
func (k *adminKit) raiseDuringReserves(t *testing.T) {
	st := openInstances(t, instanceCount, k.open)
	key := k.key(t, "k")
	mustReserve(t, st[0], key, 1, 0)
	var (
		mu     sync.Mutex
		ranges []store.Range
	)
	const raises = 10
	raised := make(chan int64, raises)
	concurrently(st, func(g int, s store.Admin) {
		if g == 0 {
			defer close(raised)
			for i := range int64(raises) {
				r, err := s.RaiseTo(t.Context(), key, (i+1)*1000)
				if err != nil {
					t.Errorf("RaiseTo: %v", err)
					return
				}
				raised <- r.After
			}
			return
		}
		for range reservesEach {
			r, err := s.Reserve(t.Context(), key, 3, 0)
			if err != nil {
				t.Errorf("Reserve: %v", err)
				return
			}
			mu.Lock()
			ranges = append(ranges, r)
			mu.Unlock()
		}
	})
	checkDisjoint(t, key, ranges)
	var top int64
	for v := range raised {
		top = max(top, v)
	}
	if r := mustReserve(t, st[1], key, 1, 0); r.Start < top {
		t.Errorf("Reserve after the last raise to %d = %v", top, r)
	}
}

func (k *adminKit) raiseKeepsSeal(t *testing.T) {
	st := k.one(t)
	key := k.key(t, "k")
	mustReserve(t, st, key, 10, 0)
	if err := st.Seal(t.Context(), key); err != nil {
		t.Fatalf("Seal: %v", err)
	}
	if got, want := mustRaise(t, st, key, 500), (store.Raised{Key: key, Before: 10, After: 500, Sealed: true}); got != want {
		t.Errorf("RaiseTo a sealed key = %+v, want %+v", got, want)
	}
	if _, err := st.Reserve(t.Context(), key, 1, 0); !errors.Is(err, store.ErrSealed) {
		t.Errorf("Reserve after raising a sealed key = %v, want ErrSealed", err)
	}
	if got := listAll(t, st, key, 10); !slices.Equal(got, []store.KeyInfo{{Key: key, Next: 500, Sealed: true}}) {
		t.Errorf("Keys(%q) = %v", key, got)
	}
}

func (k *adminKit) delete(t *testing.T) {
	st := openInstances(t, 2, k.open)
	p := k.key(t, "")
	mustReserve(t, st[0], p+"a", 7, 0)
	mustReserve(t, st[0], p+"b", 7, 0)
	if err := st[0].Seal(t.Context(), p+"b"); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{p + "a", p + "b", p + "b", p + "never"} {
		err := st[1].Delete(t.Context(), key)
		if errors.Is(err, errors.ErrUnsupported) {
			t.Skipf("the store deletes no key (offline only): %v", err)
		}
		if err != nil {
			t.Fatalf("Delete(%q): %v", key, err)
		}
	}
	if got := listAll(t, st[0], p, 10); len(got) != 0 {
		t.Errorf("keys left after Delete: %v", got)
	}
	if r := mustReserve(t, st[0], p+"b", 2, 3); r.Start != 3 {
		t.Errorf("first Reserve of a deleted sealed key = %v, want it to start anew at 3", r)
	}
}

func (k *adminKit) slots(t *testing.T) {
	st := openInstances(t, 2, k.open)
	ls := leases(t, st[0])
	ns := k.key(t, "ns")
	if _, err := st[1].Slots(t.Context(), ns); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Slots of an unknown namespace = %v, want ErrNotFound", err)
	}
	req := store.LeaseRequest{Namespace: ns, Limit: 8, Tolerance: tolerance, TTL: keepTTL, Preferred: -1}
	var held []store.Lease
	for _, owner := range []string{"host-a", "host-b", "host-c"} {
		req.OwnerKey = owner
		l, err := ls.Acquire(t.Context(), req)
		if err != nil {
			t.Fatalf("Acquire(%q): %v", owner, err)
		}
		held = append(held, l)
	}
	lastUsed := held[1].Floor + 5
	if err := ls.Release(t.Context(), held[1], lastUsed); err != nil {
		t.Fatalf("Release: %v", err)
	}
	info, err := st[1].Slots(t.Context(), ns)
	if err != nil {
		t.Fatalf("Slots(%q): %v", ns, err)
	}
	if info.Namespace != ns || info.Limit != 8 || info.Tolerance != tolerance {
		t.Errorf("Slots(%q) = namespace %q, limit %d, tolerance %v; want %q, 8, %v", ns, info.Namespace, info.Limit, info.Tolerance, ns, tolerance)
	}
	if len(info.Slots) != len(held) {
		t.Fatalf("Slots(%q) lists %d slots, want the %d ever leased: %+v", ns, len(info.Slots), len(held), info.Slots)
	}
	for i, l := range held {
		s := info.Slots[i]
		want := store.SlotInfo{Slot: l.Slot, OwnerKey: l.OwnerKey, LastOwnerKey: l.OwnerKey, Fence: l.Fence,
			ExpiresAt: l.ExpiresAt, Floor: l.Floor, Ceiling: l.Ceiling, NextFloor: l.Ceiling + 1}
		if i == 1 {
			want.OwnerKey, want.NextFloor = "", lastUsed+1
		}
		if !s.ExpiresAt.Equal(want.ExpiresAt) {
			t.Errorf("slot %d expires at %v, want %v", s.Slot, s.ExpiresAt, want.ExpiresAt)
		}
		s.ExpiresAt = want.ExpiresAt
		if s != want {
			t.Errorf("slot %d = %+v, want %+v", i, s, want)
		}
		if s.Held(info.StoreNow) != (i != 1) {
			t.Errorf("slot %d Held(%v) = %v", s.Slot, info.StoreNow, s.Held(info.StoreNow))
		}
	}
}

func (k *adminKit) leaseOf(t *testing.T) {
	st := openInstances(t, 2, k.open)
	ls := leases(t, st[0])
	ns := k.key(t, "ns")
	req := store.LeaseRequest{Namespace: ns, OwnerKey: "pod-1", Limit: 4, Tolerance: tolerance, TTL: keepTTL, Preferred: 2}
	if _, err := st[1].LeaseOf(t.Context(), ns, "pod-1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("LeaseOf in an unknown namespace = %v, want ErrNotFound", err)
	}
	l, err := ls.Acquire(t.Context(), req)
	if err != nil {
		t.Fatalf("Acquire: %v", err)
	}
	got, err := st[1].LeaseOf(t.Context(), ns, "pod-1")
	if err != nil {
		t.Fatalf("LeaseOf: %v", err)
	}
	if got.StoreNow.IsZero() || got.StoreNow.After(got.ExpiresAt) {
		t.Errorf("LeaseOf StoreNow = %v, lease expires at %v", got.StoreNow, got.ExpiresAt)
	}
	got.StoreNow, l.StoreNow = time.Time{}, time.Time{}
	if !got.ExpiresAt.Equal(l.ExpiresAt) {
		t.Errorf("LeaseOf expires at %v, want %v", got.ExpiresAt, l.ExpiresAt)
	}
	got.ExpiresAt = l.ExpiresAt
	want := l
	if k.hiddenInc {
		want.Incarnation = ""
	}
	if got != want {
		t.Errorf("LeaseOf = %+v,\n   want %+v", got, want)
	}
	if k.hiddenInc {
		got = l
	}
	if _, err := ls.Renew(t.Context(), got, keepTTL); err != nil {
		t.Errorf("Renew of the lease LeaseOf returned: %v", err)
	}
	if _, err := st[1].LeaseOf(t.Context(), ns, "pod-2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LeaseOf an owner without a lease = %v, want ErrNotFound", err)
	}
	if err := ls.Release(t.Context(), l, l.Floor); err != nil {
		t.Fatal(err)
	}
	if _, err := st[1].LeaseOf(t.Context(), ns, "pod-1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("LeaseOf after its release = %v, want ErrNotFound", err)
	}
}

// raiseFloor raises the floors of slots, creating the namespace, and checks that
// every later owner of the slot starts at or above the floor, that a floor is never
// lowered, and that a held slot is refused.
func (k *adminKit) raiseFloor(t *testing.T) {
	st := openInstances(t, 2, k.open)
	ls := leases(t, st[1])
	ns := k.key(t, "ns")
	ctx := t.Context()
	const floor = 1_000_000
	req := store.FloorRequest{Namespace: ns, Slot: 2, FloorMs: floor}
	if _, err := st[0].RaiseFloor(ctx, req); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("RaiseFloor in an unknown namespace without a limit = %v, want ErrNotFound", err)
	}
	req.Limit, req.Tolerance = 4, tolerance
	for i, to := range []int64{floor, floor - 10, 0} {
		req.FloorMs = to
		info, err := st[i%2].RaiseFloor(ctx, req)
		if err != nil || info.Slot != 2 || info.NextFloor != floor || info.OwnerKey != "" {
			t.Fatalf("RaiseFloor to %d = %+v, %v; want slot 2 with next floor %d", to, info, err, floor)
		}
	}
	if info, err := st[1].Slots(ctx, ns); err != nil || len(info.Slots) != 1 || info.Slots[0].Slot != 2 || info.Slots[0].NextFloor != floor {
		t.Errorf("Slots after RaiseFloor = %+v, %v; want slot 2 listed with next floor %d", info, err, floor)
	}
	conflict := req
	conflict.Limit = 8
	if _, err := st[0].RaiseFloor(ctx, conflict); !errors.Is(err, store.ErrNamespaceConflict) {
		t.Errorf("RaiseFloor with another limit = %v, want ErrNamespaceConflict", err)
	}
	outside := store.FloorRequest{Namespace: ns, Slot: 5, FloorMs: 1}
	if _, err := st[0].RaiseFloor(ctx, outside); !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("RaiseFloor of slot 5 of a namespace of 4 = %v, want ErrInvalidArgument", err)
	}
	lr := store.LeaseRequest{Namespace: ns, OwnerKey: "pod", Limit: 4, Tolerance: tolerance, TTL: keepTTL, Preferred: 2}
	l, err := ls.Acquire(ctx, lr)
	if err != nil || l.Slot != 2 || l.Floor < floor {
		t.Fatalf("Acquire of slot 2 after RaiseFloor(%d) = %+v, %v; want its floor at or above it", floor, l, err)
	}
	if _, err := st[0].RaiseFloor(ctx, store.FloorRequest{Namespace: ns, Slot: 2, FloorMs: floor * 2}); !errors.Is(err, store.ErrSlotHeld) {
		t.Errorf("RaiseFloor of a held slot = %v, want ErrSlotHeld", err)
	}
	if err := ls.Release(ctx, l, l.Floor+5); err != nil {
		t.Fatal(err)
	}
	if _, err := st[0].RaiseFloor(ctx, store.FloorRequest{Namespace: ns, Slot: 2, FloorMs: floor * 2}); err != nil {
		t.Fatalf("RaiseFloor of a released slot: %v", err)
	}
	if l, err = ls.Acquire(ctx, lr); err != nil || l.Slot != 2 || l.Floor < floor*2 {
		t.Errorf("Acquire after the second RaiseFloor = %+v, %v; want slot 2 with a floor from %d", l, err, floor*2)
	}

	// A slot of a wide namespace that was never taken, whose record a store that
	// makes records as slots are taken has not made yet.
	wide := store.FloorRequest{Namespace: k.key(t, "wide"), Limit: store.MaxSlots, Tolerance: tolerance, Slot: store.MaxSlots - 1, FloorMs: floor}
	if info, err := st[0].RaiseFloor(ctx, wide); err != nil || info.Slot != wide.Slot || info.NextFloor != floor {
		t.Fatalf("RaiseFloor of slot %d of a namespace of %d = %+v, %v; want its next floor %d", wide.Slot, wide.Limit, info, err, floor)
	}
	wide.Slot = 1000 // the namespace exists now
	wide.Limit = 0
	if info, err := st[1].RaiseFloor(ctx, wide); err != nil || info.Slot != 1000 || info.NextFloor != floor {
		t.Fatalf("RaiseFloor of slot 1000 of an existing namespace of %d = %+v, %v; want its next floor %d", store.MaxSlots, info, err, floor)
	}
	lr = store.LeaseRequest{Namespace: wide.Namespace, OwnerKey: "pod", Limit: store.MaxSlots, Tolerance: tolerance, TTL: keepTTL, Preferred: 1000}
	if l, err = ls.Acquire(ctx, lr); err != nil || l.Slot != 1000 || l.Floor < floor {
		t.Errorf("Acquire of raised slot 1000 = %+v, %v; want its floor at or above %d", l, err, floor)
	}
}
