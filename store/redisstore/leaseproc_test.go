package redisstore_test

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

const (
	leaseHelperEnv = "COSID_REDISSTORE_LEASE_HELPER" // address, prefix, namespace and owner key of a helper process
	leasesPerChild = 40
)

// TestLeaseHelperProcess is the body of the child processes of
// TestTwoProcesses_OneSlot: it takes the one slot of a namespace leasesPerChild
// times, waiting while the other process holds it, and releases it each time at a
// stamp above its floor, printing each lease. A release that finds the lease lost
// means another process took the slot while this one held it (L1).
func TestLeaseHelperProcess(t *testing.T) {
	spec := os.Getenv(leaseHelperEnv)
	if spec == "" {
		t.Skip("runs only as a child of TestTwoProcesses_OneSlot")
	}
	var addr, prefix, ns, owner string
	if _, err := fmt.Sscanf(spec, "%q %q %q %q", &addr, &prefix, &ns, &owner); err != nil {
		t.Fatalf("%s=%s: %v", leaseHelperEnv, spec, err)
	}
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
	var mu sync.Mutex
	var all []lease
	runChildren(t, "TestLeaseHelperProcess", func(child int) string {
		return fmt.Sprintf("%s=%q %q %q %q", leaseHelperEnv, addr, prefix, ns, fmt.Sprint("owner-", child))
	}, func(child int, out []byte) {
		n := 0
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			var l lease
			if _, err := fmt.Sscanf(sc.Text(), "lease %d %d %d", &l.fence, &l.floor, &l.last); err == nil {
				mu.Lock()
				all = append(all, l)
				mu.Unlock()
				n++
			}
		}
		if n != leasesPerChild {
			t.Errorf("child %d printed %d leases, want %d:\n%s", child, n, leasesPerChild, out)
		}
	})
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
