package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore"
	"github.com/cosid-go/cosid/store/storetest"
)

// e2eConfig is a configuration on PostgreSQL whose keys are unique to one run.
func e2eConfig(t *testing.T) string {
	dsn := testenv.Server(t, testenv.Postgres)
	return fmt.Sprintf(`
cosid:
  namespace: e2e-%s
  stores:
    # CI runs these beside the failover matrix, which loads the machine: a timeout
    # that a loaded shared PostgreSQL meets, since these tests check ids, not speed.
    pg: { type: sql, driver: pgx, dsn: "%s", timeout: 10s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: pg, step: 50, reserve-timeout: 15s }
  serve:
    store: pg
    cosid4x: true
    # the httpstore kit checks the contract up to its edges; the 4.x "forever" lease
    limits: { max-reserve: 9223372036854775807, max-slots: 4194304, max-lease-ttl: 2562047h47m16.854775807s }
`, strings.ToLower(rand.Text()[:10]), dsn)
}

// collector gathers ids from many goroutines and counts the duplicates.
type collector struct {
	mu       sync.Mutex
	seen     map[string]bool
	dups     []string
	total    atomic.Int64
	reached  int64 // when total reaches it, reachedC closes
	once     sync.Once
	reachedC chan struct{}
}

func (c *collector) add(ids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if c.seen[id] {
			c.dups = append(c.dups, id)
		}
		c.seen[id] = true
	}
	if c.total.Add(int64(len(ids))) >= c.reached && c.reachedC != nil {
		c.once.Do(func() { close(c.reachedC) })
	}
}

// TestE2E_ThreeServersOnPostgres_SIGKILL runs three cosid serve processes on one
// PostgreSQL with clients on all three; one server is killed with SIGKILL and started
// again mid-run. Every id collected is distinct.
func TestE2E_ThreeServersOnPostgres_SIGKILL(t *testing.T) {
	config := e2eConfig(t)
	dirs := make([]string, 3)
	urls := make([]atomic.Pointer[string], 3)
	procs := make([]*serveProc, 3)
	for i := range dirs {
		dirs[i] = writeConfig(t, config)
		procs[i] = startServe(t, dirs[i])
		urls[i].Store(&procs[i].url)
	}
	const killAt, stopAt = 3000, 9000
	c := &collector{seen: map[string]bool{}, reached: killAt, reachedC: make(chan struct{})}
	var failed atomic.Int64
	var wg sync.WaitGroup
	for client := range 6 {
		wg.Go(func() {
			for c.total.Load() < stopAt {
				ids, err := fetch(*urls[client%3].Load() + "/v1/generators/order/next?count=25")
				if err != nil {
					failed.Add(1) // the killed server's clients fail until it is back
					continue
				}
				c.add(ids)
			}
		})
	}
	<-c.reachedC
	procs[0].stop(t, syscall.SIGKILL)
	restarted := startServe(t, dirs[0])
	urls[0].Store(&restarted.url)
	wg.Wait()
	if len(c.dups) > 0 {
		t.Fatalf("%d duplicate ids among %d, such as %v", len(c.dups), c.total.Load(), c.dups[:min(5, len(c.dups))])
	}
	t.Logf("%d ids from 3 servers, one killed and restarted; %d requests failed while it was down; no duplicates", c.total.Load(), failed.Load())
}

