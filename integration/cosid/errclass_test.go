package cosid_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/snowflake"
	"github.com/cosid-go/cosid/store"
	_ "github.com/cosid-go/cosid/store/redisstore" // the type redis of the configurations below
	"github.com/cosid-go/cosid/store/sqlstore"

	_ "modernc.org/sqlite" // the driver of the SQLite stores below, which the root does not link
)

// TestErrors_StoreProblemsAreUnavailableNotConfig checks the two kinds of failure: a
// store that cannot be used now (a dead port, a refused password, a full slot
// namespace) answers ErrUnavailable naming the store and saying what the server
// said, never ErrConfig; Open itself succeeds.
func TestErrors_StoreProblemsAreUnavailableNotConfig(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		store func(t *testing.T) string
		gen   string
		says  []string
	}{
		{"DeadPort", func(*testing.T) string {
			return "{type: sql, driver: pgx, dsn: 'postgres://postgres@127.0.0.1:1/test?sslmode=disable', timeout: 1s}"
		}, "{strategy: segment, store: db}", []string{`store "db" unavailable`, "connect"}},
		{"RefusedPassword", func(t *testing.T) string {
			c, err := mysql.ParseDSN(testenv.Server(t, testenv.MySQL))
			if err != nil {
				t.Fatal(err)
			}
			c.Passwd = "not-the-password"
			return "{type: sql, driver: mysql, dsn: '" + c.FormatDSN() + "', timeout: 2s}"
		}, "{strategy: segment, store: db}", []string{`store "db" unavailable`, "Access denied"}},
		{"FullNamespace", func(*testing.T) string {
			return "{type: sql, driver: sqlite, dsn: " + filepath.Join(dir, "slots.db") + ", options: {initSchema: true}}"
		}, "{strategy: snowflake, store: db, slots: 1, owner-key: second}", []string{`generator "ev" unavailable`, "no free slot"}},
	}
	// The full namespace: a first runtime holds its only slot.
	first := mustOpen(t, "cosid:\n  stores:\n    db: {type: sql, driver: sqlite, dsn: "+filepath.Join(dir, "slots.db")+
		", options: {initSchema: true}}\n  generators:\n    ev: {strategy: snowflake, store: db, slots: 1, owner-key: first}\n")
	if _, err := first.Next(t.Context(), "ev"); err != nil {
		t.Fatalf("the first owner: %v", err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := openYAML(t, "cosid:\n  stores:\n    db: "+tc.store(t)+"\n  generators:\n    ev: "+tc.gen+"\n")
			if err != nil {
				t.Fatalf("Open: %v; a store problem must not fail Open", err)
			}
			_, err = rt.Next(t.Context(), "ev")
			t.Log(err)
			if !errors.Is(err, cosid.ErrUnavailable) || errors.Is(err, cosid.ErrConfig) {
				t.Fatalf("Next: %v; want ErrUnavailable, not ErrConfig", err)
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("Next: %v; want it to say %q", err, s)
				}
			}
			if strings.Count(err.Error(), "cosid: ") != 1 {
				t.Errorf("Next: %v; want one cosid: prefix", err)
			}
			if tc.name == "FullNamespace" && !errors.Is(err, store.ErrNoFreeSlot) {
				t.Errorf("Next: %v; want it to wrap store.ErrNoFreeSlot", err)
			}
		})
	}
}

