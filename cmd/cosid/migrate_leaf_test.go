package main

import (
	"crypto/rand"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cosid-go/cosid"
)

// ddlLeaf is Leaf's table as Leaf's scripts/leaf_alloc.sql creates it (its CREATE
// TABLE, with the table's name as %s), and the same for PostgreSQL, which has no
// bigint(20), backquotes or ON UPDATE.
var ddlLeaf = map[string]string{
	"mysql": "CREATE TABLE `%s` (\n" +
		"  `biz_tag` varchar(128)  NOT NULL DEFAULT '',\n" +
		"  `max_id` bigint(20) NOT NULL DEFAULT '1',\n" +
		"  `step` int(11) NOT NULL,\n" +
		"  `description` varchar(256)  DEFAULT NULL,\n" +
		"  `update_time` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,\n" +
		"  PRIMARY KEY (`biz_tag`)\n" +
		") ENGINE=InnoDB",
	"pgx": `CREATE TABLE %s (
  biz_tag varchar(128) NOT NULL DEFAULT '',
  max_id bigint NOT NULL DEFAULT 1,
  step int NOT NULL,
  description varchar(256) DEFAULT NULL,
  update_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (biz_tag)
)`,
}

// ddlTinyid is tinyid's table as tinyid-server/db.sql creates it (its CREATE TABLE
// tiny_id_info, with the table's name as %s and without the Chinese comments), and
// the same for PostgreSQL.
var ddlTinyid = map[string]string{
	"mysql": "CREATE TABLE `%s` (\n" +
		"  `id` bigint(20) unsigned NOT NULL AUTO_INCREMENT,\n" +
		"  `biz_type` varchar(63) NOT NULL DEFAULT '',\n" +
		"  `begin_id` bigint(20) NOT NULL DEFAULT '0',\n" +
		"  `max_id` bigint(20) NOT NULL DEFAULT '0',\n" +
		"  `step` int(11) DEFAULT '0',\n" +
		"  `delta` int(11) NOT NULL DEFAULT '1',\n" +
		"  `remainder` int(11) NOT NULL DEFAULT '0',\n" +
		"  `create_time` timestamp NOT NULL DEFAULT '2010-01-01 00:00:00',\n" +
		"  `update_time` timestamp NOT NULL DEFAULT '2010-01-01 00:00:00',\n" +
		"  `version` bigint(20) NOT NULL DEFAULT '0',\n" +
		"  PRIMARY KEY (`id`),\n" +
		"  UNIQUE KEY `uniq_biz_type` (`biz_type`)\n" +
		") ENGINE=InnoDB AUTO_INCREMENT=1 DEFAULT CHARSET=utf8",
	"pgx": `CREATE TABLE %s (
  id bigserial PRIMARY KEY,
  biz_type varchar(63) NOT NULL DEFAULT '' UNIQUE,
  begin_id bigint NOT NULL DEFAULT 0,
  max_id bigint NOT NULL DEFAULT 0,
  step int DEFAULT 0,
  delta int NOT NULL DEFAULT 1,
  remainder int NOT NULL DEFAULT 0,
  create_time timestamp NOT NULL DEFAULT '2010-01-01 00:00:00',
  update_time timestamp NOT NULL DEFAULT '2010-01-01 00:00:00',
  version bigint NOT NULL DEFAULT 0
)`,
}

// migrateFrom is a migration from Leaf's or tinyid's table: its DDL, the rows as
// that system's own examples write them, and the lines migrate prints.
type migrateFrom struct {
	command string
	ddl     map[string]string
	insert  []string // %s is the table
	system  string
}

var fromTables = []migrateFrom{
	{"from-leaf", ddlLeaf, []string{
		// Leaf's README: insert into leaf_alloc(biz_tag, max_id, step, description) values('leaf-segment-test', 1, 2000, 'Test leaf Segment Mode Get Id')
		"insert into %s (biz_tag, max_id, step, description) values ('leaf-segment-test', 1, 2000, 'Test leaf Segment Mode Get Id')",
		"insert into %s (biz_tag, max_id, step) values ('order', 1000, 1000)",
		"insert into %s (biz_tag, max_id, step) values ('ahead', 10, 10)",
		"insert into %s (biz_tag, max_id, step) values ('bad tag', 7, 10)",
	}, "Leaf"},
	{"from-tinyid", ddlTinyid, []string{
		// tinyid's db.sql: the rows test and test_odd.
		"insert into %s (biz_type, begin_id, max_id, step, delta, remainder, version) values ('leaf-segment-test', 1, 1, 100000, 1, 0, 1)",
		"insert into %s (biz_type, begin_id, max_id, step, delta, remainder, version) values ('order', 1, 1000, 100000, 2, 1, 3)",
		"insert into %s (biz_type, begin_id, max_id, step, delta, remainder, version) values ('ahead', 1, 10, 10, 1, 0, 1)",
		"insert into %s (biz_type, begin_id, max_id, step, delta, remainder, version) values ('bad tag', 1, 6, 10, 1, 0, 1)",
	}, "tinyid"},
}

