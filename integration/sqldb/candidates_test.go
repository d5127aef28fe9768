package sqldb_test

import (
	"database/sql"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/sqlstore"
	"github.com/cosid-go/cosid/store/storekit"
)

// TestCandidates_OwnerThenPreferredThenLowestEachOnce checks the rows of Candidates
// on every live dialect, whose SQL reads each kind of candidate in a part of its own:
// first the free slots the owner key had, released or expired, then the preferred
// slot when it is free, then the lowest free slots, no slot twice, no held slot, at
// most candidateRows. It reads the rows the store made: the namespace's first
// storekit.ProvisionFirst, and those of the slots preferred beyond them; a slot
// without a row is no candidate (Acquire makes the row of a preferred one).
func TestCandidates_OwnerThenPreferredThenLowestEachOnce(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			st, db, tables := openCandidatesStore(t, b)
			ctx := t.Context()
			const limit = 40
			acquire := func(owner string, preferred int, ttl time.Duration) store.Lease {
				t.Helper()
				l, err := st.Acquire(ctx, store.LeaseRequest{Namespace: "ns", OwnerKey: owner, Limit: limit, Tolerance: time.Millisecond, TTL: ttl, Preferred: preferred})
				if err != nil {
					t.Fatal(err)
				}
				if l.Slot != preferred {
					t.Fatalf("%q preferring free slot %d got slot %d", owner, preferred, l.Slot)
				}
				return l
			}
			for _, l := range []store.Lease{acquire("a", 30, time.Hour), acquire("a", 7, time.Hour)} {
				if err := st.Release(ctx, l, l.Floor); err != nil {
					t.Fatal(err)
				}
			}
			acquire("x", 0, time.Hour)
			acquire("x", 2, time.Hour)
			acquire("b", 5, time.Minute)
			const moved = 2 * time.Minute // b's lease of slot 5 expires

			lowest := func(from int, skip ...int) []int {
				var s []int
				for slot := from; slot < limit; slot++ {
					if (slot < storekit.ProvisionFirst || slot == 30) && !slices.Contains(skip, slot) {
						s = append(s, slot)
					}
				}
				return s
			}
			held := []int{0, 2}
			tests := []struct {
				name      string
				namespace string
				owner     string
				preferred int
				found     bool
				want      []int
			}{
				{"OwnerSlotsThenPreferredThenLowest", "ns", "a", 3, true,
					append([]int{7, 30, 3}, lowest(1, append(held, 3, 7, 30)...)...)},
				{"PreferredSlotOfTheOwnerOnce", "ns", "a", 30, true,
					append([]int{7, 30}, lowest(1, append(held, 7, 30)...)...)},
				{"PreferredSlotHeld", "ns", "a", 2, true,
					append([]int{7, 30}, lowest(1, append(held, 7, 30)...)...)},
				{"ExpiredSlotOfTheOwner", "ns", "b", -1, true,
					append([]int{5}, lowest(1, append(held, 5)...)...)},
				{"NewOwnerLowest", "ns", "c", -1, true, lowest(1, held...)},
				{"NewOwnerPreferringASlotWithoutRow", "ns", "c", limit - 1, true, lowest(1, held...)},
				{"NoNamespace", "none", "a", -1, false, nil},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					_, got, found := readCandidates(t, db, st, tables, moved, tc.namespace, tc.owner, tc.preferred)
					want := tc.want[:min(len(tc.want), candidateRows)]
					if found != tc.found || !slices.Equal(got, want) {
						t.Errorf("found %v, slots %v; want found %v, slots %v", found, got, tc.found, want)
					}
				})
			}
		})
	}
}

// TestCandidates_NoFreeSlotReadsTheNamespace checks that Candidates reads the
// namespace, with no slot, when every slot is held.
func TestCandidates_NoFreeSlotReadsTheNamespace(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			st, db, tables := openCandidatesStore(t, b)
			req := store.LeaseRequest{Namespace: "full", OwnerKey: "a", Limit: 1, Tolerance: time.Millisecond, TTL: time.Hour, Preferred: -1}
			if _, err := st.Acquire(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			limit, slots, found := readCandidates(t, db, st, tables, 0, "full", "a", 0)
			if !found || len(slots) != 0 || limit != 1 {
				t.Errorf("found %v, limit %d, slots %v; want the namespace of limit 1 and no slot", found, limit, slots)
			}
		})
	}
}

// candidateRows is how many free slots the store's Candidates reads at most.
const candidateRows = 16

// openCandidatesStore opens a store on tables of its own, which t drops, and a pool
// of the test's own on its database.
func openCandidatesStore(t *testing.T, b backend) (*sqlstore.Store, *sql.DB, sqlstore.Tables) {
	dsn := b.dsn(t)
	db := openDB(t, b, dsn)
	tables := tempTables(t, db)
	return openStore(t, b, dsn, sqlstore.WithTables(tables)), db, tables
}

// readCandidates runs, on db, the Candidates statement of st's dialect on tables, with
// the store clock moved on by moved as a store WithClockOffset moves it, and returns
// what the store reads of its rows: the namespace's slot limit, the free slots in
// order, and whether the namespace was found.
func readCandidates(t *testing.T, db *sql.DB, st *sqlstore.Store, tables sqlstore.Tables, moved time.Duration, namespace, owner string, preferred int) (limit int, slots []int, found bool) {
	t.Helper()
	d, ok := sqlstore.LookupDialect(st.Dialect())
	if !ok {
		t.Fatalf("no dialect %q", st.Dialect())
	}
	now := d.NowMillis()
	if moved != 0 {
		now = "(" + now + " + " + strconv.FormatInt(moved.Milliseconds(), 10) + ")"
	}
	q := d.Leases(sqlstore.Tables{Range: d.QuoteIdent(tables.Range), Slot: d.QuoteIdent(tables.Slot), Namespace: d.QuoteIdent(tables.Namespace)}, now)
	rows, err := db.QueryContext(t.Context(), q.Candidates, candidateArgs(q, namespace, owner, preferred)...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			toleranceMs, nowMs                        int64
			slot, fence, expires, floor, ceil, nextFl sql.NullInt64
			owner, incarnation, lastOwner             sql.NullString
		)
		if err := rows.Scan(&limit, &toleranceMs, &nowMs, &slot, &owner, &incarnation, &lastOwner, &fence, &expires, &floor, &ceil, &nextFl); err != nil {
			t.Fatal(err)
		}
		found = true
		if slot.Valid {
			slots = append(slots, int(slot.Int64))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return limit, slots, found
}

// candidateArgs returns the arguments of q.Candidates, as the store passes them.
func candidateArgs(q sqlstore.LeaseSQL, namespace, owner string, preferred int) []any {
	key := q.KeyArg
	if key == nil {
		key = func(k string) any { return k }
	}
	order := q.CandidatesArgs
	if order == nil {
		order = []sqlstore.CandidateArg{sqlstore.CandidateNamespace, sqlstore.CandidateOwnerKey, sqlstore.CandidatePreferred}
	}
	args := make([]any, len(order))
	for i, a := range order {
		switch a {
		case sqlstore.CandidateNamespace:
			args[i] = key(namespace)
		case sqlstore.CandidateOwnerKey:
			args[i] = key(owner)
		case sqlstore.CandidatePreferred:
			args[i] = preferred
		}
	}
	return args
}
