package segment

import (
	"fmt"
	"math"
	"time"

	"github.com/cosid-go/cosid/store"
)

// BatchPolicy says how much of a key's sequence a Generator reserves at a time and
// how long it waits for a reservation. Start from DefaultBatchPolicy and change what
// you need.
type BatchPolicy struct {
	// Step is the smallest reservation, and every reservation is a multiple of it.
	Step int64
	// InitialOffset is the first value of a key that does not exist yet.
	InitialOffset int64
	// Lookahead is how long the ids at hand should last at the measured rate. The
	// next range is reserved in the background when fewer remain, and it is sized to
	// last this long: a busy generator takes big ranges, a quiet one small ones.
	// Zero reserves only when the range runs out (with Step 1, 4.x's DefaultSegmentId).
	Lookahead time.Duration
	// MaxBatch caps a reservation; it is rounded down to a multiple of Step. Zero
	// means max(Step×1000, 2^20).
	MaxBatch int64
	// ReserveTimeout is how long a caller that finds no ids waits for a reservation
	// before Next fails with ErrUnavailable. The reservation itself goes on.
	ReserveTimeout time.Duration
	// RangeTTL drops a range held longer than this and reserves a fresh one, so that
	// the ids of several instances stay close to each other (4.x's segment ttl). Zero
	// keeps a range until it is used up. With a TTL, every Next reads the clock.
	RangeTTL time.Duration
}

// DefaultBatchPolicy returns Step 100, InitialOffset 1, Lookahead 1s,
// MaxBatch max(Step×1000, 2^20) rounded to Step, ReserveTimeout 3s and no RangeTTL.
func DefaultBatchPolicy() BatchPolicy {
	p := BatchPolicy{Step: 100, InitialOffset: 1, Lookahead: time.Second, ReserveTimeout: 3 * time.Second}
	p.MaxBatch = defaultMaxBatch(p.Step)
	return p
}

// PolicyError reports a field of a BatchPolicy or PeriodicPolicy that New or
// NewPeriodic refuses. It wraps store.ErrInvalidArgument.
type PolicyError struct {
	Policy string // BatchPolicy or PeriodicPolicy
	Field  string // the field's Go name, such as ReserveTimeout
	Reason string // what is wrong and what is allowed
}

func (e *PolicyError) Error() string {
	return fmt.Sprintf("segment: %v: %s.%s %s", store.ErrInvalidArgument, e.Policy, e.Field, e.Reason)
}

func (e *PolicyError) Unwrap() error { return store.ErrInvalidArgument }

func defaultMaxBatch(step int64) int64 {
	if step > math.MaxInt64/1000 {
		return step
	}
	return roundDown(max(step*1000, 1<<20), step)
}

// Validate reports the first field of p that New would refuse, as a *PolicyError.
func (p BatchPolicy) Validate() error {
	_, err := p.normalize()
	return err
}

// normalize checks p and returns it with MaxBatch filled in and rounded to Step.
func (p BatchPolicy) normalize() (BatchPolicy, error) {
	bad := func(field string, v any, want string) (BatchPolicy, error) {
		return p, &PolicyError{Policy: "BatchPolicy", Field: field, Reason: fmt.Sprintf("is %v, want %s", v, want)}
	}
	switch {
	case p.Step < 1:
		return bad("Step", p.Step, "≥ 1")
	case p.InitialOffset < 0:
		return bad("InitialOffset", p.InitialOffset, "≥ 0")
	case p.Lookahead < 0:
		return bad("Lookahead", p.Lookahead, "≥ 0")
	case p.MaxBatch < 0 || (p.MaxBatch > 0 && p.MaxBatch < p.Step):
		return bad("MaxBatch", p.MaxBatch, fmt.Sprintf("0 (the default) or ≥ Step (%d)", p.Step))
	case p.ReserveTimeout <= 0:
		return bad("ReserveTimeout", p.ReserveTimeout, "> 0")
	case p.RangeTTL < 0:
		return bad("RangeTTL", p.RangeTTL, "≥ 0 (0: no TTL)")
	}
	if p.MaxBatch == 0 {
		p.MaxBatch = defaultMaxBatch(p.Step)
	}
	p.MaxBatch = roundDown(p.MaxBatch, p.Step)
	return p, nil
}

// size returns the reservation that lasts Lookahead at rate ids/s, and holds at
// least need ids: min(MaxBatch, roundUp(rate×Lookahead, Step)), at least Step.
func (p BatchPolicy) size(rate float64, need int64) int64 {
	size := p.Step
	if want := rate * p.Lookahead.Seconds(); want > float64(size) {
		if want >= float64(p.MaxBatch) {
			size = p.MaxBatch
		} else {
			size = roundUp(int64(math.Ceil(want)), p.Step)
		}
	}
	if need > size {
		size = roundUp(need, p.Step)
	}
	return size
}

// prefetchAt returns how many ids of a range of size may be taken before the next
// range is reserved: the rest should last Lookahead at rate ids/s. It returns -1
// when nothing is reserved ahead (Lookahead 0).
func (p BatchPolicy) prefetchAt(size int64, rate float64) int64 {
	if p.Lookahead == 0 {
		return -1
	}
	want := rate * p.Lookahead.Seconds()
	if want >= float64(size) {
		return 0
	}
	return size - max(int64(math.Ceil(want)), 1)
}

func roundDown(x, step int64) int64 { return max(step, x-x%step) }

// roundUp rounds x up to a multiple of step, or leaves it where that would pass
// math.MaxInt64.
func roundUp(x, step int64) int64 {
	if r := x % step; r != 0 && x <= math.MaxInt64-(step-r) {
		return x + step - r
	}
	return x
}
