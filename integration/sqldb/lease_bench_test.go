package sqldb_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testkit/testenv"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
	"github.com/cosid-go/cosid/store/storekit"
)

// BenchmarkLease measures Store.Acquire, followed by Release so that the slot is free
// again (op=acquire+release), and Store.Renew (op=renew), with a TTL one millisecond
// longer each time so that every renewal writes its row, each beside its bare
// statements (impl=bare): the same SQL, prepared once on a pool of its own that is
// configured as the store's, run with database/sql alone. Compare them with benchstat
// -col /impl. Acquire and Release run on a namespace of one slot and, beside it, on
// one of largeSlots, where an owner key that had a slot before (owner=same) and one
// that had none (owner=new) take different paths of the read of candidates; compare
// them with benchstat -col /slots.
func BenchmarkLease(b *testing.B) {
	for _, db := range backends {
		b.Run("db="+db.name, func(b *testing.B) { benchLease(b, db) })
	}
}

func benchLease(b *testing.B, db backend) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, pool := openBench(b, db)
	bare := newBareLeases(b, pool, st)
	ns := "bench/" + rand.Text()[:8]
	req := store.LeaseRequest{Namespace: ns + "/store", OwnerKey: "bench", Limit: 1, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
	bareReq := req
	bareReq.Namespace = ns + "/bare"
	for _, l := range []store.Lease{mustLease(b, st, req), mustLease(b, st, bareReq)} {
		if err := st.Release(ctx, l, l.Floor-1); err != nil { // creates the namespaces
			b.Fatal(err)
		}
	}
	b.Run("op=acquire+release/slots=1/impl=bare", func(b *testing.B) {
		for b.Loop() {
			bare.acquireRelease(b, ctx, bareReq.Namespace)
		}
	})
	b.Run("op=acquire+release/slots=1/impl=store", func(b *testing.B) {
		for b.Loop() {
			acquireRelease(b, ctx, st, req)
		}
	})
	b.Run(fmt.Sprintf("op=acquire+release/slots=%d/owner=same/impl=store", largeSlots), func(b *testing.B) {
		st, req := largeNamespace(b, db)
		for b.Loop() {
			acquireRelease(b, ctx, st, req)
		}
	})
	b.Run(fmt.Sprintf("op=acquire+release/slots=%d/owner=new/impl=store", largeSlots), func(b *testing.B) {
		st, req := largeNamespace(b, db)
		for i := 0; b.Loop(); i++ {
			req.OwnerKey = fmt.Sprint("bench-new-", i)
			acquireRelease(b, ctx, st, req)
		}
	})
	held := mustLease(b, st, bareReq)
	b.Run("op=renew/impl=bare", func(b *testing.B) {
		ttl := time.Minute
		for b.Loop() {
			ttl += time.Millisecond
			bare.renew(b, ctx, bareReq.Namespace, held.Slot, ttl)
		}
	})
	l := mustLease(b, st, req)
	b.Run("op=renew/impl=store", func(b *testing.B) {
		ttl := time.Minute
		for b.Loop() {
			ttl += time.Millisecond
			var err error
			if l, err = st.Renew(ctx, l, ttl); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func acquireRelease(b *testing.B, ctx context.Context, st *sqlstore.Store, req store.LeaseRequest) {
	l, err := st.Acquire(ctx, req)
	if err == nil {
		err = st.Release(ctx, l, l.Floor-1)
	}
	if err != nil {
		b.Fatal(err)
	}
}

// largeSlots is the limit of the large namespace of BenchmarkLease: a quarter of
// store.MaxSlots, enough that a read visiting every row of the namespace shows.
const largeSlots = 1 << 20

// largeStores are the stores of the large namespace, by database, kept for every
// -count of the run: the first use of the namespace writes all its rows, which takes
// seconds.
var largeStores sync.Map

// largeNamespace returns a store whose tables hold a namespace of largeSlots slots,
// and a request for it; b.Loop does not time the call. The process's first call drops the tables of an earlier run,
// so that they have the schema of the code under test, and leaves its own behind:
// they are the bench_large_* tables of the server's database, or a file in the
// temporary directory for SQLite.
func largeNamespace(b *testing.B, db backend) (*sqlstore.Store, store.LeaseRequest) {
	req := store.LeaseRequest{Namespace: "bench/large", OwnerKey: "bench", Limit: largeSlots, Tolerance: time.Second, TTL: time.Minute, Preferred: -1}
	if st, ok := largeStores.Load(db.name); ok {
		return st.(*sqlstore.Store), req
	}
	tables := sqlstore.Tables{Range: "bench_large_range", Slot: "bench_large_slot", Namespace: "bench_large_namespace"}
	dsn := filepath.Join(os.TempDir(), "cosid-bench-large.db")
	if db.envVar != "" {
		dsn = testenv.Server(b, db.envVar)
		pool, err := sql.Open(db.driver, dsn)
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range []string{tables.Range, tables.Slot, tables.Namespace} {
			if _, err := pool.Exec("drop table if exists " + t); err != nil {
				b.Fatal(err)
			}
		}
		pool.Close()
	} else {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Remove(dsn + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
				b.Fatal(err)
			}
		}
	}
	st, err := sqlstore.Open(db.driver, dsn, 10*time.Minute, sqlstore.WithInitSchema(true), sqlstore.WithLogger(nil), sqlstore.WithTables(tables))
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	acquireRelease(b, context.Background(), st, req)
	b.Logf("%s: the first use of a namespace of %d slots took %v", db.name, largeSlots, time.Since(start).Round(time.Millisecond))
	largeStores.Store(db.name, st)
	return st, req
}

func mustLease(b *testing.B, st *sqlstore.Store, req store.LeaseRequest) store.Lease {
	l, err := st.Acquire(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// bareLeases runs the store's lease statements with database/sql alone.
type bareLeases struct {
	candidates, slot, take, update *sql.Stmt
	sql                            sqlstore.LeaseSQL
}

// newBareLeases prepares on db the lease statements of st's dialect on its tables,
// the default ones, as the store builds them.
func newBareLeases(b *testing.B, db *sql.DB, st *sqlstore.Store) *bareLeases {
	prepare := func(q string) *sql.Stmt {
		stmt, err := db.Prepare(q)
		if err != nil {
			b.Fatal(err)
		}
		return stmt
	}
	d, tables := dialectOf(b, st, sqlstore.DefaultTables())
	q := d.Leases(tables, d.NowMillis())
	return &bareLeases{prepare(q.Candidates), prepare(q.Slot), prepare(q.Take), prepare(q.Update), q}
}

// bareRow is a lease read: the namespace's settings, the clock and the slot row.
type bareRow struct {
	limit                                       int
	toleranceMs, nowMs                          int64
	slot                                        int
	owner, incarnation, lastOwner               sql.NullString
	fence, expires, floor, ceiling, nextFloorMs int64
}

func (r *bareRow) scan(s interface{ Scan(...any) error }) error {
	return s.Scan(&r.limit, &r.toleranceMs, &r.nowMs, &r.slot, &r.owner, &r.incarnation, &r.lastOwner,
		&r.fence, &r.expires, &r.floor, &r.ceiling, &r.nextFloorMs)
}

// set runs the compare-and-set stmt from the row r as read to the given values and
// returns how many rows it changed.
func (r *bareRow) set(ctx context.Context, stmt *sql.Stmt, ns string, owner, incarnation any, fence, expires, floor, ceiling, nextFloor int64) (int64, error) {
	res, err := stmt.ExecContext(ctx, owner, incarnation, "bench", fence, expires, floor, ceiling, nextFloor,
		ns, r.slot, r.fence, r.incarnation.String, r.expires, r.ceiling, r.nextFloorMs)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (bl *bareLeases) acquireRelease(b *testing.B, ctx context.Context, ns string) {
	var r bareRow
	rows, err := bl.candidates.QueryContext(ctx, candidateArgs(bl.sql, ns, "bench", -1)...)
	if err != nil {
		b.Fatal(err)
	}
	rows.Next()
	err = r.scan(rows)
	rows.Close()
	var taken, released int64
	if err == nil {
		expires := r.nowMs + time.Minute.Milliseconds()
		taken, err = r.set(ctx, bl.take, ns, "bench", storekit.NewIncarnation(), r.fence+1, expires, r.nextFloorMs, expires+r.toleranceMs, r.nextFloorMs)
	}
	if err == nil {
		err = r.scan(bl.slot.QueryRowContext(ctx, ns, r.slot))
	}
	if err == nil {
		released, err = r.set(ctx, bl.update, ns, nil, nil, r.fence, r.expires, r.floor, r.ceiling, r.floor)
	}
	if err != nil || taken != 1 || released != 1 {
		b.Fatalf("bare acquire and release changed %d and %d rows: %v", taken, released, err)
	}
}

func (bl *bareLeases) renew(b *testing.B, ctx context.Context, ns string, slot int, ttl time.Duration) {
	var r bareRow
	var renewed int64
	err := r.scan(bl.slot.QueryRowContext(ctx, ns, slot))
	if err == nil {
		expires := r.nowMs + ttl.Milliseconds()
		renewed, err = r.set(ctx, bl.update, ns, r.owner.String, r.incarnation.String, r.fence, expires, r.floor, max(r.ceiling, expires+r.toleranceMs), r.nextFloorMs)
	}
	if err != nil || renewed != 1 {
		b.Fatalf("bare renew changed %d rows: %v", renewed, err)
	}
}
