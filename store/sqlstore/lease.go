package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// slotRow is a row of the slot table; a NULL owner key or incarnation reads as "".
type slotRow struct {
	slot int
	storekit.SlotRow
}

// slotRead is what a read of the slot table says besides its rows: the namespace's
// settings and the store clock.
type slotRead struct {
	limit       int
	toleranceMs int64
	nowMs       int64
}

// Acquire implements store.SlotLeaseStore. It reads the namespace's free slots with
// the store clock (creating the namespace and its first slot rows at its first use),
// then takes the first of them whose row is still as read, one compare-and-set each;
// when other acquirers took them all first it reads again. A new owner takes two
// round trips. Slot rows are made as they are needed (storekit.SlotsToProvision):
// when every row is leased, twice as many as are held, and a preferred slot's
// alone.
func (s *Store) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	if err := store.CheckLeaseRequest(req); err != nil {
		return store.Lease{}, fmt.Errorf("%s: acquire: %w", s.slotName, err)
	}
	ctx, cancel, err := s.begin(ctx)
	if err == nil {
		defer cancel()
		var l store.Lease
		if l, err = s.acquire(ctx, s.leaseSQL(), req); err == nil {
			return l, nil
		}
	}
	return store.Lease{}, s.leaseFail(ctx, fmt.Sprintf("acquire a slot of namespace %q for %q", req.Namespace, req.OwnerKey), err)
}

func (s *Store) acquire(ctx context.Context, q LeaseSQL, req store.LeaseRequest) (store.Lease, error) {
	toleranceMs, ttlMs := storekit.MillisUp(req.Tolerance), storekit.MillisUp(req.TTL)
	key := keyArg(q)
	created, triedPreferred := false, false
	provisioned := 0                     // the rows [0, n) this call made, or found made
	missed := map[int]storekit.SlotRow{} // the rows as read when a Take changed none
	for {
		ns, free, found, err := s.readSlots(ctx, q.Candidates, candidateArgs(q, key(req.Namespace), key(req.OwnerKey), req.Preferred)...)
		switch {
		case err != nil:
			return store.Lease{}, err
		case !found && created:
			return store.Lease{}, errors.New("the namespace is missing right after its creation")
		case !found:
			if err := s.createNamespace(ctx, q, req.Namespace, req.Limit, toleranceMs); err != nil {
				return store.Lease{}, fmt.Errorf("creating the namespace: %w", err)
			}
			created = true
			continue
		case ns.limit != req.Limit || ns.toleranceMs != toleranceMs:
			return store.Lease{}, storekit.NamespaceConflict(ns.limit, ns.toleranceMs, req.Limit, req.Tolerance)
		case !triedPreferred && wantsPreferred(req, free):
			// The preferred slot may have no row yet: make it, and read again if
			// that made one.
			triedPreferred = true
			made, err := s.makeSlots(ctx, q, req.Namespace, req.Preferred, 1)
			if err != nil {
				return store.Lease{}, fmt.Errorf("making the row of the preferred slot %d: %w", req.Preferred, err)
			}
			if made {
				continue
			}
		}
		if len(free) == 0 {
			n, err := s.provision(ctx, q, req.Namespace, ns.limit, provisioned)
			if err != nil {
				return store.Lease{}, fmt.Errorf("making more slot rows: %w", err)
			}
			if n <= provisioned {
				return store.Lease{}, fmt.Errorf("all %d slots are leased: %w", ns.limit, store.ErrNoFreeSlot)
			}
			provisioned = n
			continue
		}
		for _, r := range free {
			if m, ok := missed[r.slot]; ok && m == r.SlotRow {
				return store.Lease{}, errUnmatched(r.slot)
			}
			next := slotRow{r.slot, r.Take(req.OwnerKey, ns.nowMs, ttlMs, toleranceMs)}
			taken, err := s.swap(ctx, q, q.Take, req.Namespace, r, next)
			if err != nil {
				return store.Lease{}, fmt.Errorf("taking slot %d: %w", r.slot, err)
			}
			if taken {
				return next.Lease(req.Namespace, r.slot, ns.nowMs), nil
			}
			missed[r.slot] = r.SlotRow
		}
	}
}

// createNamespace records the namespace with its limit and tolerance and creates its
// first slot rows, in one transaction, unless another call created it first. A
// dialect without CountHeld gets every row at once.
func (s *Store) createNamespace(ctx context.Context, q LeaseSQL, namespace string, limit int, toleranceMs int64) error {
	key := keyArg(q)
	first := limit
	if q.CountHeld != "" {
		first = storekit.SlotsToProvision(0, limit)
	}
	for attempt := 1; ; attempt++ {
		_, err := inTx(ctx, s, func(ctx context.Context, tx Querier) (struct{}, error) {
			res, err := tx.ExecContext(ctx, q.CreateNamespace, key(namespace), limit, toleranceMs)
			if err != nil {
				return struct{}{}, err
			}
			if n, err := res.RowsAffected(); err != nil || n == 0 {
				return struct{}{}, err
			}
			_, err = createSlots(ctx, tx, q, namespace, 0, first)
			return struct{}{}, err
		})
		if err == nil || attempt == maxTxAttempts || ctx.Err() != nil || !s.dialect.Retryable(err) {
			return err
		}
	}
}

