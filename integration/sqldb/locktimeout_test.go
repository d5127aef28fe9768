package sqldb_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// TestTimedOutStatement_NeverTakesEffectLater locks a key's row in another
// transaction, lets a Reserve and a Seal of the key time out on the lock, waits until
// the server has ended their statements, releases the lock, and checks that the key
// is as it was: a statement whose caller was told it failed does not commit once the
// lock is free. The server must end it on its own, within about the store's timeout
// (rounded up to a whole second on MySQL and MariaDB): a closed connection does not
// stop a statement that waits on a lock.
func TestTimedOutStatement_NeverTakesEffectLater(t *testing.T) {
	const timeout = time.Second
	// serverBound is how long after its caller's timeout a statement may go on on the
	// server: far above the timeout's rounding, far below the 50 s of MySQL's and
	// MariaDB's default innodb_lock_wait_timeout.
	const serverBound = 15 * time.Second
	tests := []struct {
		b       backend
		running string // counts the store's statements still on the server; %s is the table
	}{
		{
			b:       backend{name: "postgresql", driver: "pgx", envVar: testenv.Postgres},
			running: `select count(*) from pg_stat_activity where state <> 'idle' and query like 'insert into "%s"%%' and pid <> pg_backend_pid()`,
		},
		{
			b:       backend{name: "mariadb", driver: "mysql", envVar: testenv.MySQL},
			running: "select count(*) from information_schema.processlist where info like 'insert into `%s`%%' and id <> connection_id()",
		},
	}
	for _, tc := range tests {
		t.Run(tc.b.name, func(t *testing.T) {
			t.Parallel()
			dsn := tc.b.dsn(t)
			db := openDB(t, tc.b, dsn)
			tables := tempTables(t, db)
			st, err := sqlstore.Open(tc.b.driver, dsn, timeout, sqlstore.WithInitSchema(true), sqlstore.WithTables(tables), sqlstore.WithLogger(nil))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ctx := t.Context()
			const key = "locked"
			first, locker := lockRow(t, st, db, fmt.Sprintf(lockKeyRow[tc.b.name], tables.Range), key)
			var wg sync.WaitGroup
			done := make(chan struct{})
			seen := make(chan error, 1)
			go func() { seen <- waitSeen(done, db, fmt.Sprintf(tc.running, tables.Range)) }()
			// The caller's deadline and the server's lock wait end about together:
			// either error will do.
			wg.Go(func() {
				if r, err := st.Reserve(ctx, key, 10, 0); err == nil {
					t.Errorf("Reserve of a locked key = %v, want a timeout", r)
				}
			})
			wg.Go(func() {
				if err := st.Seal(ctx, key); err == nil {
					t.Error("Seal of a locked key succeeded, want a timeout")
				}
			})
			wg.Wait()
			close(done)
			if err := <-seen; err != nil {
				t.Fatal(err)
			}
			if t.Failed() {
				return
			}
			if err := waitGone(ctx, db, fmt.Sprintf(tc.running, tables.Range), serverBound); err != nil {
				t.Fatal(err)
			}
			if err := locker.Rollback(); err != nil {
				t.Fatal(err)
			}
			var (
				v      int64
				sealed bool
			)
			if err := db.QueryRowContext(ctx, fmt.Sprintf("select next_value, sealed from %s where range_key = '%s'", tables.Range, key)).Scan(&v, &sealed); err != nil {
				t.Fatal(err)
			}
			if v != first.End || sealed {
				t.Fatalf("after the timed-out Reserve and Seal the key is at %d, sealed %v; want %d, not sealed", v, sealed, first.End)
			}
			if r, err := st.Reserve(ctx, key, 10, 0); err != nil || r != (store.Range{Start: first.End, End: first.End + 10}) {
				t.Fatalf("Reserve after the lock = %v, %v; want [%d, %d)", r, err, first.End, first.End+10)
			}
		})
	}
}

// waitSeen polls count, a query that counts statements on the server, until it is
// positive, and fails when done closes first: a query that cannot see the statements
// would find them gone at once.
func waitSeen(done <-chan struct{}, db *sql.DB, count string) error {
	for {
		select {
		case <-done:
			return errors.New("the store's statements never showed on the server while their callers waited")
		default:
		}
		var n int
		if err := db.QueryRow(count).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
	}
}

// waitGone polls count, a query that counts statements on the server, until it is 0,
// and fails when it is not within bound.
func waitGone(ctx context.Context, db *sql.DB, count string, bound time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var n int
		if err := db.QueryRowContext(ctx, count).Scan(&n); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("the store's statements still run on the server %v after their callers timed out", bound)
			}
			return err
		}
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of the store's statements still run on the server %v after their callers timed out", n, bound)
		case <-tick.C:
		}
	}
}

