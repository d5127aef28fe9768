package segment

import (
	"time"

	"github.com/cosid-go/cosid/store"
)

// Stats is a snapshot of a Generator's state, for status pages and metrics.
type Stats struct {
	Key string
	// Current is the range ids are being handed out from: [0, 0) before the first
	// range arrives and after Close.
	Current store.Range
	// Next is the value the next call of Next would return, or Current.End when the
	// range is used up.
	Next int64
	// Batch is the size of the last reservation.
	Batch int64
	// Rate is the measured rate of ids taken, in ids/s.
	Rate float64
	// LastReserve is how long the last reservation took.
	LastReserve time.Duration
	// Reserves and Failures count the reservations made and failed since New.
	Reserves, Failures int64
	// LastError is the error of the last failed reservation, nil after a success.
	LastError error
}

// stats is what a Generator records of its reservations for Stats, under g.mu; the
// last error is its failure state's.
type stats struct {
	batch              int64
	took               time.Duration
	reserves, failures int64
}

// record files the outcome of a reservation of size ids that took took.
func (s *stats) record(size int64, took time.Duration, err error) {
	s.took = took
	if err != nil {
		s.failures++
		return
	}
	s.reserves++
	s.batch = size
}

// Stats returns a snapshot of g's state. It takes g's lock, which the hot path of
// Next never does, and adds nothing to that path.
func (g *Generator) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	cur := g.cur.Load()
	return Stats{
		Key:         g.key,
		Current:     store.Range{Start: cur.start, End: cur.start + cur.size},
		Next:        cur.start + min(cur.used.Load(), cur.size),
		Batch:       g.stats.batch,
		Rate:        g.meter.est,
		LastReserve: g.stats.took,
		Reserves:    g.stats.reserves,
		Failures:    g.stats.failures,
		LastError:   g.failures.lastErr(),
	}
}

// Stats returns a snapshot of the current period's generator and, once the next
// period is prewarmed, of the next one's, in that order.
func (p *Periodic) Stats() []Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	all := []Stats{p.cur.Load().gen.Stats()}
	if p.next != nil {
		all = append(all, p.next.gen.Stats())
	}
	return all
}
