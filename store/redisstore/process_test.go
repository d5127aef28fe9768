package redisstore_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
	"github.com/cosid-go/cosid/store/storetest"
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
	storetest.CheckProcessRanges(t, all, 0)
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
