package cosidbun_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/ormtest"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/orm/cosidbun"
	"github.com/cosid-go/cosid/store"

	_ "github.com/jackc/pgx/v5/stdlib" // the driver "pgx" of COSID_TEST_POSTGRES
	_ "modernc.org/sqlite"             // the driver "sqlite", pure Go
)

// ids is the Filler that the test models' hooks use: each test sets it.
var ids *cosidbun.Filler

// useRuntime opens ormtest's runtime, its stores wrapped by wrap unless it is nil,
// and makes its Filler the models'.
func useRuntime(t testing.TB, wrap func(store.RangeStore) store.RangeStore) *cosid.Runtime {
	t.Helper()
	rt := ormtest.Runtime(t, wrap)
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

// openPostgres returns a database on a schema of the test's own in the database of
// COSID_TEST_POSTGRES.
func openPostgres(t testing.TB) *bun.DB {
	sqldb, err := sql.Open("pgx", testenv.PostgresSchema(t, "cosidbun"))
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
