package sim

import (
	"sync/atomic"
	"time"
)

// Clock is the wall clock of one simulated machine: the simulated time of the
// synctest bubble, moved by a base (the wall time the run pretends to start at), an
// offset that steps back and jumps forward, and a drift in parts per million of the
// time elapsed. It is safe for concurrent use.
type Clock struct {
	base     time.Time // the clock's reading at start
	start    time.Time // the bubble's time at start
	driftPPM int64
	offset   atomic.Int64 // ns
}

func newClock(base, start time.Time, driftPPM int64) *Clock {
	return &Clock{base: base, start: start, driftPPM: driftPPM}
}

// Now returns the clock's reading.
func (c *Clock) Now() time.Time {
	el := time.Since(c.start)
	drift := time.Duration(int64(el) / 1_000_000 * c.driftPPM)
	return c.base.Add(el + drift + time.Duration(c.offset.Load()))
}

// Step moves the clock by d: back when d is negative.
func (c *Clock) Step(d time.Duration) { c.offset.Add(int64(d)) }
