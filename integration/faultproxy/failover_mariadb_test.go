package faultproxy_test

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/cosid-go/cosid/internal/testkit/faultproxy"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// The driver logs every connection a failover cuts; the errors that matter reach
// the reservers. Set before any test runs: the driver reads it unlocked.
func init() { mysql.SetLogger(log.New(io.Discard, "", 0)) }

// mariaTemplate is a data directory made once per test by mariadb-install-db,
// copied for each server: installing takes seconds, copying a moment.
type mariaTemplate struct {
	t    *testing.T
	bin  string // mariadbd
	base string
	dir  string
	cred *syscall.Credential
	n    int
}

// newMariaTemplate installs a data directory with root@127.0.0.1 without a
// password.
func newMariaTemplate(t *testing.T) *mariaTemplate {
	t.Helper()
	needFailover(t)
	testenv.Server(t, testenv.MySQL) // the family of tests this machine runs
	bin := program(t, "mariadbd", "/usr/sbin/mariadbd")
	install := program(t, "mariadb-install-db")
	base, err := os.MkdirTemp("", "cosid-mariafail-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	m := &mariaTemplate{t: t, bin: bin, base: base, dir: filepath.Join(base, "template"), cred: asRoot(t, "mysql", base)}
	// The temporary tables of the install go to a directory of its own: in the
	// shared /tmp, another MariaDB's cleanup once removed one under it.
	args := []string{"--no-defaults", "--datadir=" + m.dir, "--auth-root-authentication-method=normal", "--skip-test-db", "--tmpdir=" + base}
	if m.cred != nil {
		args = append(args, "--user=mysql")
	}
	installing.Lock() // two at once trip over each other
	defer installing.Unlock()
	runAs(t, nil, install, args...)
	return m
}

// installing serializes mariadb-install-db.
var installing sync.Mutex

// server copies the template and returns a MariaDB on it and a free port, with
// the flags extra, and its address.
func (m *mariaTemplate) server(serverID int, extra ...string) (*ownServer, string) {
	t := m.t
	m.n++
	dir := filepath.Join(m.base, "d"+strconv.Itoa(m.n))
	if out, err := exec.Command("cp", "-a", m.dir, dir).CombinedOutput(); err != nil {
		t.Fatalf("copying the template: %v\n%s", err, out)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	_, port, _ := splitPort(addr)
	args := []string{m.bin, "--no-defaults", "--datadir=" + dir, "--port=" + port, "--bind-address=127.0.0.1",
		"--socket=" + filepath.Join(dir, "sock"), "--pid-file=" + filepath.Join(dir, "pid"), "--tmpdir=" + dir, "--skip-name-resolve",
		"--server-id=" + strconv.Itoa(serverID), "--log-bin=mysql-bin", "--log-slave-updates", "--binlog-format=ROW",
		"--gtid-strict-mode=1", "--sync-binlog=1", "--innodb-flush-log-at-trx-commit=1", "--innodb-log-file-size=8M",
		"--innodb-buffer-pool-size=32M", "--performance-schema=OFF", "--max-connections=200"}
	if m.cred != nil {
		args = append(args, "--user=mysql")
	}
	s := &ownServer{t: t, args: append(args, extra...)}
	s.up = func(ctx context.Context) error {
		_, err := queryOne(ctx, "mysql", rootDSN(addr, ""), "select 1")
		return err
	}
	return s, addr
}

// rootDSN is the DSN of root at addr on database db.
func rootDSN(addr, db string) string { return "root@tcp(" + addr + ")/" + db + "?timeout=2s" }

// mariaPair is a MariaDB primary and a GTID replica that streams through a lag
// proxy; the clients reach the primary through a VIP proxy that the failover
// moves to the promoted replica, as a floating address or MaxScale would.
type mariaPair struct {
	t                *testing.T
	primary, replica *ownServer
	pAddr, rAddr     string
	lag, vip         *faultproxy.Proxy
	hold             time.Duration
}

// newMariaPair starts a pair with the primary's flags primaryFlags and the
// replica's replicaFlags (read-only), the replica streaming, and the tables made.
func newMariaPair(t *testing.T, m *mariaTemplate, hold time.Duration, primaryFlags, replicaFlags []string) *mariaPair {
	t.Helper()
	p := &mariaPair{t: t, hold: hold}
	p.primary, p.pAddr = m.server(1, primaryFlags...)
	p.replica, p.rAddr = m.server(2, append([]string{"--read-only=ON"}, replicaFlags...)...)
	p.primary.start()
	t.Cleanup(func() { p.primary.crash(); p.replica.crash() })
	p.replica.start()
	var err error
	if p.lag, err = faultproxy.New(p.pAddr); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.lag.Close() })
	if p.vip, err = faultproxy.New(p.pAddr); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.vip.Close() })
	_, lagPort, _ := splitPort(p.lag.Addr())
	p.exec(p.rAddr, "change master to master_host='127.0.0.1', master_port="+lagPort+", master_user='root', master_use_gtid=slave_pos, master_connect_retry=1",
		"start slave")
	p.exec(p.pAddr, "create database cosid")
	until(t, 30*time.Second, "the replica has the database", func() bool {
		v, err := queryOne(t.Context(), "mysql", rootDSN(p.rAddr, ""), "select count(*) from information_schema.schemata where schema_name = 'cosid'")
		return err == nil && v == "1"
	})
	st, err := sqlstore.Open("mysql", p.dsn(), 30*time.Second, sqlstore.WithInitSchema(true), sqlstore.WithAllowAsyncReplicas(true), sqlstore.WithLogger(nil), sqlstore.WithTables(failoverTables))
	if err != nil {
		t.Fatalf("creating the tables: %v", err)
	}
	st.Close()
	return p
}

