package sqldb_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// olderScripts create the tables as older scripts did, per backend (%[1]s, %[2]s and
// %[3]s are the range, slot and namespace tables): CosId 5.0.0-alpha.1's, whose slot
// table has no last_owner index, and an earlier one whose range table has no sealed
// column and whose slot table has neither last_owner_key nor next_floor_ms.
var olderScripts = map[string]map[string][]string{
	"alpha1": {
		"postgresql": {
			"create table %[1]s (range_key varchar(255) not null primary key, next_value bigint not null, sealed boolean not null default false)",
			"create table %[2]s (namespace varchar(100) not null, slot integer not null, owner_key varchar(255), incarnation char(36), last_owner_key varchar(255)," +
				" fence bigint not null default 0, expires_at bigint not null default 0, floor_ms bigint not null default 0, ceiling_ms bigint not null default 0," +
				" next_floor_ms bigint not null default 0, primary key (namespace, slot))",
			"create table %[3]s (namespace varchar(100) not null primary key, slot_limit integer not null, tolerance_ms bigint not null)",
		},
		"mariadb": {
			"create table %[1]s (range_key varbinary(255) not null primary key, next_value bigint not null, sealed boolean not null default false)",
			"create table %[2]s (namespace varbinary(100) not null, slot integer not null, owner_key varbinary(255), incarnation char(36), last_owner_key varbinary(255)," +
				" fence bigint not null default 0, expires_at bigint not null default 0, floor_ms bigint not null default 0, ceiling_ms bigint not null default 0," +
				" next_floor_ms bigint not null default 0, primary key (namespace, slot))",
			"create table %[3]s (namespace varbinary(100) not null primary key, slot_limit integer not null, tolerance_ms bigint not null)",
		},
		"sqlite": {
			"create table %[1]s (range_key text not null primary key, next_value integer not null, sealed boolean not null default false)",
			"create table %[2]s (namespace text not null, slot integer not null, owner_key text, incarnation text, last_owner_key text," +
				" fence integer not null default 0, expires_at integer not null default 0, floor_ms integer not null default 0, ceiling_ms integer not null default 0," +
				" next_floor_ms integer not null default 0, primary key (namespace, slot))",
			"create table %[3]s (namespace text not null primary key, slot_limit integer not null, tolerance_ms integer not null)",
		},
	},
	"earlier": {
		"postgresql": {
			"create table %[1]s (range_key varchar(255) not null primary key, next_value bigint not null)",
			"create table %[2]s (namespace varchar(100) not null, slot integer not null, owner_key varchar(255), incarnation char(36)," +
				" fence bigint not null default 0, expires_at bigint not null default 0, floor_ms bigint not null default 0, ceiling_ms bigint not null default 0," +
				" primary key (namespace, slot))",
			"create table %[3]s (namespace varchar(100) not null primary key, slot_limit integer not null, tolerance_ms bigint not null)",
		},
		"mariadb": {
			"create table %[1]s (range_key varbinary(255) not null primary key, next_value bigint not null)",
			"create table %[2]s (namespace varbinary(100) not null, slot integer not null, owner_key varbinary(255), incarnation char(36)," +
				" fence bigint not null default 0, expires_at bigint not null default 0, floor_ms bigint not null default 0, ceiling_ms bigint not null default 0," +
				" primary key (namespace, slot))",
			"create table %[3]s (namespace varbinary(100) not null primary key, slot_limit integer not null, tolerance_ms bigint not null)",
		},
		"sqlite": {
			"create table %[1]s (range_key text not null primary key, next_value integer not null)",
			"create table %[2]s (namespace text not null, slot integer not null, owner_key text, incarnation text," +
				" fence integer not null default 0, expires_at integer not null default 0, floor_ms integer not null default 0, ceiling_ms integer not null default 0," +
				" primary key (namespace, slot))",
			"create table %[3]s (namespace text not null primary key, slot_limit integer not null, tolerance_ms integer not null)",
		},
	},
}

