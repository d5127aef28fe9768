package sqldb_test

import (
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store/sqlstore"
)

// TestPing answers nil while the database and the store's tables answer, and fails
// naming the table once its range table is gone.
func TestPing(t *testing.T) {
	b := backends[2] // SQLite: the test drops a table of its own file
	dsn := b.dsn(t)
	st := openStore(t, b, dsn, sqlstore.WithTables(sqlstore.Tables{Range: "ping_range", Slot: "ping_slot", Namespace: "ping_ns"}))
	if err := st.Ping(t.Context()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	db := openDB(t, b, dsn)
	if _, err := db.ExecContext(t.Context(), "drop table ping_range"); err != nil {
		t.Fatal(err)
	}
	if err := st.Ping(t.Context()); err == nil || !strings.Contains(err.Error(), "ping_range") {
		t.Errorf("Ping without the range table = %v, want an error naming ping_range", err)
	}
	st.Close()
	if err := st.Ping(t.Context()); err == nil {
		t.Error("Ping of a closed store = nil, want an error")
	}
}