// dsn is the clients' DSN: through the VIP.
func (p *mariaPair) dsn() string { return rootDSN(p.vip.Addr(), "cosid") }

func (p *mariaPair) exec(addr string, stmts ...string) {
	p.t.Helper()
	db, err := sql.Open("mysql", rootDSN(addr, ""))
	if err != nil {
		p.t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.ExecContext(p.t.Context(), q); err != nil {
			p.t.Fatalf("%s on %s: %v", q, addr, err)
		}
	}
}

// semiSyncClients waits until the primary has n semi-sync replicas.
func (p *mariaPair) semiSyncClients(n int) {
	p.t.Helper()
	until(p.t, 30*time.Second, "the primary's semi-sync replicas", func() bool {
		db, err := sql.Open("mysql", rootDSN(p.pAddr, ""))
		if err != nil {
			return false
		}
		defer db.Close()
		var name, v string
		err = db.QueryRowContext(p.t.Context(), "show global status like 'Rpl_semi_sync_master_clients'").Scan(&name, &v)
		return err == nil && v == strconv.Itoa(n)
	})
}

// failover holds the replica's stream for p.hold, kills the primary with
// SIGKILL, drops what the proxy held, lets the replica apply what it received,
// promotes it and moves the VIP to it.
func (p *mariaPair) failover() {
	t := p.t
	t.Helper()
	p.lag.Set(faultproxy.Hold, 0)
	time.Sleep(p.hold) // sleep-ok: the load runs while the replica lags
	p.primary.crash()
	killed := time.Now()
	p.lag.Close()
	until(t, 30*time.Second, "the replica applies its relay log", func() bool {
		st, err := slaveStatus(t.Context(), p.rAddr)
		return err == nil && st["Read_Master_Log_Pos"] == st["Exec_Master_Log_Pos"] && st["Relay_Master_Log_File"] == st["Master_Log_File"]
	})
	p.exec(p.rAddr, "stop slave", "reset slave all", "set global read_only = 0")
	p.vip.Retarget(p.rAddr)
	t.Logf("failover: replica promoted and the VIP moved %v after the kill", time.Since(killed).Round(time.Millisecond))
}

// slaveStatus returns SHOW SLAVE STATUS by column.
func slaveStatus(ctx context.Context, addr string) (map[string]string, error) {
	db, err := sql.Open("mysql", rootDSN(addr, ""))
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, "show slave status")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if !rows.Next() {
		return nil, fmt.Errorf("no replication status: %v", rows.Err())
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	m := make(map[string]string, len(cols))
	for i, c := range cols {
		m[c] = vals[i].String
	}
	return m, nil
}