// TestErrors_OneErrUnavailable checks issue 19's one sentinel: the outage errors of
// the generator packages match cosid.ErrUnavailable and store.ErrUnavailable, which
// are one, and keep matching their own; ErrNotSetUp is no outage.
func TestErrors_OneErrUnavailable(t *testing.T) {
	if cosid.ErrUnavailable != store.ErrUnavailable || cosid.ErrNotSetUp != store.ErrNotSetUp {
		t.Fatal("cosid's ErrUnavailable and ErrNotSetUp are not store's")
	}
	for _, tc := range []struct {
		name   string
		err    error
		outage bool
	}{
		{"segment.ErrUnavailable", segment.ErrUnavailable, true},
		{"snowflake.ErrLeaseLost", snowflake.ErrLeaseLost, true},
		{"snowflake.ErrClockBackwards", snowflake.ErrClockBackwards, true},
		{"store.ErrNotSetUp", store.ErrNotSetUp, false},
		{"segment.ErrClosed", segment.ErrClosed, false},
		{"snowflake.ErrClosed", snowflake.ErrClosed, false},
		{"store.ErrClosed", store.ErrClosed, false},
	} {
		wrapped := fmt.Errorf("generator %q: %w", "x", tc.err)
		if got := errors.Is(wrapped, cosid.ErrUnavailable); got != tc.outage {
			t.Errorf("errors.Is(%s, cosid.ErrUnavailable) = %v, want %v", tc.name, got, tc.outage)
		}
		if !errors.Is(wrapped, tc.err) {
			t.Errorf("errors.Is(wrapped %s, itself) = false", tc.name)
		}
	}
}

// TestErrors_VolatileRedisIsNotSetUpNotUnavailable: a Redis that can lose
// acknowledged writes is refused for good, until an operator changes its
// settings or allowVolatile: the error is ErrNotSetUp naming both, and says
// "unavailable" nowhere, as it said before.
func TestErrors_VolatileRedisIsNotSetUpNotUnavailable(t *testing.T) {
	addr := testenv.Server(t, testenv.Redis)
	rt := mustOpen(t, "cosid:\n  stores:\n    cache: {type: redis, addr: '"+addr+"', timeout: 2s}\n"+
		"  generators:\n    order: {strategy: segment, store: cache}\n")
	_, err := rt.Next(t.Context(), "order")
	if !errors.Is(err, cosid.ErrNotSetUp) || errors.Is(err, cosid.ErrUnavailable) || errors.Is(err, cosid.ErrConfig) {
		t.Fatalf("Next on a volatile Redis: %v; want ErrNotSetUp, neither ErrUnavailable nor ErrConfig", err)
	}
	for _, s := range []string{`store "cache"`, "appendfsync always", "allowVolatile"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("Next on a volatile Redis: %v; want it to say %q", err, s)
		}
	}
	if strings.Contains(err.Error(), "unavailable") {
		t.Errorf("Next on a volatile Redis: %v; want no \"unavailable\"", err)
	}
}

// TestErrors_MissingTablesAreNotSetUpNotUnavailable checks issue 19's missing table:
// a database without CosId's tables, and initSchema off, answers ErrNotSetUp (a
// setup error that says what to run), not ErrUnavailable, also on the call after
// it, within the retry backoff or past it; once the tables exist the generator works
// without a restart.
func TestErrors_MissingTablesAreNotSetUpNotUnavailable(t *testing.T) {
	dir := t.TempDir()
	dsn := filepath.Join(dir, "bare.db")
	clock := &fakeClock{now: time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)}
	cfg, err := cosid.ParseConfig([]byte("cosid:\n  stores:\n    db: {type: sql, driver: sqlite, dsn: " + dsn + "}\n" +
		"  generators:\n    order: {strategy: segment, store: db}\n"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil), cosid.WithRetryClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	for _, call := range []string{"first", "within the backoff"} {
		_, err := rt.Next(t.Context(), "order")
		if !errors.Is(err, cosid.ErrNotSetUp) || errors.Is(err, cosid.ErrUnavailable) || errors.Is(err, cosid.ErrConfig) {
			t.Fatalf("%s Next without tables: %v; want ErrNotSetUp, neither ErrUnavailable nor ErrConfig", call, err)
		}
		if !strings.Contains(err.Error(), "options: { initSchema: true } in cosid.stores.db") || !strings.Contains(err.Error(), "cosid schema --dialect sqlite") {
			t.Errorf("%s Next without tables: %v; want it to name the setting and the script", call, err)
		}
	}
	st, err := sqlstore.Open("sqlite", dsn, 5*time.Second, sqlstore.WithInitSchema(true), sqlstore.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	clock.Add(time.Minute)
	if id, err := rt.Next(t.Context(), "order"); err != nil || id != "1" {
		t.Fatalf("Next once the tables exist = %q, %v; want 1", id, err)
	}
}
