package segment

import (
	"context"

	"github.com/cosid-go/cosid/store"
)

// unusedTail returns the ids of the generator's last range that it never handed out,
// once it is closed: cur is the range that was in use, of which taken ids were
// handed out, and spare the one reserved ahead, if any. ok is false when there is
// nothing to give back, or when the last range the store gave (lastEnd) is neither:
// a spare dropped for its TTL, or a range that arrived after Close. A give-back
// lowers the key only from the end of the last range (S7), so a range below it
// stays a gap.
func unusedTail(cur *span, taken int64, spare *span, lastEnd int64) (store.Range, bool) {
	var start int64
	switch {
	case lastEnd <= 0:
		return store.Range{}, false
	case spare != nil && spare.start+spare.size == lastEnd:
		start = spare.start
		if cur.size > 0 && cur.start+cur.size == spare.start {
			start = cur.start + taken // the rest of cur joins the spare
		}
	case spare == nil && cur.size > 0 && cur.start+cur.size == lastEnd:
		start = cur.start + taken
	default:
		return store.Range{}, false
	}
	if start >= lastEnd {
		return store.Range{}, false
	}
	return store.Range{Start: start, End: lastEnd}, true
}

// giveBack gives the unused tail of the generator's last range back to its store, if
// the store takes it (store.GiveBacker). It runs after Close stopped hand-outs and
// background work. A generator whose last reservation failed does not try: its store
// is likely down, and Close would wait ReserveTimeout for a tail that stays a gap.
func (g *Generator) giveBack(cur *span, taken int64, spare *span) {
	gb, ok := g.st.(store.GiveBacker)
	if !ok {
		return
	}
	g.mu.Lock()
	tail, ok := unusedTail(cur, taken, spare, g.lastEnd)
	failing := g.failures != nil
	g.mu.Unlock()
	if !ok || failing {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), g.p.ReserveTimeout)
	defer cancel()
	lowered, err := gb.GiveBack(ctx, g.key, tail)
	switch {
	case err != nil:
		g.o.logger.Warn("segment: giving back the unused tail failed; it stays a gap", "key", g.key, "tail", tail, "err", err)
	case lowered:
		g.o.logger.Debug("segment: gave back the unused tail", "key", g.key, "tail", tail)
	default:
		g.o.logger.Debug("segment: unused tail not given back: the key was reserved since, or is sealed", "key", g.key, "tail", tail)
	}
}
