package httpstore_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/server"
	"github.com/cosid-go/cosid/store/httpstore/wire"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// liveServer is a cosid serve of the store API on a loopback listener, with the
// reservations it answered counted, that kill stops at once: its listener and every
// connection closed, in-flight calls cut.
type liveServer struct {
	url      string
	storeID  string // of its store
	reserved atomic.Int64
	hs       *http.Server
}

// startServer serves a store of its own on the SQL database (driver, dsn), as a
// process of its own would.
func startServer(t *testing.T, driver, dsn string) *liveServer {
	t.Helper()
	st, err := sqlstore.Open(driver, dsn, 2*time.Second, sqlstore.WithInitSchema(true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	storeID, err := st.StoreID(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cosid.Config{Stores: map[string]cosid.StoreConfig{"mem": {Type: "memory"}}}, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	srv, err := server.New(rt, server.WithStore(st), server.WithLogger(nil), server.WithToken("fail0ver"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &liveServer{url: "http://" + ln.Addr().String(), storeID: storeID}
	s.hs = srv.HTTPServer(ln.Addr().String())
	inner := s.hs.Handler
	s.hs.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.ServeHTTP(w, r)
		if r.URL.Path == wire.PathReserve {
			s.reserved.Add(1)
		}
	})
	go s.hs.Serve(ln)
	t.Cleanup(s.kill)
	return s
}

func (s *liveServer) kill() { s.hs.Close() }

// sharedDatabase is the database both servers use: PostgreSQL from
// COSID_TEST_POSTGRES, or else a SQLite file.
func sharedDatabase(t *testing.T) (driver, dsn string) {
	if dsn := os.Getenv("COSID_TEST_POSTGRES"); dsn != "" {
		return "pgx", dsn
	}
	return "sqlite", filepath.Join(t.TempDir(), "ids.db")
}

// TestFailover_KillOneOfTwoServers runs callers against a client of two servers on
// one database and kills the server they use once it has answered a number of
// reservations: the callers go on with the other one, no id is handed out twice, and
// no call waits longer than the generator's reserve-timeout.
func TestFailover_KillOneOfTwoServers(t *testing.T) {
	driver, dsn := sharedDatabase(t)
	a, b := startServer(t, driver, dsn), startServer(t, driver, dsn)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("fail0ver\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const reserveTimeout = 2 * time.Second
	cfg, err := cosid.ParseConfig([]byte(fmt.Sprintf(`
cosid:
  namespace: failover-%d
  stores:
    ids: { type: http, urls: [%q, %q], store-id: %s, token-file: %s, timeout: 1s }
  generators:
    order: { strategy: segment, store: ids, step: 10, max-batch: 10, reserve-timeout: %s }
`, time.Now().UnixNano(), a.url, b.url, a.storeID, tokenFile, reserveTimeout)))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()

	// The run: callers until a has answered killAfter reservations, then a is killed,
	// and the callers go on until b has answered afterKill more, or maxCalls were made.
	const callers, killAfter, afterKill, maxCalls = 8, 20, 20, 100_000
	var (
		mu       sync.Mutex
		ids      = map[int64]bool{}
		dups     []int64
		longest  time.Duration
		failures []error
		wg       sync.WaitGroup
		stop     atomic.Bool
		killed   atomic.Bool
		calls    atomic.Int64
	)
	bAtKill := int64(-1)
	var killOnce sync.Once
	for range callers {
		wg.Go(func() {
			for !stop.Load() {
				start := time.Now()
				id, err := rt.Next(t.Context(), "order")
				took := time.Since(start)
				mu.Lock()
				longest = max(longest, took)
				if err != nil {
					failures = append(failures, err)
				} else if n, perr := strconv.ParseInt(id, 10, 64); perr != nil {
					failures = append(failures, perr)
				} else if ids[n] {
					dups = append(dups, n)
				} else {
					ids[n] = true
				}
				mu.Unlock()
				if !killed.Load() && a.reserved.Load() >= killAfter {
					killOnce.Do(func() {
						bAtKill = b.reserved.Load()
						a.kill()
						killed.Store(true)
					})
				}
				if calls.Add(1) >= maxCalls || killed.Load() && b.reserved.Load()-bAtKill >= afterKill {
					stop.Store(true)
				}
			}
		})
	}
	wg.Wait()

	if !killed.Load() || b.reserved.Load()-bAtKill < afterKill {
		t.Errorf("after %d calls, a was killed: %v, and b answered %d reservations since, want %d", calls.Load(), killed.Load(), b.reserved.Load()-bAtKill, afterKill)
	}
	if len(dups) > 0 {
		t.Errorf("%d ids handed out twice, such as %d", len(dups), dups[0])
	}
	// A call ends at its reserve-timeout's deadline at the latest; on a loaded
	// machine its goroutine may run some time after it, so only a call far past
	// the deadline (one that waited on something the deadline does not cut) fails.
	if longest >= reserveTimeout+time.Second {
		t.Errorf("the longest call took %v, want no more than reserve-timeout %v and the scheduler's delay", longest, reserveTimeout)
	}
	// A call cut by the kill has an unknown outcome and is not sent to b: its caller,
	// and those during the generator's backoff after it, fail with the error of a.
	for _, err := range failures {
		if !errors.Is(err, cosid.ErrUnavailable) || !strings.Contains(err.Error(), a.url) {
			t.Errorf("a call failed with %v, want only ErrUnavailable of a call to a (%s) cut as it died", err, a.url)
			break
		}
	}
	if bAtKill != 0 {
		t.Errorf("b answered %d reservations before a was killed, want none: the client starts at a", bAtKill)
	}
	if len(failures) > 0 {
		t.Logf("first failure: %v; last: %v", failures[0], failures[len(failures)-1])
	}
	t.Logf("%d ids over %s, %d failed calls while a died, the longest call %v (reserve-timeout %v); reservations: a %d, b %d",
		len(ids), driver, len(failures), longest, reserveTimeout, a.reserved.Load(), b.reserved.Load())
}

// TestFailover_N1_ServersOfTwoStoresRepeatNoID is the review's N1: two servers, each
// on a SQLite file of its own (a copy-pasted config), in one client's urls. The
// client pins a's store (store-id): once a dies it refuses b's answers, also after a
// restart, where it kept none of what it had handed out, so no id is handed out
// twice; and a config of the two urls without store-id does not load.
func TestFailover_N1_ServersOfTwoStoresRepeatNoID(t *testing.T) {
	dir := t.TempDir()
	a, b := startServer(t, "sqlite", filepath.Join(dir, "a.db")), startServer(t, "sqlite", filepath.Join(dir, "b.db"))
	if a.storeID == b.storeID {
		t.Fatalf("two SQLite files have one store identity %s", a.storeID)
	}
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("fail0ver\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	config := func(pin string) string {
		return fmt.Sprintf(`
cosid:
  stores:
    fleet: { type: http, urls: [%q, %q], %s token-file: %s, timeout: 1s }
  generators:
    order: { strategy: segment, store: fleet, step: 10, max-batch: 10 }
`, a.url, b.url, pin, tokenFile)
	}
	unpinned, err := cosid.ParseConfig([]byte(config("")))
	if err == nil {
		_, err = cosid.Open(t.Context(), unpinned, cosid.WithLogger(nil))
	}
	if !errors.Is(err, cosid.ErrConfig) || !strings.Contains(err.Error(), "store-id") {
		t.Fatalf("the config of two urls without store-id: %v, want a config error naming store-id", err)
	}
	cfg, err := cosid.ParseConfig([]byte(config("store-id: " + a.storeID + ",")))
	if err != nil {
		t.Fatal(err)
	}
	issued := map[string]int{}
	var refusals []error
	take := func(n int) {
		rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close()
		for range n {
			id, err := rt.Next(t.Context(), "order")
			if err != nil {
				refusals = append(refusals, err)
				continue
			}
			issued[id]++
		}
	}
	take(160) // on a
	a.kill()
	take(150) // only b answers: before a restart …
	take(150) // … and after it
	for id, n := range issued {
		if n > 1 {
			t.Errorf("id %s handed out %d times", id, n)
		}
	}
	if len(issued) != 160 || len(refusals) != 300 {
		t.Errorf("%d ids handed out and %d calls refused, want 160 (of a) and 300 (after a died)", len(issued), len(refusals))
	}
	for _, err := range refusals[max(len(refusals)-1, 0):] {
		if !errors.Is(err, cosid.ErrUnavailable) || !strings.Contains(err.Error(), b.url) ||
			!strings.Contains(err.Error(), b.storeID) || !strings.Contains(err.Error(), "store-id "+a.storeID) {
			t.Errorf("a call after a died: %v, want unavailable, naming b (%s), its store %s and store-id %s", err, b.url, b.storeID, a.storeID)
		}
	}
	if b.reserved.Load() == 0 {
		t.Error("b answered no reservation: the test proves nothing")
	}
}
