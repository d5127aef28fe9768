package sqldb_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// TestReplicationGate_PostgresSetsSynchronousCommitOnEveryConnection opens a
// store on the CI's PostgreSQL with a DSN whose sessions start with
// synchronous_commit=local: every connection of the pool Open made says on (the
// gate runs on each new one, not once), and New on such a pool, which the store
// cannot change, is refused. The pool makes new connections while reservations
// wait, each on a connection of its own, for a row that the test holds locked;
// spyDriver keeps them, to ask each its setting.
func TestReplicationGate_PostgresSetsSynchronousCommitOnEveryConnection(t *testing.T) {
	dsn := testenv.Server(t, testenv.Postgres) + "&options=-c%20synchronous_commit%3Dlocal"
	before := len(spy.opened()) // those of an earlier run, closed
	var log bytes.Buffer
	st, err := sqlstore.Open(spyName, dsn, 10*time.Second, sqlstore.WithLogger(slog.New(slog.NewTextHandler(&log, nil))), sqlstore.WithInitSchema(true),
		sqlstore.WithTables(gateTables))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if !strings.Contains(log.String(), "synchronous_commit = on") {
		t.Errorf("no note of the raised setting in %q", log.String())
	}
	// Hold several connections at once, so that the pool makes new ones.
	ctx := t.Context()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	key := "gate/" + rand.Text()[:10]
	_, locker := lockRow(t, st, db, fmt.Sprintf(lockKeyRow["postgresql"], gateTables.Range), key)
	const held = 4
	var wg sync.WaitGroup
	for range held {
		wg.Go(func() {
			if _, err := st.Reserve(ctx, key, 1, 0); err != nil {
				t.Error(err)
			}
		})
	}
	waited := spy.waitConns(t, before+held, st.Timeout())
	locker.Rollback()
	wg.Wait()
	if !waited {
		return
	}
	for i, c := range spy.opened()[before:] {
		if v, err := sessionSetting(ctx, c, "show synchronous_commit"); err != nil || v != "on" {
			t.Errorf("connection %d: synchronous_commit %q, %v; want on", i, v, err)
		}
	}
	_, err = sqlstore.New(db, 10*time.Second)
	checkRefusal(t, err, true, []string{"synchronous_commit is local", "ALTER ROLE"})
}

// gateTables are the tables of the replication gate's tests.
var gateTables = sqlstore.Tables{Range: "gate_range", Slot: "gate_slot", Namespace: "gate_ns"}

// spyName is the driver name of spy: pgx's driver, keeping every connection it opens.
const spyName = "pgx-spy"

var spy = &spyDriver{Driver: stdlib.GetDefaultDriver()}

func init() { sql.Register(spyName, spy) }

// spyDriver is a driver that keeps every connection it opens, for the test to ask
// each its session's settings once the pool that opened it is idle.
type spyDriver struct {
	driver.Driver
	mu    sync.Mutex
	conns []driver.Conn
	more  chan struct{} // closed and replaced at each connection opened
}

func (d *spyDriver) Open(name string) (driver.Conn, error) {
	c, err := d.Driver.Open(name)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.conns = append(d.conns, c)
	if d.more != nil {
		close(d.more)
		d.more = nil
	}
	return c, nil
}

// opened returns the connections opened so far.
func (d *spyDriver) opened() []driver.Conn {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.conns)
}

// waitConns waits until the driver has opened n connections, or fails t after
// timeout, and reports whether it has.
func (d *spyDriver) waitConns(t *testing.T, n int, timeout time.Duration) bool {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		d.mu.Lock()
		count := len(d.conns)
		if d.more == nil {
			d.more = make(chan struct{})
		}
		more := d.more
		d.mu.Unlock()
		if count >= n {
			return true
		}
		select {
		case <-more:
		case <-deadline.C:
			t.Errorf("the pool opened %d connections in %v, want %d", count, timeout, n)
			return false
		}
	}
}

// sessionSetting runs query, a SHOW of one setting, on the driver's connection c.
func sessionSetting(ctx context.Context, c driver.Conn, query string) (string, error) {
	rows, err := c.(driver.QueryerContext).QueryContext(ctx, query, nil)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	v := make([]driver.Value, 1)
	if err := rows.Next(v); err != nil {
		return "", err
	}
	return fmt.Sprint(v[0]), nil
}

func checkRefusal(t *testing.T, err error, refused bool, mention []string) {
	t.Helper()
	if got := errors.Is(err, sqlstore.ErrUnsafeReplication); got != refused {
		t.Fatalf("error %v; want refused: %v", err, refused)
	}
	for _, m := range mention {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q does not say %q", err, m)
		}
	}
}

// TestReplicationGate_SharedServersAccepted opens a store on each of the CI's
// servers, single and durable: the gate accepts them, with and without the
// opt-in, whose warning is logged at start.
func TestReplicationGate_SharedServersAccepted(t *testing.T) {
	for _, b := range []struct{ driver, env string }{{"pgx", testenv.Postgres}, {"mysql", testenv.MySQL}} {
		t.Run(b.driver, func(t *testing.T) {
			dsn := testenv.Server(t, b.env)
			for _, allow := range []bool{false, true} {
				var log bytes.Buffer
				st, err := sqlstore.Open(b.driver, dsn, 10*time.Second, sqlstore.WithAllowAsyncReplicas(allow), sqlstore.WithInitSchema(true),
					sqlstore.WithLogger(slog.New(slog.NewTextHandler(&log, nil))), sqlstore.WithTables(gateTables))
				if err != nil {
					t.Fatalf("allowAsyncReplicas %v: %v", allow, err)
				}
				st.Close()
				if warned := strings.Contains(log.String(), "allowAsyncReplicas"); warned != allow {
					t.Errorf("allowAsyncReplicas %v: log %q", allow, log.String())
				}
			}
		})
	}
}

// TestReplicationGate_ConfigOptInIsWarnedAtStart opens a type sql store from
// settings with options: { allowAsyncReplicas: true }: the store opens and warns.
func TestReplicationGate_ConfigOptInIsWarnedAtStart(t *testing.T) {
	dsn := testenv.Server(t, testenv.Postgres)
	var log bytes.Buffer
	text := "driver: pgx\ndsn: " + strconv.Quote(dsn) + "\ntimeout: 10s\noptions: { allowAsyncReplicas: true, initSchema: true, rangeTable: gate_range, slotTable: gate_slot, namespaceTable: gate_ns }\n"
	typ, _ := store.Lookup("sql")
	st, err := typ.Open(t.Context(), testenv.Spec("gate", text, slog.New(slog.NewTextHandler(&log, nil))))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if !strings.Contains(log.String(), "level=WARN") || !strings.Contains(log.String(), "allowAsyncReplicas") {
		t.Errorf("no warning of the opt-in in %q", log.String())
	}
}
