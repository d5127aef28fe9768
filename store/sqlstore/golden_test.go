package sqlstore

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// TestDialectSQL_Golden fixes the SQL text of every built-in dialect, for default and
// schema-qualified table names: the schema and its upgrade, the reservations, the
// store clock and the slot leases, also on a clock moved as the tests move it. With
// TestSQLServer_ReleaseSendsKeysSQLServerAccepts, it is the only test of the sqlserver
// dialect, which no live server here runs.
func TestDialectSQL_Golden(t *testing.T) {
	for _, d := range builtins {
		t.Run(d.Name(), func(t *testing.T) {
			var b strings.Builder
			for _, tables := range []Tables{DefaultTables(), {Range: "ids.Range", Slot: "ids.slot", Namespace: "ids.order"}} {
				fmt.Fprintf(&b, "== tables %+v\n", tables)
				q := tables.quote(d)
				for _, stmt := range d.Schema(q) {
					fmt.Fprintf(&b, "-- schema\n%s;\n", stmt)
				}
				writeStrings(&b, "", d.Ranges(q))
				fmt.Fprintf(&b, "-- NowMillis\n%s\n", d.NowMillis())
				writeStrings(&b, "lease ", d.Leases(q, d.NowMillis()))
				writeUpgrade(&b, d, tables, q)
			}
			writeStrings(&b, "moved clock: lease ", d.Leases(DefaultTables().quote(d), "("+d.NowMillis()+" + -3600000)"))
			path := filepath.Join("testdata", d.Name()+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestDialectSQL_Golden -update to create it)", err)
			}
			if got := b.String(); got != string(want) {
				t.Errorf("SQL of %s differs from %s (-update rewrites it):\n%s", d.Name(), path, got)
			}
		})
	}
}

// writeUpgrade writes the statements with which initSchema brings the tables of an
// older script up to date: a column added to each table, for every column that can
// be, and the lookup and the creation of the slot table's index.
func writeUpgrade(b *strings.Builder, d Dialect, t, quoted Tables) {
	u := d.(upgrader)
	for _, table := range []string{quoted.Range, quoted.Slot, quoted.Namespace} {
		for _, c := range columnDefs(d, quoted, table) {
			if c.addable() {
				fmt.Fprintf(b, "-- upgrade: add column %s\n%s\n", c.name, u.addColumn(table, c.def))
			}
		}
	}
	count, args, create := u.lastOwnerIndex(t, quoted)
	fmt.Fprintf(b, "-- upgrade: count the index, with %q\n%s\n-- upgrade: create the index\n%s\n", args, count, create)
}

// writeStrings writes the string fields of the struct v, and its slices that are not
// nil, each under its name.
func writeStrings(b *strings.Builder, prefix string, v any) {
	r := reflect.ValueOf(v)
	for i := range r.NumField() {
		switch f := r.Field(i); {
		case f.Kind() == reflect.String:
			fmt.Fprintf(b, "-- %s%s\n%s\n", prefix, r.Type().Field(i).Name, f.String())
		case f.Kind() == reflect.Slice && !f.IsNil():
			items := make([]string, f.Len())
			for j := range items {
				items[j] = fmt.Sprint(f.Index(j).Interface())
			}
			fmt.Fprintf(b, "-- %s%s\n%s\n", prefix, r.Type().Field(i).Name, strings.Join(items, ", "))
		}
	}
}

// TestLeaseSQL_TakesItsArguments checks that every lease statement of every built-in
// dialect uses exactly the arguments the store passes: with numbered placeholders the
// highest is the last argument, and with plain ? there is one per argument, which
// for Candidates are those of CandidatesArgs when it lists them.
func TestLeaseSQL_TakesItsArguments(t *testing.T) {
	args := map[string]int{"Candidates": 3, "Slot": 2, "Take": 15, "Update": 15, "CreateNamespace": 3, "CreateSlots": 3, "CountHeld": 1}
	numbered := regexp.MustCompile(`(?:\$|\?|@p)(\d+)`)
	for _, d := range builtins {
		leases := d.Leases(DefaultTables().quote(d), d.NowMillis())
		args["Candidates"] = len(candidateArgs(leases, "ns", "owner", -1))
		l := reflect.ValueOf(leases)
		for i := range l.NumField() {
			name, f := l.Type().Field(i).Name, l.Field(i)
			if f.Kind() != reflect.String {
				continue
			}
			want, ok := args[name]
			if !ok {
				t.Fatalf("LeaseSQL.%s has no argument count here", name)
			}
			got := strings.Count(f.String(), "?")
			if m := numbered.FindAllStringSubmatch(f.String(), -1); m != nil {
				got = 0
				for _, sub := range m {
					n, _ := strconv.Atoi(sub[1])
					got = max(got, n)
				}
			}
			if got != want {
				t.Errorf("%s: %s takes %d arguments, the store passes %d:\n%s", d.Name(), name, got, want, f.String())
			}
		}
	}
}
