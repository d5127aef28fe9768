package cosidbun_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/orm/cosidbun"
	"github.com/cosid-go/cosid/store"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	_ "github.com/jackc/pgx/v5/stdlib" // the driver "pgx" of COSID_TEST_POSTGRES
	_ "modernc.org/sqlite"             // the driver "sqlite", pure Go
)

// config has a generator of each kind: a segment (ranges), a snowflake (int64
// ids one at a time) and a periodic segment (text only).
const config = `
cosid:
  stores: { mem: { type: memory } }
  generators:
    order: { strategy: segment, store: mem, step: 100 }
    line: { strategy: segment, store: mem, step: 10, lookahead: 0s }
    event: { strategy: snowflake, machine-id: 3 }
    bill:
      strategy: periodic-segment
      store: mem
      period: YEAR_MONTH_DAY
      zone: UTC
    tenant: { strategy: segment, store: mem, keyed: true }
`

// ids is the Filler that the test models' hooks use: each test sets it.
var ids *cosidbun.Filler

// useRuntime opens config, its stores wrapped by wrap when it is not nil, and
// makes its Filler the models'.
func useRuntime(t testing.TB, wrap func(store.RangeStore) store.RangeStore) *cosid.Runtime {
	t.Helper()
	cfg, err := cosid.ParseConfig([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	opts := []cosid.Option{cosid.WithLogger(nil)}
	if wrap != nil {
		opts = append(opts, cosid.WithStoreWrapper(func(_, _ string, st store.RangeStore) store.RangeStore { return wrap(st) }))
	}
	rt, err := cosid.Open(context.Background(), cfg, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	ids = cosidbun.New(rt)
	return rt
}

// dialect opens a bun database of its own for a test.
type dialect struct {
	name string
	open func(t testing.TB) *bun.DB
}

var dialects = []dialect{
	{"SQLite", func(t testing.TB) *bun.DB {
		sqldb, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "bun.db")+"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)")
		if err != nil {
			t.Fatal(err)
		}
		return bun.NewDB(sqldb, sqlitedialect.New())
	}},
	{"PostgreSQL", openPostgres},
}

var schemas atomic.Int64

// openPostgres returns a database on a schema of the test's own in the database of
// COSID_TEST_POSTGRES, dropped when the test ends.
func openPostgres(t testing.TB) *bun.DB {
	dsn := testenv.Server(t, testenv.Postgres)
	admin, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("cosidbun_%d_%d", os.Getpid(), schemas.Add(1))
	if _, err := admin.Exec("drop schema if exists " + name + " cascade; create schema " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec("drop schema " + name + " cascade")
		admin.Close()
	})
	sqldb, err := sql.Open("pgx", dsn+"&search_path="+name)
	if err != nil {
		t.Fatal(err)
	}
	return bun.NewDB(sqldb, pgdialect.New())
}

// openDB opens d and creates the tables of models.
func openDB(t testing.TB, d dialect, models ...any) *bun.DB {
	t.Helper()
	db := d.open(t)
	t.Cleanup(func() { db.Close() })
	for _, m := range models {
		if _, err := db.NewCreateTable().Model(m).Exec(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// eachDialect runs f on every dialect, as a subtest.
func eachDialect(t *testing.T, f func(t *testing.T, d dialect)) {
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) { f(t, d) })
	}
}

// failing is a store whose reservations fail: a store that is down.
type failing struct{ store.RangeStore }

var errDown = errors.New("the store is down")

func (failing) Reserve(context.Context, string, int64, int64) (store.Range, error) {
	return store.Range{}, errDown
}

// counting is a store that counts its reservations of the key whose name ends with
// suffix.
type counting struct {
	store.RangeStore
	suffix   string
	reserves *atomic.Int64
}

func (c counting) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	if strings.HasSuffix(key, c.suffix) {
		c.reserves.Add(1)
	}
	return c.RangeStore.Reserve(ctx, key, size, initialOffset)
}
