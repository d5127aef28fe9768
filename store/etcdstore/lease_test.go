package etcdstore_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/etcdstore"
)

func leaseRequest(ns, owner string, ttl time.Duration) store.LeaseRequest {
	return store.LeaseRequest{Namespace: ns, OwnerKey: owner, Limit: 1, Tolerance: time.Second, TTL: ttl, Preferred: -1}
}

// TestAcquire_L6_EtcdJudgesExpiry leases the one slot of a namespace from a process
// whose clock runs an hour behind, and asks for it from one whose clock runs a day
// ahead: by the second's clock the lease expired long ago, yet the slot is not free
// until etcd expires the etcd lease (watched, not waited for by the clock); then the
// second takes it, with a floor above the first owner's ceiling.
func TestAcquire_L6_EtcdJudgesExpiry(t *testing.T) {
	ep, prefix := endpoint(t), newPrefix()
	behind, ahead := new(etcdstore.Clock), new(etcdstore.Clock)
	behind.Move(-time.Hour)
	ahead.Move(24 * time.Hour)
	a := openStore(t, ep, prefix, etcdstore.WithClock(behind))
	b := openStore(t, ep, prefix, etcdstore.WithClock(ahead))
	const ns = "l6"
	first, err := a.Acquire(t.Context(), leaseRequest(ns, "a", time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if !first.ExpiresAt.Before(ahead.Now()) {
		t.Fatalf("the lease expires at %v, not before the second process's now %v", first.ExpiresAt, ahead.Now())
	}
	c := newClient(t, ep)
	held, err := c.Get(t.Context(), prefix+ns+"/held/0")
	if err != nil || len(held.Kvs) != 1 {
		t.Fatalf("the held key of the leased slot: %v, %v", held, err)
	}
	deleted := c.Watch(t.Context(), prefix+ns+"/held/0", clientv3.WithRev(held.Kvs[0].ModRevision+1))

	if l, err := b.Acquire(t.Context(), leaseRequest(ns, "b", time.Minute)); !errors.Is(err, store.ErrNoFreeSlot) {
		t.Fatalf("L6: Acquire by a clock past the lease's expiry = slot %d, %v; want ErrNoFreeSlot while etcd holds the lease", l.Slot, err)
	}
	for ev := range deleted {
		if err := ev.Err(); err != nil {
			t.Fatal(err)
		}
		if len(ev.Events) > 0 && ev.Events[0].Type == clientv3.EventTypeDelete {
			break
		}
	}
	second, err := b.Acquire(t.Context(), leaseRequest(ns, "b", time.Minute))
	if err != nil {
		t.Fatalf("Acquire after etcd expired the lease: %v", err)
	}
	if second.Fence != first.Fence+1 || second.Floor <= first.Ceiling {
		t.Errorf("L2/L3: fence %d after %d, floor %d after a ceiling of %d", second.Fence, first.Fence, second.Floor, first.Ceiling)
	}
	if _, err := a.Renew(t.Context(), first, time.Minute); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("Renew of the expired lease taken over: %v, want ErrLeaseLost", err)
	}
}

// etcdLeaseOf returns the etcd lease that the row of slot 0 of ns names.
func etcdLeaseOf(t *testing.T, c *clientv3.Client, prefix, ns string) clientv3.LeaseID {
	t.Helper()
	resp, err := c.Get(t.Context(), prefix+ns+"/slots/0")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("the row of slot 0: %v, %v", resp, err)
	}
	var r struct{ EtcdLease int64 }
	if err := json.Unmarshal(resp.Kvs[0].Value, &r); err != nil {
		t.Fatal(err)
	}
	return clientv3.LeaseID(r.EtcdLease)
}

