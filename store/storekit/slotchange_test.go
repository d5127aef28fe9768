package storekit_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/storekit"
)

// oneRow is a store of one slot's row whose writes always land: a storekit.SlotChange
// that records how it was called.
type oneRow struct {
	row         storekit.SlotRow
	nowMs       int64
	toleranceMs int64
	calls       int
	op          string
	clock       bool
}

func (o *oneRow) change(_ context.Context, op string, l store.Lease, clock bool, f func(nowMs, toleranceMs int64, r storekit.SlotRow) (storekit.SlotRow, error)) error {
	o.calls, o.op, o.clock = o.calls+1, op, clock
	if !o.row.Holds(l) {
		return fmt.Errorf("test: %s: %w", op, store.ErrLeaseLost)
	}
	nowMs := int64(0)
	if clock {
		nowMs = o.nowMs
	}
	next, err := f(nowMs, o.toleranceMs, o.row)
	if err != nil {
		return fmt.Errorf("test: %s: %w", op, err)
	}
	o.row = next
	return nil
}

// held returns a store whose slot 3 of "app" is leased to "a" until 1100 (ceiling
// 1110), and the lease.
func held() (*oneRow, store.Lease) {
	r := storekit.SlotRow{}.Take("a", 1000, 100, 10)
	return &oneRow{row: r, nowMs: 1050, toleranceMs: 10}, r.Lease("app", 3, 1000)
}

// TestRenewLease_ExtendsFromTheStoreClock checks Renew through a store's Change: it reads
// the clock, extends the lease by the TTL from it with the namespace's tolerance,
// and answers with the row it wrote; a bad argument or a lost lease writes nothing.
func TestRenewLease_ExtendsFromTheStoreClock(t *testing.T) {
	tests := []struct {
		name      string
		mod       func(*store.Lease)
		ttl       time.Duration
		wantErr   error
		wantCalls int
	}{
		{"Renewed", func(*store.Lease) {}, 200 * time.Millisecond, nil, 1},
		{"TTLRoundedUp", func(*store.Lease) {}, 199*time.Millisecond + 1, nil, 1},
		{"BadTTL", func(*store.Lease) {}, 0, store.ErrInvalidArgument, 0},
		{"StaleFence", func(l *store.Lease) { l.Fence-- }, time.Second, store.ErrLeaseLost, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, l := held()
			tt.mod(&l)
			got, err := storekit.RenewLease(t.Context(), "test", o.change, l, tt.ttl)
			if o.calls != tt.wantCalls {
				t.Errorf("Change called %d times, want %d", o.calls, tt.wantCalls)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || got != (store.Lease{}) {
					t.Errorf("Renew = %+v, %v; want no lease and an error wrapping %v", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Renew = %v", err)
			}
			if o.op != "renew" || !o.clock {
				t.Errorf("Change called for %q with clock %v, want renew with the clock", o.op, o.clock)
			}
			if o.row.ExpiresMs != 1250 || o.row.CeilingMs != 1260 {
				t.Errorf("row expires at %d with ceiling %d, want 1250 and 1260", o.row.ExpiresMs, o.row.CeilingMs)
			}
			if want := o.row.Lease("app", 3, 1050); got != want {
				t.Errorf("Renew = %+v, want %+v", got, want)
			}
		})
	}
}

// TestReleaseLease_FreesAboveTheLastStamp checks Release through a store's Change: it
// does not read the clock, and the next floor lies above the last stamp; a stamp
// above the ceiling, a bad lease or a lost one frees nothing.
func TestReleaseLease_FreesAboveTheLastStamp(t *testing.T) {
	tests := []struct {
		name       string
		mod        func(*store.Lease)
		lastUsedMs int64
		wantErr    error
		wantCalls  int
	}{
		{"Released", func(*store.Lease) {}, 1080, nil, 1},
		{"AboveCeiling", func(*store.Lease) {}, 1111, store.ErrInvalidArgument, 1},
		{"BadLease", func(l *store.Lease) { l.OwnerKey = "" }, 1080, store.ErrInvalidArgument, 0},
		{"OtherIncarnation", func(l *store.Lease) { l.Incarnation = storekit.NewIncarnation() }, 1080, store.ErrLeaseLost, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, l := held()
			before := o.row
			tt.mod(&l)
			err := storekit.ReleaseLease(t.Context(), "test", o.change, l, tt.lastUsedMs)
			if o.calls != tt.wantCalls {
				t.Errorf("Change called %d times, want %d", o.calls, tt.wantCalls)
			}
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || o.row != before {
					t.Errorf("Release = %v, row %+v; want an error wrapping %v and the row as it was", err, o.row, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Release = %v", err)
			}
			if o.op != "release" || o.clock {
				t.Errorf("Change called for %q with clock %v, want release without the clock", o.op, o.clock)
			}
			if o.row.Owner != "" || o.row.NextFloorMs != 1081 {
				t.Errorf("row after release %+v, want no owner and next floor 1081", o.row)
			}
		})
	}
}
