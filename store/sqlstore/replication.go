package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// ErrUnsafeReplication means the database, as configured, can lose a reservation
// it acknowledged on a failover to a replica or on a crash, after which the store
// would hand out the same ids again: a standby or read-only server, commits that do
// not wait for a flush or for the replica that may be promoted, Galera. The error
// names the setting that fixes it; WithAllowAsyncReplicas (options:
// { allowAsyncReplicas: true }) accepts the risk.
var ErrUnsafeReplication = errors.New("the database can lose an acknowledged reservation on a failover or a crash, and the store would then hand out the same ids again")

// minSemiSyncTimeout is the shortest rpl_semi_sync_master_timeout the gate accepts
// (and it must also be at least the store's timeout). Past it, a primary that has
// not heard from its replica acknowledges commits alone, and a failover to that
// replica loses them; a partition of the replica that lasts longer than this, before
// the primary dies, is therefore a loss. 60 s is longer than a failover manager
// takes to detect a dead primary and promote (Orchestrator, MaxScale, MHA: seconds
// to tens of seconds), and far longer than a reservation waits (the store's
// timeout), so that while the replica is away reservations fail rather than go
// through unreplicated. MariaDB's default is 10 s.
const minSemiSyncTimeout = 60 * time.Second

// replicationGate checks each new session of a store's pool: the dialect's
// checks, and whether it may change the session to pass them.
type replicationGate struct {
	dialect string // the store's name for errors: "sqlstore(postgresql)"
	check   func(ctx context.Context, s session, g *replicationGate) error
	timeout time.Duration // the store's
	fix     bool          // the store owns the pool and may set session settings
	allow   bool          // WithAllowAsyncReplicas
	logger  *slog.Logger
	noted   atomic.Bool // the note of a fixed or unseen setting was logged
}

// newGate returns the gate of dialect d, or nil when the store checks nothing for
// it (SQLite, SQL Server, a registered dialect).
func newGate(d Dialect, timeout time.Duration, fix bool, cfg config) *replicationGate {
	g := &replicationGate{dialect: "sqlstore(" + d.Name() + ")", timeout: timeout, fix: fix, allow: cfg.allowAsync, logger: cfg.logger}
	switch d.(type) {
	case postgresDialect:
		g.check = checkPostgres
	case mysqlDialect:
		g.check = checkMySQL
	default:
		return nil
	}
	return g
}

// refuse returns the error of a risk: what it is, the setting that fixes it and,
// when the opt-in covers it, the opt-in.
func (g *replicationGate) refuse(optIn bool, risk, fix string) error {
	if optIn {
		fix += "; or accept the risk with options: { allowAsyncReplicas: true } (Go: sqlstore.WithAllowAsyncReplicas(true))"
	}
	return fmt.Errorf("%s: %s: %w; %s", g.dialect, risk, ErrUnsafeReplication, fix)
}

// run runs the gate's check on s; an error other than a refusal says that the
// check itself failed.
func (g *replicationGate) run(ctx context.Context, s session) error {
	err := g.check(ctx, s, g)
	if err == nil || errors.Is(err, ErrUnsafeReplication) {
		return err
	}
	return fmt.Errorf("%s: checking the replication of a new session: %w", g.dialect, err)
}

// session runs the gate's statements on one connection.
type session interface {
	rows(ctx context.Context, query string) ([][]string, error)
	exec(ctx context.Context, query string) error
}