// checkRevoked fails t unless etcd no longer has the lease id.
func checkRevoked(t *testing.T, c *clientv3.Client, id clientv3.LeaseID, why string) {
	t.Helper()
	resp, err := c.TimeToLive(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if resp.TTL != -1 {
		t.Errorf("the etcd lease %s lives on, for %ds", why, resp.TTL)
	}
}

// TestLeases_EtcdLeasesRevoked checks that renewals and releases leave no etcd lease
// behind: a renewal moves the slot to a new one and revokes the old, a release
// revokes the last.
func TestLeases_EtcdLeasesRevoked(t *testing.T) {
	ep, prefix := endpoint(t), newPrefix()
	st, c := openStore(t, ep, prefix), newClient(t, ep)
	l, err := st.Acquire(t.Context(), leaseRequest("revoke", "a", time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	first := etcdLeaseOf(t, c, prefix, "revoke")
	if l, err = st.Renew(t.Context(), l, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	second := etcdLeaseOf(t, c, prefix, "revoke")
	if second == first {
		t.Fatalf("the renewal kept etcd lease %x", first)
	}
	checkRevoked(t, c, first, "that a renewal replaced")
	if ttl, err := c.TimeToLive(t.Context(), second); err != nil || ttl.GrantedTTL != 7200 {
		t.Errorf("the renewed slot's etcd lease was granted for %v (%v), want 7200s", ttl, err)
	}
	if err := st.Release(t.Context(), l, l.Floor); err != nil {
		t.Fatal(err)
	}
	checkRevoked(t, c, second, "of a released slot")
	if resp, err := c.Get(t.Context(), prefix+"revoke/held/0"); err != nil || len(resp.Kvs) != 0 {
		t.Errorf("the held key of a released slot: %v, %v; want none", resp.Kvs, err)
	}
}

// TestLeases_CorruptRow leases from a namespace whose row holds what the store never
// writes: the calls fail with ErrCorrupt and leave it.
func TestLeases_CorruptRow(t *testing.T) {
	ep, prefix := endpoint(t), newPrefix()
	st, c := openStore(t, ep, prefix), newClient(t, ep)
	l, err := st.Acquire(t.Context(), leaseRequest("corrupt", "a", time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Put(t.Context(), prefix+"corrupt/slots/0", `{"fence":0}`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Renew(t.Context(), l, time.Hour); !errors.Is(err, etcdstore.ErrCorrupt) {
		t.Errorf("Renew: %v, want ErrCorrupt", err)
	}
	if _, err := st.Acquire(t.Context(), leaseRequest("corrupt", "b", time.Hour)); !errors.Is(err, etcdstore.ErrCorrupt) {
		t.Errorf("Acquire: %v, want ErrCorrupt", err)
	}
	if _, err := c.Put(t.Context(), prefix+"corrupt/meta", `{"limit":0}`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Acquire(t.Context(), leaseRequest("corrupt", "b", time.Hour)); !errors.Is(err, etcdstore.ErrCorrupt) {
		t.Errorf("Acquire with corrupt settings: %v, want ErrCorrupt", err)
	}
}

// TestRenew_SameTTLKeepsEtcdLease renews a lease for the TTL it was acquired with: the
// slot keeps its etcd lease, kept alive instead of replaced.
func TestRenew_SameTTLKeepsEtcdLease(t *testing.T) {
	ep, prefix := endpoint(t), newPrefix()
	st, c := openStore(t, ep, prefix), newClient(t, ep)
	l, err := st.Acquire(t.Context(), leaseRequest("keep", "a", time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	id := etcdLeaseOf(t, c, prefix, "keep")
	for range 3 {
		if l, err = st.Renew(t.Context(), l, time.Hour); err != nil {
			t.Fatal(err)
		}
		if got := etcdLeaseOf(t, c, prefix, "keep"); got != id {
			t.Fatalf("a renewal for the same TTL moved the slot from etcd lease %x to %x", id, got)
		}
	}
	if _, err := st.Acquire(t.Context(), leaseRequest("keep", "b", time.Hour)); !errors.Is(err, store.ErrNoFreeSlot) {
		t.Errorf("Acquire of the renewed slot: %v, want ErrNoFreeSlot", err)
	}
	if err := st.Release(t.Context(), l, l.Floor); err != nil {
		t.Fatal(err)
	}
	checkRevoked(t, c, id, "of a released slot")
}
