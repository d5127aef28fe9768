package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/cosid-go/cosid/internal/testenv"
)

// BenchmarkReserve measures Store.Reserve (impl=store) beside its bare upsert
// statement, prepared once and run through the same driver and pool size
// (impl=bare) under the same caller's context, with 1 and 16 goroutines, each on a key of its own. Compare them with
// benchstat -col /impl.
func BenchmarkReserve(b *testing.B) {
	for _, db := range benchDBs {
		b.Run("db="+db.name, func(b *testing.B) {
			st, pool := db.open(b)
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

// benchDB is a live database of the benchmarks.
type benchDB struct{ name, driver, env string }

var benchDBs = []benchDB{
	{"postgresql", "pgx", testenv.Postgres},
	{"mariadb", "mysql", testenv.MySQL},
	{"sqlite", "sqlite", ""},
}

// open opens a store on the database, and a pool of its own for the bare statements
// that is configured as Open configures the store's; both are closed when b ends.
func (db benchDB) open(b *testing.B) (*Store, *sql.DB) {
	dsn := filepath.Join(b.TempDir(), "bench.db")
	if db.env != "" {
		dsn = testenv.Server(b, db.env)
	}
	st, err := Open(db.driver, dsn, 5*time.Second, WithInitSchema(true), WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	pool, err := openPool(db.driver, dsn, st.timeout)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { pool.Close() })
	if db.driver == "sqlite" {
		pool.SetMaxOpenConns(1)
	}
	return st, pool
}

// bareReserver returns the store's upsert statement, prepared on db.
func bareReserver(b *testing.B, db *sql.DB, st *Store) func(ctx context.Context, key string) error {
	switch r := st.ranges.(type) {
	case numbered:
		stmt, err := db.Prepare(r.reserve)
		if err != nil {
			b.Fatal(err)
		}
		return func(ctx context.Context, key string) error {
			var next int64
			return stmt.QueryRowContext(ctx, key, int64(100), int64(101)).Scan(&next)
		}
	case mysqlRanges:
		stmt, err := db.Prepare(r.reserve)
		if err != nil {
			b.Fatal(err)
		}
		return func(ctx context.Context, key string) error {
			res, err := stmt.ExecContext(ctx, key, int64(101), int64(100), int64(100))
			if err == nil {
				_, err = res.LastInsertId()
			}
			return err
		}
	}
	b.Fatalf("no bare statement for %T", st.ranges)
	return nil
}
