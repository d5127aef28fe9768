package sqlstore

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// fakeSession answers the gate's queries from canned rows, by the query's first
// words, and records its statements.
type fakeSession struct {
	answers map[string][][]string // by query prefix
	after   string                // synchronous_commit after a SET
	failSet error
	execs   []string
}

func (f *fakeSession) rows(_ context.Context, q string) ([][]string, error) {
	if q == "select current_setting('synchronous_commit')" {
		return [][]string{{f.after}}, nil
	}
	for prefix, rows := range f.answers {
		if strings.HasPrefix(q, prefix) {
			if rows == nil {
				return nil, errors.New("access denied")
			}
			return rows, nil
		}
	}
	return nil, errors.New("unexpected query " + q)
}

func (f *fakeSession) exec(_ context.Context, q string) error {
	f.execs = append(f.execs, q)
	return f.failSet
}

// pgRow is the gate's one row of PostgreSQL facts.
func pgRow(recovery, commit, names, standbys, sync, visible string) map[string][][]string {
	return map[string][][]string{"select pg_is_in_recovery()": {{recovery, commit, names, standbys, sync, visible}}}
}

func testGate(check func(context.Context, session, *replicationGate) error, fix, allow bool, log *bytes.Buffer) *replicationGate {
	return &replicationGate{dialect: "sqlstore(test)", check: check, timeout: 2 * time.Second, fix: fix, allow: allow,
		logger: slog.New(slog.NewTextHandler(log, nil))}
}

// TestReplicationGate_Postgres judges each PostgreSQL setup of the failover
// review: a standby, synchronous_commit off or local (raised to on when the store
// owns the session, refused when it does not or cannot), async standbys, sync
// standbys, and a role that cannot see the standbys' states.
func TestReplicationGate_Postgres(t *testing.T) {
	for _, tc := range []struct {
		name       string
		answers    map[string][][]string
		after      string // synchronous_commit after SET
		failSet    error
		fix, allow bool
		refused    bool
		mention    []string
		wantSet    bool
		wantLogged string
	}{
		{name: "single server", answers: pgRow("false", "on", "", "0", "0", "0"), fix: true},
		{name: "standby refused", answers: pgRow("true", "on", "", "0", "0", "0"), fix: true, refused: true,
			mention: []string{"standby", "target_session_attrs=read-write"}},
		{name: "standby refused even with the opt-in", answers: pgRow("true", "on", "", "0", "0", "0"), fix: true, allow: true, refused: true,
			mention: []string{"pg_is_in_recovery"}},
		{name: "async standby refused", answers: pgRow("false", "on", "", "1", "0", "1"), fix: true, refused: true,
			mention: []string{"1 standbys", "none of them is synchronous", "synchronous_standby_names", "allowAsyncReplicas: true", "WithAllowAsyncReplicas(true)"}},
		{name: "async standby with the opt-in", answers: pgRow("false", "on", "", "1", "0", "1"), fix: true, allow: true},
		{name: "sync standby", answers: pgRow("false", "on", "standby", "1", "1", "1"), fix: true},
		{name: "sync standby, remote_apply", answers: pgRow("false", "remote_apply", "standby", "1", "1", "1"), fix: true},
		{name: "quorum standbys", answers: pgRow("false", "on", "ANY 1 (a, b)", "2", "2", "2"), fix: true},
		{name: "names set, but the standby attached is not one of them", answers: pgRow("false", "on", "other", "1", "0", "1"), fix: true, refused: true,
			mention: []string{"none of them is synchronous"}},
		{name: "states hidden, names set", answers: pgRow("false", "on", "standby", "1", "0", "0"), fix: true, wantLogged: "pg_monitor"},
		{name: "states hidden, names empty", answers: pgRow("false", "on", "", "1", "0", "0"), fix: true, refused: true,
			mention: []string{"none of them is synchronous"}},
		{name: "local raised to on", answers: pgRow("false", "local", "standby", "1", "1", "1"), after: "on", fix: true, wantSet: true, wantLogged: "synchronous_commit = on"},
		{name: "off raised to on", answers: pgRow("false", "off", "", "0", "0", "0"), after: "on", fix: true, wantSet: true},
		{name: "remote_write raised to on", answers: pgRow("false", "remote_write", "standby", "1", "1", "1"), after: "on", fix: true, wantSet: true},
		{name: "local left alone with the opt-in", answers: pgRow("false", "local", "standby", "1", "1", "1"), fix: true, allow: true},
		{name: "local on the application's pool refused", answers: pgRow("false", "local", "standby", "1", "1", "1"), refused: true,
			mention: []string{"synchronous_commit is local", "ALTER ROLE", "options=-c%20synchronous_commit%3Don", "allowAsyncReplicas"}},
		{name: "local that SET cannot change refused", answers: pgRow("false", "local", "", "0", "0", "0"), after: "local", fix: true, refused: true, wantSet: true,
			mention: []string{"stays so after SET"}},
		{name: "local whose SET fails refused", answers: pgRow("false", "local", "", "0", "0", "0"), failSet: errors.New("boom"), fix: true, refused: true, wantSet: true,
			mention: []string{"setting it to on failed (boom)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			s := &fakeSession{answers: tc.answers, after: tc.after, failSet: tc.failSet}
			err := testGate(checkPostgres, tc.fix, tc.allow, &log).run(t.Context(), s)
			checkRefusal(t, err, tc.refused, tc.mention)
			if set := len(s.execs) > 0; set != tc.wantSet {
				t.Errorf("statements %q; want a SET: %v", s.execs, tc.wantSet)
			}
			if !strings.Contains(log.String(), tc.wantLogged) {
				t.Errorf("log %q does not say %q", log.String(), tc.wantLogged)
			}
		})
	}
}