// checkPostgres refuses a standby; raises the session's synchronous_commit to on
// when it is off, local or remote_write (a commit that does not wait for the
// standby's flush); and refuses a primary with streaming standbys none of which
// is synchronous. pg_stat_replication shows other roles' rows to a role without
// pg_read_all_stats (or pg_monitor) with every column but pid empty: the gate
// then counts the standbys and judges by synchronous_standby_names alone.
func checkPostgres(ctx context.Context, s session, g *replicationGate) error {
	// One scan of pg_stat_replication: the first query of a session pays for
	// loading the view's catalogs, three scans cost 40 ms more on a loaded server.
	rows, err := s.rows(ctx, "select pg_is_in_recovery()::text, current_setting('synchronous_commit'), current_setting('synchronous_standby_names'),"+
		" count(*)::text, count(*) filter (where sync_state in ('sync', 'quorum'))::text, count(*) filter (where sync_state is not null)::text"+
		" from pg_stat_replication where coalesce(application_name, '') <> 'pg_basebackup'")
	if err != nil {
		return err
	}
	if len(rows) != 1 || len(rows[0]) != 6 {
		return fmt.Errorf("the replication query returned %d rows", len(rows))
	}
	r := rows[0]
	f := pgFacts{inRecovery: r[0] == "true", syncCommit: r[1], standbyNames: strings.TrimSpace(r[2])}
	f.standbys, _ = strconv.Atoi(r[3])
	f.syncStandbys, _ = strconv.Atoi(r[4])
	f.visible, _ = strconv.Atoi(r[5])
	if f.inRecovery {
		return g.refuse(false, "connected to a standby (pg_is_in_recovery() is true), which takes no writes and is not the primary",
			"connect to the primary: list every server in the DSN with target_session_attrs=read-write (postgres://h1,h2/db?target_session_attrs=read-write)")
	}
	if g.allow {
		return nil
	}
	if !durableCommit(f.syncCommit) {
		if !g.fix {
			return g.refuse(true, fmt.Sprintf("the session's synchronous_commit is %s: a commit is acknowledged before it is flushed or reaches the synchronous standby", f.syncCommit),
				"set synchronous_commit = on for the store's role (ALTER ROLE … SET synchronous_commit = on) or in the DSN (options=-c%20synchronous_commit%3Don), or let sqlstore.Open make the pool, which sets it")
		}
		if err := s.exec(ctx, "set synchronous_commit = on"); err != nil {
			return g.refuse(true, fmt.Sprintf("the session's synchronous_commit is %s and setting it to on failed (%v)", f.syncCommit, err),
				"set synchronous_commit = on for the store's role or server-wide")
		}
		after, err := s.rows(ctx, "select current_setting('synchronous_commit')")
		if err != nil {
			return err
		}
		if len(after) != 1 || !durableCommit(after[0][0]) {
			return g.refuse(true, fmt.Sprintf("the session's synchronous_commit is %s and stays so after SET synchronous_commit = on (a pooler that does not keep session settings?)", f.syncCommit),
				"set synchronous_commit = on for the store's role or server-wide")
		}
		if !g.noted.Swap(true) {
			g.logger.Info("sqlstore: set the store's sessions to synchronous_commit = on, so that a reservation is acknowledged only once it is flushed (and on the synchronous standby)",
				"store", g.dialect, "was", f.syncCommit)
		}
	}
	if f.standbys == 0 || f.syncStandbys > 0 {
		return nil
	}
	if f.visible == 0 && f.standbyNames != "" {
		// The role cannot see the standbys' states, but commits wait for the named
		// ones: the standby that is promoted must be one of them.
		if !g.noted.Swap(true) {
			g.logger.Info("sqlstore: the store's role cannot see the standbys' sync_state (grant pg_monitor to check it); commits wait for synchronous_standby_names",
				"store", g.dialect, "standbys", f.standbys, "synchronous_standby_names", f.standbyNames)
		}
		return nil
	}
	return g.refuse(true, fmt.Sprintf("the primary streams to %d standbys and none of them is synchronous (synchronous_standby_names %q): a commit is acknowledged before a standby has it, and promoting that standby loses it", f.standbys, f.standbyNames),
		"set synchronous_standby_names to the standbys that may be promoted (synchronous_standby_names = 'FIRST 1 (s1)'), and promote only a synchronous one")
}

// pgFacts is what checkPostgres read of a session.
type pgFacts struct {
	inRecovery   bool
	syncCommit   string
	standbyNames string
	standbys     int // in pg_stat_replication, pg_basebackup's left out
	syncStandbys int // of those, sync or quorum
	visible      int // of those, the rows whose sync_state the role may see
}