// TestE2E_TwoLibraryProcessesThroughTwoServers runs two processes whose generator is
// on a store of type http, each through another cosid serve on one PostgreSQL.
func TestE2E_TwoLibraryProcessesThroughTwoServers(t *testing.T) {
	config := e2eConfig(t)
	servers := []*serveProc{startServe(t, writeConfig(t, config)), startServe(t, writeConfig(t, config))}
	c := &collector{seen: map[string]bool{}}
	var wg sync.WaitGroup
	for i, srv := range servers {
		dir := writeConfig(t, fmt.Sprintf(`
cosid:
  namespace: lib
  stores:
    ids: { type: http, url: "%s", timeout: 3s }
  generators:
    shared: { strategy: segment, store: ids, step: 7, reserve-timeout: 3s }
`, srv.url))
		for run := range 5 {
			wg.Go(func() {
				cmd := exec.CommandContext(t.Context(), os.Args[0], "next", "shared", "-n", "300")
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), mainEnv+"=1")
				out, err := cmd.Output()
				if err != nil {
					t.Errorf("process %d run %d: %v", i, run, err)
					return
				}
				c.add(strings.Fields(string(out)))
			})
		}
	}
	wg.Wait()
	if want := int64(2 * 5 * 300); c.total.Load() != want || len(c.dups) > 0 {
		t.Fatalf("%d ids, %d duplicates (%v); want %d distinct", c.total.Load(), len(c.dups), c.dups[:min(5, len(c.dups))], want)
	}
}

func fetch(url string) ([]string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %d %s", url, resp.StatusCode, body)
	}
	return strings.Fields(string(body)), nil
}

// TestE2E_HTTPStoreKitThroughServeOnPostgres runs the store kit on store/httpstore
// against a real cosid serve process on PostgreSQL, every other store instance
// through a second server.
func TestE2E_HTTPStoreKitThroughServeOnPostgres(t *testing.T) {
	config := e2eConfig(t)
	urls := []string{startServe(t, writeConfig(t, config)).url, startServe(t, writeConfig(t, config)).url}
	n := 0
	open := func(t *testing.T) *httpstore.Store {
		n++
		st, err := httpstore.New(urls[n%2])
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	t.Run("RangeStore", func(t *testing.T) {
		storetest.RunRangeStore(t, func(t *testing.T) store.RangeStore { return open(t) })
	})
	t.Run("SlotLeaseStore", func(t *testing.T) {
		storetest.RunSlotLeaseStore(t, func(t *testing.T) store.SlotLeaseStore { return open(t) })
	})
}

// TestE2E_Compat4xSegmentsAcrossSIGKILL replays the 4.x exchange against
// cosid serve processes on PostgreSQL: POST offset=100 step=20, PATCH step=20 → 120,
// the server killed with SIGKILL and started again, PATCH step=5 → 125; then machine
// ids with the 4.x client's "forever" safe guard.
func TestE2E_Compat4xSegmentsAcrossSIGKILL(t *testing.T) {
	dir := writeConfig(t, e2eConfig(t))
	p := startServe(t, dir)
	ns := "e2e4x-" + strings.ToLower(rand.Text()[:8])
	send := func(url, method, path string) string {
		req, err := http.NewRequestWithContext(t.Context(), method, url+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, body)
		}
		return string(body)
	}
	send(p.url, "POST", "/segments/distributor/"+ns+"/order?offset=100&step=20")
	if got := send(p.url, "PATCH", "/segments/"+ns+"/order?step=20"); got != "120" {
		t.Fatalf("first PATCH = %q, want 120", got)
	}
	p.stop(t, syscall.SIGKILL)
	p = startServe(t, dir)
	if got := send(p.url, "PATCH", "/segments/"+ns+"/order?step=5"); got != "125" {
		t.Errorf("PATCH after the restart = %q, want 125", got)
	}
	// The 4.x client's "forever" safe guard on a SQL store: a lease that never expires,
	// allowed by a max-lease-ttl as long.
	const forever = "safeGuardDuration=PT2562047788015215H30M7.807S"
	for i, want := range []string{`{"machineId":0,"lastTimeStamp":0}`, `{"machineId":1,"lastTimeStamp":0}`} {
		got := send(p.url, "POST", fmt.Sprintf("/machines/%s?instanceId=i%d&stable=true&machineBit=1&%s", ns, i, forever))
		if got != want {
			t.Errorf("distribute i%d = %s, want %s", i, got, want)
		}
	}
	send(p.url, "PATCH", "/machines/"+ns+"?instanceId=i0&stable=true&"+forever)
}
