package redisstore_test

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
)

const (
	helperEnv        = "COSID_REDISSTORE_HELPER" // address, prefix and key of a helper process
	reservesPerChild = 200
)

// TestHelperProcess is the body of the child processes of
// TestTwoProcesses_NoOverlap: it reserves one key and prints each range.
func TestHelperProcess(t *testing.T) {
	spec := os.Getenv(helperEnv)
	if spec == "" {
		t.Skip("runs only as a child of TestTwoProcesses_NoOverlap")
	}
	var addr, prefix, key string
	if _, err := fmt.Sscanf(spec, "%q %q %q", &addr, &prefix, &key); err != nil {
		t.Fatalf("%s=%s: %v", helperEnv, spec, err)
	}
	st := openStore(t, addr, redisstore.WithPrefix(prefix))
	for range reservesPerChild {
		r, err := st.Reserve(t.Context(), key, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("range %d %d\n", r.Start, r.End)
	}
}

// TestTwoProcesses_NoOverlap runs two real processes that reserve the same key at
// once on the durable server: no value is handed out twice.
func TestTwoProcesses_NoOverlap(t *testing.T) {
	addr := durable(t)
	prefix := testPrefix(t, addr)
	key := "procs/" + rand.Text()
	var mu sync.Mutex
	var all []store.Range
	runChildren(t, "TestHelperProcess", func(child int) string {
		return fmt.Sprintf("%s=%q %q %q", helperEnv, addr, prefix, key)
	}, func(child int, out []byte) {
		ranges := parseRanges(out)
		if len(ranges) != reservesPerChild {
			t.Errorf("child %d printed %d ranges, want %d:\n%s", child, len(ranges), reservesPerChild, out)
		}
		mu.Lock()
		all = append(all, ranges...)
		mu.Unlock()
	})
	slices.SortFunc(all, func(a, b store.Range) int { return cmp.Compare(a.Start, b.Start) })
	for i := 1; i < len(all); i++ {
		if all[i].Start < all[i-1].End {
			t.Errorf("ranges %v and %v of two processes overlap", all[i-1], all[i])
		}
	}
	if len(all) > 0 && (all[0].Start != 0 || all[len(all)-1].End != 3*2*reservesPerChild) {
		t.Errorf("the ranges of both processes span [%d, %d), want [0, %d): none lost, none twice", all[0].Start, all[len(all)-1].End, 3*2*reservesPerChild)
	}
}

func parseRanges(out []byte) []store.Range {
	var ranges []store.Range
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r store.Range
		if _, err := fmt.Sscanf(sc.Text(), "range %d %d", &r.Start, &r.End); err == nil {
			ranges = append(ranges, r)
		}
	}
	return ranges
}

// runChildren runs the test named test in two child processes of the test binary at
// once, each with the environment setting env(child) added, and hands each child's
// standard output to done, failing t for a child that fails.
func runChildren(t *testing.T, test string, env func(child int) string, done func(child int, out []byte)) {
	t.Helper()
	var wg sync.WaitGroup
	for child := range 2 {
		wg.Go(func() {
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
			cmd.Env = append(os.Environ(), env(child))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Errorf("child %d: %v\n%s%s", child, err, out, stderr.Bytes())
				return
			}
			done(child, out)
		})
	}
	wg.Wait()
}
