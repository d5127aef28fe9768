package sqldb_test

import (
	"crypto/rand"
	"database/sql"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// testTimeout is the timeout of the tests' stores. It is generous because no test of
// the kit checks it: 32 goroutines queue for SQLite's one writer, and on a loaded
// machine, with every fsync slow, the last of them waits seconds. The tests of the
// timeout itself open stores of their own with short ones.
const testTimeout = 20 * time.Second

// backend is a live database the tests run against.
type backend struct {
	name   string // the dialect it is detected as
	driver string
	envVar string // "" for SQLite, which needs no server
}

var backends = []backend{
	{name: "postgresql", driver: "pgx", envVar: testenv.Postgres},
	{name: "mariadb", driver: "mysql", envVar: testenv.MySQL},
	{name: "sqlite", driver: "sqlite"},
}

// dsn returns the backend's DSN: the server's from the environment (skipping t when
// unset), or a new SQLite file in t's temporary directory. The file syncs its log at
// checkpoints only (synchronous normal), not at every commit: no test loses power,
// and the syncs took a third of the SQLite kits' time; locking and isolation are
// as with the default.
func (b backend) dsn(t testing.TB) string {
	t.Helper()
	if b.envVar == "" {
		return filepath.Join(t.TempDir(), "cosid.db") + "?_pragma=synchronous(normal)"
	}
	return testenv.Server(t, b.envVar)
}

// openStore opens a store on dsn that t closes.
func openStore(t testing.TB, b backend, dsn string, opts ...sqlstore.Option) *sqlstore.Store {
	t.Helper()
	st, err := sqlstore.Open(b.driver, dsn, testTimeout, append([]sqlstore.Option{sqlstore.WithInitSchema(true), sqlstore.WithLogger(nil)}, opts...)...)
	if err != nil {
		t.Fatalf("Open(%s): %v", b.name, err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// openDB opens dsn with the backend's driver, for statements of the test's own.
func openDB(t testing.TB, b backend, dsn string) *sql.DB {
	t.Helper()
	if b.driver == "sqlite" {
		dsn += "&_pragma=busy_timeout(" + strconv.Itoa(int(testTimeout.Milliseconds())) + ")"
	}
	db, err := sql.Open(b.driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openPool opens a pool of driver on dsn, configured as sqlstore.Open configures the
// pool it owns: the DSN parameters it adds (SQLite's busy timeout and WAL mode, the
// lock waits of MySQL bounded by timeout, each unless dsn sets it) and the pool's
// size. It serves the tests that share one pool among stores of sqlstore.New, and the
// benchmarks' bare statements; t closes it. Open's replication gate runs on the
// pool's connections only once a store of Open installs it, so a store of New on
// this pool runs it once, at New, as on Open's own.
func openPool(t testing.TB, driver, dsn string, timeout time.Duration) *sql.DB {
	t.Helper()
	var add []string
	switch driver {
	case "sqlite":
		for _, p := range []string{"_pragma=busy_timeout(" + strconv.FormatInt(int64((timeout+time.Millisecond-1)/time.Millisecond), 10) + ")", "_pragma=journal_mode(wal)"} {
			if name, _, _ := strings.Cut(strings.TrimPrefix(p, "_pragma="), "("); !strings.Contains(dsn, name) {
				add = append(add, p)
			}
		}
	case "mysql":
		_, query, _ := strings.Cut(dsn[strings.LastIndexByte(dsn, '/')+1:], "?")
		secs := strconv.FormatInt(int64((timeout+time.Second-1)/time.Second), 10)
		for _, name := range []string{"innodb_lock_wait_timeout", "lock_wait_timeout"} {
			if !slices.ContainsFunc(strings.Split(query, "&"), func(p string) bool { return strings.HasPrefix(p, name+"=") }) {
				add = append(add, name+"="+secs)
			}
		}
	}
	if len(add) > 0 {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + strings.Join(add, "&")
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(poolSize)
	db.SetMaxIdleConns(poolSize)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return db
}

// poolSize is the size of the pool that sqlstore.Open opens.
const poolSize = 16

// tempTables returns table names unique to this run, and drops the tables when t ends.
func tempTables(t testing.TB, db *sql.DB) sqlstore.Tables {
	t.Helper()
	suffix := strings.ToLower(rand.Text()[:10])
	tables := sqlstore.Tables{Range: "t_range_" + suffix, Slot: "t_slot_" + suffix, Namespace: "t_ns_" + suffix}
	t.Cleanup(func() {
		for _, n := range []string{tables.Range, tables.Slot, tables.Namespace} {
			db.Exec("drop table if exists " + n)
		}
	})
	return tables
}

// lockKeyRow locks the row of a key in the range table (%s), per backend.
var lockKeyRow = map[string]string{
	"postgresql": "select next_value from %s where range_key = $1 for update",
	"mariadb":    "select next_value from %s where range_key = ? for update",
}

// lockRow reserves key on st, then locks its row with lock, a select … for update of
// the key, in a transaction of db that it returns, and that t rolls back. It returns
// the range reserved.
func lockRow(t testing.TB, st *sqlstore.Store, db *sql.DB, lock, key string) (store.Range, *sql.Tx) {
	t.Helper()
	first, err := st.Reserve(t.Context(), key, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	locker, err := db.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { locker.Rollback() })
	var v int64
	if err := locker.QueryRowContext(t.Context(), lock, key).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return first, locker
}
