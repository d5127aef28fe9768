package sqldb_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// TestOpen_NamedDialectTheDatabaseDoesNotSpeak checks that a dialect option the
// database does not speak is refused at open, naming both dialects, before the
// store creates a table in the wrong SQL; and that the right one, named, opens.
func TestOpen_NamedDialectTheDatabaseDoesNotSpeak(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			dsn := b.dsn(t)
			db := openDB(t, b, dsn)
			tables := tempTables(t, db)
			wrong := "mysql"
			if b.name != "postgresql" {
				wrong = "postgresql"
			}
			st, err := sqlstore.Open(b.driver, dsn, testTimeout, sqlstore.WithInitSchema(true), sqlstore.WithLogger(nil),
				sqlstore.WithTables(tables), sqlstore.WithDialect(wrong))
			if err == nil {
				st.Close()
				t.Fatalf("Open with dialect %s on %s: no error", wrong, b.name)
			}
			if !errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(err.Error(), `"`+wrong+`"`) ||
				!strings.Contains(err.Error(), "the "+b.name+" dialect") {
				t.Errorf("Open with dialect %s on %s: %v; want ErrInvalidArgument naming both dialects", wrong, b.name, err)
			}
			var n int
			if err := db.QueryRowContext(t.Context(), "select count(*) from "+tables.Range).Scan(&n); err == nil {
				t.Errorf("the refused open created table %s", tables.Range)
			}
			openStore(t, b, dsn, sqlstore.WithTables(tables), sqlstore.WithDialect(b.name))
		})
	}
}

// TestOpen_InstantRefusalSaysNoTimeout checks that a database that refuses at once
// is reported with what it said, not as a timeout it never took.
func TestOpen_InstantRefusalSaysNoTimeout(t *testing.T) {
	st, err := sqlstore.Open("pgx", "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=5", testTimeout)
	if err == nil {
		st.Close()
		t.Fatal("Open of a closed port: no error")
	}
	if msg := err.Error(); !strings.Contains(msg, "cannot reach the database") || strings.Contains(msg, "within") {
		t.Errorf("Open of a closed port: %v; want \"cannot reach the database\" without a timeout", err)
	}
}