// TestNew_WarnsOfLockWaitsLongerThanTheTimeout gives New a MariaDB pool whose sessions
// wait on locks for the server's default, and one whose DSN bounds the waits by the
// store's timeout: only the first gets a warning that names the DSN parameters.
func TestNew_WarnsOfLockWaitsLongerThanTheTimeout(t *testing.T) {
	b := backend{name: "mariadb", driver: "mysql", envVar: testenv.MySQL}
	dsn := b.dsn(t)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	tests := []struct {
		name string
		dsn  string
		warn bool
	}{
		{"DefaultWaits", dsn, true},
		{"BoundedWaits", dsn + sep + "innodb_lock_wait_timeout=2&lock_wait_timeout=2", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t, b, tc.dsn)
			var log bytes.Buffer
			st, err := sqlstore.New(db, 2*time.Second, sqlstore.WithInitSchema(true), sqlstore.WithTables(tempTables(t, db)),
				sqlstore.WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			warned := strings.Contains(log.String(), "level=WARN") && strings.Contains(log.String(), "innodb_lock_wait_timeout=2&lock_wait_timeout=2")
			if warned != tc.warn {
				t.Errorf("warned = %v, want %v; log:\n%s", warned, tc.warn, log.String())
			}
		})
	}
}

// TestReserve_CanceledTransactionKeepsItsConnection cancels a FetchTransaction
// reservation while it waits on a row lock: the caller is answered at once, and the
// transaction rolls back on its connection, which stays open, instead of having the
// connection closed under it, which leaves the server holding the transaction's row
// locks until it notices. Once the lock is free, the key is as it was and the store
// still runs on the same server session.
func TestReserve_CanceledTransactionKeepsItsConnection(t *testing.T) {
	tests := []struct {
		b            backend
		waiting, pid string // waiting counts the store's updates on the server; %s is the table
	}{
		{
			b:       backend{name: "postgresql", driver: "pgx", envVar: testenv.Postgres},
			waiting: `select count(*) from pg_stat_activity where wait_event_type = 'Lock' and query like 'update "%s"%%'`,
			pid:     "select pg_backend_pid()",
		},
		{
			b:       backend{name: "mariadb", driver: "mysql", envVar: testenv.MySQL},
			waiting: "select count(*) from information_schema.processlist where info like 'update `%s`%%'",
			pid:     "select connection_id()",
		},
	}
	for _, tc := range tests {
		t.Run(tc.b.name, func(t *testing.T) {
			t.Parallel()
			dsn := tc.b.dsn(t)
			db := openDB(t, tc.b, dsn)
			db.SetMaxOpenConns(1) // the store's one session
			tables := tempTables(t, db)
			st, err := sqlstore.New(db, testTimeout, sqlstore.WithFetchPlan(sqlstore.FetchTransaction), sqlstore.WithInitSchema(true),
				sqlstore.WithTables(tables), sqlstore.WithLogger(nil))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			var session, after int64
			if err := db.QueryRow(tc.pid).Scan(&session); err != nil {
				t.Fatal(err)
			}
			other := openDB(t, tc.b, dsn)
			const key = "canceled"
			first, locker := lockRow(t, st, other, fmt.Sprintf(lockKeyRow[tc.b.name], tables.Range), key)

			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			returned := make(chan struct{})
			go func() {
				_, err := st.Reserve(ctx, key, 10, 0)
				done <- err
				close(returned)
			}()
			if err := waitSeen(returned, other, fmt.Sprintf(tc.waiting, tables.Range)); err != nil {
				t.Fatal(err)
			}
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("canceled Reserve: %v, want context.Canceled", err)
			}
			if err := locker.Rollback(); err != nil {
				t.Fatal(err)
			}
			// The session is the store's only connection: the query waits for the
			// transaction to end.
			if err := db.QueryRow(tc.pid).Scan(&after); err != nil {
				t.Fatal(err)
			}
			if after != session {
				t.Errorf("the store's session is %d after the canceled transaction, was %d: the connection was closed", after, session)
			}
			if r, err := st.Reserve(t.Context(), key, 10, 0); err != nil || r != (store.Range{Start: first.End, End: first.End + 10}) {
				t.Errorf("Reserve after the canceled one = %v, %v; want [%d, %d): the canceled one must roll back", r, err, first.End, first.End+10)
			}
		})
	}
}
