package sim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// errDown is the error of a store that is down, or of a call it failed.
var errDown = errors.New("sim: store unavailable")

// storeTimeout is the simulated store's timeout: a call that takes longer fails,
// though its write may have landed.
const storeTimeout = 2 * time.Second

// Faults are the chances, in parts per thousand of the store's calls, of each fault.
type Faults struct {
	Fail       int           // the call fails before it writes
	Lost       int           // the write lands, then the call times out
	Slow       int           // the call takes up to MaxLatency longer
	MaxLatency time.Duration // the most a call takes besides a slow one
}

// backend is the store that every simulated machine shares: a memstore, which keeps
// the rules every store keeps (ranges, and storekit.SlotRow for leases), on the store's own
// clock, behind faults.
type backend struct {
	w         *world
	mem       *memstore.Store
	mu        sync.Mutex
	downUntil time.Time // by the bubble's clock
	overlap   bool      // the planted overlap was handed out
}

// view is one machine's connection to the backend. Its faults are drawn from the
// seed, the machine and the call's place among the machine's calls of its key, so
// that the same run draws the same faults whatever order goroutines run in.
type view struct {
	b    *backend
	id   uint64 // the machine's incarnation
	name string
	mu   sync.Mutex
	n    map[string]uint64 // calls made, by operation and key
	dead bool              // the machine crashed: its calls fail
	// pausedUntil holds the machine's calls back, as a stopped process would.
	pausedUntil time.Time
	leases      []store.Lease // the leases answered to this machine, in order
}

func (b *backend) view(id uint64, name string) *view {
	return &view{b: b, id: id, name: name, n: map[string]uint64{}}
}

// Timeout implements store.Timeouter.
func (v *view) Timeout() time.Duration { return storeTimeout }