func checkRefusal(t *testing.T, err error, refused bool, mention []string) {
	t.Helper()
	if got := errors.Is(err, ErrUnsafeReplication); got != refused {
		t.Fatalf("error %v; want refused: %v", err, refused)
	}
	for _, m := range mention {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q does not say %q", err, m)
		}
	}
}

// mysqlAnswers are the gate's SHOW answers: variables, status and replicas (nil:
// access denied).
func mysqlAnswers(vars, status map[string]string, replicas int) map[string][][]string {
	a := map[string][][]string{"show global variables": nil, "show global status": nil}
	var rows [][]string
	for k, v := range vars {
		rows = append(rows, []string{k, v})
	}
	a["show global variables"] = rows
	rows = nil
	for k, v := range status {
		rows = append(rows, []string{k, v})
	}
	a["show global status"] = append([][]string{}, rows...)
	if replicas >= 0 {
		a["show slave hosts"] = make([][]string, replicas)
		for i := range a["show slave hosts"] {
			a["show slave hosts"][i] = []string{"2", "", "3306", "1"}
		}
	} else {
		a["show slave hosts"], a["show replicas"] = nil, nil
	}
	return a
}

// durable are the variables of a durable MariaDB primary without semi-sync.
func durable(extra ...string) map[string]string {
	v := map[string]string{"read_only": "OFF", "innodb_flush_log_at_trx_commit": "1", "log_bin": "ON", "sync_binlog": "1",
		"wsrep_on": "OFF", "rpl_semi_sync_master_enabled": "OFF", "rpl_semi_sync_master_timeout": "10000"}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == "" {
			delete(v, extra[i]) // a server without that variable
			continue
		}
		v[extra[i]] = extra[i+1]
	}
	return v
}

