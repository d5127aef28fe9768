package sqldb_test

import (
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
)

func TestConfig_OpensSQLStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	testenv.Opened(t, "sql", "db", `
driver: sqlite
dsn: `+path+`
timeout: 2s
options: { initSchema: true, rangeTable: main.ids, fetchPlan: transaction }
`, 2*time.Second)
}

// TestConfig_ErrorsNameTheField checks that every bad entry fails with an error that
// names its path, the field and the allowed values.
func TestConfig_ErrorsNameTheField(t *testing.T) {
	tests := []struct {
		name, yaml string
		mention    []string
	}{
		{"UnknownKey", "driver: sqlite\ndsn: x\ntimout: 2s", []string{"cosid.stores.db", "timout", "timeout"}},
		{"NoDriver", "dsn: x", []string{"cosid.stores.db.driver", "pgx, mysql, sqlserver, sqlite"}},
		{"DriverNotImported", "driver: sqlserver\ndsn: x", []string{"cosid.stores.db.driver", "github.com/microsoft/go-mssqldb"}},
		{"NoDSN", "driver: sqlite", []string{"cosid.stores.db.dsn"}},
		{"BadTimeout", "driver: sqlite\ndsn: x\ntimeout: soon", []string{"cosid.stores.db", "soon"}},
		{"NegativeTimeout", "driver: sqlite\ndsn: x\ntimeout: -1s", []string{"cosid.stores.db.timeout", "positive"}},
		{"UnknownDialect", "driver: sqlite\ndsn: x\noptions: {dialect: db2}", []string{"cosid.stores.db.options.dialect", `"db2"`, "postgresql"}},
		{"UnknownFetchPlan", "driver: sqlite\ndsn: x\noptions: {fetchPlan: lazy}", []string{"cosid.stores.db.options.fetchPlan", "statement", "transaction"}},
		{"BadTable", "driver: sqlite\ndsn: x\noptions: {slotTable: 'a b'}", []string{"cosid.stores.db.options.slotTable", `"a b"`}},
		{"UnknownOption", "driver: sqlite\ndsn: x\noptions: {initschema: true}", []string{"cosid.stores.db", "initschema"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			testenv.Refused(t, "sql", "db", tc.yaml, tc.mention...)
		})
	}
}

// TestConfig_DSNAndPasswordFileRefusals checks the new file settings' mistakes: both
// dsn and dsn-file, a file that is missing or empty, and a password for SQLite.
func TestConfig_DSNAndPasswordFileRefusals(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, yaml string
		mention    []string
	}{
		{"DSNAndDSNFile", "driver: sqlite\ndsn: a.db\ndsn-file: " + empty, []string{"cosid.stores.db.dsn-file", "beside dsn"}},
		{"DSNFileMissing", "driver: sqlite\ndsn-file: " + filepath.Join(dir, "nope"), []string{"cosid.stores.db.dsn-file", "no such file"}},
		{"DSNFileEmpty", "driver: sqlite\ndsn-file: " + empty, []string{"cosid.stores.db.dsn-file", "is empty"}},
		{"PasswordFileEmpty", "driver: pgx\ndsn: postgres://u@h/db\npassword-file: " + empty, []string{"cosid.stores.db.password-file", "is empty"}},
		{"PasswordForSQLite", "driver: sqlite\ndsn: a.db\npassword-file: " + empty + "x", []string{"cosid.stores.db.password-file"}},
		{"PasswordBesideOne", "driver: pgx\ndsn: postgres://u:pw@h/db\npassword-file: " + writeTemp(t, "pw\n"), []string{"cosid.stores.db.password-file", "has a password already"}},
		{"NoDSNNamesDSNFile", "driver: sqlite", []string{"cosid.stores.db.dsn", "dsn-file"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			testenv.Refused(t, "sql", "db", tc.yaml, tc.mention...)
		})
	}
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfig_MissingTablesNameTheYAMLSetting checks issue 19's missing-table error
// for a store opened from a configuration: it wraps store.ErrNotSetUp, not an
// outage, names the YAML setting initSchema and the cosid schema command (with the
// configured table names), not the Go option, and is short: no DDL script in it.
func TestConfig_MissingTablesNameTheYAMLSetting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bare.db")
	typ, _ := store.Lookup("sql")
	open := typ.Open
	st, err := open(t.Context(), testenv.Spec("db", "driver: sqlite\ndsn: "+path+"\noptions: { rangeTable: ids }", nil))
	if err == nil {
		st.Close()
		t.Fatal("opened a database without tables, want an error")
	}
	if !errors.Is(err, store.ErrNotSetUp) || errors.Is(err, store.ErrUnavailable) {
		t.Errorf("error %q: want store.ErrNotSetUp, not store.ErrUnavailable", err)
	}
	for _, m := range []string{"options: { initSchema: true } in cosid.stores.db", "cosid schema --dialect sqlite --range-table ids`"} {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error does not say %q:\n%v", m, err)
		}
	}
	for _, m := range []string{"WithInitSchema", "create table"} {
		if strings.Contains(strings.ToLower(err.Error()), strings.ToLower(m)) {
			t.Errorf("error says %q:\n%v", m, err)
		}
	}
	if n := len(err.Error()); n > 700 { // the DDL alone is 1,000
		t.Errorf("error is %d bytes, want a short one:\n%v", n, err)
	}
}