// TestMigrateFromLeafAndTinyid_RaisesEveryKeyAboveMaxID migrates each system's table,
// with its own DDL, on MariaDB and PostgreSQL into a keyed generator's keys: a key
// CosId used below the system's max_id is refused until --force, a dry run changes
// nothing, a run raises each key to max_id + 1, a second run finds all ahead, and a
// Reserve after it starts above every id the system handed out.
func TestMigrateFromLeafAndTinyid_RaisesEveryKeyAboveMaxID(t *testing.T) {
	for _, from := range fromTables {
		for _, l := range liveStores[:2] {
			t.Run(from.command+"/"+l.name, func(t *testing.T) {
				dsn := l.dsn(t)
				db, err := sql.Open(l.driver, dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				suffix := strings.ToLower(rand.Text()[:8])
				table, ns := "src_"+suffix, "m"+suffix
				if _, err := db.ExecContext(t.Context(), fmt.Sprintf(from.ddl[l.driver], table)); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Exec("drop table " + table) })
				for _, ins := range from.insert {
					if _, err := db.ExecContext(t.Context(), fmt.Sprintf(ins, table)); err != nil {
						t.Fatal(err)
					}
				}
				st := l.open(t, dsn)
				key := func(tag string) string { return ns + "/ids/" + tag }
				if _, err := st.Reserve(t.Context(), key("ahead"), 500, 1); err != nil {
					t.Fatal(err)
				}
				if _, err := st.Reserve(t.Context(), key("order"), 5, 1); err != nil {
					t.Fatal(err)
				}
				dir := writeConfig(t, fmt.Sprintf(`cosid:
  namespace: %s
  stores:
    db: { type: sql, driver: %s, dsn: '%s', timeout: 10s, options: { initSchema: true } }
  generators:
    ids: { strategy: segment, store: db, keyed: true }
`, ns, l.driver, dsn))
				args := []string{"migrate", from.command, "--from-dsn", dsn, "--from-driver", l.driver, "--table", table, "--generator", "ids"}
				sys := from.system
				note := ""
				if from.command == "from-tinyid" {
					note = "note: order has delta 2 and remainder 1: generator ids hands out every id above its max_id, so migrate each tinyid database of order into this store, or give the generator stride: 2 and residue: 1\n"
				}
				skipped := fmt.Sprintf("skipped row \"bad tag\" of table %s: %v; a key of %s/ids/{key} takes no other\n", table, cosid.CheckKey("bad tag"), ns)
				overlap := fmt.Sprintf("%s was at 6, below %s's 1001: CosId already handed out ids 1–5 that %[2]s also handed out\n", key("order"), sys)
				ahead := fmt.Sprintf("ahead %s at 501, %s next 11\n", key("ahead"), sys)
				lines := func(dry bool) string {
					prefix := ""
					if dry {
						prefix = "dry run, nothing changed: "
					}
					create, raise := "created", "raised"
					if dry {
						create, raise = "would create", "would raise"
					}
					return note + ahead + skipped + fmt.Sprintf("%s %s at 2\n", create, key("leaf-segment-test")) +
						"forced: " + overlap + fmt.Sprintf("%s %s from 6 to 1001\n", raise, key("order")) +
						prefix + "4 keys read, 1 raised, 1 created, 1 already ahead, 1 skipped\n"
				}
				again := note + ahead + skipped + fmt.Sprintf("ahead %s at 2, %s next 2\n", key("leaf-segment-test"), sys) +
					fmt.Sprintf("ahead %s at 1001, %s next 1001\n", key("order"), sys) +
					"4 keys read, 0 raised, 0 created, 3 already ahead, 1 skipped\n"
				for i, run := range []struct {
					extra []string
					want  string
					code  int
				}{
					{nil, note + "refused: " + overlap, 1},
					{[]string{"--dry-run", "--force"}, lines(true), 0},
					{[]string{"--force"}, lines(false), 0},
					{nil, again, 0},
				} {
					out, errOut, code := runCLI(t, dir, append(args, run.extra...)...)
					if code != run.code || out != run.want {
						t.Fatalf("run %d: exit %d, stderr %q, stdout\n%s\nwant exit %d, stdout\n%s", i+1, code, errOut, out, run.code, run.want)
					}
					if code != 0 && !strings.Contains(errOut, "nothing migrated: 1 key CosId already used below "+sys+"'s values") {
						t.Errorf("run %d: stderr %q, want the refusal", i+1, errOut)
					}
				}
				for tag, least := range map[string]int64{"order": 1001, "leaf-segment-test": 2, "ahead": 501} {
					if r, err := st.Reserve(t.Context(), key(tag), 1, 1); err != nil || r.Start < least {
						t.Errorf("Reserve(%q) after the migration = %v, %v; want a range from %d on", key(tag), r, err, least)
					}
				}
			})
		}
	}
}

