package sqldb_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
)

// proxyDialect is SQLite SQL whose reservations report what a misbehaving SQL proxy
// would: a value below the size, or none at all. It recognises only databases that
// have a table proxy_marker, so that it never claims another test's SQLite file.
type proxyDialect struct {
	sqlstore.Dialect // SQLite's
	name             string
	report           int64 // the value its Reserve reports; 0 reports none
}

func (d proxyDialect) Name() string { return d.name }

func (d proxyDialect) Detect(ctx context.Context, q sqlstore.Querier) bool {
	_, err := q.ExecContext(ctx, "select 1 from proxy_marker")
	return err == nil
}

func (d proxyDialect) Ranges(t sqlstore.Tables) sqlstore.Ranges {
	return proxyRanges{Ranges: d.Dialect.Ranges(t), report: d.report}
}

type proxyRanges struct {
	sqlstore.Ranges
	report int64
}

func (r proxyRanges) Reserve(ctx context.Context, q sqlstore.Querier, key string, size, created int64) (int64, bool, error) {
	if _, _, err := r.Ranges.Reserve(ctx, q, key, size, created); err != nil {
		return 0, false, err
	}
	return r.report, r.report != 0, nil
}

// unmatchedDialect is SQLite SQL whose Update, and with take set its Take too, never
// changes a row, as a dialect's would whose compare-and-sets disagree with its reads.
// Only WithDialect names it.
type unmatchedDialect struct {
	sqlstore.Dialect // SQLite's
	name             string
	take             bool
}

func (d unmatchedDialect) Name() string                                { return d.name }
func (unmatchedDialect) Detect(context.Context, sqlstore.Querier) bool { return false }

func (d unmatchedDialect) Leases(t sqlstore.Tables, now string) sqlstore.LeaseSQL {
	l := d.Dialect.Leases(t, now)
	l.Update = "update " + t.Slot + " set fence = fence where 0 = 1 and ?15 is null"
	if d.take {
		l.Take = l.Update
	}
	return l
}

// sqliteDialect is the built-in SQLite dialect, which the test dialects change.
var sqliteDialect = func() sqlstore.Dialect {
	d, ok := sqlstore.LookupDialect("sqlite")
	if !ok {
		panic("sqlstore has no sqlite dialect")
	}
	return d
}()

func init() {
	sqlstore.Register(proxyDialect{Dialect: sqliteDialect, name: "test-proxy-below", report: 1})
	sqlstore.Register(proxyDialect{Dialect: sqliteDialect, name: "test-proxy-none"})
	sqlstore.Register(unmatchedDialect{Dialect: sqliteDialect, name: "test-unmatched-update"})
	sqlstore.Register(unmatchedDialect{Dialect: sqliteDialect, name: "test-unmatched-take", take: true})
}

// TestLease_UnmatchedCompareAndSetFails checks that a compare-and-set that changes no
// row of a row that did not change fails the call at once, naming the slot, instead
// of reading again until the timeout.
func TestLease_UnmatchedCompareAndSetFails(t *testing.T) {
	open := func(dialect string) *sqlstore.Store {
		st, err := sqlstore.New(proxyDB(t), time.Minute, sqlstore.WithDialect(dialect), sqlstore.WithInitSchema(true), sqlstore.WithLogger(nil))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	req := store.LeaseRequest{Namespace: "ns", OwnerKey: "a", Limit: 2, TTL: time.Minute, Preferred: -1}
	check := func(op string, err error) {
		t.Helper()
		if err == nil || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "changed no row") {
			t.Errorf("%s: %v, want the error of an unmatched compare-and-set", op, err)
		}
	}
	_, err := open("test-unmatched-take").Acquire(t.Context(), req)
	check("Acquire", err)
	st := open("test-unmatched-update")
	l, err := st.Acquire(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Renew(t.Context(), l, time.Hour)
	check("Renew", err)
	check("Release", st.Release(t.Context(), l, l.Floor))
}

func proxyDB(t *testing.T) *sql.DB {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "proxy.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("create table proxy_marker (x integer)"); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestReserve_LostValueFails checks the SQL-proxy rule: a reservation whose statement
// reports a value below the size, or no value for a key that is neither sealed nor
// full, fails with ErrLostValue instead of handing out a range.
func TestReserve_LostValueFails(t *testing.T) {
	for _, name := range []string{"test-proxy-below", "test-proxy-none"} {
		t.Run(name, func(t *testing.T) {
			st, err := sqlstore.New(proxyDB(t), time.Second, sqlstore.WithDialect(name), sqlstore.WithInitSchema(true), sqlstore.WithLogger(nil))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			for range 2 { // a new key, then an existing one
				r, err := st.Reserve(t.Context(), "k", 5, 0)
				if !errors.Is(err, sqlstore.ErrLostValue) {
					t.Errorf("Reserve = %v, %v; want ErrLostValue", r, err)
				}
			}
		})
	}
}

// TestRegister_TriedBeforeBuiltins checks that a registered dialect is listed and
// detected before the built-in ones, and that registering a name twice panics.
func TestRegister_TriedBeforeBuiltins(t *testing.T) {
	names := sqlstore.Dialects()
	if i, j := slices.Index(names, "test-proxy-below"), slices.Index(names, "postgresql"); i < 0 || i > j {
		t.Errorf("Dialects() = %q, want test-proxy-below before the built-ins", names)
	}
	st, err := sqlstore.New(proxyDB(t), time.Second, sqlstore.WithInitSchema(true), sqlstore.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if st.Dialect() != "test-proxy-below" {
		t.Errorf("detected %q, want the registered test-proxy-below before the built-in sqlite", st.Dialect())
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a dialect name twice did not panic")
		}
	}()
	sqlstore.Register(proxyDialect{Dialect: sqliteDialect, name: "test-proxy-below"})
}
