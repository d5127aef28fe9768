package storekit

import (
	"context"
	"fmt"
	"time"

	"github.com/cosid-go/cosid/store"
)

// SlotChange is how a store writes the row of a lease's slot. It reads the row of l's
// slot and the namespace's tolerance, and the store clock when clock is set (a
// release changes no time, so nowMs is then 0), and writes the row f makes of them
// with a compare-and-swap on the row as read, reading again when another call
// changed it in between. It fails with an error wrapping store.ErrLeaseLost once the
// row is no longer l's (Holds), and its errors name op ("renew", "release"), the
// lease and the store.
type SlotChange func(ctx context.Context, op string, l store.Lease, clock bool, f func(nowMs, toleranceMs int64, r SlotRow) (SlotRow, error)) error

// RenewLease is store.SlotLeaseStore's Renew of a store named name (in errors) that
// writes rows with change: it checks its arguments (CheckRenew), then extends the
// row's lease by ttl from the store clock (SlotRow.Renew, L6), and answers with the
// renewed lease.
func RenewLease(ctx context.Context, name string, change SlotChange, l store.Lease, ttl time.Duration) (store.Lease, error) {
	if err := CheckRenew(l, ttl); err != nil {
		return store.Lease{}, fmt.Errorf("%s: renew: %w", name, err)
	}
	var renewed store.Lease
	err := change(ctx, "renew", l, true, func(nowMs, toleranceMs int64, r SlotRow) (SlotRow, error) {
		next := r.Renew(nowMs, MillisUp(ttl), toleranceMs)
		renewed = next.Lease(l.Namespace, l.Slot, nowMs)
		return next, nil
	})
	if err != nil {
		return store.Lease{}, err
	}
	return renewed, nil
}

// ReleaseLease is store.SlotLeaseStore's Release of a store named name (in errors)
// that writes rows with change: it checks l (CheckLease), then frees the row with
// lastUsedMs as its owner's last stamp (SlotRow.Release, L3), without reading the
// clock.
func ReleaseLease(ctx context.Context, name string, change SlotChange, l store.Lease, lastUsedMs int64) error {
	if err := CheckLease(l); err != nil {
		return fmt.Errorf("%s: release: %w", name, err)
	}
	return change(ctx, "release", l, false, func(_, _ int64, r SlotRow) (SlotRow, error) {
		return r.Release(lastUsedMs)
	})
}
