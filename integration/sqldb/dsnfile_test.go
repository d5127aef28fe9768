package sqldb_test

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/microsoft/go-mssqldb/msdsn"

	"github.com/cosid-go/cosid/store/sqlstore"
)

// TestOpen_LogsTheSQLiteFileItCreates checks issue 19's warning: opening a SQLite
// file that does not exist logs, once and at Info, its absolute name; opening it
// again logs nothing of it.
func TestOpen_LogsTheSQLiteFileItCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	for range 2 {
		st, err := sqlstore.Open("sqlite", path, 5*time.Second, sqlstore.WithInitSchema(true), sqlstore.WithLogger(logger))
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
				dsn, err := sqlstore.MergePassword(tt.driver, tt.dsn, pw)
				if err != nil {
					t.Fatalf("MergePassword(%q): %v", tt.dsn, err)
				}
				if got, user := tt.read(t, dsn); got != pw || user != "cosid" {
					t.Errorf("the driver reads %q as user %q, password %q; want cosid, %q", dsn, user, got, pw)
				}
			})
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
			merged, err := sqlstore.MergePassword("pgx", dsn, pw)
			if err != nil {
				t.Fatal(err)
			}
			c, err := pgconn.ParseConfig(merged)
			if err != nil {
				t.Fatalf("pgconn.ParseConfig(%q): %v", merged, err)
			}
			if c.Password != pw {
				t.Fatalf("pgx reads %q from %q, want %q", c.Password, merged, pw)
			}
		}
		merged, err := sqlstore.MergePassword("mysql", "u@tcp(h:3306)/db", pw)
		if err != nil {
			t.Fatal(err)
		}
		c, err := mysql.ParseDSN(merged)
		if err != nil || c.Passwd != pw || c.DBName != "db" {
			t.Fatalf("mysql.ParseDSN(%q) = %+v, %v; want password %q, database db", merged, c, err, pw)
		}
	})
}
