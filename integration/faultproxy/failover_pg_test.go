package faultproxy_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/faultproxy"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// lagTime is how long the replica's stream is held before the primary is killed:
// long enough for an asynchronous primary to acknowledge hundreds of reservations
// that the replica never gets.
const lagTime = 1500 * time.Millisecond

// queryOne runs query on the server at dsn (driver) and returns the first column
// of its first row.
func queryOne(ctx context.Context, driver, dsn, query string) (string, error) {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return "", err
	}
	defer db.Close()
	var v sql.NullString
	err = db.QueryRowContext(ctx, query).Scan(&v)
	return v.String, err
}

// failoverTables are the tables of the failover tests, made at setup with a
// timeout that a loaded machine meets.
var failoverTables = sqlstore.Tables{Range: "f_range", Slot: "f_slot", Namespace: "f_ns"}

// sqlOpener opens a SQL store on dsn with the store timeout of the harness, on
// the table the topology made.
func sqlOpener(driver, dsn string, opts ...sqlstore.Option) opener {
	opts = append([]sqlstore.Option{sqlstore.WithLogger(nil), sqlstore.WithTables(failoverTables)}, opts...)
	return func(ctx context.Context) (store.RangeStore, error) {
		return sqlstore.Open(driver, dsn, storeTimeout, opts...)
	}
}

// pgCluster is a PostgreSQL primary and one streaming standby made with
// pg_basebackup -R, which alternate on two ports: a failover kills the primary,
// promotes the standby and makes a new standby of it on the old primary's port.
// The standby streams through a proxy, which the failover holds.
type pgCluster struct {
	t                  *testing.T
	bin                string // the directory of initdb, postgres and pg_basebackup
	base               string
	cred               *syscall.Credential
	sync               bool // synchronous_standby_names = 'standby'
	ports              [2]int
	primary, standby   *ownServer
	pIndex             int // the primary's port is ports[pIndex]
	lag                *faultproxy.Proxy
	generation         int
	primaryDSN, anyDSN string
}

// newPGCluster starts a primary with synchronous_commit = commit and, when sync,
// synchronous_standby_names = 'standby', and a standby named standby.
func newPGCluster(t *testing.T, commit string, sync bool) *pgCluster {
	t.Helper()
	needFailover(t)
	testenv.Server(t, testenv.Postgres) // the family of tests this machine runs
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_basebackup")
	prog := program(t, append(matches, "pg_basebackup")...)
	base, err := os.MkdirTemp("", "cosid-pgfail-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	c := &pgCluster{t: t, bin: filepath.Dir(prog), base: base, cred: asRoot(t, "postgres", base), sync: sync,
		ports: [2]int{freePort(t), freePort(t)}}
	c.anyDSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/postgres?sslmode=disable&target_session_attrs=read-write&connect_timeout=2",
		c.ports[0], c.ports[1])
	data := c.dir()
	runAs(t, c.cred, filepath.Join(c.bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "--no-sync")
	names := ""
	if sync {
		names = "standby"
	}
	conf := fmt.Sprintf("\nsynchronous_commit = '%s'\nsynchronous_standby_names = '%s'\nwal_keep_size = '64MB'\nshared_buffers = '16MB'\n", commit, names)
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(conf)
	f.Close()
	c.primary = c.server(data, c.ports[0])
	c.primary.start()
	t.Cleanup(func() { c.primary.crash(); c.standby.crash() })
	c.setPrimaryDSN()
	c.newStandby()
	st, err := sqlstore.Open("pgx", c.primaryDSN, 30*time.Second, sqlstore.WithInitSchema(true), sqlstore.WithAllowAsyncReplicas(true), sqlstore.WithLogger(nil), sqlstore.WithTables(failoverTables))
	if err != nil {
		t.Fatalf("creating the tables: %v", err)
	}
	st.Close()
	return c
}

func (c *pgCluster) dir() string {
	c.generation++
	return filepath.Join(c.base, "data"+strconv.Itoa(c.generation))
}

func (c *pgCluster) setPrimaryDSN() {
	c.primaryDSN = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.ports[c.pIndex])
}

// server is a PostgreSQL on data and port, named standby as a standby.
func (c *pgCluster) server(data string, port int) *ownServer {
	dsn := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=2", port)
	s := &ownServer{t: c.t, cred: c.cred, args: []string{filepath.Join(c.bin, "postgres"), "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + c.base, "-c", "fsync=on",
		"-c", "max_connections=100", "-c", "cluster_name=standby",
		// A standby whose primary died retries after this before it notices a
		// promotion: 5 s by default, most of the time a failover took.
		"-c", "wal_retrieve_retry_interval=500ms"}}
	s.up = func(ctx context.Context) error {
		_, err := queryOne(ctx, "pgx", dsn, "select 1")
		return err
	}
	return s
}

// newStandby makes a standby of the primary with pg_basebackup -R through a new
// lag proxy, on the other port, starts it and waits until it streams (and, when
// sync, is the synchronous standby).
func (c *pgCluster) newStandby() {
	t := c.t
	t.Helper()
	lag, err := faultproxy.New(fmt.Sprintf("127.0.0.1:%d", c.ports[c.pIndex]))
	if err != nil {
		t.Fatal(err)
	}
	c.lag = lag
	t.Cleanup(func() { lag.Close() })
	_, lagPort, _ := splitPort(lag.Addr())
	data := c.dir()
	runAs(t, c.cred, filepath.Join(c.bin, "pg_basebackup"), "-h", "127.0.0.1", "-p", lagPort, "-U", "postgres",
		"-D", data, "-R", "-X", "stream", "-c", "fast", "--no-sync")
	c.standby = c.server(data, c.ports[1-c.pIndex])
	c.standby.start()
	want := "async"
	if c.sync {
		want = "sync"
	}
	until(t, 30*time.Second, "the standby streams as "+want, func() bool {
		v, err := queryOne(t.Context(), "pgx", c.primaryDSN, "select sync_state from pg_stat_replication where application_name = 'standby' and state = 'streaming'")
		return err == nil && v == want
	})
}