// provision makes the rows of the namespace's lowest slots that a namespace all of
// whose rows are leased needs (storekit.SlotsToProvision of the held ones), and
// returns how many lowest slots now have rows; no more than had, the provisioned
// of an earlier call, means there is no slot to offer. Rows that concurrent
// acquirers make at once are made once.
func (s *Store) provision(ctx context.Context, q LeaseSQL, namespace string, limit, had int) (int, error) {
	if q.CountHeld == "" {
		return had, nil // every row was made with the namespace
	}
	var held int
	if err := s.q.QueryRowContext(ctx, q.CountHeld, keyArg(q)(namespace)).Scan(&held); err != nil {
		return 0, err
	}
	n := storekit.SlotsToProvision(held, limit)
	if n <= had {
		return had, nil
	}
	if _, err := s.makeSlots(ctx, q, namespace, 0, n); err != nil {
		return 0, err
	}
	return n, nil
}

// createSlots runs CreateSlots on tx for the rows [first, first+count) of the
// namespace and reports whether it made any.
func createSlots(ctx context.Context, tx Querier, q LeaseSQL, namespace string, first, count int) (bool, error) {
	res, err := tx.ExecContext(ctx, q.CreateSlots, keyArg(q)(namespace), first, count)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// makeSlots is createSlots outside a transaction, run again when acquirers that
// make the same rows at once get a duplicate key or a deadlock for it.
func (s *Store) makeSlots(ctx context.Context, q LeaseSQL, namespace string, first, count int) (bool, error) {
	for attempt := 1; ; attempt++ {
		made, err := createSlots(ctx, s.q, q, namespace, first, count)
		if err == nil || attempt == maxTxAttempts || ctx.Err() != nil || !s.dialect.Retryable(err) {
			return made, err
		}
	}
}

// wantsPreferred reports whether req prefers a slot that free, the candidates read,
// does not offer, and no earlier slot of the owner comes before it: its row may
// not exist yet.
func wantsPreferred(req store.LeaseRequest, free []slotRow) bool {
	if req.Preferred < 0 || len(free) > 0 && free[0].LastOwner == req.OwnerKey {
		return false
	}
	for _, r := range free {
		if r.slot == req.Preferred {
			return false
		}
	}
	return true
}

// Renew implements store.SlotLeaseStore: it reads the lease's row with the store
// clock, then extends it with a compare-and-set on the row as read.
func (s *Store) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	return storekit.RenewLease(ctx, s.slotName, s.update, l, ttl)
}

// Release implements store.SlotLeaseStore: it reads the lease's row, then frees it
// with a compare-and-set on the row as read.
func (s *Store) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	return storekit.ReleaseLease(ctx, s.slotName, s.update, l, lastUsedMs)
}

// update is the store's storekit.SlotChange: a compare-and-set on the row as read. It
// reads the store clock with every read of the row, whether or not asked to.
func (s *Store) update(ctx context.Context, op string, l store.Lease, _ bool, change func(nowMs, toleranceMs int64, r storekit.SlotRow) (storekit.SlotRow, error)) error {
	ctx, cancel, err := s.begin(ctx)
	if err == nil {
		defer cancel()
		q := s.leaseSQL()
		var missed *storekit.SlotRow // the row as read when the Update changed none
		for {
			ns, rows, _, rerr := s.readSlots(ctx, q.Slot, keyArg(q)(l.Namespace), l.Slot)
			if err = rerr; err != nil {
				break
			}
			if len(rows) == 0 || !rows[0].Holds(l) {
				err = fmt.Errorf("the slot was released or acquired again: %w", store.ErrLeaseLost)
				break
			}
			if missed != nil && *missed == rows[0].SlotRow {
				err = errUnmatched(l.Slot)
				break
			}
			next, cerr := change(ns.nowMs, ns.toleranceMs, rows[0].SlotRow)
			if err = cerr; err != nil || next == rows[0].SlotRow { // an unchanged row needs no write
				break
			}
			done, serr := s.swap(ctx, q, q.Update, l.Namespace, rows[0], slotRow{l.Slot, next})
			if err = serr; err != nil || done {
				break
			}
			missed = &rows[0].SlotRow
		}
	}
	if err == nil {
		return nil
	}
	return s.leaseFail(ctx, fmt.Sprintf("%s slot %d of namespace %q (fence %d) for %q", op, l.Slot, l.Namespace, l.Fence, l.OwnerKey), err)
}

// errUnmatched means a compare-and-set changed no row although the row is still as
// it was read: the dialect's statements disagree with each other, and reading again
// would never end.
func errUnmatched(slot int) error {
	return fmt.Errorf("the compare-and-set of slot %d changed no row, yet the row reads as before: the dialect's Take or Update does not match the row its reads return", slot)
}

