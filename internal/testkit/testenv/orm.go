package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cosid-go/cosid/store"
)

var schemas atomic.Int64

// PostgresSchema returns the URL of the database of COSID_TEST_POSTGRES whose
// search_path is a new schema of the test's own, named prefix_<pid>_<n> and dropped
// when the test ends; it skips or fails t as Server does. The caller links the
// database/sql driver "pgx" (github.com/jackc/pgx/v5/stdlib).
func PostgresSchema(t testing.TB, prefix string) string {
	t.Helper()
	dsn := Server(t, Postgres)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("%s_%d_%d", prefix, os.Getpid(), schemas.Add(1))
	if _, err := db.Exec("drop schema if exists " + name + " cascade; create schema " + name); err != nil {
		db.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		db.Exec("drop schema " + name + " cascade")
		db.Close()
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "search_path=" + name
}

// ReserveHook is a store whose Reserve calls hook first: hook's error fails the
// reservation (a store that is down), and hook may count them.
type ReserveHook struct {
	store.RangeStore
	Hook func(key string, size int64) error
}

// Reserve calls Hook, then the store's Reserve unless Hook failed.
func (h ReserveHook) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	if err := h.Hook(key, size); err != nil {
		return store.Range{}, err
	}
	return h.RangeStore.Reserve(ctx, key, size, initialOffset)
}