// mariaFailovers runs rounds failovers, each of a new pair made by pair, under
// the harness's load with stores on the VIP with opts, and returns the report.
func mariaFailovers(t *testing.T, rounds int, pair func() *mariaPair, opts ...sqlstore.Option) failoverReport {
	t.Helper()
	var rep failoverReport
	for range rounds {
		p := pair()
		r := checkRanges(failoverLoad(t, sqlOpener("mysql", p.dsn(), opts...), "order", 1, func(int) { p.failover() }))
		r.Failovers = 1
		t.Logf("round: %v", r)
		rep.add(r)
	}
	return rep
}

// Semi-sync flags: AFTER_SYNC with a timeout past the gate's floor, or 1 s.
var (
	semiSyncLong  = []string{"--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-wait-point=AFTER_SYNC", "--rpl-semi-sync-master-timeout=120000"}
	semiSyncShort = []string{"--rpl-semi-sync-master-enabled=ON", "--rpl-semi-sync-master-wait-point=AFTER_SYNC", "--rpl-semi-sync-master-timeout=1000"}
	semiSyncSlave = []string{"--rpl-semi-sync-slave-enabled=ON"}
)

// TestFailover_MariaDBSemiSyncAfterSync_NoIdTwice fails a MariaDB primary with a
// semi-synchronous replica (AFTER_SYNC, 120 s timeout) over, under two stores and
// one more started after the failover, on a new pair each round: no id is held
// twice.
func TestFailover_MariaDBSemiSyncAfterSync_NoIdTwice(t *testing.T) {
	t.Parallel()
	m := newMariaTemplate(t)
	rep := mariaFailovers(t, failoverRounds(t, 2), func() *mariaPair {
		p := newMariaPair(t, m, lagTime, semiSyncLong, semiSyncSlave)
		p.semiSyncClients(1)
		return p
	})
	noIDTwice(t, rep)
}

// TestFailover_MariaDBAsync_OptIn_DuplicatesShowGateNeeded: the gate refuses a
// primary with an asynchronous replica; with the opt-in, a failover hands out ids
// twice.
func TestFailover_MariaDBAsync_OptIn_DuplicatesShowGateNeeded(t *testing.T) {
	t.Parallel()
	m := newMariaTemplate(t)
	rep := mariaFailovers(t, 1, func() *mariaPair {
		p := newMariaPair(t, m, lagTime, nil, nil)
		until(t, 30*time.Second, "the replica is listed", func() bool {
			n, err := queryOne(t.Context(), "mysql", rootDSN(p.pAddr, ""), "select count(*) from information_schema.processlist where command like 'Binlog Dump%'")
			return err == nil && n == "1"
		})
		refusedAtOpen(t, sqlOpener("mysql", p.dsn()), "1 replicas are attached", "asynchronous", "rpl_semi_sync_master_enabled = ON")
		return p
	}, sqlstore.WithAllowAsyncReplicas(true))
	duplicatesShown(t, rep)
}

// TestFailover_MariaDBSemiSyncShortTimeout_OptIn_DuplicatesShowGateNeeded: the
// gate refuses semi-sync with a 1 s timeout; with the opt-in, a lag longer than
// the timeout turns it asynchronous and the failover hands out ids twice.
func TestFailover_MariaDBSemiSyncShortTimeout_OptIn_DuplicatesShowGateNeeded(t *testing.T) {
	t.Parallel()
	m := newMariaTemplate(t)
	rep := mariaFailovers(t, 1, func() *mariaPair {
		p := newMariaPair(t, m, 2*lagTime, semiSyncShort, semiSyncSlave)
		p.semiSyncClients(1)
		refusedAtOpen(t, sqlOpener("mysql", p.dsn()), "rpl_semi_sync_master_timeout = 1000 ms", "≥ 60000")
		return p
	}, sqlstore.WithAllowAsyncReplicas(true))
	duplicatesShown(t, rep)
}
