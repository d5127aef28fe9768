package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

var _ store.Admin = (*Store)(nil)

// aboveEveryKey sorts after every key of at most store.MaxKeyLen bytes of UTF-8: the
// upper bound of a listing whose prefix has none.
var aboveEveryKey = strings.Repeat("\U0010ffff", store.MaxKeyLen/4+1)

// adminSQL returns the dialect's admin statements, or an error wrapping
// errors.ErrUnsupported. On PostgreSQL it first asks whether the key column
// orders by bytes, so that a listing walks the primary key's index.
func (s *Store) adminSQL(ctx context.Context) (AdminSQL, error) {
	if a := s.adminStmts.Load(); a != nil {
		return *a, nil
	}
	d, ok := s.dialect.(AdminDialect)
	if !ok {
		return AdminSQL{}, fmt.Errorf("%s: the dialect has no admin statements (AdminDialect): %w", s.name, errors.ErrUnsupported)
	}
	a := d.Admin(s.tables, s.dialect.NowMillis())
	if pg, ok := d.(postgresDialect); ok && byteOrderCollation(ctx, s.q, s.tables.Range) {
		a = pg.admin(s.tables, s.dialect.NowMillis(), "")
	}
	if a.KeyArg == nil {
		a.KeyArg = func(k string) any { return k }
	}
	s.adminStmts.Store(&a)
	return a, nil
}

// Keys implements store.Admin: one indexed statement per page.
func (s *Store) Keys(ctx context.Context, prefix, after string, limit int) ([]store.KeyInfo, error) {
	if err := storekit.CheckKeys(prefix, after, limit); err != nil {
		return nil, fmt.Errorf("%s: keys: %w", s.name, err)
	}
	var keys []store.KeyInfo
	err := s.admin(ctx, func(ctx context.Context, a AdminSQL) error {
		lo, hi, ok := storekit.PrefixBounds(prefix)
		if !ok {
			hi = aboveEveryKey
		}
		rows, err := s.q.QueryContext(ctx, a.Keys, a.KeyArg(after), a.KeyArg(lo), a.KeyArg(hi), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k store.KeyInfo
			if err := rows.Scan(&k.Key, &k.Next, &k.Sealed); err != nil {
				return err
			}
			keys = append(keys, k)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, failed(ctx, fmt.Sprintf("%s: keys under %q after %q", s.name, prefix, after), err)
	}
	return keys, nil
}

// RaiseTo implements store.Admin: it reads the key, then raises it with a statement
// that never lowers it, or creates it; a concurrent creation makes it read again.
func (s *Store) RaiseTo(ctx context.Context, key string, next int64) (store.Raised, error) {
	if err := storekit.CheckRaise(key, next); err != nil {
		return store.Raised{}, fmt.Errorf("%s: raise: %w", s.name, err)
	}
	var r store.Raised
	err := s.admin(ctx, func(ctx context.Context, a AdminSQL) error {
		for attempt := 1; ; attempt++ {
			var err error
			if r, err = s.raise(ctx, a, key, next); err == nil || attempt == maxTxAttempts || ctx.Err() != nil || !s.dialect.Retryable(err) {
				return err
			}
		}
	})
	if err != nil {
		return store.Raised{}, s.fail(ctx, fmt.Sprintf("raise to %d", next), key, err)
	}
	return r, nil
}

func (s *Store) raise(ctx context.Context, a AdminSQL, key string, next int64) (store.Raised, error) {
	cur, sealed, found, err := s.ranges.Read(ctx, s.q, key)
	if err != nil {
		return store.Raised{}, err
	}
	if !found {
		if err := s.ranges.Insert(ctx, s.q, key, next); err != nil {
			return store.Raised{}, err
		}
		return store.Raised{Key: key, After: next, Created: true}, nil
	}
	r := store.Raised{Key: key, Before: cur, After: cur, Sealed: sealed}
	if cur >= next {
		return r, nil
	}
	if _, err := s.q.ExecContext(ctx, a.Raise, next, a.KeyArg(key), next); err != nil {
		return store.Raised{}, err
	}
	// Reservations may have moved the key past next since the read.
	after, sealed, found, err := s.ranges.Read(ctx, s.q, key)
	if err == nil && !found {
		err = errors.New("the key vanished during the raise")
	}
	r.After, r.Sealed = after, sealed
	return r, err
}

// Delete implements store.Admin.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := store.CheckKey(key); err != nil {
		return fmt.Errorf("%s: delete: %w", s.name, err)
	}
	err := s.admin(ctx, func(ctx context.Context, a AdminSQL) error {
		_, err := s.q.ExecContext(ctx, a.Delete, a.KeyArg(key))
		return err
	})
	if err != nil {
		return s.fail(ctx, "delete", key, err)
	}
	return nil
}

