package redisstore_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/redisstore"
	"github.com/cosid-go/cosid/store/storekit"
)

// TestScripts_AgreeWithSlotrow runs random acquisitions, renewals, releases and moves
// of the store clock, forward and back, and checks every answer of the Lua scripts
// against storekit.SlotRow, the rules that the other stores run in Go: the same
// fences, expiries, floors and ceilings, the same leases lost, the same releases
// refused, and no free slot only when the rules see none.
//
// Leases last multiples of the step, and the clock moves by half steps, so that the
// real time the test takes (seconds, well under half a step) never decides whether a
// lease has expired.
func TestScripts_AgreeWithSlotrow(t *testing.T) {
	addr := durable(t)
	clock := new(redisstore.ClockOffset)
	st := openStore(t, addr, redisstore.WithPrefix(testPrefix(t, addr)), redisstore.WithClockOffset(clock))
	const limit, tolerance, step = 4, 1500 * time.Millisecond, 10 * time.Minute
	toleranceMs := tolerance.Milliseconds()
	ctx := t.Context()
	rows := make([]storekit.SlotRow, limit)
	var leases []store.Lease // every lease the store gave, current or not
	var offset time.Duration
	approxNow := func() int64 { return time.Now().Add(offset).UnixMilli() }
	seen := map[string]int{} // the outcomes met, each of which the run must meet
	rng := rand.New(rand.NewPCG(11, 7))
	for i := range 400 {
		switch op := rng.IntN(10); {
		case op < 4:
			owner := fmt.Sprint("owner-", rng.IntN(6))
			ttl := time.Duration(1+rng.IntN(4)) * step
			req := store.LeaseRequest{Namespace: "agree", OwnerKey: owner, Limit: limit, Tolerance: tolerance, TTL: ttl, Preferred: rng.IntN(limit+1) - 1}
			l, err := st.Acquire(ctx, req)
			if errors.Is(err, store.ErrNoFreeSlot) {
				now := approxNow()
				for s, r := range rows {
					if r.Free(now) {
						t.Fatalf("op %d: Acquire found no free slot; storekit says slot %d is free: %+v", i, s, r)
					}
				}
				seen["no free slot"]++
				continue
			}
			if err != nil {
				t.Fatalf("op %d: Acquire: %v", i, err)
			}
			now := l.StoreNow.UnixMilli()
			r := rows[l.Slot]
			if !r.Free(now) {
				t.Fatalf("op %d: Acquire took slot %d, which storekit says is held: %+v", i, l.Slot, r)
			}
			if r.Owner != "" {
				seen["acquired after an expiry"]++
			}
			want := r.Take(owner, now, ttl.Milliseconds(), toleranceMs)
			want.Incarnation = l.Incarnation
			if got := want.Lease("agree", l.Slot, now); got != l {
				t.Fatalf("op %d: Acquire = %+v\nslotrow's Take gives %+v", i, l, got)
			}
			rows[l.Slot] = want
			leases = append(leases, l)
		case op < 6 && len(leases) > 0:
			l := leases[rng.IntN(len(leases))]
			ttl := time.Duration(1+rng.IntN(4)) * step
			got, err := st.Renew(ctx, l, ttl)
			r := rows[l.Slot]
			if !r.Holds(l) {
				if !errors.Is(err, store.ErrLeaseLost) {
					t.Fatalf("op %d: Renew of a lease storekit says is lost = %+v, %v", i, got, err)
				}
				seen["renew lost"]++
				continue
			}
			if err != nil {
				t.Fatalf("op %d: Renew: %v", i, err)
			}
			now := got.StoreNow.UnixMilli()
			want := r.Renew(now, ttl.Milliseconds(), toleranceMs)
			if w := want.Lease("agree", l.Slot, now); w != got {
				t.Fatalf("op %d: Renew = %+v\nslotrow's Renew gives %+v", i, got, w)
			}
			if want.CeilingMs == r.CeilingMs {
				seen["renew kept the ceiling"]++
			}
			rows[l.Slot] = want
		case op < 8 && len(leases) > 0:
			l := leases[rng.IntN(len(leases))]
			r := rows[l.Slot]
			last := []int64{r.FloorMs - 1, r.FloorMs + rng.Int64N(60_000), r.CeilingMs, r.CeilingMs + 1, -1}[rng.IntN(5)]
			err := st.Release(ctx, l, last)
			if !r.Holds(l) {
				if !errors.Is(err, store.ErrLeaseLost) {
					t.Fatalf("op %d: Release of a lease storekit says is lost: %v", i, err)
				}
				continue
			}
			want, wantErr := r.Release(last)
			if (err == nil) != (wantErr == nil) || err != nil && !errors.Is(err, store.ErrInvalidArgument) {
				t.Fatalf("op %d: Release at %d (floor %d, ceiling %d) = %v; storekit says %v", i, last, r.FloorMs, r.CeilingMs, err, wantErr)
			}
			if err != nil {
				seen["release above the ceiling"]++
			} else {
				seen["released"]++
			}
			rows[l.Slot] = want
		default:
			d := time.Duration(rng.IntN(7)-1) * step / 2 // mostly forward, at times back
			clock.Move(d)
			offset += d
			if d < 0 {
				seen["clock moved back"]++
			}
		}
	}
	for _, o := range []string{"no free slot", "acquired after an expiry", "renew lost", "renew kept the ceiling",
		"release above the ceiling", "released", "clock moved back"} {
		if seen[o] == 0 {
			t.Errorf("the run never met %q: change its seed or its length", o)
		}
	}
	t.Logf("outcomes: %v", seen)
}