// TestReplicationGate_MySQL judges each MySQL and MariaDB setup of the failover
// review and the flush settings: read-only, Galera, InnoDB's and the binary log's
// flushes, async replicas, semi-sync with a short timeout or switched off, and
// semi-sync with a long one.
func TestReplicationGate_MySQL(t *testing.T) {
	semi := []string{"rpl_semi_sync_master_enabled", "ON", "rpl_semi_sync_master_timeout", "60000"}
	semiOn := map[string]string{"rpl_semi_sync_master_status": "ON", "rpl_semi_sync_master_clients": "1"}
	for _, tc := range []struct {
		name       string
		answers    map[string][][]string
		allow      bool
		refused    bool
		mention    []string
		wantLogged string
	}{
		{name: "single server, binlog off (the CI MariaDB)", answers: mysqlAnswers(durable("log_bin", "OFF", "sync_binlog", "0"), nil, 0)},
		{name: "single server, binlog on", answers: mysqlAnswers(durable(), nil, 0)},
		{name: "read-only refused", answers: mysqlAnswers(durable("read_only", "ON"), nil, 0), refused: true, mention: []string{"read-only", "read_only = OFF"}},
		{name: "super_read_only refused with the opt-in", answers: mysqlAnswers(durable("super_read_only", "ON"), nil, 0), allow: true, refused: true},
		{name: "Galera refused", answers: mysqlAnswers(durable("wsrep_on", "ON"), nil, 0), refused: true, mention: []string{"Galera", "allowAsyncReplicas"}},
		{name: "innodb flush refused", answers: mysqlAnswers(durable("innodb_flush_log_at_trx_commit", "2"), nil, 0), refused: true,
			mention: []string{"innodb_flush_log_at_trx_commit is 2", "innodb_flush_log_at_trx_commit = 1"}},
		{name: "sync_binlog refused", answers: mysqlAnswers(durable("sync_binlog", "0"), nil, 0), refused: true, mention: []string{"sync_binlog is 0", "sync_binlog = 1"}},
		{name: "sync_binlog 0 without a binlog", answers: mysqlAnswers(durable("log_bin", "OFF", "sync_binlog", "0"), nil, 0)},
		{name: "async replica refused", answers: mysqlAnswers(durable(), nil, 1), refused: true,
			mention: []string{"1 replicas", "asynchronous", "rpl_semi_sync_master_enabled = ON", "AFTER_SYNC", "60000"}},
		{name: "async replica with the opt-in", answers: mysqlAnswers(durable(), nil, 1), allow: true},
		{name: "semi-sync with the default 10 s timeout refused", answers: mysqlAnswers(durable(semi[0], semi[1]), semiOn, 1), refused: true,
			mention: []string{"rpl_semi_sync_master_timeout = 10000 ms", "≥ 60000"}},
		{name: "semi-sync with a 1 s timeout refused", answers: mysqlAnswers(durable(semi[0], semi[1], semi[2], "1000"), semiOn, 1), refused: true,
			mention: []string{"1000 ms"}},
		{name: "semi-sync with a 60 s timeout", answers: mysqlAnswers(durable(semi...), semiOn, 1)},
		{name: "semi-sync switched off refused", answers: mysqlAnswers(durable(semi...), map[string]string{"rpl_semi_sync_master_status": "OFF"}, 1), refused: true,
			mention: []string{"switched off"}},
		{name: "MySQL's source names", answers: mysqlAnswers(durable("rpl_semi_sync_master_enabled", "", "rpl_semi_sync_master_timeout", "",
			"rpl_semi_sync_source_enabled", "ON", "rpl_semi_sync_source_timeout", "3600000"),
			map[string]string{"rpl_semi_sync_source_status": "ON"}, 1)},
		{name: "replicas hidden, semi-sync clients seen, no semi-sync on: impossible but refused", answers: mysqlAnswers(durable(), map[string]string{"rpl_semi_sync_master_clients": "1"}, -1), refused: true},
		{name: "replicas hidden, binlog on: warned", answers: mysqlAnswers(durable(), nil, -1), wantLogged: "REPLICATION MASTER ADMIN"},
		{name: "replicas hidden, semi-sync with a short timeout refused", answers: mysqlAnswers(durable(semi[0], semi[1]), nil, -1), refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			err := testGate(checkMySQL, true, tc.allow, &log).run(t.Context(), &fakeSession{answers: tc.answers})
			checkRefusal(t, err, tc.refused, tc.mention)
			if !strings.Contains(log.String(), tc.wantLogged) {
				t.Errorf("log %q does not say %q", log.String(), tc.wantLogged)
			}
		})
	}
}

// TestReplicationGate_SemiSyncFloorCoversTheStoreTimeout: a store timeout longer
// than 60 s raises the floor, since the reservation that waits on the replica must
// fail before the primary would acknowledge it alone.
func TestReplicationGate_SemiSyncFloorCoversTheStoreTimeout(t *testing.T) {
	g := &replicationGate{timeout: 90 * time.Second}
	if got := g.semiSyncFloor(); got != 90*time.Second {
		t.Errorf("floor %v with a 90 s store timeout", got)
	}
	g.timeout = time.Second
	if got := g.semiSyncFloor(); got != minSemiSyncTimeout {
		t.Errorf("floor %v with a 1 s store timeout", got)
	}
}
