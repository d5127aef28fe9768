package sqlstore

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestAdminSQL_Golden fixes the admin SQL text of every built-in dialect, for default
// and schema-qualified table names, and PostgreSQL's in its database's byte-order
// collation. It is the only test of the sqlserver dialect's admin statements.
func TestAdminSQL_Golden(t *testing.T) {
	for _, d := range builtins {
		t.Run(d.Name(), func(t *testing.T) {
			var b strings.Builder
			for _, tables := range []Tables{DefaultTables(), {Range: "ids.Range", Slot: "ids.slot", Namespace: "ids.order"}} {
				fmt.Fprintf(&b, "== tables %+v\n", tables)
				writeStrings(&b, "admin ", d.(AdminDialect).Admin(tables.quote(d), d.NowMillis()))
			}
			if pg, ok := d.(postgresDialect); ok {
				writeStrings(&b, "byte-order admin ", pg.admin(DefaultTables().quote(d), d.NowMillis(), ""))
			}
			path := filepath.Join("testdata", d.Name()+".admin.golden")
			if *update {
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestAdminSQL_Golden -update to create it)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("admin SQL of %s differs from %s (-update rewrites it):\n%s", d.Name(), path, got)
			}
		})
	}
}

// TestAdminSQL_TakesItsArguments checks that every admin statement of every built-in
// dialect uses exactly the arguments the store passes.
func TestAdminSQL_TakesItsArguments(t *testing.T) {
	args := map[string]int{"Keys": 4, "Raise": 3, "Delete": 1, "Slots": 1, "LeaseOf": 3}
	numbered := regexp.MustCompile(`(?:\$|\?|@p)(\d+)`)
	for _, d := range builtins {
		a := d.(AdminDialect).Admin(DefaultTables().quote(d), d.NowMillis())
		for name, stmt := range map[string]string{"Keys": a.Keys, "Raise": a.Raise, "Delete": a.Delete, "Slots": a.Slots, "LeaseOf": a.LeaseOf} {
			got := strings.Count(stmt, "?")
			if m := numbered.FindAllStringSubmatch(stmt, -1); m != nil {
				got = 0
				for _, sub := range m {
					n, _ := strconv.Atoi(sub[1])
					got = max(got, n)
				}
			}
			if got != args[name] {
				t.Errorf("%s: %s takes %d arguments, the store passes %d:\n%s", d.Name(), name, got, args[name], stmt)
			}
		}
	}
}
