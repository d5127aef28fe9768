package snowflake

import (
	"math"
	"runtime"
	"time"
)

// clock reads the clock and returns it with its Unit.
func (g *Generator) clock() (time.Time, int64) {
	now := g.now()
	return now, g.floorTick(now.UnixMilli())
}

// timeOf returns the start of Unit tick.
func (g *Generator) timeOf(tick int64) time.Time {
	ms, ok := g.layout.msOf(tick)
	if !ok {
		ms = math.MaxInt64
	}
	return time.UnixMilli(ms).UTC()
}

// publish hands a Unit that Next read to the other callers, while the clock
// goroutine runs, and wakes it when it parked. It only moves cur forward: moving it
// back is the clock goroutine's, which alone may park it.
func (g *Generator) publish(tick int64) {
	if !g.watch {
		return
	}
	c := g.cur.Load()
	switch {
	case c == noTick:
		if g.parked.CompareAndSwap(true, false) {
			select {
			case g.wake <- struct{}{}:
			default:
			}
		}
	case tick > c:
		g.cur.CompareAndSwap(c, tick)
	}
}

// waitFor waits until the clock, which read now, reaches Unit target: it spins when
// that is less than the spin threshold away, and sleeps otherwise or when the clock
// does not move while it spins. The caller reads the clock again.
func (g *Generator) waitFor(target int64, now time.Time) {
	for spins := 0; ; spins++ {
		rem := g.timeOf(target).Sub(now)
		if rem <= 0 {
			return
		}
		if rem > g.o.spin || spins >= maxSpins {
			t := time.NewTimer(rem)
			select {
			case <-t.C:
			case <-g.done:
			}
			t.Stop()
			return
		}
		runtime.Gosched()
		now = g.now()
	}
}

// run is the generator's background goroutine: it publishes the Unit at the start
// of each while Next is called, parks when it is not, renews the lease, and writes
// the state file ahead.
func (g *Generator) run() {
	defer g.wg.Done()
	ticker := time.NewTimer(time.Hour)
	ticker.Stop()
	var tickC, renewC, saveC <-chan time.Time
	var renew, save *time.Timer
	if g.leases != nil {
		renew = time.NewTimer(g.renewEvery)
		defer renew.Stop()
		renewC = renew.C
	}
	var rearm <-chan struct{}
	if g.saved != nil {
		save = time.NewTimer(g.saveIn())
		defer save.Stop()
		saveC, rearm = save.C, g.saved.rearm
	}
	idle, seen := 0, g.state.Load()
	for {
		select {
		case <-g.done:
			select {
			case <-g.lost: // lost just before the close: still report it
				g.stopped()
			default:
			}
			return
		case <-g.lost:
			g.stopped()
			return
		case <-g.wake:
			idle = 0
			tickC = g.refresh(ticker)
		case <-tickC:
			if v := g.state.Load(); v != seen {
				seen, idle = v, 0
			} else if idle++; idle >= parkAfter {
				g.cur.Store(noTick)
				g.parked.Store(true)
				tickC = nil
				continue
			}
			tickC = g.refresh(ticker)
		case <-renewC:
			renew.Reset(g.renewLease())
		case <-saveC:
			saveC = nil
			if g.saveAhead() {
				save.Reset(g.saveIn())
				saveC = save.C
			}
		case <-rearm: // a write of Next after a while without ids
			if saveC == nil {
				save.Reset(g.saveIn())
				saveC = save.C
			}
		}
	}
}

// refresh publishes the clock's Unit and sets ticker to the start of the next.
func (g *Generator) refresh(ticker *time.Timer) <-chan time.Time {
	now, tick := g.clock()
	g.cur.Store(tick)
	ticker.Reset(g.timeOf(tick + 1).Sub(now))
	return ticker.C
}
