package sqlstore

import (
	"crypto/rand"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/internal/testenv"
	"github.com/cosid-go/cosid/store"
)

// TestCandidates_OwnerThenPreferredThenLowestEachOnce checks the rows of Candidates
// on every live dialect, whose SQL reads each kind of candidate in a part of its own:
// first the free slots the owner key had, released or expired, then the preferred
// slot when it is free, then the lowest free slots, no slot twice, no held slot, at
// most candidateRows.
func TestCandidates_OwnerThenPreferredThenLowestEachOnce(t *testing.T) {
	for _, db := range benchDBs {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			st, clock := openCandidatesStore(t, db)
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
			clock.Move(2 * time.Minute) // b's lease of slot 5 expires

			lowest := func(from int, skip ...int) []int {
				var s []int
				for slot := from; slot < limit; slot++ {
					if !slices.Contains(skip, slot) {
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
				{"NewOwnerPreferringTheLast", "ns", "c", limit - 1, true,
					append([]int{limit - 1}, lowest(1, append(held, limit-1)...)...)},
				{"NoNamespace", "none", "a", -1, false, nil},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					q := st.leaseSQL()
					key := keyArg(q)
					_, rows, found, err := st.readSlots(ctx, q.Candidates, candidateArgs(q, key(tc.namespace), key(tc.owner), tc.preferred)...)
					if err != nil {
						t.Fatal(err)
					}
					var got []int
					for _, r := range rows {
						got = append(got, r.slot)
					}
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
	for _, db := range benchDBs {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			st, _ := openCandidatesStore(t, db)
			req := store.LeaseRequest{Namespace: "full", OwnerKey: "a", Limit: 1, Tolerance: time.Millisecond, TTL: time.Hour, Preferred: -1}
			if _, err := st.Acquire(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			q := st.leaseSQL()
			ns, rows, found, err := st.readSlots(t.Context(), q.Candidates, candidateArgs(q, keyArg(q)("full"), keyArg(q)("a"), 0)...)
			if err != nil || !found || len(rows) != 0 || ns.limit != 1 {
				t.Errorf("found %v, limit %d, %d rows, %v; want the namespace of limit 1 and no row", found, ns.limit, len(rows), err)
			}
		})
	}
}

// openCandidatesStore opens a store on tables of its own, which t drops, with a clock
// that the test moves.
func openCandidatesStore(t *testing.T, db benchDB) (*Store, *ClockOffset) {
	dsn := filepath.Join(t.TempDir(), "candidates.db")
	if db.env != "" {
		dsn = testenv.Server(t, db.env)
	}
	suffix := strings.ToLower(rand.Text()[:10])
	tables := Tables{Range: "cand_range_" + suffix, Slot: "cand_slot_" + suffix, Namespace: "cand_ns_" + suffix}
	clock := new(ClockOffset)
	st, err := Open(db.driver, dsn, 5*time.Second, WithInitSchema(true), WithLogger(nil), WithTables(tables), WithClockOffset(clock))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		st.Close()
		if db.env == "" {
			return
		}
		pool, err := sql.Open(db.driver, dsn)
		if err != nil {
			t.Error(err)
			return
		}
		defer pool.Close()
		for _, n := range []string{tables.Range, tables.Slot, tables.Namespace} {
			pool.Exec("drop table if exists " + n)
		}
	})
	return st, clock
}
