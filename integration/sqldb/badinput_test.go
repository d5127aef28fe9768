package sqldb_test

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// TestNew_BadInputFailsAtStart checks that every bad setting fails New or Open with an
// error that names it and says what to do, before any reservation.
func TestNew_BadInputFailsAtStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.db")
	db := openDB(t, backend{driver: "sqlite"}, path)
	if _, err := db.Exec("create table wrong_columns (range_key text primary key, value integer)"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		open    func() (*sqlstore.Store, error)
		invalid bool     // the error wraps store.ErrInvalidArgument
		mention []string // the error says each of these
	}{
		{"NilDB", func() (*sqlstore.Store, error) { return sqlstore.New(nil, time.Second) }, true, []string{"nil *sql.DB"}},
		{"ZeroTimeout", func() (*sqlstore.Store, error) { return sqlstore.New(db, 0) }, true, []string{"timeout 0s", "> 0"}},
		{"UnknownDialect", func() (*sqlstore.Store, error) {
			return sqlstore.New(db, time.Second, sqlstore.WithDialect("oracle"))
		}, true, []string{`"oracle"`, "postgresql", "mariadb", "sqlite"}},
		{"UnknownFetchPlan", func() (*sqlstore.Store, error) {
			return sqlstore.New(db, time.Second, sqlstore.WithFetchPlan("eventually"))
		}, true, []string{`"eventually"`, "statement", "transaction"}},
		{"TableNameInjection", func() (*sqlstore.Store, error) {
			return sqlstore.New(db, time.Second, sqlstore.WithTables(sqlstore.Tables{Range: "x; drop table y"}))
		}, true, []string{"rangeTable", `"x; drop table y"`}},
		{"TableNameThreeParts", func() (*sqlstore.Store, error) {
			return sqlstore.New(db, time.Second, sqlstore.WithTables(sqlstore.Tables{Slot: "a.b.c"}))
		}, true, []string{"slotTable", "schema.table"}},
		{"TableMissingWithoutInitSchema", func() (*sqlstore.Store, error) {
			return sqlstore.New(db, time.Second, sqlstore.WithTables(sqlstore.Tables{Range: "no_such_table"}))
		}, false, []string{"no_such_table", "WithInitSchema(true)", `sqlstore.Schema("sqlite", …)`, "store not set up"}},
		{"TableWithOtherColumns", func() (*sqlstore.Store, error) {
			return sqlstore.New(db, time.Second, sqlstore.WithInitSchema(true), sqlstore.WithTables(sqlstore.Tables{Range: "wrong_columns"}))
		}, false, []string{"wrong_columns", "next_value"}},
		{"DriverNotImported", func() (*sqlstore.Store, error) {
			return sqlstore.Open("sqlserver", "sqlserver://sa@127.0.0.1", time.Second)
		}, true, []string{`"sqlserver"`, `import _ "github.com/microsoft/go-mssqldb"`}},
		{"DriverUnknown", func() (*sqlstore.Store, error) { return sqlstore.Open("oracle", "x", time.Second) }, true, []string{`"oracle"`, "registered drivers"}},
		{"ServerUnreachable", func() (*sqlstore.Store, error) {
			return sqlstore.Open("pgx", "postgres://postgres@127.0.0.1:1/test?sslmode=disable", time.Second)
		}, false, []string{"cannot reach the database"}},
		{"MySQLServerUnreachable", func() (*sqlstore.Store, error) {
			return sqlstore.Open("mysql", "root@tcp(127.0.0.1:1)/test", time.Second)
		}, false, []string{"cannot reach the database"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, err := tc.open()
			if err == nil {
				st.Close()
				t.Fatal("succeeded, want an error")
			}
			if tc.invalid != errors.Is(err, store.ErrInvalidArgument) {
				t.Errorf("errors.Is(err, ErrInvalidArgument) = %v, want %v: %v", !tc.invalid, tc.invalid, err)
			}
			for _, m := range tc.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error does not say %q:\n%v", m, err)
				}
			}
		})
	}
}

// TestNew_LeavesGivenDBOpen checks that closing a Store leaves the *sql.DB given to
// New open, and that a closed Store fails with store.ErrClosed.
func TestNew_LeavesGivenDBOpen(t *testing.T) {
	db := openDB(t, backend{driver: "sqlite"}, filepath.Join(t.TempDir(), "own.db"))
	st, err := sqlstore.New(db, time.Second, sqlstore.WithInitSchema(true))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(); err != nil {
		t.Errorf("the *sql.DB given to New was closed: %v", err)
	}
	if _, err := st.Reserve(t.Context(), "k", 1, 0); !errors.Is(err, store.ErrClosed) {
		t.Errorf("Reserve on a closed store: %v, want store.ErrClosed", err)
	}
}

// TestReserve_Key256RefusedBeforeDatabase closes the database under the store: a key
// of 256 bytes still fails with ErrInvalidArgument, so the store never reached it,
// while a valid key reaches it and fails on the closed database.
func TestReserve_Key256RefusedBeforeDatabase(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "k.db"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlstore.New(db, time.Second, sqlstore.WithInitSchema(true))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	db.Close()
	long := strings.Repeat("é", 128) // 256 bytes
	if _, err := st.Reserve(t.Context(), long, 1, 0); !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("Reserve of a 256-byte key: %v, want ErrInvalidArgument", err)
	}
	if err := st.Seal(t.Context(), long); !errors.Is(err, store.ErrInvalidArgument) {
		t.Errorf("Seal of a 256-byte key: %v, want ErrInvalidArgument", err)
	}
	_, err = st.Reserve(t.Context(), long[:254]+"x", 1, 0)
	if errors.Is(err, store.ErrInvalidArgument) || !strings.Contains(fmtErr(err), "closed") {
		t.Errorf("Reserve of a 255-byte key: %v, want the closed database's error", err)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
