package sqlstore

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/microsoft/go-mssqldb/msdsn"
)

// TestResolveSQLite checks how a relative SQLite DSN is read from the configuration
// file's directory, in each form the driver takes, and that what names no relative
// file stays as it is.
func TestResolveSQLite(t *testing.T) {
	tests := []struct{ dsn, dir, want string }{
		{"ids.db", "/etc/cosid", "/etc/cosid/ids.db"},
		{"data/ids.db?_pragma=busy_timeout(100)", "/etc/cosid", "/etc/cosid/data/ids.db?_pragma=busy_timeout(100)"},
		{"../ids.db", "/etc/cosid", "/etc/ids.db"},
		{"file:ids.db", "/etc/cosid", "file:/etc/cosid/ids.db"},
		{"file:ids.db?mode=rwc&cache=shared", "/srv/a b", "file:/srv/a b/ids.db?mode=rwc&cache=shared"},
		{"file:ids.db", "/srv/100%?#x", "file:/srv/100%25%3F%23x/ids.db"},
		{"file:ids.db", "/", "file:/ids.db"},
		{"file:ids.db", "//srv//x/", "file:/srv/x/ids.db"},
		{"ids.db", "/srv/what?", "file:/srv/what%3F/ids.db"},
		{"/var/lib/ids.db", "/etc/cosid", "/var/lib/ids.db"},
		{"file:/var/lib/ids.db", "/etc/cosid", "file:/var/lib/ids.db"},
		{"file:///var/lib/ids.db", "/etc/cosid", "file:///var/lib/ids.db"},
		{":memory:", "/etc/cosid", ":memory:"},
		{"file::memory:?cache=shared", "/etc/cosid", "file::memory:?cache=shared"},
		{"file:x?mode=memory", "/etc/cosid", "file:x?mode=memory"},
		{"ids.db", "", "ids.db"},
	}
	for _, tc := range tests {
		if got := resolveSQLite(tc.dsn, tc.dir); got != tc.want {
			t.Errorf("resolveSQLite(%q, %q) = %q, want %q", tc.dsn, tc.dir, got, tc.want)
		}
	}
}

// TestSQLiteCreates checks which DSNs name a file that opening creates.
func TestSQLiteCreates(t *testing.T) {
	wd, _ := os.Getwd()
	tests := []struct {
		dsn, want string
		ok        bool
	}{
		{"/var/ids.db", "/var/ids.db", true},
		{"/var/ids.db?_pragma=x", "/var/ids.db", true},
		{"file:/srv/a%20b/ids.db?mode=rwc", "/srv/a b/ids.db", true},
		{"file:///var/ids.db", "/var/ids.db", true},
		{"ids.db", filepath.Join(wd, "ids.db"), true},
		{"file:/var/ids.db?mode=ro", "", false},
		{"file:/var/ids.db?mode=rw", "", false},
		{":memory:", "", false},
		{"file::memory:", "", false},
		{"file:x?mode=memory", "", false},
		{"file:/x?vfs=memdb", "", false},
	}
	for _, tc := range tests {
		if got, ok := sqliteCreates(tc.dsn); got != tc.want || ok != tc.ok {
			t.Errorf("sqliteCreates(%q) = %q, %v; want %q, %v", tc.dsn, got, ok, tc.want, tc.ok)
		}
	}
}

// TestOpen_LogsTheSQLiteFileItCreates checks issue 19's warning: opening a SQLite
// file that does not exist logs, once and at Info, its absolute name; opening it
// again logs nothing of it.
func TestOpen_LogsTheSQLiteFileItCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	for range 2 {
		st, err := Open("sqlite", path, 5*time.Second, WithInitSchema(true), WithLogger(logger))
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	if n := strings.Count(logs.String(), "creating the SQLite database"); n != 1 || !strings.Contains(logs.String(), "path="+path) || !strings.Contains(logs.String(), "level=INFO") {
		t.Errorf("two opens of a new file logged %d lines of its creation, want 1 at INFO with path=%s:\n%s", n, path, logs.String())
	}
}

// passwords are the passwords the DSN tests merge: every character a driver's DSN
// syntax gives a meaning to.
var passwords = []string{"simple", `p@ss:w/rd?x=1&y#z`, `it's \ "quoted" ;{}()=`, " spaced ", "ünï©ødé", "%41%"}

