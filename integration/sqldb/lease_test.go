package sqldb_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
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
// a millisecond, and exactly the slot rows [0, limit), past MySQL's and MariaDB's
// limit of 1,000 recursion steps.
func TestAcquire_FirstUseCreatesNamespaceAndSlotRows(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			dsn := b.dsn(t)
			db := openDB(t, b, dsn)
			tables := tempTables(t, db)
			st := openStore(t, b, dsn, sqlstore.WithTables(tables))
			for _, limit := range []int{1, 3, 1500} {
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
				var rows, lowest, highest int64
				q = fmt.Sprintf("select count(*), min(slot), max(slot) from %s where namespace = %s", tables.Slot, b.param(1))
				if err := db.QueryRow(q, ns).Scan(&rows, &lowest, &highest); err != nil {
					t.Fatal(err)
				}
				if rows != int64(limit) || lowest != 0 || highest != int64(limit-1) {
					t.Errorf("limit %d: %d slot rows from %d to %d, want %d from 0 to %d", limit, rows, lowest, highest, limit, limit-1)
				}
			}
		})
	}
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
