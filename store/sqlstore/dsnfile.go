package sqlstore

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cosid-go/cosid/store"
)

// isSQLite reports whether driver is a SQLite driver, whose DSN is a file name.
func isSQLite(driver string) bool { return driver == "sqlite" || driver == "sqlite3" }

// resolveSQLite returns the SQLite DSN dsn with a relative file name read from dir,
// in both of its forms: a file name, and a file: URI (file:cosid.db?mode=rwc). An
// in-memory database, an absolute name, a URI with an authority (file:///…) and any
// DSN when dir is empty stay as they are.
func resolveSQLite(dsn, dir string) string {
	if dir == "" || dsn == "" || strings.HasPrefix(dsn, ":memory:") {
		return dsn
	}
	if rest, ok := strings.CutPrefix(dsn, "file:"); ok {
		i := strings.IndexAny(rest, "?#")
		if i < 0 {
			i = len(rest)
		}
		name, tail := rest[:i], rest[i:]
		if name == "" || strings.HasPrefix(name, "/") || strings.HasPrefix(name, ":memory:") || uriParam(tail, "mode") == "memory" {
			return dsn
		}
		// Cleaned and without its trailing "/", the directory never makes the URI
		// start with "//", an authority: "/" and "x" make file:/x.
		base := strings.TrimSuffix(uriEscape(filepath.ToSlash(filepath.Clean(dir))), "/")
		return "file:" + base + "/" + name + tail
	}
	name, query, hasQuery := strings.Cut(dsn, "?")
	if filepath.IsAbs(name) {
		return dsn
	}
	abs := filepath.Join(dir, name)
	if strings.ContainsAny(abs, "?#") {
		// The driver would cut a plain name at its "?": the name goes in a URI.
		abs = "file:" + uriEscape(filepath.ToSlash(abs))
	}
	if hasQuery {
		return abs + "?" + query
	}
	return abs
}

// uriEscape escapes the characters of a file name that a SQLite URI would read as
// its own: %, ? and #.
func uriEscape(name string) string {
	return strings.NewReplacer("%", "%25", "?", "%3F", "#", "%23").Replace(name)
}

// uriParam returns the value of the parameter name in tail, the "?…" of a URI.
func uriParam(tail, name string) string {
	q, _, _ := strings.Cut(strings.TrimPrefix(tail, "?"), "#")
	for p := range strings.SplitSeq(q, "&") {
		if k, v, _ := strings.Cut(p, "="); k == name {
			return v
		}
	}
	return ""
}

// sqliteCreates returns the file that opening the SQLite DSN dsn creates, when it
// does not exist: its name, absolute, and true; false for an in-memory database and
// a mode that does not create (ro, rw).
func sqliteCreates(dsn string) (string, bool) {
	name, tail := dsn, ""
	if rest, ok := strings.CutPrefix(dsn, "file:"); ok {
		i := strings.IndexAny(rest, "?#")
		if i < 0 {
			i = len(rest)
		}
		name, tail = rest[:i], rest[i:]
		if after, ok := strings.CutPrefix(name, "//"); ok { // file://host/path
			_, name, _ = strings.Cut(after, "/")
			name = "/" + name
		}
		if u, err := url.PathUnescape(name); err == nil {
			name = u
		}
	} else if n, q, ok := strings.Cut(dsn, "?"); ok {
		name, tail = n, "?"+q
	}
	switch mode := uriParam(tail, "mode"); {
	case name == "", strings.HasPrefix(name, ":memory:"), mode == "memory", mode == "ro", mode == "rw", uriParam(tail, "vfs") == "memdb":
		return "", false
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return name, true
	}
	return abs, true
}

// errPasswordInDSN is the error of a password-file beside a DSN that has a password.
var errPasswordInDSN = errors.New("the dsn has a password already; take it out of the dsn, or leave out password-file")

// pgPasswordKey finds a password keyword in a PostgreSQL keyword/value DSN.
var pgPasswordKey = regexp.MustCompile(`(^|\s)password\s*=`)

// MergePassword returns dsn with the password password, as the configuration's
// passwordFile setting merges the file's first line into the dsn setting: for the
// drivers pgx (or postgres), mysql and sqlserver (or mssql), in their DSN syntaxes,
// so that the driver's own parser reads password back whole, whatever characters it
// holds. A DSN without a user, or with a password of its own, and another driver's,
// are refused.
func MergePassword(driver, dsn, password string) (string, error) {
	return withPassword(driver, dsn, password)
}

