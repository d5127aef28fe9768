package sqldb_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
	"github.com/cosid-go/cosid/store/storekit"
)

// leaseRequest asks for a slot of ns that outlives the test.
func leaseRequest(ns, owner string, limit int) store.LeaseRequest {
	return store.LeaseRequest{Namespace: ns, OwnerKey: owner, Limit: limit, Tolerance: 1500 * time.Microsecond, TTL: time.Hour, Preferred: -1}
}

// param returns the backend's placeholder for the n-th argument of a test's query.
func (b backend) param(n int) string {
	if b.driver == "pgx" {
		return fmt.Sprintf("$%d", n)
	}
	return "?"
}

// TestAcquire_FirstUseCreatesNamespaceAndSlotRows checks the rows the first Acquire
// of a namespace writes: the namespace with its limit and its tolerance rounded up to
// a millisecond, and the slot rows [0, n) of its first storekit.ProvisionFirst slots
// (all of a smaller namespace), not one per slot of a namespace of 2^20.
func TestAcquire_FirstUseCreatesNamespaceAndSlotRows(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			db := openDB(t, b, dsn)
			tables := tempTables(t, db)
			st := openStore(t, b, dsn, sqlstore.WithTables(tables))
			for _, limit := range []int{1, 3, 1500, 1 << 20} {
				ns := fmt.Sprint("first-use/", limit)
				if _, err := st.Acquire(t.Context(), leaseRequest(ns, "a", limit)); err != nil {
					t.Fatalf("Acquire with limit %d: %v", limit, err)
				}
				var gotLimit, toleranceMs int64
				q := fmt.Sprintf("select slot_limit, tolerance_ms from %s where namespace = %s", tables.Namespace, b.param(1))
				if err := db.QueryRow(q, ns).Scan(&gotLimit, &toleranceMs); err != nil {
					t.Fatal(err)
				}
				if gotLimit != int64(limit) || toleranceMs != 2 {
					t.Errorf("namespace row (limit %d, tolerance_ms %d), want (%d, 2)", gotLimit, toleranceMs, limit)
				}
				want := min(limit, storekit.ProvisionFirst)
				if rows, lowest, highest := slotRowsOf(t, b, db, tables, ns); rows != want || lowest != 0 || highest != want-1 {
					t.Errorf("limit %d: %d slot rows from %d to %d, want %d from 0 to %d", limit, rows, lowest, highest, want, want-1)
				}
			}
		})
	}
}

// TestLeaseSQL_CreateSlotsMakesTheMissingRowsOfARange runs each live dialect's
// CreateSlots itself: the rows [first, first+count) that do not exist, past MySQL's
// and MariaDB's limit of 1,000 recursion steps, none twice, and no row when all
// exist.
func TestLeaseSQL_CreateSlotsMakesTheMissingRowsOfARange(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			st, db, tables := openCandidatesStore(t, b)
			d, _ := sqlstore.LookupDialect(st.Dialect())
			q := d.Leases(sqlstore.Tables{Range: d.QuoteIdent(tables.Range), Slot: d.QuoteIdent(tables.Slot), Namespace: d.QuoteIdent(tables.Namespace)}, d.NowMillis())
			create := func(first, count int) int64 {
				t.Helper()
				res, err := db.ExecContext(t.Context(), q.CreateSlots, "ns", first, count)
				if err != nil {
					t.Fatalf("CreateSlots(%d, %d): %v", first, count, err)
				}
				n, err := res.RowsAffected()
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			for _, tc := range []struct {
				first, count int
				made         int64
				rows         int
				lowest, high int
			}{
				{2000, 3, 3, 3, 2000, 2002},
				{0, 1500, 1500, 1503, 0, 2002},
				{1500, 501, 500, 2003, 0, 2002}, // 1500–1999 are missing; 2000 exists
				{0, 2003, 0, 2003, 0, 2002},
			} {
				if made := create(tc.first, tc.count); made != tc.made {
					t.Errorf("CreateSlots(%d, %d) made %d rows, want %d", tc.first, tc.count, made, tc.made)
				}
				if rows, lowest, highest := slotRowsOf(t, b, db, tables, "ns"); rows != tc.rows || lowest != tc.lowest || highest != tc.high {
					t.Errorf("after CreateSlots(%d, %d): %d rows from %d to %d, want %d from %d to %d", tc.first, tc.count, rows, lowest, highest, tc.rows, tc.lowest, tc.high)
				}
			}
		})
	}
}

// slotRowsOf returns the count, the lowest and the highest slot of the rows of ns.
func slotRowsOf(t *testing.T, b backend, db *sql.DB, tables sqlstore.Tables, ns string) (rows, lowest, highest int) {
	t.Helper()
	q := fmt.Sprintf("select count(*), coalesce(min(slot), -1), coalesce(max(slot), -1) from %s where namespace = %s", tables.Slot, b.param(1))
	if err := db.QueryRow(q, ns).Scan(&rows, &lowest, &highest); err != nil {
		t.Fatal(err)
	}
	return rows, lowest, highest
}

