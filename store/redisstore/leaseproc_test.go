package redisstore_test

import (
	"cmp"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

const (
	leaseHelperEnv = "COSID_REDISSTORE_LEASE_HELPER" // address, prefix and namespace of a helper process
	leasesPerChild = 40
)

// TestLeaseHelperProcess is the body of the child processes of
// TestTwoProcesses_OneSlot: it takes the one slot of a namespace leasesPerChild
// times, waiting while the other process holds it, and releases it each time at a
// stamp above its floor, printing each lease. A release that finds the lease lost
// means another process took the slot while this one held it (L1).
func TestLeaseHelperProcess(t *testing.T) {
	spec := testenv.ChildSpec(t, leaseHelperEnv, 3)
	addr, prefix, ns, owner := spec[0], spec[1], spec[2], "owner-"+rand.Text()
	st := openStore(t, addr, redisstore.WithPrefix(prefix))
	req := store.LeaseRequest{Namespace: ns, OwnerKey: owner, Limit: 1, Tolerance: time.Second, TTL: time.Hour, Preferred: -1}
	for taken := 0; taken < leasesPerChild; {
		l, err := st.Acquire(t.Context(), req)
		if errors.Is(err, store.ErrNoFreeSlot) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		taken++
		last := l.Floor + int64(taken)
		if err := st.Release(t.Context(), l, last); err != nil {
			t.Fatalf("Release of fence %d: %v", l.Fence, err)
		}
		fmt.Printf("lease %d %d %d\n", l.Fence, l.Floor, last)
	}
}

// TestTwoProcesses_OneSlot runs two real processes that take turns on the one slot
// of a namespace: no process loses a lease it holds to the other (L1), fences never
// repeat (L2), and each lease's floor lies above the stamp its predecessor released
// the slot at (L3).
func TestTwoProcesses_OneSlot(t *testing.T) {
	addr := durable(t)
	prefix := testPrefix(t, addr)
	ns := "procs/" + rand.Text()
	type lease struct{ fence, floor, last int64 }
	var all []lease
	for i, lines := range testenv.Children(t, 2, "TestLeaseHelperProcess", leaseHelperEnv, testenv.Fields(addr, prefix, ns), "lease ") {
		if len(lines) != leasesPerChild {
			t.Errorf("child %d printed %d leases, want %d", i, len(lines), leasesPerChild)
		}
		for _, line := range lines {
			var l lease
			if _, err := fmt.Sscanf(line, "lease %d %d %d", &l.fence, &l.floor, &l.last); err != nil {
				t.Errorf("child %d printed %q: %v", i, line, err)
			}
			all = append(all, l)
		}
	}
	slices.SortFunc(all, func(a, b lease) int { return cmp.Compare(a.fence, b.fence) })
	for i := 1; i < len(all); i++ {
		prev, l := all[i-1], all[i]
		if l.fence == prev.fence {
			t.Errorf("L2: two leases with fence %d", l.fence)
		}
		if l.floor <= prev.last {
			t.Errorf("L3: the lease with fence %d has floor %d, not above %d, where fence %d released the slot", l.fence, l.floor, prev.last, prev.fence)
		}
	}
}