// lastOwnerIndexes counts the slot table's last_owner indexes, per backend; %s is the
// slot table.
var lastOwnerIndexes = map[string]string{
	"postgresql": "select count(*) from pg_indexes where tablename = '%s' and indexdef like '%%(namespace, last_owner_key, slot)'",
	"mariadb":    "select count(*) from information_schema.statistics where table_schema = database() and table_name = '%s' and index_name = 'last_owner' and seq_in_index = 1",
	"sqlite":     "select count(*) from sqlite_master where type = 'index' and tbl_name = '%s' and sql like '%%(namespace, last_owner_key, slot)'",
}

// TestInitSchema_UpgradesTablesOfOlderScripts creates the tables of older scripts,
// with a key and a namespace in use, and opens a store on them: without initSchema it
// fails naming the missing columns and the statements that add them; with it, it
// adds the columns and the slot table's index, keeps the rows, and works.
func TestInitSchema_UpgradesTablesOfOlderScripts(t *testing.T) {
	for _, b := range backends {
		for _, script := range []string{"alpha1", "earlier"} {
			t.Run(b.name+"/"+script, func(t *testing.T) {
				t.Parallel()
				dsn := b.dsn(t)
				db := openDB(t, b, dsn)
				tables := tempTables(t, db)
				for _, stmt := range olderScripts[script][b.name] {
					if _, err := db.Exec(fmt.Sprintf(stmt, tables.Range, tables.Slot, tables.Namespace)); err != nil {
						t.Fatal(err)
					}
				}
				insert := "insert into %s (range_key, next_value) values ('old', 42)"
				if _, err := db.Exec(fmt.Sprintf(insert, tables.Range)); err != nil {
					t.Fatal(err)
				}
				open := func(initSchema bool) (*sqlstore.Store, error) {
					return sqlstore.Open(b.driver, dsn, testTimeout, sqlstore.WithTables(tables), sqlstore.WithInitSchema(initSchema), sqlstore.WithLogger(nil))
				}
				if script == "earlier" {
					st, err := open(false)
					if err == nil {
						st.Close()
						t.Fatal("Open without initSchema on tables without columns succeeded")
					}
					for _, m := range []string{"lacks the columns sealed", "lacks the columns last_owner_key, next_floor_ms", "add the missing columns"} {
						if !strings.Contains(err.Error(), m) {
							t.Errorf("the error does not say %q:\n%v", m, err)
						}
					}
				}
				st, err := open(true)
				if err != nil {
					t.Fatal(err)
				}
				defer st.Close()
				var n int
				if err := db.QueryRow(fmt.Sprintf(lastOwnerIndexes[b.name], tables.Slot)).Scan(&n); err != nil || n != 1 {
					t.Errorf("last_owner indexes of the slot table: %d, %v; want 1", n, err)
				}
				ctx := t.Context()
				if r, err := st.Reserve(ctx, "old", 8, 0); err != nil || r != (store.Range{Start: 42, End: 50}) {
					t.Errorf("Reserve of a key of the older table = %v, %v; want [42, 50)", r, err)
				}
				if err := st.Seal(ctx, "old"); err != nil {
					t.Fatal(err)
				}
				if _, err := st.Reserve(ctx, "old", 8, 0); !errors.Is(err, store.ErrSealed) {
					t.Errorf("Reserve of a sealed key: %v, want ErrSealed", err)
				}
				req := store.LeaseRequest{Namespace: "ns", OwnerKey: "owner", Limit: 4, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
				l, err := st.Acquire(ctx, req)
				if err != nil {
					t.Fatal(err)
				}
				if err := st.Release(ctx, l, l.Floor); err != nil {
					t.Fatal(err)
				}
				if again, err := st.Acquire(ctx, req); err != nil || again.Slot != l.Slot {
					t.Errorf("Acquire again = slot %d, %v; want slot %d (L5)", again.Slot, err, l.Slot)
				}
				st.Close()
				if st, err = open(false); err != nil { // the upgraded tables need nothing more
					t.Fatal(err)
				}
				st.Close()
			})
		}
	}
}
