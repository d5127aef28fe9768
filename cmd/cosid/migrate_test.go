package main

import (
	"crypto/rand"
	"database/sql"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid/internal/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// ddl4x is the 4.x segment table as cosid-jdbc's init-cosid-mysql.sql creates it,
// and the same for PostgreSQL, which has no unsigned types; %s is the table's name.
var ddl4x = map[string]string{
	"mysql": `create table if not exists %s
(
    name            varchar(100)    not null comment '{namespace}.{name}',
    last_max_id     bigint unsigned not null default 0,
    last_fetch_time bigint unsigned not null default 0,
    constraint cosid_pk
        primary key (name)
) engine = InnoDB`,
	"pgx": `create table if not exists %s
(
    name            varchar(100) not null,
    last_max_id     bigint       not null default 0,
    last_fetch_time bigint       not null default 0,
    constraint %[1]s_pk primary key (name)
)`,
}

// machineDDL4x is the 4.x machine table as init-cosid-mysql.sql creates it (without
// its indexes, whose names PostgreSQL would share between the tests' tables), and
// the same for PostgreSQL; %s is the table's name.
var machineDDL4x = map[string]string{
	"mysql": `create table if not exists %s
(
    name            varchar(100)     not null comment '{namespace}.{machine_id}',
    namespace       varchar(100)     not null,
    machine_id      integer unsigned not null default 0,
    last_timestamp  bigint unsigned  not null default 0,
    instance_id     varchar(100)     not null default '',
    distribute_time bigint unsigned  not null default 0,
    revert_time     bigint unsigned  not null default 0,
    constraint cosid_machine_pk
        primary key (name)
) engine = InnoDB`,
	"pgx": `create table if not exists %s
(
    name            varchar(100) not null primary key,
    namespace       varchar(100) not null,
    machine_id      integer      not null default 0,
    last_timestamp  bigint       not null default 0,
    instance_id     varchar(100) not null default '',
    distribute_time bigint       not null default 0,
    revert_time     bigint       not null default 0
)`,
}

// migrateConfig is a configuration in namespace ns whose one store is the database
// dsn, with a Snowflake generator event of 16 slots.
func migrateConfig(t *testing.T, ns, driver, dsn string) string {
	return writeConfig(t, fmt.Sprintf(`cosid:
  namespace: %s
  stores:
    db: { type: sql, driver: %s, dsn: '%s', timeout: 10s, options: { initSchema: true } }
  generators:
    event: { strategy: snowflake, store: db, slots: 16 }
`, ns, driver, dsn))
}

// last4x is the last timestamp of the 4.x machines of the tests.
const last4x = 1_700_000_000_000

func TestMigrateFrom4x_JDBC(t *testing.T) {
	for _, l := range liveStores[:2] {
		t.Run(l.name, func(t *testing.T) {
			dsn := l.dsn(t)
			db, err := sql.Open(l.driver, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			suffix := strings.ToLower(rand.Text()[:8])
			table, mtable, ns := "cosid4x_"+suffix, "cosid4x_machine_"+suffix, "m"+suffix
			for _, stmt := range []string{fmt.Sprintf(ddl4x[l.driver], table), fmt.Sprintf(machineDDL4x[l.driver], mtable)} {
				if _, err := db.ExecContext(t.Context(), stmt); err != nil {
					t.Fatal(err)
				}
			}
			t.Cleanup(func() { db.Exec("drop table " + table); db.Exec("drop table " + mtable) })
			for _, r := range []struct {
				ns string
				id int
			}{{ns, 3}, {ns, 20}, {"other", 1}} {
				if _, err := db.ExecContext(t.Context(), fmt.Sprintf("insert into %s (name, namespace, machine_id, last_timestamp) values ('%s.%d', '%s', %d, %d)",
					mtable, r.ns, r.id, r.ns, r.id, int64(last4x))); err != nil {
					t.Fatal(err)
				}
			}
			for _, r := range []struct {
				name string
				max  int64
			}{{ns + ".order", 1000}, {ns + ".bill@20261027", 42}, {ns + ".ahead", 10}, {"no-namespace", 5}} {
				if _, err := db.ExecContext(t.Context(), "insert into "+table+" (name, last_max_id, last_fetch_time) values ('"+r.name+"', "+fmt.Sprint(r.max)+", 0)"); err != nil {
					t.Fatal(err)
				}
			}
			st := l.open(t, dsn)
			if _, err := st.Reserve(t.Context(), ns+"/ahead", 500, 1); err != nil { // the 4.x next is 11
				t.Fatal(err)
			}
			if _, err := st.Reserve(t.Context(), ns+"/order", 5, 1); err != nil {
				t.Fatal(err)
			}
			dir := migrateConfig(t, ns, l.driver, dsn)
			args := []string{"migrate", "from-4x", "--dsn", dsn, "--driver", l.driver, "--table", table, "--machine-table", mtable}
			skipped := `skipped row "no-namespace" of table ` + table + ": want a name {namespace}.{name}\n"
			machineSkips := fmt.Sprintf("skipped machine 20 of namespace %[1]q in table %[2]s: %[1]s/event has slots 0–15\n"+
				"skipped machine 1 of namespace \"other\" in table %[2]s: no snowflake generator of the configuration is in namespace \"other\"\n", ns, mtable)
			dry := fmt.Sprintf("ahead %[1]s/ahead at 501, 4.x next 11\nwould create %[1]s/bill/20261027 at 43\nwould raise %[1]s/order from 6 to 1001\n%[2]s"+
				"would raise the floor of %[1]s/event slot 3 from 0 to 1700000000001\n%[3]s"+
				"dry run, nothing changed: 4 keys read, 1 raised, 1 created, 1 already ahead, 1 skipped\n"+
				"dry run, nothing changed: 3 machines read, 1 slot floors raised, 0 already ahead, 2 skipped\n", ns, skipped, machineSkips)
			first := fmt.Sprintf("ahead %[1]s/ahead at 501, 4.x next 11\ncreated %[1]s/bill/20261027 at 43\nraised %[1]s/order from 6 to 1001\n%[2]s"+
				"raised the floor of %[1]s/event slot 3 from 0 to 1700000000001\n%[3]s"+
				"4 keys read, 1 raised, 1 created, 1 already ahead, 1 skipped\n"+
				"3 machines read, 1 slot floors raised, 0 already ahead, 2 skipped\n", ns, skipped, machineSkips)
			again := fmt.Sprintf("ahead %[1]s/ahead at 501, 4.x next 11\nahead %[1]s/bill/20261027 at 43, 4.x next 43\nahead %[1]s/order at 1001, 4.x next 1001\n%[2]s"+
				"ahead %[1]s/event slot 3 at floor 1700000000001, 4.x floor 1700000000001\n%[3]s"+
				"4 keys read, 0 raised, 0 created, 3 already ahead, 1 skipped\n"+
				"3 machines read, 0 slot floors raised, 1 already ahead, 2 skipped\n", ns, skipped, machineSkips)
			for i, run := range []struct {
				extra []string
				want  string
			}{{[]string{"--dry-run"}, dry}, {nil, first}, {nil, again}} {
				out, errOut, code := runCLI(t, dir, append(args, run.extra...)...)
				if code != 0 || out != run.want {
					t.Fatalf("run %d: exit %d, stderr %q, stdout\n%s\nwant\n%s", i+1, code, errOut, out, run.want)
				}
			}
			lease, err := st.Acquire(t.Context(), store.LeaseRequest{Namespace: ns + "/event", OwnerKey: "new", Limit: 16, Tolerance: time.Second, TTL: time.Minute, Preferred: 3})
			if err != nil || lease.Slot != 3 || lease.Floor <= last4x {
				t.Errorf("Acquire of slot 3 after the migration = %+v, %v; want a floor above %d", lease, err, int64(last4x))
			}
			for key, least := range map[string]int64{ns + "/order": 1001, ns + "/bill/20261027": 43, ns + "/ahead": 501} {
				if r, err := st.Reserve(t.Context(), key, 1, 1); err != nil || r.Start < least {
					t.Errorf("Reserve(%q) after the migration = %v, %v; want a range from %d on", key, r, err, least)
				}
			}
		})
	}
}

func TestMigrateFrom4x_Redis(t *testing.T) {
	addr := testenv.Server(t, testenv.Redis)
	n, _ := rand.Int(rand.Reader, big.NewInt(14))
	url := fmt.Sprintf("redis://%s/%d", addr, n.Int64()+1)
	opts, _ := redis.ParseURL(url)
	rc := redis.NewClient(opts)
	defer rc.Close()
	ns := "r" + strings.ToLower(rand.Text()[:8])
	values := map[string]string{ns + ".order": "77", ns + ".bill@202610": "9", ns + ".bad": "x"}
	for k, v := range values {
		if err := rc.Set(t.Context(), "cosid:"+k+".adder", v, time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
	}
	machines := "cosid:" + ns + ":itc_idx"
	if err := rc.HSet(t.Context(), machines, "inst-1", fmt.Sprintf("2|%d", int64(last4x)), "inst-2", "x").Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for k := range values {
			rc.Del(t.Context(), "cosid:"+k+".adder")
		}
		rc.Del(t.Context(), machines)
	})
	dir := migrateConfig(t, ns, "sqlite", "ids.db")
	wants := [][]string{
		{`skipped Redis key "cosid:` + ns + `.bad.adder": last max id "x" is not a number`, "created " + ns + "/bill/202610 at 10", "created " + ns + "/order at 78",
			`skipped instance "inst-2" of Redis hash ` + machines + `: state "x" is not {machineId}|{lastTimestamp}`,
			"raised the floor of " + ns + "/event slot 2 from 0 to 1700000000001"},
		{`skipped Redis key "cosid:` + ns + `.bad.adder"`, "ahead " + ns + "/bill/202610 at 10, 4.x next 10", "ahead " + ns + "/order at 78, 4.x next 78",
			`skipped instance "inst-2"`, "ahead " + ns + "/event slot 2 at floor 1700000000001, 4.x floor 1700000000001"},
	}
	for i, want := range wants {
		out, errOut, code := runCLI(t, dir, "migrate", "from-4x", "--redis", url)
		if code != 0 {
			t.Fatalf("run %d: exit %d, stderr %q", i+1, code, errOut)
		}
		var mine []string
		for line := range strings.Lines(out) {
			if strings.Contains(line, ns) {
				mine = append(mine, strings.TrimSuffix(line, "\n"))
			}
		}
		if len(mine) != len(want) {
			t.Fatalf("run %d: lines of %s:\n%s\nwant\n%s", i+1, ns, strings.Join(mine, "\n"), strings.Join(want, "\n"))
		}
		for j := range want {
			if !strings.HasPrefix(mine[j], want[j]) {
				t.Errorf("run %d: line %q, want %q", i+1, mine[j], want[j])
			}
		}
	}
	st, err := sqlstore.Open("sqlite", dir+"/ids.db", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if r, err := st.Reserve(t.Context(), ns+"/order", 1, 1); err != nil || r.Start != 78 {
		t.Errorf("Reserve after the migration = %v, %v; want [78, 79)", r, err)
	}
}

func TestMigrateFrom4x_BadInput(t *testing.T) {
	dir := writeConfig(t, billConfig)
	tests := []struct {
		args    []string
		mention string
	}{
		{[]string{}, "name a 4.x source"},
		{[]string{"--driver", "pgx", "--redis", "x:1"}, "--driver needs --dsn"},
		{[]string{"--dsn", "x.db", "--driver", "sqlite", "--table", "cosid; drop table x"}, "want a table name"},
		{[]string{"--dsn", "x.db", "--driver", "sqlite", "--table", "nope"}, "4.x table nope"},
		{[]string{"--dsn", "x.db", "--driver", "sqlite", "--store", "nope"}, `--store "nope"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := runCLI(t, dir, append([]string{"migrate", "from-4x"}, tc.args...)...)
			if code != 1 || out != "" || !strings.Contains(errOut, tc.mention) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 saying %q", code, out, errOut, tc.mention)
			}
		})
	}
}

func TestKeyOf4x(t *testing.T) {
	tests := []struct{ name, key string }{
		{"app.order", "app/order"},
		{"app.bill@20261027", "app/bill/20261027"},
		{"app.a.b", "app/a.b"},
		{"order", ""},
		{".order", ""},
		{"app.", ""},
		{"app.@2026", ""},
		{"app.bill@", ""},
	}
	for _, tc := range tests {
		key, reason := keyOf4x(tc.name)
		if key != tc.key || (reason == "") != (tc.key != "") {
			t.Errorf("keyOf4x(%q) = %q, %q; want %q", tc.name, key, reason, tc.key)
		}
	}
}
