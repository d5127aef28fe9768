package sqlstore

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata")

// TestDialectSQL_Golden fixes the SQL text of every built-in dialect, for default and
// schema-qualified table names. It is the only test of the sqlserver dialect, which
// no live server here runs.
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
				r := reflect.ValueOf(d.Ranges(q))
				for i := range r.NumField() {
					if f := r.Field(i); f.Kind() == reflect.String {
						fmt.Fprintf(&b, "-- %s\n%s\n", r.Type().Field(i).Name, f.String())
					}
				}
			}
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