// TestConfig_PasswordFileOnRealServers checks password-file on PostgreSQL and
// MariaDB: a user whose password holds every character a DSN gives a meaning to
// signs in with the password merged from a file next to the configuration (Dir),
// and the store works. (The test PostgreSQL trusts local connections, so there the
// test proves the DSN still parses and connects; MariaDB checks the password.)
func TestConfig_PasswordFileOnRealServers(t *testing.T) {
	const user, password = "cosid_h19a_pw", `p@ss:w/rd?x=1&y#z'"\;{}`
	for _, b := range backends[:2] {
		t.Run(b.name, func(t *testing.T) {
			admin := testenv.Server(t, b.envVar)
			db, err := sql.Open(b.driver, admin)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() }) // after the cleanups below, which use it
			var dsn string
			switch b.driver {
			case "pgx":
				quoted := strings.ReplaceAll(password, "'", "''")
				db.Exec("drop role if exists " + user)
				if _, err := db.Exec("create role " + user + " login superuser password '" + quoted + "'"); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Exec("drop role if exists " + user) })
				u, _ := url.Parse(admin)
				u.User = url.User(user)
				dsn = u.String()
			default:
				quoted := strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(password)
				for _, host := range []string{"localhost", "127.0.0.1"} {
					db.Exec("drop user if exists '" + user + "'@'" + host + "'")
					if _, err := db.Exec("create user '" + user + "'@'" + host + "' identified by '" + quoted + "'"); err != nil {
						t.Fatal(err)
					}
					if _, err := db.Exec("grant all on test.* to '" + user + "'@'" + host + "'"); err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { db.Exec("drop user if exists '" + user + "'@'" + host + "'") })
				}
				_, rest, _ := strings.Cut(admin, "@")
				dsn = user + "@" + rest
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "db.pass"), []byte(password+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			typ, _ := store.Lookup("sql")
			open := typ.Open
			spec := testenv.Spec("db", "driver: "+b.driver+"\ndsn: '"+dsn+"'\npassword-file: db.pass\ntimeout: 5s\n"+
				"options: { initSchema: true, rangeTable: h19a_pwfile_range, slotTable: h19a_pwfile_slot, namespaceTable: h19a_pwfile_ns }", nil)
			spec.Dir = dir
			st, err := open(t.Context(), spec)
			if err != nil {
				t.Fatalf("open with password-file: %v", err)
			}
			defer st.Close()
			t.Cleanup(func() {
				for _, tb := range []string{"h19a_pwfile_range", "h19a_pwfile_slot", "h19a_pwfile_ns"} {
					db.Exec("drop table if exists " + tb)
				}
			})
			if _, err := st.Reserve(t.Context(), "h19a/pw", 1, 1); err != nil {
				t.Fatalf("Reserve: %v", err)
			}
			if b.driver == "mysql" {
				spec := testenv.Spec("db", "driver: mysql\ndsn: '"+dsn+"'\ntimeout: 5s", nil)
				if st, err := open(t.Context(), spec); err == nil {
					st.Close()
					t.Error("opened without the password, want a refusal: the test would prove nothing")
				}
			}
		})
	}
}