// durableCommit reports whether synchronous_commit v waits for the local flush
// and, with synchronous standbys, for theirs.
func durableCommit(v string) bool { return v == "on" || v == "remote_apply" }

// mysqlVariables are the server variables checkMySQL reads (MySQL 8.0.26 renamed
// master to source in the semi-sync plugin's).
var mysqlVariables = []string{"read_only", "super_read_only", "innodb_flush_log_at_trx_commit", "log_bin", "sync_binlog", "wsrep_on",
	"rpl_semi_sync_master_enabled", "rpl_semi_sync_master_timeout", "rpl_semi_sync_source_enabled", "rpl_semi_sync_source_timeout"}

// checkMySQL refuses a read-only server, commits that are not flushed (InnoDB's
// log and, with a binary log, the binary log), Galera, and replicas that a commit
// does not wait for: no semi-sync, semi-sync switched off, or a semi-sync timeout
// short enough to fall back to asynchronous replication (minSemiSyncTimeout).
// SHOW SLAVE HOSTS (SHOW REPLICAS on MySQL 8.4) needs REPLICATION MASTER ADMIN
// (MariaDB) or REPLICATION SLAVE (MySQL): without it the gate sees only the
// semi-sync replicas and logs that it cannot see the others.
func checkMySQL(ctx context.Context, s session, g *replicationGate) error {
	vars, err := nameValues(ctx, s, "show global variables where variable_name in ('"+strings.Join(mysqlVariables, "', '")+"')")
	if err != nil {
		return err
	}
	status, err := nameValues(ctx, s, "show global status where variable_name in ('rpl_semi_sync_master_status', 'rpl_semi_sync_source_status', 'rpl_semi_sync_master_clients', 'rpl_semi_sync_source_clients')")
	if err != nil {
		return err
	}
	f := mysqlFacts{vars: vars, status: status, replicas: -1}
	for _, q := range []string{"show slave hosts", "show replicas"} {
		if rows, err := s.rows(ctx, q); err == nil {
			f.replicas = len(rows)
			break
		}
	}
	return f.judge(g)
}

// nameValues runs a SHOW … VARIABLES or STATUS and returns its values by lower-case
// name.
func nameValues(ctx context.Context, s session, query string) (map[string]string, error) {
	rows, err := s.rows(ctx, query)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(rows))
	for _, r := range rows {
		if len(r) >= 2 {
			m[strings.ToLower(r[0])] = strings.ToUpper(r[1])
		}
	}
	return m, nil
}

// mysqlFacts is what checkMySQL read of a server.
type mysqlFacts struct {
	vars, status map[string]string // by lower-case name; values upper-case
	replicas     int               // attached replicas; -1: the role may not list them
}

// either returns the first of the variables names that the server has.
func either(m map[string]string, names ...string) (string, bool) {
	for _, n := range names {
		if v, ok := m[n]; ok {
			return v, true
		}
	}
	return "", false
}

func on(v string) bool { return v == "ON" || v == "1" }

