package sqldb_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// TestReserve_ConnectionKilledMidReserve blocks a reservation on a row lock, kills
// the server session running it, and checks that the reservation fails with no range
// and that the next one works without overlap.
func TestReserve_ConnectionKilledMidReserve(t *testing.T) {
	tests := []struct {
		b    backend
		find string // returns the blocked session's id; %s is the table
		kill func(ctx context.Context, db *sql.DB, id int64) error
	}{
		{
			b:    backend{name: "postgresql", driver: "pgx", envVar: testenv.Postgres},
			find: "select pid from pg_stat_activity where wait_event_type = 'Lock' and query like '%%%s%%' and pid <> pg_backend_pid()",
			kill: func(ctx context.Context, db *sql.DB, id int64) error {
				_, err := db.ExecContext(ctx, "select pg_terminate_backend($1)", id)
				return err
			},
		},
		{
			b:    backend{name: "mariadb", driver: "mysql", envVar: testenv.MySQL},
			find: "select id from information_schema.processlist where info like 'insert into `%s`%%' and id <> connection_id()",
			kill: func(ctx context.Context, db *sql.DB, id int64) error {
				_, err := db.ExecContext(ctx, fmt.Sprintf("kill %d", id))
				return err
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.b.name, func(t *testing.T) {
			t.Parallel()
			dsn := tc.b.dsn(t)
			db := openDB(t, tc.b, dsn)
			tables := tempTables(t, db)
			st := openStore(t, tc.b, dsn, sqlstore.WithTables(tables))
			ctx := t.Context()
			const key = "killed"
			first, locker := lockRow(t, st, db, fmt.Sprintf(lockKeyRow[tc.b.name], tables.Range), key)
			type result struct {
				r   store.Range
				err error
			}
			done := make(chan result, 1)
			go func() {
				r, err := st.Reserve(ctx, key, 10, 0)
				done <- result{r, err}
			}()
			var id int64
			for id == 0 { // until the reservation waits on the lock
				err := db.QueryRowContext(ctx, fmt.Sprintf(tc.find, tables.Range)).Scan(&id)
				if err != nil && err != sql.ErrNoRows {
					t.Fatal(err)
				}
			}
			if err := tc.kill(ctx, db, id); err != nil {
				t.Fatal(err)
			}
			res := <-done
			if res.err == nil || res.r != (store.Range{}) {
				t.Fatalf("reservation on a killed session = %v, %v; want an error and no range", res.r, res.err)
			}
			t.Logf("killed reservation: %v", res.err)
			if err := locker.Rollback(); err != nil {
				t.Fatal(err)
			}
			next, err := st.Reserve(ctx, key, 10, 0)
			if err != nil {
				t.Fatalf("reservation after the kill: %v", err)
			}
			if next.Start < first.End {
				t.Errorf("reservation after the kill %v overlaps %v", next, first)
			}
		})
	}
}