// failover holds the standby's stream for lagTime, kills the primary with SIGKILL,
// drops what the proxy held, promotes the standby and, when rebuild, makes a new
// standby of it and returns once the new pair streams. Without rebuild (the last
// failover of a test) the new primary stops waiting for a synchronous standby, as
// Patroni's synchronous_mode does when none is left.
func (c *pgCluster) failover(rebuild bool) {
	t := c.t
	t.Helper()
	c.lag.Set(faultproxy.Hold, 0)
	time.Sleep(lagTime) // sleep-ok: the load runs while the standby lags
	c.primary.crash()
	killed := time.Now()
	c.lag.Close()
	old := c.primary.args[2]
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	standbyDSN := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.ports[1-c.pIndex])
	if _, err := queryOne(ctx, "pgx", standbyDSN, "select pg_promote(true, 30)"); err != nil {
		t.Fatalf("promoting the standby: %v", err)
	}
	promoted := time.Now()
	c.primary, c.pIndex = c.standby, 1-c.pIndex
	c.setPrimaryDSN()
	os.RemoveAll(old)
	if !rebuild {
		if c.sync {
			db, err := sql.Open("pgx", c.primaryDSN)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, q := range []string{"alter system set synchronous_standby_names = ''", "select pg_reload_conf()"} {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
		}
		t.Logf("failover: promoted %v after the kill", promoted.Sub(killed).Round(time.Millisecond))
		return
	}
	c.newStandby()
	t.Logf("failover: promoted %v after the kill, new standby streaming %v later", promoted.Sub(killed).Round(time.Millisecond), time.Since(promoted).Round(time.Millisecond))
}

// pgFailovers runs rounds failovers of c under the harness's load, with stores
// opened on the multi-host DSN with opts, and returns the report.
func pgFailovers(t *testing.T, c *pgCluster, rounds int, opts ...sqlstore.Option) failoverReport {
	t.Helper()
	logs := failoverLoad(t, sqlOpener("pgx", c.anyDSN, opts...), "order", rounds, func(round int) { c.failover(round < rounds-1) })
	rep := checkRanges(logs)
	rep.Failovers = rounds
	return rep
}

// refusedAtOpen fails t unless a store opened with open is refused by the
// replication gate, with an error that says each of mention.
func refusedAtOpen(t *testing.T, open opener, mention ...string) {
	t.Helper()
	st, err := open(t.Context())
	if err == nil {
		st.Close()
		t.Fatal("the gate accepted a configuration that can lose acknowledged reservations")
	}
	if !errors.Is(err, sqlstore.ErrUnsafeReplication) {
		t.Fatalf("open failed with %v; want sqlstore.ErrUnsafeReplication", err)
	}
	for _, m := range append(mention, "allowAsyncReplicas: true") {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("the refusal %q does not say %q", err, m)
		}
	}
	t.Logf("refused: %v", err)
}

// TestFailover_PostgresSyncOn_NoIdTwice fails a primary with a synchronous
// standby (synchronous_commit = on) over, again and again, under two stores and
// one more started after each failover: no id is held twice.
func TestFailover_PostgresSyncOn_NoIdTwice(t *testing.T) {
	t.Parallel()
	c := newPGCluster(t, "on", true)
	noIDTwice(t, pgFailovers(t, c, failoverRounds(t, 2)))
}

// TestFailover_PostgresSyncRemoteApply_NoIdTwice is the same with
// synchronous_commit = remote_apply.
func TestFailover_PostgresSyncRemoteApply_NoIdTwice(t *testing.T) {
	t.Parallel()
	c := newPGCluster(t, "remote_apply", true)
	noIDTwice(t, pgFailovers(t, c, failoverRounds(t, 2)))
}

// TestFailover_PostgresLocal_StoreSetsOn_NoIdTwice runs a synchronous standby
// with synchronous_commit = local server-wide (pg_stat_replication still says
// sync): the store sets its own sessions to on, and no id is held twice.
func TestFailover_PostgresLocal_StoreSetsOn_NoIdTwice(t *testing.T) {
	t.Parallel()
	c := newPGCluster(t, "local", true)
	noIDTwice(t, pgFailovers(t, c, failoverRounds(t, 1)))
}

// TestFailover_PostgresAsync_OptIn_DuplicatesShowGateNeeded: the gate refuses a
// primary with an asynchronous standby; with the opt-in, one failover hands out
// ids twice.
func TestFailover_PostgresAsync_OptIn_DuplicatesShowGateNeeded(t *testing.T) {
	t.Parallel()
	c := newPGCluster(t, "on", false)
	refusedAtOpen(t, sqlOpener("pgx", c.anyDSN), "none of them is synchronous", "synchronous_standby_names")
	duplicatesShown(t, pgFailovers(t, c, 1, sqlstore.WithAllowAsyncReplicas(true)))
}

// TestFailover_PostgresLocal_OptIn_DuplicatesShowGateNeeded: with
// synchronous_commit = local and the opt-in, which leaves the sessions as they
// are, one failover hands out ids twice: the store's SET is needed.
func TestFailover_PostgresLocal_OptIn_DuplicatesShowGateNeeded(t *testing.T) {
	t.Parallel()
	c := newPGCluster(t, "local", true)
	duplicatesShown(t, pgFailovers(t, c, 1, sqlstore.WithAllowAsyncReplicas(true)))
}
