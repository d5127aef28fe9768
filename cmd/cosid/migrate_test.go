package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// ddl4x is the 4.x segment table as CosId 4.x's
// cosid-jdbc/src/main/init-script/init-cosid-mysql.sql creates it (its
// "create table if not exists cosid" statement, copied with the table's name as %s),
// and the same for PostgreSQL, which has no unsigned types. Its rows are
// name = getNamespacedName() = namespace + "." + name
// (cosid-core/src/main/java/me/ahoo/cosid/segment/IdSegmentDistributor.java).
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

// machineDDL4x is the 4.x machine table as the same init-cosid-mysql.sql creates it
// ("create table if not exists cosid_machine"; without
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
			args := []string{"migrate", "from-4x", "--from-dsn", dsn, "--driver", l.driver, "--table", table, "--machine-table", mtable}
			skipped := `skipped row "no-namespace" of table ` + table + ": want a name {namespace}.{name}\n"
			machineSkips := fmt.Sprintf("skipped machine 20 of namespace %[1]q in table %[2]s: %[1]s/event has slots 0–15\n"+
				"skipped machine 1 of namespace \"other\" in table %[2]s: no snowflake generator of the configuration is in namespace \"other\"\n", ns, mtable)
			refused := fmt.Sprintf("refused: %[1]s/order was at 6, below 4.x's 1001: CosId already handed out ids 1–5 that 4.x also handed out\n", ns)
			forced := fmt.Sprintf("forced: %[1]s/order was at 6, below 4.x's 1001: CosId already handed out ids 1–5 that 4.x also handed out\n", ns)
			dry := fmt.Sprintf("ahead %[1]s/ahead at 501, 4.x next 11\nwould create %[1]s/bill/20261027 at 43\n%[4]swould raise %[1]s/order from 6 to 1001\n%[2]s"+
				"would raise the floor of %[1]s/event slot 3 from 0 to 1700000000001\n%[3]s"+
				"dry run, nothing changed: 4 keys read, 1 raised, 1 created, 1 already ahead, 1 skipped\n"+
				"dry run, nothing changed: 3 machines read, 1 slot floor raised, 0 already ahead, 2 skipped\n", ns, skipped, machineSkips, forced)
			first := fmt.Sprintf("ahead %[1]s/ahead at 501, 4.x next 11\ncreated %[1]s/bill/20261027 at 43\n%[4]sraised %[1]s/order from 6 to 1001\n%[2]s"+
				"raised the floor of %[1]s/event slot 3 from 0 to 1700000000001\n%[3]s"+
				"4 keys read, 1 raised, 1 created, 1 already ahead, 1 skipped\n"+
				"3 machines read, 1 slot floor raised, 0 already ahead, 2 skipped\n", ns, skipped, machineSkips, forced)
			again := fmt.Sprintf("ahead %[1]s/ahead at 501, 4.x next 11\nahead %[1]s/bill/20261027 at 43, 4.x next 43\nahead %[1]s/order at 1001, 4.x next 1001\n%[2]s"+
				"ahead %[1]s/event slot 3 at floor 1700000000001, 4.x floor 1700000000001\n%[3]s"+
				"4 keys read, 0 raised, 0 created, 3 already ahead, 1 skipped\n"+
				"3 machines read, 0 slot floors raised, 1 already ahead, 2 skipped\n", ns, skipped, machineSkips)
			for i, run := range []struct {
				extra []string
				want  string
				code  int
			}{{nil, refused, 1}, {[]string{"--dry-run"}, refused, 1}, {[]string{"--dry-run", "--force"}, dry, 0}, {[]string{"--force"}, first, 0}, {nil, again, 0}} {
				out, errOut, code := runCLI(t, dir, append(args, run.extra...)...)
				if code != run.code || out != run.want {
					t.Fatalf("run %d: exit %d, stderr %q, stdout\n%s\nwant exit %d, stdout\n%s", i+1, code, errOut, out, run.code, run.want)
				}
				if code != 0 && !strings.Contains(errOut, "nothing migrated: 1 key CosId already used below 4.x's values") {
					t.Errorf("run %d: stderr %q, want the refusal", i+1, errOut)
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

// adderKey4x is the Redis key of CosId 4.x's segment namespace.name, built as 4.x
// builds it. cosid-spring-redis/src/main/java/me/ahoo/cosid/spring/redis/SpringRedisIdSegmentDistributor.java
// (and cosid-redis's RedisIdSegmentDistributor.java, the same line):
//
//	this.adderKey = CosId.COSID + ":" + hashTag(getNamespacedName()) + ".adder";
//
// with CosId.COSID = "cosid", getNamespacedName() = namespace + "." + name
// (cosid-core/src/main/java/me/ahoo/cosid/segment/IdSegmentDistributor.java), and hashTag from
// cosid-spring-redis/src/main/java/me/ahoo/cosid/spring/redis/SpringRedisMachineIdDistributor.java: return "{" + key + "}";
func adderKey4x(namespace, name string) string {
	return "cosid" + ":" + hashTag4x(namespace+"."+name) + ".adder"
}

// hashTag4x is 4.x's SpringRedisMachineIdDistributor.hashTag, the Redis Cluster hash
// tag of key.
func hashTag4x(key string) string { return "{" + key + "}" }

// machineKey4x is the Redis hash kind (itc_idx or revert) of CosId 4.x's machines of
// namespace, built as 4.x builds it: SpringRedisMachineIdDistributor.distributeRemote
// and revertRemote call their scripts with KEYS = [hashTag(namespace)], and
// cosid-spring-redis/src/main/resources/machine_id_distribute.lua (and
// machine_id_revert.lua) build
//
//	local instanceIdxKey = 'cosid' .. ':' .. namespace .. ':itc_idx';
//	local instanceRevertKey = 'cosid' .. ':' .. namespace .. ':revert';
//
// from namespace = KEYS[1]. itc_idx maps an instance to
// convertToStringState(machineId, lastStamp) = machineId .. "|" .. lastStamp;
// machine_id_revert.lua moves a released instance's machine to revert as
// hset(instanceRevertKey, machineId, lastStamp).
func machineKey4x(namespace, kind string) string {
	return "cosid" + ":" + hashTag4x(namespace) + ":" + kind
}

// TestMigrateFrom4x_Redis migrates keys written the way 4.x writes them, in its hash
// tag form, and one that an older 4.x wrote without braces: each raises the key its
// generator uses, and the machines of itc_idx and revert raise the slot floors.
func TestMigrateFrom4x_Redis(t *testing.T) {
	addr := testenv.Server(t, testenv.Redis)
	n, _ := rand.Int(rand.Reader, big.NewInt(14))
	url := fmt.Sprintf("redis://%s/%d", addr, n.Int64()+1)
	opts, _ := redis.ParseURL(url)
	rc := redis.NewClient(opts)
	defer rc.Close()
	ns := "r" + strings.ToLower(rand.Text()[:8])
	values := map[string]string{adderKey4x(ns, "order"): "77", adderKey4x(ns, "bill@202610"): "9", adderKey4x(ns, "bad"): "x",
		"cosid:" + ns + ".old.adder": "5"} // the brace-less form
	for k, v := range values {
		if err := rc.Set(t.Context(), k, v, time.Hour).Err(); err != nil {
			t.Fatal(err)
		}
	}
	machines, reverted := machineKey4x(ns, "itc_idx"), machineKey4x(ns, "revert")
	if err := rc.HSet(t.Context(), machines, "inst-1", fmt.Sprintf("2|%d", int64(last4x)), "inst-2", "x").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rc.HSet(t.Context(), reverted, "5", fmt.Sprint(int64(last4x)+7)).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for k := range values {
			rc.Del(context.Background(), k)
		}
		rc.Del(context.Background(), machines, reverted)
	})
	dir := migrateConfig(t, ns, "sqlite", "ids.db")
	wants := [][]string{
		{"created " + ns + "/old at 6",
			`skipped Redis key "cosid:{` + ns + `.bad}.adder": last max id "x" is not a number`, "created " + ns + "/bill/202610 at 10", "created " + ns + "/order at 78",
			"raised the floor of " + ns + "/event slot 2 from 0 to 1700000000001",
			`skipped instance "inst-2" of Redis hash ` + machines + `: state "x" is not {machineId}|{lastTimestamp}`,
			"raised the floor of " + ns + "/event slot 5 from 0 to 1700000000008"},
		{"ahead " + ns + "/old at 6, 4.x next 6",
			`skipped Redis key "cosid:{` + ns + `.bad}.adder"`, "ahead " + ns + "/bill/202610 at 10, 4.x next 10", "ahead " + ns + "/order at 78, 4.x next 78",
			"ahead " + ns + "/event slot 2 at floor 1700000000001, 4.x floor 1700000000001", `skipped instance "inst-2"`,
			"ahead " + ns + "/event slot 5 at floor 1700000000008, 4.x floor 1700000000008"},
	}
	for i, want := range wants {
		out, errOut, code := runCLI(t, dir, "migrate", "from-4x", "--redis", url)
		if code != 0 {
			t.Fatalf("run %d: exit %d, stderr %q", i+1, code, errOut)
		}
		// Other runs may share the database: the counts are theirs too.
		if !regexp.MustCompile(`: \d+ segment keys cosid:\{namespace\.name\}\.adder \(4\.x's hash-tag form\), \d+ machine hashes cosid:\{namespace\}:itc_idx or :revert \(hash-tag form\), \d+ segment keys? cosid:namespace\.name\.adder \(brace-less, an older 4\.x\)`).MatchString(out) {
			t.Errorf("run %d: stdout does not say which key forms it found:\n%s", i+1, out)
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
	for key, want := range map[string]int64{ns + "/order": 78, ns + "/bill/202610": 10, ns + "/old": 6} {
		if r, err := st.Reserve(t.Context(), key, 1, 1); err != nil || r.Start != want {
			t.Errorf("Reserve(%q) after the migration = %v, %v; want [%d, %d)", key, r, err, want, want+1)
		}
	}
}

// TestMigrateFrom4x_RefusesKeysBothIssued: a key that CosId already used below 4.x's
// value means both handed out the same ids; migrate says which and changes nothing.
func TestMigrateFrom4x_RefusesKeysBothIssued(t *testing.T) {
	addr := testenv.Server(t, testenv.Redis)
	rc := redis.NewClient(&redis.Options{Addr: addr})
	defer rc.Close()
	ns := "q" + strings.ToLower(rand.Text()[:8])
	key := adderKey4x(ns, "order")
	if err := rc.Set(t.Context(), key, "1000", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Del(context.Background(), key) })
	dir := writeConfig(t, fmt.Sprintf(`cosid:
  namespace: %s
  stores:
    db: { type: sql, driver: sqlite, dsn: ids.db, timeout: 2s, options: { initSchema: true } }
  generators:
    order: { strategy: segment, store: db, step: 1, lookahead: 0s }
`, ns))
	if out, errOut, code := runCLI(t, dir, "next", "order", "-n", "3"); code != 0 || out != "1\n2\n3\n" {
		t.Fatalf("next: exit %d, %q, %q", code, out, errOut)
	}
	out, errOut, code := runCLI(t, dir, "migrate", "from-4x", "--redis", addr)
	want := ns + "/order was at 4, below 4.x's 1001: CosId already handed out ids 1–3 that 4.x also handed out"
	if code != 1 || !strings.Contains(out, "refused: "+want) || !strings.Contains(errOut, "--force") {
		t.Fatalf("migrate after next: exit %d, stdout %q, stderr %q; want exit 1 saying %q", code, out, errOut, want)
	}
	if out, _, _ := runCLI(t, dir, "next", "order"); out != "4\n" {
		t.Errorf("next after the refused migration = %q, want 4: the refusal changed the key", out)
	}
	out, errOut, code = runCLI(t, dir, "migrate", "from-4x", "--redis", addr, "--force")
	if code != 0 || !strings.Contains(out, "forced: "+ns+"/order was at 5") || !strings.Contains(out, "raised "+ns+"/order from 5 to 1001") {
		t.Fatalf("migrate --force: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestMigrateFrom4x_BadInput(t *testing.T) {
	dir := writeConfig(t, billConfig)
	tests := []struct {
		args    []string
		mention string
	}{
		{[]string{}, "name a 4.x source: --from-dsn (the JDBC table) or --redis"},
		{[]string{"--driver", "pgx", "--redis", "x:1"}, "--driver needs --from-dsn"},
		{[]string{"--from-dsn", "x.db", "--driver", "sqlite", "--table", "cosid; drop table x"}, "want a table name"},
		{[]string{"--from-dsn", "x.db", "--driver", "sqlite", "--table", "nope"}, "4.x table nope"},
		{[]string{"--from-dsn", "x.db", "--driver", "sqlite", "--store", "nope"}, `--store "nope"`},
		// --dsn is the old name of --from-dsn: it still names the source, and warns.
		{[]string{"--dsn", "x.db", "--driver", "sqlite", "--table", "nope"}, "cosid: --dsn of migrate from-4x is the old name of --from-dsn, the 4.x source (--dsn names the store to work on on every other command): use --from-dsn\ncosid: 4.x table nope"},
		{[]string{"--dsn", "x.db", "--from-dsn", "x.db"}, "--dsn is the old name of --from-dsn: give --from-dsn alone"},
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

// TestMigrateFrom4x_HelpNamesTheSourceFromDSN checks that the help offers
// --from-dsn for the 4.x source and hides --dsn, its old name, which names the
// store to work on on every other command.
func TestMigrateFrom4x_HelpNamesTheSourceFromDSN(t *testing.T) {
	out, _, code := runCLI(t, t.TempDir(), "migrate", "from-4x", "--help")
	if code != 0 || !strings.Contains(out, "--from-dsn string") || strings.Contains(out, "--dsn string") {
		t.Errorf("migrate from-4x --help (exit %d):\n%s\nwant --from-dsn and no --dsn", code, out)
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

// TestSnowflakeTargets_LimitAsTheGeneratorAsks checks the namespaces whose slot
// floors a migration raises: each with the limit its generator leases with, 2^20
// for a cosid-generator, so that the namespace the migration creates is the one
// the generator then leases in, not one of another limit.
func TestSnowflakeTargets_LimitAsTheGeneratorAsks(t *testing.T) {
	cfg, err := cosid.ParseConfig([]byte(`
cosid:
  namespace: app
  stores: {db: {type: memory}}
  generators:
    event: {strategy: snowflake, store: db}
    web: {strategy: snowflake, store: db, layout: javascript}
    small: {strategy: snowflake, store: db, slots: 16}
    trace: {strategy: cosid-generator, store: db}
    fixed: {strategy: cosid-generator, machine-id: 3}
    order: {strategy: segment, store: db}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, tg := range snowflakeTargets(cfg, "db")["app"] {
		got[tg.namespace] = tg.limit
	}
	want := map[string]int{"app/event": 1024, "app/web": 256, "app/small": 16, "app/trace": 1 << 20}
	if !maps.Equal(got, want) {
		t.Errorf("targets %v, want %v", got, want)
	}
}
