package zkstore_test

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
	"github.com/cosid-go/cosid/store/storetest"
	"github.com/cosid-go/cosid/store/zkstore"
)

const (
	helperEnv        = "COSID_ZKSTORE_HELPER" // kind ("ranges" or "leases"), address, root and key of a helper process
	reservesPerChild = 100
	leasesPerChild   = 15
)

// TestHelperProcess is the body of the child processes of TestTwoProcesses: it
// reserves ranges of one key and prints each, or takes the one slot of a namespace
// in turns and prints each lease.
func TestHelperProcess(t *testing.T) {
	spec := testenv.ChildSpec(t, helperEnv, 4)
	kind, addr, root, key := spec[0], spec[1], spec[2], spec[3]
	st := openStore(t, addr, zkstore.WithRoot(root))
	if kind == "ranges" {
		for range reservesPerChild {
			r, err := st.Reserve(t.Context(), key, 3, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("range %d %d\n", r.Start, r.End)
		}
		return
	}
	req := store.LeaseRequest{Namespace: key, OwnerKey: "child-" + rand.Text()[:6], Limit: 1, Tolerance: time.Second, TTL: time.Hour, Preferred: -1}
	for taken := 0; taken < leasesPerChild; {
		l, err := st.Acquire(t.Context(), req)
		if errors.Is(err, store.ErrNoFreeSlot) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		taken++
		fmt.Printf("lease %d %d\n", l.Fence, l.Floor)
		if err := st.Release(t.Context(), l, l.Floor); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTwoProcesses runs two real processes on one ZooKeeper at once. Reserving one
// key, they never share a value (S1, S4); taking turns at the one slot of a
// namespace, every acquisition has a fence of its own (L2) and a floor above the
// stamp of the lease before it (L3).
func TestTwoProcesses(t *testing.T) {
	addr := server(t)
	root := testRoot(t, addr)
	t.Run("S1_NoOverlap", func(t *testing.T) {
		var all []store.Range
		for _, line := range runChildren(t, "ranges", addr, root, reservesPerChild) {
			var r store.Range
			fmt.Sscanf(line, "range %d %d", &r.Start, &r.End)
			all = append(all, r)
		}
		storetest.CheckProcessRanges(t, all, 0)
	})
	t.Run("L2_L3_OneSlotInTurns", func(t *testing.T) {
		type lease struct{ fence, floor int64 }
		var all []lease
		for _, line := range runChildren(t, "leases", addr, root, leasesPerChild) {
			var l lease
			fmt.Sscanf(line, "lease %d %d", &l.fence, &l.floor)
			all = append(all, l)
		}
		slices.SortFunc(all, func(a, b lease) int { return cmp.Compare(a.fence, b.fence) })
		for i := 1; i < len(all); i++ {
			if all[i].fence != all[i-1].fence+1 {
				t.Errorf("L2: fences %d and %d follow each other, want consecutive fences", all[i-1].fence, all[i].fence)
			}
			if all[i].floor <= all[i-1].floor {
				t.Errorf("L3: fence %d has floor %d, not above the stamp %d its predecessor released with", all[i].fence, all[i].floor, all[i-1].floor)
			}
		}
	})
}

// runChildren runs two helper processes of kind at once and returns the lines they
// printed, checking that each printed want of them.
func runChildren(t *testing.T, kind, addr, root string, want int) []string {
	key := kind + "/" + rand.Text()[:8]
	var lines []string
	for i, got := range testenv.Children(t, 2, "TestHelperProcess", helperEnv, testenv.Fields(kind, addr, root, key), kind[:len(kind)-1]+" ") {
		if len(got) != want {
			t.Errorf("child %d printed %d lines of %s, want %d", i, len(got), kind, want)
		}
		lines = append(lines, got...)
	}
	return lines
}