// TestLease_ErrorsNameNamespaceSlotAndStore checks that the errors of leases say
// which namespace, which slot and which store, with the sentinel to match.
func TestLease_ErrorsNameNamespaceSlotAndStore(t *testing.T) {
	b := backend{name: "sqlite", driver: "sqlite"}
	st := openStore(t, b, b.dsn(t), sqlstore.WithTables(sqlstore.Tables{Slot: "leases"}))
	ctx := t.Context()
	ns := "errors/ns"
	held, err := st.Acquire(ctx, leaseRequest(ns, "a", 1))
	if err != nil {
		t.Fatal(err)
	}
	_, noSlot := st.Acquire(ctx, leaseRequest(ns, "b", 1))
	_, conflict := st.Acquire(ctx, leaseRequest(ns, "b", 2))
	if err := st.Release(ctx, held, held.Floor); err != nil {
		t.Fatal(err)
	}
	_, lostRenew := st.Renew(ctx, held, time.Minute)
	lostRelease := st.Release(ctx, held, held.Floor)
	tests := []struct {
		name    string
		err     error
		want    error
		mention []string
	}{
		{"NoFreeSlot", noSlot, store.ErrNoFreeSlot, []string{`"errors/ns"`, `"b"`, "all 1 slots"}},
		{"NamespaceConflict", conflict, store.ErrNamespaceConflict, []string{`"errors/ns"`, "limit 1", "limit 2"}},
		{"RenewLost", lostRenew, store.ErrLeaseLost, []string{"renew slot 0", `"errors/ns"`, "fence 1", `"a"`}},
		{"ReleaseLost", lostRelease, store.ErrLeaseLost, []string{"release slot 0", `"errors/ns"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !errors.Is(tc.err, tc.want) {
				t.Fatalf("error %v, want one wrapping %v", tc.err, tc.want)
			}
			for _, m := range append(tc.mention, "sqlstore(sqlite, leases)") {
				if !strings.Contains(tc.err.Error(), m) {
					t.Errorf("error %q does not say %s", tc.err, m)
				}
			}
		})
	}
}

// TestLease_BoundedByStoreTimeout holds the locks of two slot rows, one leased and one
// free, in another transaction: the Renew and Release of the lease and the Acquire of
// the free slot wait for them, and fail within the store's timeout with
// context.DeadlineExceeded, though their callers' contexts have no deadline.
func TestLease_BoundedByStoreTimeout(t *testing.T) {
	for _, b := range backends[:2] { // the servers with row locks
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			db := openDB(t, b, dsn)
			tables := tempTables(t, db)
			openStore(t, b, dsn, sqlstore.WithTables(tables)) // creates the tables
			const timeout = 200 * time.Millisecond
			st, err := sqlstore.Open(b.driver, dsn, timeout, sqlstore.WithTables(tables), sqlstore.WithLogger(nil))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			ctx := t.Context()
			l, err := st.Acquire(ctx, leaseRequest("held", "a", 1))
			if err != nil {
				t.Fatal(err)
			}
			free, err := st.Acquire(ctx, leaseRequest("free", "a", 1))
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Release(ctx, free, free.Floor); err != nil {
				t.Fatal(err)
			}
			locker, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer locker.Rollback()
			lock := fmt.Sprintf("update %s set ceiling_ms = ceiling_ms where namespace in (%s, %s)", tables.Slot, b.param(1), b.param(2))
			if n, err := locker.ExecContext(ctx, lock, "held", "free"); err != nil {
				t.Fatal(err)
			} else if rows, _ := n.RowsAffected(); b.driver == "pgx" && rows != 2 {
				t.Fatalf("locked %d rows, want 2", rows)
			}
			calls := []struct {
				name string
				call func() error
			}{
				{"Renew", func() error { _, err := st.Renew(ctx, l, time.Hour); return err }},
				{"Release", func() error { return st.Release(ctx, l, l.Floor) }},
				{"Acquire", func() error { _, err := st.Acquire(ctx, leaseRequest("free", "b", 1)); return err }},
			}
			for _, c := range calls {
				if err := c.call(); !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("%s of a locked slot row: %v, want an error wrapping context.DeadlineExceeded", c.name, err)
				}
			}
		})
	}
}

// TestLease_StoreClockIsUTCEpochMillis checks each dialect's clock on a session whose
// time zone is not UTC: StoreNow lies between two readings of the database's epoch
// time taken by another expression, before and after the acquisition.
func TestLease_StoreClockIsUTCEpochMillis(t *testing.T) {
	tests := []struct {
		b      backend
		zone   string // DSN parameter that sets the session's time zone
		millis string // the database's epoch milliseconds, by another way than the dialect's
	}{
		{backends[0], "timezone=Asia%2FKolkata", "select (extract(epoch from statement_timestamp()) * 1000)::bigint"},
		{backends[1], "time_zone=%27%2B05%3A30%27", "select cast(unix_timestamp(now(3)) * 1000 as signed)"},
		{backends[2], "", "select cast((julianday('now') - 2440587.5) * 86400000 as integer)"},
	}
	for _, tc := range tests {
		t.Run(tc.b.name, func(t *testing.T) {
			t.Parallel()
			dsn := tc.b.dsn(t)
			if tc.zone != "" {
				sep := "?"
				if strings.Contains(dsn, "?") {
					sep = "&"
				}
				dsn += sep + tc.zone
			}
			st := openStore(t, tc.b, dsn)
			db := openDB(t, tc.b, dsn)
			read := func() int64 {
				var ms int64
				if err := db.QueryRow(tc.millis).Scan(&ms); err != nil {
					t.Fatal(err)
				}
				return ms
			}
			before := read()
			l, err := st.Acquire(t.Context(), leaseRequest("clock/"+rand.Text(), "a", 1))
			if err != nil {
				t.Fatal(err)
			}
			after := read()
			// One millisecond either way: the other expressions round, the dialects truncate.
			if now := l.StoreNow.UnixMilli(); now < before-1 || now > after+1 {
				t.Errorf("StoreNow %d (%v) outside the database's readings [%d, %d]", now, l.StoreNow, before, after)
			}
		})
	}
}
