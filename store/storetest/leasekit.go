package storetest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
)

// ClockMover is implemented by the stores, opened for RunSlotLeaseStore, whose clock
// the kit may move, so that it tests expiry and floors without waiting.
type ClockMover interface {
	// MoveClock moves the clock of the store's backend by d: forward, or back when d
	// is negative. Every store open on the backend sees the move.
	MoveClock(d time.Duration)
}

// Clock is a store clock that only moves when told to, for stores that take their
// clock as an option: pass Now to the store, and Clocked pairs each store opened on
// it with the Clock. It is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock that reads start until it is moved.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Move moves the clock by d, back when d is negative.
func (c *Clock) Move(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Clocked returns st, which reads c as its clock, as a store that also implements
// ClockMover by moving c.
func Clocked(st store.SlotLeaseStore, c *Clock) store.SlotLeaseStore {
	return clockedStore{st, c}
}

type clockedStore struct {
	store.SlotLeaseStore
	clock *Clock
}

func (s clockedStore) MoveClock(d time.Duration) { s.clock.Move(d) }

// Timing of the lease tests. With a ClockMover the kit moves the clock past a lease
// of expiringTTL; without, it waits for the store's real clock, so the lease is short.
const (
	tolerance        = time.Second
	keepTTL          = 24 * time.Hour // leases that must outlive their subtest
	movedExpiringTTL = time.Hour
	realExpiringTTL  = 300 * time.Millisecond
	pollInterval     = 20 * time.Millisecond
	pollTimeout      = 30 * time.Second
	acquirers        = goroutines // concurrent acquirers in L1 and L7
	churnRounds      = 20
)

// RunSlotLeaseStore checks that the stores open returns keep the store.SlotLeaseStore
// contract, L1–L7, and that a namespace's slots are provisioned as they are taken.
// open is called one or more times in every subtest; all the stores it returns
// within one test must share one backend, as two processes would share a database.
// Namespaces are unique to each run, so one backend may serve every subtest and
// every run. When the stores implement ClockMover the kit moves their clock (see the
// package doc); RunSlotLeaseStore closes the stores it opens.
func RunSlotLeaseStore(t *testing.T, open func(t *testing.T) store.SlotLeaseStore, opts ...LeaseOption) {
	t.Helper()
	k := &leaseKit{prefix: "tck/" + rand.Text()[:12], open: open}
	for _, o := range opts {
		o(k)
	}
	t.Run("Arguments", k.arguments)
	t.Run("Closed", k.closed)
	t.Run("L1_OneLeasePerSlot", k.l1OneLeasePerSlot)
	t.Run("L1_ChurnAcrossInstances", k.l1Churn)
	t.Run("L2_FenceIncreases", k.l2FenceIncreases)
	t.Run("L2_StaleLeaseLost", k.l2StaleLeaseLost)
	t.Run("L3_FloorAboveEarlierOwner", k.l3FloorAboveEarlierOwner)
	t.Run("L4_SlotsWithinLimit", k.l4SlotsWithinLimit)
	t.Run("L4_NamespaceConflict", k.l4NamespaceConflict)
	t.Run("L5_OwnerGetsSlotBack", k.l5OwnerGetsSlotBack)
	t.Run("L6_StoreClockOnly", k.l6StoreClockOnly)
	t.Run("L7_LastSlotOneWinner", k.l7LastSlotOneWinner)
	t.Run("ProvisionedAsTaken", k.provisionedAsTaken)
}

// A LeaseOption gives RunSlotLeaseStore what it needs to check more of a store.
type LeaseOption func(*leaseKit)

// WithSlotRows gives the kit a count of the records (rows, documents, keys,
// znodes) that the stores' backend keeps for the slots of a namespace, read from
// the backend itself, so that ProvisionedAsTaken checks that a namespace of
// store.MaxSlots slots with a few leased has a few records (at most
// storekit.SlotsToProvision of them), not millions made at its first use. Without
// it that part of the subtest is skipped.
func WithSlotRows(count func(ctx context.Context, namespace string) (int, error)) LeaseOption {
	return func(k *leaseKit) { k.rows = count }
}

type leaseKit struct {
	prefix string
	open   func(t *testing.T) store.SlotLeaseStore
	rows   func(ctx context.Context, namespace string) (int, error) // WithSlotRows; nil without
}

func (k *leaseKit) instances(t *testing.T, n int) []store.SlotLeaseStore {
	t.Helper()
	return openInstances(t, n, k.open)
}

func (k *leaseKit) one(t *testing.T) store.SlotLeaseStore { return k.instances(t, 1)[0] }

// namespace returns a namespace unique to this run and test.
func (k *leaseKit) namespace(t *testing.T, name string) string {
	t.Helper()
	path := strings.Split(t.Name(), "/")[1:]
	if len(path) > 2 {
		path = path[len(path)-2:]
	}
	ns := k.prefix + "/" + strings.ReplaceAll(strings.Join(path, "/"), "_", "") + "/" + name
	if len(ns) > store.MaxNamespaceLen {
		t.Fatalf("namespace %q is over %d bytes", ns, store.MaxNamespaceLen)
	}
	return ns
}

// request asks for a slot of ns with the kit's tolerance and a lease that outlives
// the test.
func request(ns, owner string, limit int) store.LeaseRequest {
	return store.LeaseRequest{Namespace: ns, OwnerKey: owner, Limit: limit, Tolerance: tolerance, TTL: keepTTL, Preferred: -1}
}

// expiring returns req with the TTL of a lease the test lets expire.
func expiring(st store.SlotLeaseStore, req store.LeaseRequest) store.LeaseRequest {
	req.TTL = realExpiringTTL
	if _, ok := st.(ClockMover); ok {
		req.TTL = movedExpiringTTL
	}
	return req
}

// expire returns once l has expired by the store clock: it moves the clock past
// l.ExpiresAt, or polls the store clock until it passes it.
func (k *leaseKit) expire(t *testing.T, st store.SlotLeaseStore, l store.Lease) {
	t.Helper()
	if m, ok := st.(ClockMover); ok {
		m.MoveClock(l.ExpiresAt.Sub(l.StoreNow) + time.Millisecond)
		return
	}
	deadline := time.Now().Add(l.ExpiresAt.Sub(l.StoreNow) + pollTimeout)
	for !k.storeNow(t, st).After(l.ExpiresAt) {
		if time.Now().After(deadline) {
			t.Fatalf("the store clock did not pass %v, the expiry of slot %d, within %v", l.ExpiresAt, l.Slot, pollTimeout)
		}
		<-time.After(pollInterval)
	}
}

// storeNow reads the store clock: the StoreNow of a scratch lease, released at once.
func (k *leaseKit) storeNow(t *testing.T, st store.SlotLeaseStore) time.Time {
	t.Helper()
	req := request(k.prefix+"/clock", "clock-"+rand.Text()[:8], 64)
	req.TTL = time.Second
	l := mustAcquire(t, st, req)
	if err := st.Release(t.Context(), l, l.Floor-1); err != nil {
		t.Fatalf("Release of a clock probe: %v", err)
	}
	return l.StoreNow
}

// mustAcquire acquires a lease and checks its shape against the request.
func mustAcquire(t *testing.T, st store.SlotLeaseStore, req store.LeaseRequest) store.Lease {
	t.Helper()
	l, err := st.Acquire(t.Context(), req)
	if err != nil {
		t.Fatalf("Acquire(%q, owner %q, limit %d): %v", req.Namespace, req.OwnerKey, req.Limit, err)
	}
	checkLease(t, l, req.Namespace, req.OwnerKey, req.Limit, req.TTL)
	return l
}

func mustRenew(t *testing.T, st store.SlotLeaseStore, l store.Lease, ttl time.Duration) store.Lease {
	t.Helper()
	r, err := st.Renew(t.Context(), l, ttl)
	if err != nil {
		t.Fatalf("Renew of slot %d (fence %d): %v", l.Slot, l.Fence, err)
	}
	if r.Slot != l.Slot || r.Fence != l.Fence || r.Incarnation != l.Incarnation || r.Floor != l.Floor {
		t.Errorf("Renew changed the lease: slot %d→%d, fence %d→%d, incarnation %q→%q, floor %d→%d",
			l.Slot, r.Slot, l.Fence, r.Fence, l.Incarnation, r.Incarnation, l.Floor, r.Floor)
	}
	checkLease(t, r, l.Namespace, l.OwnerKey, 0, ttl)
	return r
}

func mustRelease(t *testing.T, st store.SlotLeaseStore, l store.Lease, lastUsedMs int64) {
	t.Helper()
	if err := st.Release(t.Context(), l, lastUsedMs); err != nil {
		t.Fatalf("Release of slot %d (fence %d) at %d: %v", l.Slot, l.Fence, lastUsedMs, err)
	}
}

// checkLease checks what every lease the store returns must keep: it names the
// request's namespace and owner, lies within the limit (L4), expires TTL after the
// store's now (L6), and lets the owner stamp until expiry with its clock ahead by the
// tolerance. A limit of 0 is not known.
func checkLease(t *testing.T, l store.Lease, ns, owner string, limit int, ttl time.Duration) {
	t.Helper()
	if l.Namespace != ns || l.OwnerKey != owner {
		t.Errorf("lease of namespace %q for %q, want %q for %q", l.Namespace, l.OwnerKey, ns, owner)
	}
	if l.Slot < 0 || limit > 0 && l.Slot >= limit {
		t.Errorf("L4: lease of slot %d, outside [0, %d)", l.Slot, limit)
	}
	if l.Incarnation == "" || l.Fence < 1 {
		t.Errorf("lease of slot %d has incarnation %q and fence %d, want an incarnation and a fence ≥ 1", l.Slot, l.Incarnation, l.Fence)
	}
	if d := l.ExpiresAt.Sub(l.StoreNow); d < ttl || d > ttl+time.Millisecond {
		t.Errorf("L6: lease of slot %d expires %v after StoreNow, want the TTL %v", l.Slot, d, ttl)
	}
	if min := l.ExpiresAt.UnixMilli() + tolerance.Milliseconds(); l.Ceiling < min {
		t.Errorf("lease of slot %d has Ceiling %d, below ExpiresAt plus the tolerance, %d", l.Slot, l.Ceiling, min)
	}
}

// acquireErr acquires and returns only the error, failing t on success.
func acquireErr(t *testing.T, st store.SlotLeaseStore, req store.LeaseRequest, want error) {
	t.Helper()
	l, err := st.Acquire(t.Context(), req)
	if err == nil {
		t.Errorf("Acquire(%q, owner %q) got slot %d (fence %d), want an error wrapping %v", req.Namespace, req.OwnerKey, l.Slot, l.Fence, want)
		return
	}
	if !errors.Is(err, want) {
		t.Errorf("Acquire(%q, owner %q): %v, want an error wrapping %v", req.Namespace, req.OwnerKey, err, want)
		return
	}
	if !strings.Contains(err.Error(), req.Namespace) {
		t.Errorf("error %q does not name the namespace %q", err, req.Namespace)
	}
}

// checkLost checks that renewing and releasing l fail with ErrLeaseLost.
func checkLost(t *testing.T, st store.SlotLeaseStore, l store.Lease, why string) {
	t.Helper()
	if r, err := st.Renew(t.Context(), l, time.Minute); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("Renew of %s = slot %d fence %d, %v; want an error wrapping ErrLeaseLost", why, r.Slot, r.Fence, err)
	} else if !strings.Contains(err.Error(), l.Namespace) {
		t.Errorf("error %q does not name the namespace %q", err, l.Namespace)
	}
	if err := st.Release(t.Context(), l, l.Floor-1); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("Release of %s: %v, want an error wrapping ErrLeaseLost", why, err)
	}
}

func owner(i int) string { return fmt.Sprintf("owner-%02d", i) }
