package etcdstore_test

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
)

// childEnv tells a run of the test binary that it is a child process of a test here,
// and what to do: a role, the server, the prefix and the name to work on.
const childEnv = "COSID_ETCDSTORE_CHILD"

const (
	childGoroutines = 8
	childRounds     = 25
	childSlots      = 2
)

// TestChild is the body of the child processes of the tests of two processes. Each
// line it prints for its parent starts with "out ".
func TestChild(t *testing.T) {
	spec := os.Getenv(childEnv)
	if spec == "" {
		t.Skip("runs only as a child process of TestTwoProcesses_*")
	}
	var role, ep, prefix, name string
	if _, err := fmt.Sscanf(spec, "%q %q %q %q", &role, &ep, &prefix, &name); err != nil {
		t.Fatalf("%s=%s: %v", childEnv, spec, err)
	}
	st := openStore(t, ep, prefix)
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf("out "+format+"\n", args...)
	}
	var wg sync.WaitGroup
	for g := range childGoroutines {
		wg.Go(func() {
			for range childRounds {
				if err := childRound(t, st, role, name, fmt.Sprintf("%d-%d", os.Getpid(), g), say); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// childRound reserves a range of the key name, or acquires, renews and releases a
// slot of the namespace name, and says what it got.
func childRound(t *testing.T, st store.SlotLeaseStore, role, name, owner string, say func(string, ...any)) error {
	ctx := t.Context()
	if role == "reserve" {
		r, err := st.(store.RangeStore).Reserve(ctx, name, 3, 0)
		say("%d %d", r.Start, r.End)
		return err
	}
	req := store.LeaseRequest{Namespace: name, OwnerKey: owner, Limit: childSlots, Tolerance: time.Second, TTL: time.Hour, Preferred: -1}
	l, err := st.Acquire(ctx, req)
	if errors.Is(err, store.ErrNoFreeSlot) {
		return nil
	}
	if err != nil {
		return err
	}
	if l, err = st.Renew(ctx, l, time.Hour); err != nil {
		return err
	}
	used := min(l.Floor+int64(len(owner)), l.Ceiling)
	say("%d %d %d %d", l.Slot, l.Fence, l.Floor, used) // before the release: the next owner may start at once
	return st.Release(ctx, l, used)
}

// runChildren runs two child processes at once in role on name, and returns the
// fields of the lines both said.
func runChildren(t *testing.T, role, name string) [][]int64 {
	t.Helper()
	ep, prefix := endpoint(t), newPrefix()
	var mu sync.Mutex
	var all [][]int64
	var wg sync.WaitGroup
	for child := range 2 {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%q %q %q %q", childEnv, role, ep, prefix, name))
			out, err := cmd.CombinedOutput() // the lines for the parent start with "out "
			if err != nil {
				t.Errorf("child %d: %v\n%s", child, err, out)
				return
			}
			sc := bufio.NewScanner(bytes.NewReader(out))
			for sc.Scan() {
				rest, ok := strings.CutPrefix(sc.Text(), "out ")
				if !ok {
					continue
				}
				var fields []int64
				for f := range strings.FieldsSeq(rest) {
					var n int64
					fmt.Sscan(f, &n)
					fields = append(fields, n)
				}
				mu.Lock()
				all = append(all, fields)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return all
}

// TestTwoProcesses_S1_NoOverlap reserves one key from two real processes at once,
// each from several goroutines: no value is handed out twice.
func TestTwoProcesses_S1_NoOverlap(t *testing.T) {
	t.Parallel()
	ranges := runChildren(t, "reserve", "procs")
	if want := 2 * childGoroutines * childRounds; len(ranges) != want {
		t.Errorf("the children reserved %d ranges, want %d", len(ranges), want)
	}
	slices.SortFunc(ranges, func(a, b []int64) int { return cmp.Compare(a[0], b[0]) })
	for i := 1; i < len(ranges); i++ {
		if ranges[i][0] < ranges[i-1][1] {
			t.Errorf("ranges %v and %v of two processes overlap", ranges[i-1], ranges[i])
		}
	}
}

// TestTwoProcesses_L2L3_Handover churns the slots of a namespace of two from two real
// processes at once: every slot's fences run 1, 2, 3, … with no fence given twice
// (L1, L2), and each owner's floor lies above the last stamp of the one before (L3).
func TestTwoProcesses_L2L3_Handover(t *testing.T) {
	t.Parallel()
	leases := runChildren(t, "lease", "procs")
	if len(leases) < childRounds {
		t.Errorf("the children leased %d times, want at least %d", len(leases), childRounds)
	}
	slices.SortFunc(leases, func(a, b []int64) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	for i, l := range leases {
		slot, fence, floor := l[0], l[1], l[2]
		if slot < 0 || slot >= childSlots {
			t.Errorf("L4: slot %d of %d", slot, childSlots)
		}
		first := i == 0 || leases[i-1][0] != slot
		switch {
		case first && fence != 1:
			t.Errorf("L2: slot %d's first lease has fence %d", slot, fence)
		case !first && fence != leases[i-1][1]+1:
			t.Errorf("L1/L2: slot %d has fence %d after %d", slot, fence, leases[i-1][1])
		case !first && floor <= leases[i-1][3]:
			t.Errorf("L3: slot %d, fence %d: floor %d, not above %d, the last stamp of fence %d", slot, fence, floor, leases[i-1][3], leases[i-1][1])
		}
	}
}