// TestWithPassword_DriversReadItBack checks that the password merged into each
// driver's DSN forms is the password its own parser reads, with the rest of the DSN.
func TestWithPassword_DriversReadItBack(t *testing.T) {
	type check func(t *testing.T, dsn string) (password, user string)
	pg := func(t *testing.T, dsn string) (string, string) {
		c, err := pgconn.ParseConfig(dsn)
		if err != nil {
			t.Fatalf("pgconn.ParseConfig(%q): %v", dsn, err)
		}
		return c.Password, c.User
	}
	my := func(t *testing.T, dsn string) (string, string) {
		c, err := mysql.ParseDSN(dsn)
		if err != nil {
			t.Fatalf("mysql.ParseDSN(%q): %v", dsn, err)
		}
		if c.DBName != "test" || c.Addr != "127.0.0.1:3306" {
			t.Errorf("mysql.ParseDSN(%q): database %q at %q, want test at 127.0.0.1:3306", dsn, c.DBName, c.Addr)
		}
		return c.Passwd, c.User
	}
	ms := func(t *testing.T, dsn string) (string, string) {
		c, err := msdsn.Parse(dsn)
		if err != nil {
			t.Fatalf("msdsn.Parse(%q): %v", dsn, err)
		}
		return c.Password, c.User
	}
	for _, tt := range []struct {
		driver, dsn string
		read        check
	}{
		{"pgx", "postgres://cosid@127.0.0.1:5432/test?sslmode=disable", pg},
		{"pgx", "host=127.0.0.1 port=5432 user=cosid dbname=test sslmode=disable", pg},
		{"mysql", "cosid@tcp(127.0.0.1:3306)/test?parseTime=true", my},
		{"mysql", "cosid@tcp(127.0.0.1:3306)/test", my},
		{"sqlserver", "sqlserver://cosid@127.0.0.1:1433?database=test", ms},
		{"sqlserver", "server=127.0.0.1;user id=cosid;database=test", ms},
	} {
		for _, pw := range passwords {
			t.Run(tt.driver+"/"+pw, func(t *testing.T) {
				dsn, err := withPassword(tt.driver, tt.dsn, pw)
				if err != nil {
					t.Fatalf("withPassword(%q): %v", tt.dsn, err)
				}
				if got, user := tt.read(t, dsn); got != pw || user != "cosid" {
					t.Errorf("the driver reads %q as user %q, password %q; want cosid, %q", dsn, user, got, pw)
				}
			})
		}
	}
}

// TestWithPassword_Refusals checks the DSNs a password cannot be merged into: one
// with a password of its own, one without a user, another driver's.
func TestWithPassword_Refusals(t *testing.T) {
	for _, tc := range []struct{ driver, dsn, mention string }{
		{"pgx", "postgres://u:old@h/db", "has a password already"},
		{"pgx", "postgres://h/db?password=old", "has a password already"},
		{"pgx", "host=h user=u password=old", "has a password already"},
		{"pgx", "postgres://h/db", "names no user"},
		{"mysql", "u:old@tcp(h:3306)/db", "has a password already"},
		{"mysql", "tcp(h:3306)/db", "names no user"},
		{"mysql", "nonsense", "not a MySQL DSN"},
		{"sqlserver", "sqlserver://u:old@h", "has a password already"},
		{"sqlserver", "server=h;user id=u;Password=old", "has a password already"},
		{"sqlserver", "odbc:server=h", "odbc"},
		{"sqlite", "ids.db", "takes no password-file"},
	} {
		if _, err := withPassword(tc.driver, tc.dsn, "pw"); err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("withPassword(%s, %q) = %v, want an error saying %q", tc.driver, tc.dsn, err, tc.mention)
		}
	}
}

// FuzzWithPassword checks that whatever the password, pgx's and MySQL's parsers read
// the merged DSN's password back unchanged.
func FuzzWithPassword(f *testing.F) {
	for _, pw := range passwords {
		f.Add(pw)
	}
	f.Fuzz(func(t *testing.T, pw string) {
		if pw == "" || strings.ContainsAny(pw, "\x00\n\r") {
			return // a password file's first line: never empty, no line break
		}
		for _, dsn := range []string{"postgres://u@h/db", "host=h user=u dbname=db"} {
			merged, err := withPassword("pgx", dsn, pw)
			if err != nil {
				t.Fatal(err)
			}
			c, err := pgconn.ParseConfig(merged)
			if err != nil {
				if errors.Is(err, errPasswordInDSN) {
					t.Fatal(err)
				}
				t.Fatalf("pgconn.ParseConfig(%q): %v", merged, err)
			}
			if c.Password != pw {
				t.Fatalf("pgx reads %q from %q, want %q", c.Password, merged, pw)
			}
		}
		merged, err := withPassword("mysql", "u@tcp(h:3306)/db", pw)
		if err != nil {
			t.Fatal(err)
		}
		c, err := mysql.ParseDSN(merged)
		if err != nil || c.Passwd != pw || c.DBName != "db" {
			t.Fatalf("mysql.ParseDSN(%q) = %+v, %v; want password %q, database db", merged, c, err, pw)
		}
	})
}

// FuzzResolveSQLite checks that a relative SQLite file name, as a plain name and as
// a file: URI, resolves to the file of that name in the configuration's directory,
// whatever characters the directory holds, as sqliteCreates (which reads a DSN as
// the driver does) sees it.
func FuzzResolveSQLite(f *testing.F) {
	f.Add("ids.db", "/etc/cosid")
	f.Add("data/ids.db", "/srv/a b/100%?#")
	f.Add("../x.db", "/")
	f.Fuzz(func(t *testing.T, name, dir string) {
		if name == "" || strings.ContainsAny(name, "?#%\x00") || strings.HasPrefix(name, ":memory:") || strings.HasPrefix(name, "file:") ||
			filepath.IsAbs(name) || !filepath.IsAbs(dir) || strings.ContainsAny(dir, "\x00") {
			return
		}
		want := filepath.Join(dir, name)
		for _, dsn := range []string{name, "file:" + name} {
			got, ok := sqliteCreates(resolveSQLite(dsn, dir))
			if !ok || got != want {
				t.Fatalf("resolveSQLite(%q, %q) = %q, which names %q (%v), want %q", dsn, dir, resolveSQLite(dsn, dir), got, ok, want)
			}
		}
	})
}
