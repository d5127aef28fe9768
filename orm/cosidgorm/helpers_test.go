package cosidgorm_test

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
	"github.com/cosid-go/cosid/orm/cosidgorm"
	"github.com/cosid-go/cosid/store"
	"github.com/glebarez/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
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

// openRuntime opens config, its stores wrapped by wrap when it is not nil.
func openRuntime(t testing.TB, wrap func(store.RangeStore) store.RangeStore) *cosid.Runtime {
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
	return rt
}

// dialect opens a gorm database of its own for a test.
type dialect struct {
	name string
	open func(t testing.TB) gorm.Dialector
}

var dialects = []dialect{
	{"SQLite", func(t testing.TB) gorm.Dialector {
		return sqlite.Open(filepath.Join(t.TempDir(), "gorm.db") + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)")
	}},
	{"PostgreSQL", openPostgres},
}

var schemas atomic.Int64

// openPostgres returns a dialector on a schema of the test's own in the database of
// COSID_TEST_POSTGRES, dropped when the test ends.
func openPostgres(t testing.TB) gorm.Dialector {
	dsn := testenv.Server(t, testenv.Postgres)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("cosidgorm_%d_%d", os.Getpid(), schemas.Add(1))
	if _, err := db.Exec("drop schema if exists " + name + " cascade; create schema " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Exec("drop schema " + name + " cascade")
		db.Close()
	})
	return postgres.Open(dsn + "&search_path=" + name)
}

// openDB opens d with the plugin of rt.
func openDB(t testing.TB, d dialect, rt *cosid.Runtime, models ...any) *gorm.DB {
	t.Helper()
	db, err := gorm.Open(d.open(t), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			sqlDB.Close()
		}
	})
	if rt != nil {
		if err := db.Use(cosidgorm.New(rt)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.AutoMigrate(models...); err != nil {
		t.Fatal(err)
	}
	return db
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
