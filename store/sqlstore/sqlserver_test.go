package sqlstore_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// TestSQLServer_ReleaseSendsKeysSQLServerAccepts runs an Acquire and a Release of the
// sqlserver dialect on a driver that records what the store sends, and checks every
// argument bound to a varbinary column the way SQL Server would receive it from
// go-mssqldb: a []byte arrives as varbinary; a nil arrives as nvarchar(1), and a
// string as nvarchar, which SQL Server refuses to convert to varbinary implicitly
// (Msg 257), so either needs an explicit cast in the statement. A Release clears the
// owner key: before the statement cast it, every Release failed on SQL Server.
func TestSQLServer_ReleaseSendsKeysSQLServerAccepts(t *testing.T) {
	srv := &fakeSQLServer{}
	db := sql.OpenDB(srv)
	defer db.Close()
	st, err := sqlstore.New(db, time.Second, sqlstore.WithDialect("sqlserver"), sqlstore.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	l, err := st.Acquire(ctx, store.LeaseRequest{Namespace: "ns", OwnerKey: "owner", Limit: 4, Tolerance: time.Second, TTL: time.Minute, Preferred: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Release(ctx, l, l.Floor); err != nil {
		t.Fatal(err)
	}
	// The varbinary columns the compare-and-set writes and matches, by argument (see
	// LeaseSQL.Take): owner_key, last_owner_key, namespace.
	varbinary := map[int]string{1: "owner_key", 3: "last_owner_key", 9: "namespace"}
	calls := srv.updates()
	if len(calls) != 2 {
		t.Fatalf("the store ran %d updates, want 2 (the take and the release)", len(calls))
	}
	if calls[1].args[0] != nil {
		t.Fatalf("the release sent owner_key %#v, want NULL", calls[1].args[0])
	}
	for i, c := range calls {
		for n, col := range varbinary {
			if err := sqlServerAccepts(c.query, n, c.args[n-1]); err != nil {
				t.Errorf("update %d, %s: %v\n%s", i+1, col, err, c.query)
			}
		}
	}
}

// sqlServerAccepts reports whether SQL Server stores the argument v of placeholder
// @pn of query in a varbinary column, as go-mssqldb sends it: []byte as varbinary;
// nil as nvarchar(1) (its makeDecl of a NULL) and a string as nvarchar, both of which
// reach a varbinary column only through an explicit cast.
func sqlServerAccepts(query string, n int, v driver.Value) error {
	switch v.(type) {
	case []byte:
		return nil
	case nil, string:
		placeholder := fmt.Sprintf("@p%d", n)
		uses := regexp.MustCompile(placeholder+`\b`).FindAllStringIndex(query, -1)
		casts := regexp.MustCompile(`(?i)cast\(`+placeholder+` as varbinary\(`).FindAllStringIndex(query, -1)
		if len(uses) > 0 && len(uses) == len(casts) {
			return nil
		}
		return fmt.Errorf("%s is %#v, which go-mssqldb sends as nvarchar, and the statement does not cast it (Msg 257: implicit conversion from nvarchar to varbinary is not allowed)", placeholder, v)
	}
	return fmt.Errorf("@p%d is a %T, want []byte", n, v)
}

// fakeSQLServer is a database/sql driver that answers the sqlserver dialect's lease
// statements as a server with one namespace of one slot row would, and records the
// updates it runs.
type fakeSQLServer struct {
	mu    sync.Mutex
	row   []driver.Value // the slot row from owner_key to next_floor_ms
	calls []fakeCall
}

type fakeCall struct {
	query string
	args  []driver.Value
}

// fakeNowMs is the store clock of fakeSQLServer.
const fakeNowMs = 1_750_000_000_000

func (f *fakeSQLServer) Connect(context.Context) (driver.Conn, error) { return fakeConn{f}, nil }
func (f *fakeSQLServer) Driver() driver.Driver                        { return nil }

func (f *fakeSQLServer) updates() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.calls...)
}

func (f *fakeSQLServer) exec(query string, args []driver.NamedValue) (driver.Result, error) {
	if !strings.HasPrefix(query, "update ") {
		return nil, fmt.Errorf("fakeSQLServer runs no %.40q", query)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	values := make([]driver.Value, len(args))
	for i, a := range args {
		values[i] = a.Value
	}
	f.calls = append(f.calls, fakeCall{query, values})
	f.row = values[:8]
	return driver.RowsAffected(1), nil
}

func (f *fakeSQLServer) query(query string) (driver.Rows, error) {
	switch {
	case query == "select @@version": // the check of the dialect
		return &versionRows{"Microsoft SQL Server 2019 (fake, for the test of its arguments)"}, nil
	case strings.HasSuffix(query, "where 1 = 0"): // the check of the tables
		return &fakeRows{}, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	row := []driver.Value{int64(4), int64(1000), int64(fakeNowMs), int64(0)}
	if f.row == nil {
		return &fakeRows{rows: [][]driver.Value{append(row, nil, nil, nil, int64(0), int64(0), int64(0), int64(0), int64(0))}}, nil
	}
	return &fakeRows{rows: [][]driver.Value{append(row, f.row...)}}, nil
}

type fakeConn struct{ f *fakeSQLServer }

func (c fakeConn) Prepare(query string) (driver.Stmt, error) { return fakeStmt{c.f, query}, nil }
func (fakeConn) Close() error                                { return nil }
func (fakeConn) Begin() (driver.Tx, error) {
	return nil, errors.New("fakeSQLServer has no transactions")
}

type fakeStmt struct {
	f     *fakeSQLServer
	query string
}

func (fakeStmt) Close() error  { return nil }
func (fakeStmt) NumInput() int { return -1 }
func (s fakeStmt) Exec([]driver.Value) (driver.Result, error) {
	return nil, errors.New("fakeSQLServer takes named values")
}
func (s fakeStmt) Query([]driver.Value) (driver.Rows, error) {
	return nil, errors.New("fakeSQLServer takes named values")
}
func (s fakeStmt) ExecContext(_ context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.f.exec(s.query, args)
}
func (s fakeStmt) QueryContext(context.Context, []driver.NamedValue) (driver.Rows, error) {
	return s.f.query(s.query)
}

// versionRows is the one row of a version query.
type versionRows struct{ version string }

func (*versionRows) Columns() []string { return []string{"version"} }
func (*versionRows) Close() error      { return nil }
func (r *versionRows) Next(dest []driver.Value) error {
	if r.version == "" {
		return io.EOF
	}
	dest[0], r.version = r.version, ""
	return nil
}

// fakeRows are rows of the twelve columns of a slot read (see LeaseSQL).
type fakeRows struct{ rows [][]driver.Value }

func (*fakeRows) Columns() []string { return make([]string, 12) }
func (*fakeRows) Close() error      { return nil }
func (r *fakeRows) Next(dest []driver.Value) error {
	if len(r.rows) == 0 {
		return io.EOF
	}
	copy(dest, r.rows[0])
	r.rows = r.rows[1:]
	return nil
}
