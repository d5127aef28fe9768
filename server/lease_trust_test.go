package server

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
	"github.com/cosid-go/cosid/store/memstore"

	_ "github.com/jackc/pgx/v5/stdlib" // the PostgreSQL run of the forged revert
	_ "modernc.org/sqlite"             // its SQLite run, which the root no longer links
)

// newTrustServer returns the Server of rt with opts; the security tests make their
// servers only here.
func newTrustServer(t testing.TB, rt *cosid.Runtime, opts ...Option) *Server {
	t.Helper()
	return mustNew(t, rt, append([]Option{WithLogger(nil)}, opts...)...)
}

// sharedRuntime opens a runtime of namespace ns whose snowflake generator "event"
// leases its machine id as owner from the database driver, dsn, which other
// runtimes share.
func sharedRuntime(t *testing.T, ns, driver, dsn, owner string) *cosid.Runtime {
	t.Helper()
	cfg, err := cosid.ParseConfig(fmt.Appendf(nil, `
cosid:
  namespace: %s
  stores:
    db: { type: sql, driver: %s, dsn: %q, timeout: 10s, options: { initSchema: true } }
  generators:
    event: { strategy: snowflake, store: db, slots: 1024, owner-key: %s, lease-ttl: 60s }
`, ns, driver, dsn, owner))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// snowflakeIDs asks s for n ids of "event" in requests of at most 10,000.
func snowflakeIDs(t *testing.T, s *Server, n int) ([]string, error) {
	var ids []string
	for len(ids) < n {
		status, _, body := do(t, s, "GET", fmt.Sprintf("/v1/generators/event/next?count=%d", min(n-len(ids), 10000)), "")
		if status != 200 {
			return ids, fmt.Errorf("next: %d %s", status, body)
		}
		ids = append(ids, strings.Fields(body)...)
	}
	return ids, nil
}

// TestSecurity_C1_Forged4xRevertHandsOutNoIdTwice replays the review's attack: two
// servers, owners host-a and host-b, on one SQLite file or the PostgreSQL test
// database; a 4.x revert of host-a's instance id, sent by anyone, then both serve
// Snowflake ids at once. The revert finds no 4.x instance (a Go generator's lease is
// not one), a 4.x distribute of that instance id is not handed host-a's slot, and no
// id is issued twice.
func TestSecurity_C1_Forged4xRevertHandsOutNoIdTwice(t *testing.T) {
	t.Run("SQLite", func(t *testing.T) {
		forged4xRevert(t, "app", "sqlite", filepath.Join(t.TempDir(), "cosid.db"))
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		forged4xRevert(t, "c1-"+strings.ToLower(rand.Text()[:10]), "pgx", testenv.Server(t, testenv.Postgres))
	})
}

func forged4xRevert(t *testing.T, ns, driver, dsn string) {
	rtA, rtB := sharedRuntime(t, ns, driver, dsn, "host-a"), sharedRuntime(t, ns, driver, dsn, "host-b")
	storeOf := func(rt *cosid.Runtime) Option {
		return WithStoreFunc(func(ctx context.Context) (store.RangeStore, error) { return rt.Store(ctx, "db") })
	}
	a := newTrustServer(t, rtA, storeOf(rtA), WithCompat4x())
	b := newTrustServer(t, rtB, storeOf(rtB), WithCompat4x())
	if _, err := snowflakeIDs(t, a, 2); err != nil { // A leases its slot
		t.Fatal(err)
	}
	st, err := rtA.Store(t.Context(), "db")
	if err != nil {
		t.Fatal(err)
	}
	admin := st.(store.Admin)
	leaseA, err := admin.LeaseOf(t.Context(), ns+"/event", "host-a")
	if err != nil {
		t.Fatal(err)
	}
	if status, _, body := do(t, a, "DELETE", "/machines/"+ns+"%2Fevent?instanceId=host-a", ""); status != 200 {
		t.Fatalf("4.x revert: %d %s, want 200 (reverting what is not held is done)", status, body)
	}
	if _, err := admin.LeaseOf(t.Context(), ns+"/event", "host-a"); err != nil {
		t.Errorf("host-a's lease after the forged revert: %v", err)
	}
	// A 4.x instance that names itself host-a is a 4.x instance of its own.
	status, _, body := do(t, a, "POST", "/machines/"+ns+"%2Fevent?instanceId=host-a&machineBit=10&safeGuardDuration=PT30S", "")
	var m machineState4x
	if status == 200 && (json.Unmarshal([]byte(body), &m) != nil || m.MachineID == leaseA.Slot) {
		t.Errorf("4.x distribute as host-a: %s, host-a's slot is %d", body, leaseA.Slot)
	}
	if _, err := snowflakeIDs(t, b, 2); err != nil { // B leases its slot
		t.Fatal(err)
	}
	leaseB, err := admin.LeaseOf(t.Context(), ns+"/event", "host-b")
	if err != nil {
		t.Fatal(err)
	}
	if leaseB.Slot == leaseA.Slot && leaseB.Floor <= leaseA.Ceiling {
		t.Errorf("host-b got host-a's slot %d with floor %d, below host-a's ceiling %d", leaseB.Slot, leaseB.Floor, leaseA.Ceiling)
	}
	var wg sync.WaitGroup
	ids := make([][]string, 2)
	errs := make([]error, 2)
	for i, s := range []*Server{a, b} {
		wg.Go(func() { ids[i], errs[i] = snowflakeIDs(t, s, 50000) })
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, id := range ids[0] {
		seen[id] = true
	}
	dup := 0
	for _, id := range ids[1] {
		if seen[id] {
			dup++
		}
	}
	if dup > 0 || errs[0] != nil || errs[1] != nil {
		t.Errorf("%d ids issued by both servers (of %d and %d); errors %v, %v", dup, len(ids[0]), len(ids[1]), errs[0], errs[1])
	}
}

// TestSecurity_C1_ForgedStoreReleaseKeepsFloor replays the forgery through the store
// API: lease-of gives a victim's lease, a release of it with lastUsedMs 0 follows,
// then another owner acquires. lease-of answers no incarnation, so the release frees
// nothing, and the next owner's floor stays above all the victim may stamp.
func TestSecurity_C1_ForgedStoreReleaseKeepsFloor(t *testing.T) {
	// The forger holds the admin token too: the worst case, not a role mistake.
	s := newTrustServer(t, openRuntime(t), WithStore(memstore.New()), WithRoleToken(RoleAdmin, "c1-admin"))
	post := func(path string, body any, out any) (int, string) {
		t.Helper()
		b, _ := json.Marshal(body)
		status, _, resp := do(t, s, "POST", path, string(b), "Content-Type", "application/json", "Authorization", "Bearer c1-admin")
		if out != nil && status == 200 {
			if err := json.Unmarshal([]byte(resp), out); err != nil {
				t.Fatalf("%s: %v in %s", path, err, resp)
			}
		}
		return status, resp
	}
	acquire := func(owner string) wire.Lease {
		t.Helper()
		p := 0
		var l wire.Lease
		if status, body := post(wire.PathAcquire, wire.LeaseRequest{Namespace: "c1/ns", OwnerKey: owner, Limit: 4, Tolerance: "1s", TTL: "1m", Preferred: &p}, &l); status != 200 {
			t.Fatalf("acquire %s: %d %s", owner, status, body)
		}
		return l
	}
	victim := acquire("victim")
	var found wire.Lease
	if status, body := post(wire.PathLeaseOf, wire.LeaseOfRequest{Namespace: "c1/ns", OwnerKey: "victim"}, &found); status != 200 {
		t.Fatalf("lease-of: %d %s", status, body)
	}
	if found.Incarnation != "" || found.Slot != victim.Slot || found.Fence != victim.Fence {
		t.Errorf("lease-of = %+v, want the victim's slot and fence without its incarnation", found)
	}
	if status, body := post(wire.PathRelease, wire.ReleaseRequest{Lease: found, LastUsedMs: 0}, nil); status == 200 {
		t.Errorf("forged release: %d %s, want a refusal", status, body)
	}
	next := acquire("thief")
	if next.Slot == victim.Slot && next.Floor <= victim.Ceiling {
		t.Errorf("the next owner of slot %d starts at %d, below the victim's ceiling %d", next.Slot, next.Floor, victim.Ceiling)
	}
	// The owner itself, with its incarnation, still releases at its last stamp (L3).
	if status, body := post(wire.PathRelease, wire.ReleaseRequest{Lease: victim, LastUsedMs: victim.Floor}, nil); status != 200 {
		t.Errorf("the owner's release: %d %s", status, body)
	}
}

// TestSecurity_C1_StoreAPIRefuses4xOwnerKeys checks that the store API acquires no
// lease under the 4.x API's owner key prefix, which the 4.x API alone uses.
func TestSecurity_C1_StoreAPIRefuses4xOwnerKeys(t *testing.T) {
	s := newTrustServer(t, openRuntime(t), WithStore(memstore.New()))
	body := `{"namespace":"c1/ns","ownerKey":"cosid4x:host-a","limit":4,"tolerance":"1s","ttl":"1m"}`
	status, h, resp := do(t, s, "POST", wire.PathAcquire, body, "Content-Type", "application/json")
	checkError(t, status, h, resp, 400, wire.CodeInvalidArgument, `"cosid4x:"`)
}
