package sqlstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