// withPassword returns dsn with the password password, in the DSN syntax of driver:
// a URL's user information for the URL forms (postgres://, sqlserver://), a quoted
// keyword for the keyword/value forms of pgx and SQL Server, and user:password@ for
// MySQL. Each is written so that the driver's own parser reads password back whole,
// whatever characters it holds. A DSN without a user, or with a password of its own,
// is refused.
func withPassword(driver, dsn, password string) (string, error) {
	switch driver {
	case "pgx", "postgres":
		if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
			return urlPassword(dsn, password)
		}
		if pgPasswordKey.MatchString(dsn) {
			return "", errPasswordInDSN
		}
		quoted := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(password)
		return strings.TrimSpace(dsn) + " password='" + quoted + "'", nil
	case "mysql":
		// [user[:password]@][net[(addr)]]/dbname[?params]: the driver splits at the
		// last "/", then at the last "@" before it, then at the first ":".
		slash := strings.LastIndexByte(dsn, '/')
		at := strings.LastIndexByte(dsn[:max(slash, 0)], '@')
		switch {
		case slash < 0:
			return "", errors.New("the dsn is not a MySQL DSN, such as user@tcp(host:3306)/db")
		case at <= 0:
			return "", errors.New("the dsn names no user for the password; write it as user@tcp(host:3306)/db")
		case strings.Contains(dsn[:at], ":"):
			return "", errPasswordInDSN
		}
		return dsn[:at] + ":" + password + dsn[at:], nil
	case "sqlserver", "mssql":
		if strings.HasPrefix(dsn, "sqlserver://") {
			return urlPassword(dsn, password)
		}
		if strings.HasPrefix(dsn, "odbc:") {
			return "", errors.New("password-file takes a DSN of the URL form sqlserver://user@host?database=db or the key=value; form; an odbc: DSN is not supported")
		}
		for part := range strings.SplitSeq(dsn, ";") {
			if k, _, ok := strings.Cut(part, "="); ok && (strings.EqualFold(strings.TrimSpace(k), "password") || strings.EqualFold(strings.TrimSpace(k), "pwd")) {
				return "", errPasswordInDSN
			}
		}
		sep := ";"
		if strings.HasSuffix(strings.TrimSpace(dsn), ";") {
			sep = ""
		}
		return strings.TrimSpace(dsn) + sep + `password="` + strings.ReplaceAll(password, `"`, `""`) + `"`, nil
	}
	return "", fmt.Errorf("the %s driver takes no password-file; it is for pgx, mysql and sqlserver", driver)
}

// urlPassword sets the password of a URL DSN's user.
func urlPassword(dsn, password string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("the dsn is not a URL: %w", err)
	}
	switch {
	case u.Query().Has("password"):
		return "", errPasswordInDSN
	case u.User == nil || u.User.Username() == "":
		return "", fmt.Errorf("the dsn names no user for the password; write it as %s://user@host/…", u.Scheme)
	}
	if _, has := u.User.Password(); has {
		return "", errPasswordInDSN
	}
	u.User = url.UserPassword(u.User.Username(), password)
	return u.String(), nil
}

// sqliteAccess explains a SQLite database at path that could not be opened, when
// its file or folder is not writable: SQLite says only "unable to open database
// file" or "attempt to write a readonly database". It is a setup error
// (store.ErrNotSetUp), not an outage: waiting does not help, an operator must act.
// It returns nil when both are writable.
func sqliteAccess(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	switch {
	case err == nil:
		f.Close()
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("sqlstore: %w: the SQLite file %s is not writable by uid %d: %w; give it write permission, or set dsn to a file that is", store.ErrNotSetUp, path, os.Getuid(), err)
	case !errors.Is(err, fs.ErrNotExist):
		return nil
	}
	// SQLite writes the database's -wal and -shm files beside it, and creates it
	// there when it does not exist.
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".cosid-write-check-*")
	switch {
	case err == nil:
		tmp.Close()
		os.Remove(tmp.Name())
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("sqlstore: %w: the folder %s of the SQLite file %s does not exist; create it, or set dsn to a file in a folder that does", store.ErrNotSetUp, dir, filepath.Base(path))
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("sqlstore: %w: the folder %s of the SQLite file %s is not writable by uid %d (permission denied): SQLite creates the database and its -wal and -shm files there; give it write permission, or set dsn to a file in a writable folder", store.ErrNotSetUp, dir, filepath.Base(path), os.Getuid())
	}
	return nil
}