// judge applies checkMySQL's rules to f.
func (f mysqlFacts) judge(g *replicationGate) error {
	if on(f.vars["read_only"]) || on(f.vars["super_read_only"]) {
		return g.refuse(false, "connected to a read-only server (read_only is ON): a replica, not the primary (a user with SUPER or READ_ONLY ADMIN would even write to it)",
			"connect to the primary (move the address the DSN names to it on a failover), or SET GLOBAL read_only = OFF on the server that was promoted")
	}
	if g.allow {
		return nil
	}
	if on(f.vars["wsrep_on"]) {
		return g.refuse(true, "the server is a Galera cluster node (wsrep_on is ON), whose certification can lose transactions it acknowledged (Jepsen, MariaDB Galera Cluster 12.1.2, 2026)",
			"run the store on a primary with semi-synchronous replication instead")
	}
	if v := f.vars["innodb_flush_log_at_trx_commit"]; v != "1" {
		return g.refuse(true, fmt.Sprintf("innodb_flush_log_at_trx_commit is %s: a commit is acknowledged before InnoDB's log is flushed, and a crash loses it", v),
			"set innodb_flush_log_at_trx_commit = 1")
	}
	if on(f.vars["log_bin"]) && f.vars["sync_binlog"] != "1" {
		return g.refuse(true, fmt.Sprintf("the binary log is on and sync_binlog is %s: a commit is acknowledged before its binary log event is flushed, and a crash loses it (and replicas never get it)", f.vars["sync_binlog"]),
			"set sync_binlog = 1")
	}
	semi := on(either2(f.vars, "rpl_semi_sync_master_enabled", "rpl_semi_sync_source_enabled"))
	clients, _ := strconv.Atoi(either2(f.status, "rpl_semi_sync_master_clients", "rpl_semi_sync_source_clients"))
	replicas := max(f.replicas, clients)
	if replicas == 0 && (f.replicas == 0 || !on(f.vars["log_bin"])) {
		return nil // no replica now; without a binary log, none can attach
	}
	if !semi {
		if f.replicas < 0 && clients == 0 {
			if !g.noted.Swap(true) {
				g.logger.Warn("sqlstore: cannot list the server's replicas (SHOW SLAVE HOSTS needs REPLICATION MASTER ADMIN, SHOW REPLICAS REPLICATION SLAVE): if a replica is attached without semi-sync, a failover to it can hand out ids twice; grant it so that the store can check",
					"store", g.dialect)
			}
			return nil
		}
		return g.refuse(true, fmt.Sprintf("%d replicas are attached and replication is asynchronous (rpl_semi_sync_master_enabled is OFF): a commit is acknowledged before a replica has it, and promoting that replica loses it", replicas),
			fmt.Sprintf("enable semi-synchronous replication: rpl_semi_sync_master_enabled = ON, rpl_semi_sync_master_wait_point = AFTER_SYNC, rpl_semi_sync_master_timeout ≥ %d (ms) on the primary and rpl_semi_sync_slave_enabled = ON on the replicas", g.semiSyncFloor().Milliseconds()))
	}
	ms, _ := strconv.ParseInt(either2(f.vars, "rpl_semi_sync_master_timeout", "rpl_semi_sync_source_timeout"), 10, 64)
	if got := time.Duration(ms) * time.Millisecond; got < g.semiSyncFloor() {
		return g.refuse(true, fmt.Sprintf("semi-synchronous replication falls back to asynchronous after rpl_semi_sync_master_timeout = %d ms without a replica's acknowledgement, and a failover after that loses what the primary acknowledged alone", ms),
			fmt.Sprintf("set rpl_semi_sync_master_timeout ≥ %d (ms: longer than a failover takes and than the store's timeout %v)", g.semiSyncFloor().Milliseconds(), g.timeout))
	}
	if st, ok := either(f.status, "rpl_semi_sync_master_status", "rpl_semi_sync_source_status"); ok && !on(st) && replicas > 0 {
		return g.refuse(true, "semi-synchronous replication is enabled but switched off now (Rpl_semi_sync_master_status is OFF: no replica acknowledged within the timeout), so commits are acknowledged without a replica",
			"bring a semi-sync replica back (rpl_semi_sync_slave_enabled = ON); the primary switches semi-sync on again once it has caught up")
	}
	return nil
}

// either2 is either's value alone.
func either2(m map[string]string, names ...string) string {
	v, _ := either(m, names...)
	return v
}

// semiSyncFloor is the shortest semi-sync timeout g accepts: minSemiSyncTimeout,
// or the store's timeout when it is longer.
func (g *replicationGate) semiSyncFloor() time.Duration { return max(minSemiSyncTimeout, g.timeout) }

// rawSession is a session on a driver's connection: before database/sql has it
// (every new connection of a pool that Open made), or through sql.Conn.Raw (the
// check at New). pgx's and
// go-sql-driver/mysql's connections run statements with a context directly.
type rawSession struct{ c driver.Conn }