func TestMigrateFromLeafAndTinyid_BadInput(t *testing.T) {
	dir := writeConfig(t, `cosid:
  stores: { db: { type: memory } }
  generators:
    plain: { strategy: segment, store: db }
    keyed: { strategy: segment, store: db, keyed: true }
`)
	// x.db is an empty database; missing.db is none, and stays none.
	if err := os.WriteFile(filepath.Join(dir, "x.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args    []string
		mention string
	}{
		{[]string{"--generator", "keyed"}, "--from-dsn is required"},
		{[]string{"--from-dsn", "x.db", "--from-driver", "sqlite"}, "--generator is required"},
		{[]string{"--from-dsn", "x.db", "--from-driver", "sqlite", "--generator", "nope"}, `--generator: cosid: unknown generator "nope"; configured: keyed, plain`},
		{[]string{"--from-dsn", "x.db", "--from-driver", "sqlite", "--generator", "plain"}, "want a keyed segment generator"},
		{[]string{"--from-dsn", "x.db", "--from-driver", "sqlite", "--generator", "keyed", "--table", "t; drop table x"}, "want a table name"},
		{[]string{"--from-dsn", "missing.db", "--from-driver", "sqlite", "--generator", "keyed"}, "missing.db does not exist"},
		{[]string{"--from-dsn", "x.db", "--from-driver", "sqlite", "--generator", "keyed", "--table", "nope"}, "table nope"},
	}
	for _, cmd := range []string{"from-leaf", "from-tinyid"} {
		for _, tc := range tests {
			t.Run(cmd+" "+strings.Join(tc.args, " "), func(t *testing.T) {
				out, errOut, code := runCLI(t, dir, append([]string{"migrate", cmd}, tc.args...)...)
				if code != 1 || out != "" || !strings.Contains(errOut, tc.mention) {
					t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 saying %q", code, out, errOut, tc.mention)
				}
			})
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Errorf("a migration from a missing SQLite file created it")
	}
}

// TestMigrateFromLeaf_ThenServeLeafsRoute walks docs/moving-from-leaf.md on the
// embedded store: a Leaf table of one biz_tag at max_id 1000, cosid migrate
// from-leaf, then cosid serve with serve.leaf answers Leaf's route from 1001 on, and
// a biz_tag Leaf did not have with Leaf's error.
func TestMigrateFromLeaf_ThenServeLeafsRoute(t *testing.T) {
	dir := writeConfig(t, `cosid:
  namespace: app
  stores:
    db: { type: sql, driver: sqlite, dsn: cosid.db, options: { initSchema: true } }
  generators:
    leaf: { strategy: segment, store: db, keyed: true }
  serve:
    leaf: { segment: leaf }
`)
	db, err := sql.Open("sqlite", filepath.Join(dir, "leaf.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{
		"create table leaf_alloc (biz_tag varchar(128) not null default '' primary key, max_id bigint not null default 1, step int not null)",
		"insert into leaf_alloc (biz_tag, max_id, step) values ('leaf-segment-test', 1000, 2000)",
	} {
		if _, err := db.ExecContext(t.Context(), stmt); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := runCLI(t, dir, "migrate", "from-leaf", "--from-dsn", "leaf.db", "--from-driver", "sqlite", "--generator", "leaf")
	if code != 0 || !strings.Contains(out, "created app/leaf/leaf-segment-test at 1001") {
		t.Fatalf("migrate from-leaf: exit %d, %s%s", code, out, errOut)
	}
	p := startServe(t, dir)
	if status, body := get(t, p.url+"/api/segment/get/leaf-segment-test"); status != 200 || body != "1001" {
		t.Errorf("Leaf's route after the migration: %d %q; want 200 \"1001\"", status, body)
	}
	if status, body := get(t, p.url+"/api/segment/get/not-in-leaf"); status != 500 || !strings.Contains(body, `"message":"Result{id=-2, status=EXCEPTION}"`) {
		t.Errorf("Leaf's route of a biz_tag Leaf had not: %d %s; want Leaf's 500 of a key that does not exist", status, body)
	}
}

// TestMigrateFromTinyid_StrideContinuesTheClass migrates tinyid's rows on
// PostgreSQL into a generator of stride 2 and residue 1, tinyid's delta and
// remainder of the row order: its key is raised to the least value whose id is above
// max_id, so the next id is the next of tinyid's class; a row of another delta is
// named, and raised above its max_id all the same.
func TestMigrateFromTinyid_StrideContinuesTheClass(t *testing.T) {
	l := liveStores[0]
	dsn := l.dsn(t)
	db, err := sql.Open(l.driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	suffix := strings.ToLower(rand.Text()[:8])
	table, ns := "src_"+suffix, "m"+suffix
	if _, err := db.ExecContext(t.Context(), fmt.Sprintf(ddlTinyid[l.driver], table)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec("drop table " + table) })
	for _, ins := range fromTables[1].insert[:2] {
		if _, err := db.ExecContext(t.Context(), fmt.Sprintf(ins, table)); err != nil {
			t.Fatal(err)
		}
	}
	dir := writeConfig(t, fmt.Sprintf(`cosid:
  namespace: %s
  stores:
    db: { type: sql, driver: %s, dsn: '%s', timeout: 10s, options: { initSchema: true } }
  generators:
    ids: { strategy: segment, store: db, keyed: true, stride: 2, residue: 1 }
`, ns, l.driver, dsn))
	out, errOut, code := runCLI(t, dir, "migrate", "from-tinyid", "--from-dsn", dsn, "--from-driver", l.driver, "--table", table, "--generator", "ids")
	key := func(tag string) string { return ns + "/ids/" + tag }
	want := "note: leaf-segment-test has delta 1 and remainder 0, and generator ids hands out the ids ≡ 1 (mod 2): its ids go on above max_id in its own class, not in tinyid's\n" +
		fmt.Sprintf("created %s at 1\ncreated %s at 500\n", key("leaf-segment-test"), key("order")) +
		"2 keys read, 0 raised, 2 created, 0 already ahead, 0 skipped\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d, stderr %q, stdout\n%s\nwant\n%s", code, errOut, out, want)
	}
	st := l.open(t, dsn)
	for tag, maxID := range map[string]int64{"order": 1000, "leaf-segment-test": 1} {
		r, err := st.Reserve(t.Context(), key(tag), 1, 1)
		if id := r.Start*2 + 1; err != nil || id <= maxID || (r.Start-1)*2+1 > maxID {
			t.Errorf("%s: the first id after the migration is %d (%v); want the least id ≡ 1 (mod 2) above max_id %d", tag, id, err, maxID)
		}
	}
}

// TestMigration_ValueAboveMaxID: the store value from which a generator hands out
// only ids above a max id, with and without a stride, for a key of the generator
// and a key of a keyed one.
func TestMigration_ValueAboveMaxID(t *testing.T) {
	m := &migration{strides: map[string][2]int64{"ns/odd": {2, 1}, "ns/tri": {3, 0}}}
	for _, tc := range []struct {
		key         string
		maxID, want int64
	}{
		{"ns/plain", 1000, 1001},
		{"ns/odd", 1000, 500}, // 500·2 + 1 = 1001
		{"ns/odd", 1001, 501}, // 1001 was handed out: 1003
		{"ns/odd", 0, 0},      // 0·2 + 1 = 1
		{"ns/odd/key", 6, 3},  // a keyed generator's key: 7
		{"ns/tri", 9, 4},      // 12
		{"ns/tri", 8, 3},      // 9
	} {
		if got := m.valueAbove(tc.key, tc.maxID); got != tc.want {
			t.Errorf("valueAbove(%q, %d) = %d, want %d", tc.key, tc.maxID, got, tc.want)
		}
	}
}
