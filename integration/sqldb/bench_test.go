package sqldb_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// BenchmarkReserve measures Store.Reserve (impl=store) beside its bare upsert
// statement, prepared once and run through the same driver and pool size
// (impl=bare) under the same caller's context, with 1 and 16 goroutines, each on a key of its own. Compare them with
// benchstat -col /impl.
func BenchmarkReserve(b *testing.B) {
	for _, db := range backends {
		b.Run("db="+db.name, func(b *testing.B) {
			st, pool := openBench(b, db)
			bare := bareReserver(b, pool, st)
			prefix := "bench/" + rand.Text()[:8]
			for _, goroutines := range []int{1, 16} {
				for _, impl := range []struct {
					name    string
					reserve func(ctx context.Context, key string) error
				}{
					{"bare", bare},
					{"store", func(ctx context.Context, key string) error {
						_, err := st.Reserve(ctx, key, 100, 1)
						return err
					}},
				} {
					b.Run(fmt.Sprintf("g=%d/impl=%s", goroutines, impl.name), func(b *testing.B) {
						runReserves(b, goroutines, prefix+"/"+impl.name, impl.reserve)
					})
				}
			}
		})
	}
}

// runReserves runs reserve b.N times on goroutines goroutines, each with its own key.
// The context can be canceled, as the one segment.Generator passes to a store: with
// context.Background, database/sql and pgx skip the goroutines that watch a context,
// which no caller of a store skips.
func runReserves(b *testing.B, goroutines int, prefix string, reserve func(ctx context.Context, key string) error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if goroutines == 1 {
		for b.Loop() {
			if err := reserve(ctx, prefix+"/0"); err != nil {
				b.Fatal(err)
			}
		}
		return
	}
	b.SetParallelism((goroutines + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	var id atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		key := fmt.Sprintf("%s/%d", prefix, id.Add(1))
		for pb.Next() {
			if err := reserve(ctx, key); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// openBench opens a store on the database, and a pool of its own for the bare
// statements that is configured as Open configures the store's; both are closed
// when b ends.
func openBench(b *testing.B, db backend) (*sqlstore.Store, *sql.DB) {
	dsn := filepath.Join(b.TempDir(), "bench.db")
	if db.envVar != "" {
		dsn = testenv.Server(b, db.envVar)
	}
	st, err := sqlstore.Open(db.driver, dsn, 5*time.Second, sqlstore.WithInitSchema(true), sqlstore.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	pool := openPool(b, db.driver, dsn, st.Timeout())
	if db.driver == "sqlite" {
		pool.SetMaxOpenConns(1)
	}
	return st, pool
}

// dialectOf returns the dialect of st, and its tables, named tables, quoted.
func dialectOf(b testing.TB, st *sqlstore.Store, tables sqlstore.Tables) (sqlstore.Dialect, sqlstore.Tables) {
	d, ok := sqlstore.LookupDialect(st.Dialect())
	if !ok {
		b.Fatalf("no dialect %q", st.Dialect())
	}
	return d, sqlstore.Tables{Range: d.QuoteIdent(tables.Range), Slot: d.QuoteIdent(tables.Slot), Namespace: d.QuoteIdent(tables.Namespace)}
}

// firstStatement is a Querier that runs every statement on db and keeps the first,
// with its arguments and whether it was run by ExecContext.
type firstStatement struct {
	db    *sql.DB
	query string
	args  []any
	exec  bool
}

func (f *firstStatement) keep(query string, args []any, exec bool) {
	if f.query == "" {
		f.query, f.args, f.exec = query, args, exec
	}
}

func (f *firstStatement) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	f.keep(query, args, true)
	return f.db.ExecContext(ctx, query, args...)
}

func (f *firstStatement) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	f.keep(query, args, false)
	return f.db.QueryContext(ctx, query, args...)
}

func (f *firstStatement) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	f.keep(query, args, false)
	return f.db.QueryRowContext(ctx, query, args...)
}

// bareReserver returns the store's upsert statement, prepared on db: the statement
// that the dialect's Reserve runs, found by running it once on a key of its own,
// with the arguments it takes for size 100 and created 101 (the store's Reserve of
// 100 with initial offset 1), the key replaced by the caller's. The statement reads
// the value back (numbered dialects) or reports it as the last insert id (MySQL).
func bareReserver(b *testing.B, db *sql.DB, st *sqlstore.Store) func(ctx context.Context, key string) error {
	d, tables := dialectOf(b, st, sqlstore.DefaultTables())
	probe := "bench/probe/" + rand.Text()[:8]
	first := &firstStatement{db: db}
	if _, _, err := d.Ranges(tables).Reserve(b.Context(), first, probe, 100, 101); err != nil {
		b.Fatal(err)
	}
	keyAt := slices.Index(first.args, any(probe))
	if keyAt < 0 {
		b.Fatalf("the reserve statement %q took no key: %v", first.query, first.args)
	}
	stmt, err := db.Prepare(first.query)
	if err != nil {
		b.Fatal(err)
	}
	args := func(key string) []any {
		a := slices.Clone(first.args)
		a[keyAt] = key
		return a
	}
	if first.exec {
		return func(ctx context.Context, key string) error {
			res, err := stmt.ExecContext(ctx, args(key)...)
			if err == nil {
				_, err = res.LastInsertId()
			}
			return err
		}
	}
	return func(ctx context.Context, key string) error {
		var next int64
		return stmt.QueryRowContext(ctx, args(key)...).Scan(&next)
	}
}
