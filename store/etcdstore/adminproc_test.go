package etcdstore_test

import (
	"bufio"
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestTwoProcesses_RaiseTo_S1 raises a key from this process, to the next thousand
// and back to 1, while a child process reserves it from several goroutines: no two
// ranges overlap, no range of the child straddles a raise (it reserves fewer than a
// thousand values, so only a raise takes it past one), and the next range lies above
// the last raise.
func TestTwoProcesses_RaiseTo_S1(t *testing.T) {
	t.Parallel()
	ep, prefix := endpoint(t), newPrefix()
	st := openStore(t, ep, prefix)
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%q %q %q %q", childEnv, "reserve", ep, prefix, "raised"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var raised []int64
	for i := range int64(10) {
		r, err := st.RaiseTo(t.Context(), "raised", (i+1)*1000)
		if err != nil {
			t.Fatal(err)
		}
		raised = append(raised, r.After)
		if low, err := st.RaiseTo(t.Context(), "raised", 1); err != nil || low.Changed() || low.After < r.After {
			t.Fatalf("RaiseTo(1) after a raise to %d = %+v, %v; want no change", r.After, low, err)
		}
	}
	var ranges [][2]int64
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "out "); ok {
			var r [2]int64
			if _, err := fmt.Sscan(rest, &r[0], &r[1]); err != nil {
				t.Fatalf("child said %q: %v", rest, err)
			}
			ranges = append(ranges, r)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v", err)
	}
	if want := childGoroutines * childRounds; len(ranges) != want {
		t.Errorf("the child reserved %d ranges, want %d", len(ranges), want)
	}
	slices.SortFunc(ranges, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	for i, r := range ranges {
		if i > 0 && r[0] < ranges[i-1][1] {
			t.Errorf("ranges %v and %v overlap", ranges[i-1], r)
		}
		for _, to := range raised {
			if r[0] < to && to < r[1] {
				t.Errorf("range %v straddles the raise to %d", r, to)
			}
		}
	}
	if !slices.IsSorted(raised) {
		t.Errorf("raises left %v, which went down", raised)
	}
	next, err := st.Reserve(t.Context(), "raised", 1, 0)
	if err != nil || next.Start < raised[len(raised)-1] {
		t.Errorf("Reserve after the raises = %v, %v; want it from %d", next, err, raised[len(raised)-1])
	}
}