func (s rawSession) rows(ctx context.Context, query string) ([][]string, error) {
	q, ok := s.c.(driver.QueryerContext)
	if !ok {
		return nil, fmt.Errorf("the driver's connection (%T) cannot run a query with a context", s.c)
	}
	rs, err := q.QueryContext(ctx, query, nil)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	dest := make([]driver.Value, len(rs.Columns()))
	var out [][]string
	for {
		if err := rs.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		row := make([]string, len(dest))
		for i, v := range dest {
			row[i] = valueString(v)
		}
		out = append(out, row)
	}
}

func (s rawSession) exec(ctx context.Context, query string) error {
	e, ok := s.c.(driver.ExecerContext)
	if !ok {
		return fmt.Errorf("the driver's connection (%T) cannot run a statement with a context", s.c)
	}
	_, err := e.ExecContext(ctx, query, nil)
	return err
}

// valueString is a driver's value as text: what the gate compares.
func valueString(v driver.Value) string {
	switch v := v.(type) {
	case nil:
		return ""
	case []byte:
		return string(v)
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case time.Time:
		return v.String()
	}
	return fmt.Sprint(v)
}

// gatedConnector runs the store's replication gate on every connection its
// driver makes, once the store knows its dialect: database/sql reconnects without
// telling anyone, after a failover too, and the new server must pass the gate as
// the first did.
type gatedConnector struct {
	driver.Connector
	gate atomic.Pointer[replicationGate]
}

// Connect returns a new connection that passed the gate, or the gate's error.
func (c *gatedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if g := c.gate.Load(); g != nil {
		if err := g.run(ctx, rawSession{conn}); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return conn, nil
}

// Close closes the driver's connector when it has something to close.
func (c *gatedConnector) Close() error {
	if cl, ok := c.Connector.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// dsnConnector is the connector of a driver without one of its own.
type dsnConnector struct {
	dsn string
	drv driver.Driver
}

func (c dsnConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }
func (c dsnConnector) Driver() driver.Driver                        { return c.drv }

// gatedPool opens dsn with the driver of that name behind a gatedConnector.
func gatedPool(name, dsn string) (*sql.DB, *gatedConnector, error) {
	probe, err := sql.Open(name, dsn)
	if err != nil {
		return nil, nil, err
	}
	drv := probe.Driver()
	probe.Close()
	var inner driver.Connector = dsnConnector{dsn: dsn, drv: drv}
	if dc, ok := drv.(driver.DriverContext); ok {
		if inner, err = dc.OpenConnector(dsn); err != nil {
			return nil, nil, err
		}
	}
	gc := &gatedConnector{Connector: inner}
	return sql.OpenDB(gc), gc, nil
}

// gateReplication installs the store's replication gate, when its dialect has
// one, and runs it on a session of the pool: the gate of a pool that Open made
// then runs on every new connection too (a pool that the application owns is
// checked at New only). It logs the warning of WithAllowAsyncReplicas.
func gateReplication(ctx context.Context, db *sql.DB, gc *gatedConnector, d Dialect, timeout time.Duration, cfg config) error {
	g := newGate(d, timeout, gc != nil, cfg)
	if g == nil {
		return nil
	}
	if cfg.allowAsync {
		cfg.logger.Warn("sqlstore: running on replication or flush settings that may lose acknowledged reservations on a failover or a crash, and then hand out the same ids again (allowed by WithAllowAsyncReplicas / allowAsyncReplicas)",
			"store", g.dialect)
	}
	if gc != nil {
		gc.gate.Store(g)
		if db.Stats().OpenConnections > 1 {
			// Made before the gate, by the dialect's detection: closed, so that
			// every connection in use has passed it. The one checked below is kept.
			db.SetMaxIdleConns(1)
			db.SetMaxIdleConns(poolSize)
		}
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		if errors.Is(err, ErrUnsafeReplication) {
			return err
		}
		return fmt.Errorf("sqlstore: checking the replication: %w", err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("sqlstore: checking the replication: the driver's connection is a %T", dc)
		}
		return g.run(ctx, rawSession{c})
	})
	if err != nil && !errors.Is(err, ErrUnsafeReplication) {
		// A connection that failed its check is not to be used again.
		conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	return err
}
