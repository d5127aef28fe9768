package snowflake

import (
	"fmt"
	"time"
)

// storeClock is what a lease answer tells of the store's clock: it read storeNs
// (Unix nanoseconds) after the request left at sent, a reading with the monotonic
// clock. So the store's time when the monotonic clock reads m is at least storeNs
// plus m − sent, less the store's answer time: the checks below judge the clock
// ahead only when it certainly is, however slow the store answers.
type storeClock struct {
	sent    time.Time
	storeNs int64
}

// aheadOfStore returns how far the clock, which read now, is ahead of the store's
// time as the last lease answer tells it (negative when behind), and that time.
// It reads the monotonic clock apart from an injected clock, whose readings may
// carry a monotonic reading moved with them.
func (g *Generator) aheadOfStore(now time.Time) (time.Duration, time.Time) {
	r := g.ref.Load()
	mono := now
	if !g.watch {
		mono = time.Now()
	}
	storeNow := time.Unix(0, r.storeNs).Add(mono.Sub(r.sent))
	return time.Duration(now.UnixNano() - storeNow.UnixNano()), storeNow.UTC()
}

// checkAhead returns an error wrapping ErrClockSkew and ErrLeaseLost when the
// clock, which read now, is ahead of the store's time by more than the tolerance:
// a stamp of it could make the slot's next floor lie further ahead than the
// tolerance. A generator without a lease has nothing to check.
func (g *Generator) checkAhead(now time.Time) error {
	if g.ref.Load() == nil {
		return nil
	}
	ahead, storeNow := g.aheadOfStore(now)
	if ahead <= g.o.tolerance {
		return nil
	}
	return fmt.Errorf("snowflake: slot %d of namespace %q: %w: %w: the clock reads %v, %v ahead of the store's %v, over the tolerance %v; the generator gives up its slot",
		g.slot, g.namespace, ErrLeaseLost, ErrClockSkew, now.UTC(), ahead, storeNow, g.o.tolerance)
}

// checkSkew checks the clock against the store's right after a lease answer: New
// refuses a clock ahead or behind by more than the tolerance, and a running
// generator stops when it is ahead, and only logs when it is behind, which costs
// the ids' times but makes no floor lie ahead.
func (g *Generator) checkSkew(atNew bool) error {
	now, _ := g.clock()
	ahead, storeNow := g.aheadOfStore(now)
	behind := time.Duration(g.ref.Load().storeNs - now.UnixNano()) // judged at the answer: a slow answer makes it smaller
	switch {
	case atNew && ahead > g.o.tolerance:
		return fmt.Errorf("snowflake: slot %d of namespace %q: %w: the clock reads %v, %v ahead of the store's %v, over the tolerance %v",
			g.slot, g.namespace, ErrClockSkew, now.UTC(), ahead, storeNow, g.o.tolerance)
	case atNew && behind > g.o.tolerance:
		return fmt.Errorf("snowflake: slot %d of namespace %q: %w: the clock reads %v, %v behind the store's %v, over the tolerance %v",
			g.slot, g.namespace, ErrClockSkew, now.UTC(), behind, storeNow, g.o.tolerance)
	case !atNew:
		if err := g.checkAhead(now); err != nil {
			return err
		}
		if behind > g.o.tolerance {
			g.o.logger.Warn("snowflake: the clock runs behind the store by more than the tolerance",
				"namespace", g.namespace, "slot", g.slot, "behind", behind, "tolerance", g.o.tolerance, "store_now", storeNow)
		}
	}
	return nil
}
