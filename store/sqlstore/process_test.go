package sqlstore_test

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
	"github.com/cosid-go/cosid/store/storetest"
)

const (
	helperEnv        = "COSID_SQLSTORE_HELPER" // driver, dsn and key of a helper process
	reservesPerChild = 100
)

// TestHelperProcess is the body of the child processes of
// TestTwoProcesses_NoOverlap: it reserves one key and prints each range.
func TestHelperProcess(t *testing.T) {
	spec := os.Getenv(helperEnv)
	if spec == "" {
		t.Skip("runs only as a child of TestTwoProcesses_NoOverlap")
	}
	var driver, dsn, key string
	if _, err := fmt.Sscanf(spec, "%q %q %q", &driver, &dsn, &key); err != nil {
		t.Fatalf("%s=%s: %v", helperEnv, spec, err)
	}
	st := openStore(t, backend{name: driver, driver: driver}, dsn)
	for range reservesPerChild {
		r, err := st.Reserve(t.Context(), key, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("range %d %d\n", r.Start, r.End)
	}
}

// TestTwoProcesses_NoOverlap runs two real processes that reserve the same key at
// once on each live database: no value is handed out twice.
func TestTwoProcesses_NoOverlap(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			openStore(t, b, dsn) // creates the tables before the children race
			key := "procs/" + rand.Text()
			var mu sync.Mutex
			var all []store.Range
			var wg sync.WaitGroup
			for child := range 2 {
				wg.Go(func() {
					cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
					cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%q %q %q", helperEnv, b.driver, dsn, key))
					var stderr bytes.Buffer
					cmd.Stderr = &stderr
					out, err := cmd.Output()
					if err != nil {
						t.Errorf("child %d: %v\n%s%s", child, err, out, stderr.Bytes())
						return
					}
					ranges := parseRanges(t, out)
					if len(ranges) != reservesPerChild {
						t.Errorf("child %d printed %d ranges, want %d:\n%s", child, len(ranges), reservesPerChild, out)
					}
					mu.Lock()
					all = append(all, ranges...)
					mu.Unlock()
				})
			}
			wg.Wait()
			storetest.CheckProcessRanges(t, all, -1)
		})
	}
}

func parseRanges(t *testing.T, out []byte) []store.Range {
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
