package sqldb_test

import (
	"errors"
	"testing"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// TestMySQL_BothUpsertBranchesReportTheirValue reserves a new key (the insert branch)
// and then the same key again (the update branch) on one connection that carries a
// stale last_insert_id: each reads the value its own statement set.
func TestMySQL_BothUpsertBranchesReportTheirValue(t *testing.T) {
	b := backend{name: "mariadb", driver: "mysql", envVar: testenv.MySQL}
	for _, dialect := range []string{"mariadb", "mysql"} {
		t.Run(dialect, func(t *testing.T) {
			db := openDB(t, b, b.dsn(t))
			db.SetMaxOpenConns(1) // every statement on the connection holding the stale value
			tables := tempTables(t, db)
			st, err := sqlstore.New(db, testTimeout, sqlstore.WithDialect(dialect), sqlstore.WithInitSchema(true),
				sqlstore.WithTables(tables), sqlstore.WithLogger(nil))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if _, err := db.Exec("select last_insert_id(424242)"); err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if r, err := st.Reserve(ctx, "new", 10, 100); err != nil || r != (store.Range{Start: 100, End: 110}) {
				t.Fatalf("insert branch: %v, %v; want [100, 110)", r, err)
			}
			if r, err := st.Reserve(ctx, "new", 5, 999); err != nil || r != (store.Range{Start: 110, End: 115}) {
				t.Fatalf("update branch: %v, %v; want [110, 115)", r, err)
			}
			// A refused update must not report the value that the insert's values() set.
			if err := st.Seal(ctx, "new"); err != nil {
				t.Fatal(err)
			}
			if r, err := st.Reserve(ctx, "new", 5, 7); !errors.Is(err, store.ErrSealed) {
				t.Fatalf("sealed key: %v, %v; want ErrSealed", r, err)
			}
			if r, err := st.Reserve(ctx, "new2", 3, 0); err != nil || r != (store.Range{Start: 0, End: 3}) {
				t.Fatalf("a new key after a refusal: %v, %v; want [0, 3)", r, err)
			}
		})
	}
}