// call runs op as the store would under the faults drawn for it: it waits out a
// pause or a latency, fails, or applies op and then times out.
func (v *view) call(ctx context.Context, opName, key string, op func() error) error {
	v.mu.Lock()
	n := v.n[opName+key]
	v.n[opName+key]++
	dead, paused := v.dead, v.pausedUntil
	v.mu.Unlock()
	if dead {
		return fmt.Errorf("sim: %s %q from crashed %s: %w", opName, key, v.name, errDown)
	}
	w := v.b.w
	r := w.draw(v.id, hashString(opName+"\x00"+key), n)
	f := w.cfg.Faults
	// A latency of whole nanoseconds from the draw keeps calls of different
	// machines at different instants, so the order they reach the store in is the
	// draw's, not the Go scheduler's.
	lat := time.Duration(r%uint64(f.MaxLatency+1)) + time.Duration(r>>40%1000)
	if int((r>>20)%1000) < f.Slow {
		lat += time.Duration((r >> 10) % uint64(storeTimeout))
	}
	if d := time.Until(paused); d > 0 {
		lat += d
	}
	if err := sleep(ctx, lat); err != nil {
		return err
	}
	v.b.mu.Lock()
	down := time.Now().Before(v.b.downUntil)
	v.b.mu.Unlock()
	roll := int((r >> 30) % 1000)
	switch {
	case down:
		w.count(&w.res.StoreDown)
		return fmt.Errorf("sim: %s %q: %w (down)", opName, key, errDown)
	case roll < f.Fail:
		w.count(&w.res.Failed)
		return fmt.Errorf("sim: %s %q: %w", opName, key, errDown)
	}
	if err := op(); err != nil {
		return err
	}
	if roll < f.Fail+f.Lost {
		w.count(&w.res.LostAnswers)
		if err := sleep(ctx, storeTimeout); err != nil {
			return err
		}
		return fmt.Errorf("sim: %s %q: %w: no answer within %v (the write landed)", opName, key, context.DeadlineExceeded, storeTimeout)
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Reserve implements store.RangeStore.
func (v *view) Reserve(ctx context.Context, key string, size, initialOffset int64) (store.Range, error) {
	var r store.Range
	err := v.call(ctx, "reserve", key, func() error {
		var err error
		r, err = v.b.mem.Reserve(ctx, key, size, initialOffset)
		if err == nil && plantOverlap && r.Start > initialOffset && v.b.plantOnce() {
			r = store.Range{Start: r.Start - 1, End: r.End - 1}
		}
		return err
	})
	return r, err
}

// plantOnce reports whether the planted overlap is still to be handed out.
func (b *backend) plantOnce() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	was := b.overlap
	b.overlap = true
	return !was
}

// Seal implements store.RangeStore.
func (v *view) Seal(ctx context.Context, key string) error {
	return v.call(ctx, "seal", key, func() error { return v.b.mem.Seal(ctx, key) })
}

// GiveBack implements store.GiveBacker, under the faults of every call: it may fail
// before it writes, or land and lose its answer.
func (v *view) GiveBack(ctx context.Context, key string, tail store.Range) (bool, error) {
	var lowered bool
	err := v.call(ctx, "giveback", key, func() error {
		var err error
		if plantNoCompare {
			lowered, err = v.b.lowerUnchecked(ctx, key, tail)
			return err
		}
		lowered, err = v.b.mem.GiveBack(ctx, key, tail)
		return err
	})
	if err == nil && lowered {
		v.b.w.count(&v.b.w.res.GivenBack)
	}
	return lowered, err
}

// lowerUnchecked is the planted give-back: it sets key's next value to tail.Start
// whatever the value is (cosid_plant_nocompare).
func (b *backend) lowerUnchecked(ctx context.Context, key string, tail store.Range) (bool, error) {
	if err := b.mem.Delete(ctx, key); err != nil {
		return false, err
	}
	_, err := b.mem.RaiseTo(ctx, key, tail.Start)
	return err == nil, err
}

// Acquire implements store.SlotLeaseStore.
func (v *view) Acquire(ctx context.Context, req store.LeaseRequest) (store.Lease, error) {
	var l store.Lease
	err := v.call(ctx, "acquire", req.Namespace, func() error {
		var err error
		l, err = v.b.mem.Acquire(ctx, req)
		return err
	})
	if err == nil {
		v.acquired(l)
	}
	return l, err
}

// Renew implements store.SlotLeaseStore.
func (v *view) Renew(ctx context.Context, l store.Lease, ttl time.Duration) (store.Lease, error) {
	var out store.Lease
	err := v.call(ctx, "renew", l.Namespace, func() error {
		var err error
		out, err = v.b.mem.Renew(ctx, l, ttl)
		return err
	})
	if err == nil {
		v.answered(out)
	}
	return out, err
}

// Release implements store.SlotLeaseStore.
func (v *view) Release(ctx context.Context, l store.Lease, lastUsedMs int64) error {
	return v.call(ctx, "release", l.Namespace, func() error { return v.b.mem.Release(ctx, l, lastUsedMs) })
}

// Close implements store.RangeStore and store.SlotLeaseStore.
func (v *view) Close() error { return nil }

// acquired records l as the machine's lease from now on: a generator that skips a
// slot whose Floor lies too far ahead releases it unstamped and acquires another,
// so only the last acquisition's leases bound its ids.
func (v *view) acquired(l store.Lease) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.leases = append(v.leases[:0], l)
}

func (v *view) answered(l store.Lease) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.leases = append(v.leases, l)
}

// bounds returns the slot and Floor of the machine's last acquired lease and the
// highest Ceiling it was told of it, and whether it was told of a lease.
func (v *view) bounds() (slot int, floor, ceiling int64, ok bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.leases) == 0 {
		return 0, 0, 0, false
	}
	first := v.leases[0]
	ceiling = first.Ceiling
	for _, l := range v.leases[1:] {
		ceiling = max(ceiling, l.Ceiling)
	}
	return first.Slot, first.Floor, ceiling, true
}

func (v *view) crash() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.dead = true
}

func (v *view) pause(until time.Time) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.pausedUntil = until
}