// Slots implements store.Admin.
func (s *Store) Slots(ctx context.Context, namespace string) (store.NamespaceInfo, error) {
	if err := storekit.CheckNamespace(namespace); err != nil {
		return store.NamespaceInfo{}, fmt.Errorf("%s: slots: %w", s.slotName, err)
	}
	var info store.NamespaceInfo
	err := s.admin(ctx, func(ctx context.Context, a AdminSQL) error {
		ns, rows, found, err := s.readSlots(ctx, a.Slots, a.KeyArg(namespace))
		switch {
		case err != nil:
			return err
		case !found:
			return store.ErrNotFound
		}
		info = store.NamespaceInfo{
			Namespace: namespace,
			Limit:     ns.limit,
			Tolerance: time.Duration(ns.toleranceMs) * time.Millisecond,
			StoreNow:  time.UnixMilli(ns.nowMs).UTC(),
		}
		for _, r := range rows {
			info.Slots = append(info.Slots, r.Info(r.slot))
		}
		return nil
	})
	if err != nil {
		return store.NamespaceInfo{}, s.leaseFail(ctx, fmt.Sprintf("slots of namespace %q", namespace), err)
	}
	return info, nil
}

// LeaseOf implements store.Admin.
func (s *Store) LeaseOf(ctx context.Context, namespace, ownerKey string) (store.Lease, error) {
	if err := storekit.CheckLeaseOf(namespace, ownerKey); err != nil {
		return store.Lease{}, fmt.Errorf("%s: lease of: %w", s.slotName, err)
	}
	var l store.Lease
	err := s.admin(ctx, func(ctx context.Context, a AdminSQL) error {
		ns, rows, _, err := s.readSlots(ctx, a.LeaseOf, a.KeyArg(namespace), a.KeyArg(ownerKey), a.KeyArg(ownerKey))
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return store.ErrNotFound
		}
		l = rows[0].Lease(namespace, rows[0].slot, ns.nowMs)
		return nil
	})
	if err != nil {
		return store.Lease{}, s.leaseFail(ctx, fmt.Sprintf("lease of %q in namespace %q", ownerKey, namespace), err)
	}
	return l, nil
}

// admin runs f with the admin statements, within the store's timeout.
func (s *Store) admin(ctx context.Context, f func(context.Context, AdminSQL) error) error {
	ctx, cancel, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer cancel()
	a, err := s.adminSQL(ctx)
	if err != nil {
		return err
	}
	return f(ctx, a)
}

// RaiseFloor implements store.Admin: it creates the namespace when asked to, reads the
// slot's row with the store clock, and raises its next floor with a compare-and-set
// on the row as read, reading again when another call changed it in between.
func (s *Store) RaiseFloor(ctx context.Context, req store.FloorRequest) (store.SlotInfo, error) {
	if err := storekit.CheckFloorRequest(req); err != nil {
		return store.SlotInfo{}, fmt.Errorf("%s: raise floor: %w", s.slotName, err)
	}
	var info store.SlotInfo
	err := s.admin(ctx, func(ctx context.Context, a AdminSQL) error {
		q := s.leaseSQL()
		key := keyArg(q)
		toleranceMs := storekit.MillisUp(req.Tolerance)
		if req.Limit > 0 {
			if err := s.createNamespace(ctx, q, req.Namespace, req.Limit, toleranceMs); err != nil {
				return fmt.Errorf("creating the namespace: %w", err)
			}
		}
		for {
			ns, rows, found, err := s.readSlots(ctx, q.Slot, key(req.Namespace), req.Slot)
			switch {
			case err != nil:
				return err
			case !found:
				// The namespace is missing, the slot lies outside it, or its row
				// is not made yet (rows are made as slots are taken).
				if ns, _, found, err = s.readSlots(ctx, a.Slots, a.KeyArg(req.Namespace)); err != nil {
					return err
				}
				if !found {
					return store.ErrNotFound
				}
				if req.Slot >= ns.limit {
					return fmt.Errorf("%w: slot %d lies outside the namespace's limit %d", store.ErrInvalidArgument, req.Slot, ns.limit)
				}
				made, err := s.makeSlots(ctx, q, req.Namespace, req.Slot, 1)
				switch {
				case err != nil:
					return fmt.Errorf("making the row of slot %d: %w", req.Slot, err)
				case !made:
					return fmt.Errorf("the row of slot %d was neither read nor made", req.Slot)
				}
				continue
			case req.Limit > 0 && (ns.limit != req.Limit || ns.toleranceMs != toleranceMs):
				return storekit.NamespaceConflict(ns.limit, ns.toleranceMs, req.Limit, req.Tolerance)
			case rows[0].Owner != "":
				return fmt.Errorf("the slot is %q's: %w", rows[0].Owner, store.ErrSlotHeld)
			}
			next := rows[0]
			next.NextFloorMs = max(next.NextFloorMs, req.FloorMs)
			info = next.Info(next.slot)
			if next == rows[0] {
				return nil
			}
			done, err := s.swap(ctx, q, q.Update, req.Namespace, rows[0], next)
			if err != nil || done {
				return err
			}
		}
	})
	if err != nil {
		return store.SlotInfo{}, s.leaseFail(ctx, fmt.Sprintf("raise the floor of slot %d of namespace %q to %d", req.Slot, req.Namespace, req.FloorMs), err)
	}
	return info, nil
}