// readSlots runs a read of LeaseSQL and returns the namespace's settings with the
// store clock, and the slot rows; found is false when the namespace does not exist.
func (s *Store) readSlots(ctx context.Context, query string, args ...any) (ns slotRead, slots []slotRow, found bool, err error) {
	rows, err := s.q.QueryContext(ctx, query, args...)
	if err != nil {
		return ns, nil, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			slot                                 sql.NullInt64
			owner, incarnation, lastOwner        sql.NullString
			fence, expires, floor, ceil, nextFlr sql.NullInt64
		)
		if err := rows.Scan(&ns.limit, &ns.toleranceMs, &ns.nowMs, &slot, &owner, &incarnation, &lastOwner,
			&fence, &expires, &floor, &ceil, &nextFlr); err != nil {
			return ns, nil, false, err
		}
		found = true
		if slot.Valid {
			slots = append(slots, slotRow{int(slot.Int64), storekit.SlotRow{
				Owner: owner.String, Incarnation: incarnation.String, LastOwner: lastOwner.String, Fence: fence.Int64,
				ExpiresMs: expires.Int64, FloorMs: floor.Int64, CeilingMs: ceil.Int64, NextFloorMs: nextFlr.Int64,
			}})
		}
	}
	return ns, slots, found, rows.Err()
}

// swap sets the slot row old of namespace to next with the compare-and-set query
// (Take or Update) and reports whether the row was still as read.
func (s *Store) swap(ctx context.Context, q LeaseSQL, query, namespace string, old, next slotRow) (bool, error) {
	key := keyArg(q)
	nullKey := func(k string) any {
		if k == "" {
			return nil
		}
		return key(k)
	}
	var incarnation any
	if next.Incarnation != "" {
		incarnation = next.Incarnation
	}
	return execOne(ctx, s.q, query,
		nullKey(next.Owner), incarnation, nullKey(next.LastOwner), next.Fence,
		next.ExpiresMs, next.FloorMs, next.CeilingMs, next.NextFloorMs,
		key(namespace), old.slot, old.Fence, old.Incarnation, old.ExpiresMs, old.CeilingMs, old.NextFloorMs)
}

// inTx runs f in a read-committed transaction, which it commits when f succeeds and
// the caller is still waiting, and rolls back otherwise.
//
// The transaction runs on txCtx, which ctx's deadline ends but not its
// cancellation: a statement cut short closes its connection, and the server holds
// the transaction's row locks until it notices (PostgreSQL after the driver's
// cancel request, a round trip to a new server process), holding up every other
// reservation of the key. A caller that cancels is answered at once, unless the
// commit has begun, whose outcome it then waits for, or the store queues its own
// writes; the transaction rolls back behind it, on a connection that stays open.
func inTx[T any](ctx context.Context, s *Store, f func(txCtx context.Context, tx Querier) (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	txCtx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline(ctx, s.timeout))
	const running, committing, abandoned = 0, 1, 2
	var state atomic.Int32
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer cancel()
		// Read committed: MySQL's default, repeatable read, has the update of a
		// missing key take a gap lock, and concurrent creators then deadlock on
		// their inserts.
		tx, err := s.db.BeginTx(txCtx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
		if err != nil {
			done <- result{zero, err}
			return
		}
		v, err := f(txCtx, s.q.inTx(tx))
		if err != nil || !state.CompareAndSwap(running, committing) {
			tx.Rollback()
			done <- result{zero, err}
			return
		}
		done <- result{v, tx.Commit()}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		// A store that queues its own writes (SQLite) waits: its turn ends when
		// the caller is answered.
		if s.writer == nil && state.CompareAndSwap(running, abandoned) {
			return zero, ctx.Err()
		}
		r := <-done
		return r.v, r.err
	}
}

// deadline returns the deadline of ctx, or for a context without one, timeout from
// now.
func deadline(ctx context.Context, timeout time.Duration) time.Time {
	if dl, ok := ctx.Deadline(); ok {
		return dl
	}
	return time.Now().Add(timeout)
}

// movedLeases are the lease statements of a store clock moved by offsetMs.
type movedLeases struct {
	offsetMs int64
	sql      LeaseSQL
}

// leaseSQL returns the lease statements, on the clock as the store's tests moved it.
func (s *Store) leaseSQL() LeaseSQL {
	if s.clock == nil {
		return s.leases
	}
	off := s.clock.ms.Load()
	if off == 0 {
		return s.leases
	}
	if m := s.moved.Load(); m != nil && m.offsetMs == off {
		return m.sql
	}
	now := "(" + s.dialect.NowMillis() + " + " + strconv.FormatInt(off, 10) + ")"
	m := &movedLeases{offsetMs: off, sql: s.dialect.Leases(s.tables, now)}
	s.moved.Store(m)
	return m.sql
}

// leaseFail wraps err with what the lease operation was and the store (see failed).
func (s *Store) leaseFail(ctx context.Context, what string, err error) error {
	return failed(ctx, s.slotName+": "+what, err)
}

func keyArg(q LeaseSQL) func(string) any {
	if q.KeyArg != nil {
		return q.KeyArg
	}
	return func(k string) any { return k }
}
