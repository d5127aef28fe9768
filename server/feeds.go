package server

import (
	"github.com/cosid-go/cosid/metrics"
	"github.com/cosid-go/cosid/segment"
	"github.com/cosid-go/cosid/store"
)

// The data feeds of the metrics package's collectors: what this server's
// generators have done, read without building any.

// SegmentStats returns the Stats of the segment and periodic-segment generators that
// this server has served, for metrics.NewStatsCollector. It builds no generator.
func (s *Server) SegmentStats() []segment.Stats {
	var all []segment.Stats
	for _, name := range s.names {
		all = append(all, s.segmentStats(s.gens[name])...)
	}
	return all
}

// segmentStats returns the Stats of g, when it is a segment or periodic segment that
// this server served.
func (s *Server) segmentStats(g *generator) []segment.Stats {
	if !g.used.Load() {
		return nil
	}
	return s.rt.Stats(g.info.Name).Segments
}

// KeyCounts returns the key counts of the keyed generators, one a template, for
// metrics.NewKeyCollector. It opens nothing.
func (s *Server) KeyCounts() []metrics.KeyCount {
	var all []metrics.KeyCount
	for _, name := range s.names {
		if s.gens[name].info.Keyed {
			ks := s.rt.Stats(name).Keys
			all = append(all, metrics.KeyCount{Generator: name, Live: ks.Live, Opened: ks.Opened, Evicted: ks.Evicted, IdleClosed: ks.IdleClosed})
		}
	}
	return all
}

// Leases returns the slot leases of the Snowflake generators that this server has
// served, for metrics.NewLeaseCollector. It builds no generator.
func (s *Server) Leases() []store.Lease {
	var all []store.Lease
	for _, name := range s.names {
		if l, ok := s.lease(s.gens[name]); ok {
			all = append(all, l)
		}
	}
	return all
}

// lease returns the lease of g, when it is a Snowflake generator that this server
// served and that leases its machine id.
func (s *Server) lease(g *generator) (store.Lease, bool) {
	if !g.used.Load() {
		return store.Lease{}, false
	}
	return s.rt.Lease(g.info.Name)
}
