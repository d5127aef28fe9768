package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/cosid-go/cosid/metrics"
)

// What an operator sees of a generator's capacity (issue 30 §2): the figures of the
// metrics' CapacityReader on the status page, and the generators found full in the
// details of /readyz.

// WithCapacity shows r's figures on the status page: the ids left in each
// generator's codec width, when a Snowflake layout ends, the free slots of each
// lease namespace. Give it the reader whose Collector is registered for /metrics,
// so that the page and the metrics show the same reads; without it the server
// makes a reader of its own.
func WithCapacity(r *metrics.CapacityReader) Option { return func(s *Server) { s.capacity = r } }

// exhaustedDetails names the generators found full, for the details of /readyz:
// a generator, or a keyed template with the keys that are. Exhaustion leaves a
// server ready, since its other generators and keys serve.
func (s *Server) exhaustedDetails() map[string]string {
	var out map[string]string
	for _, name := range s.names {
		e := s.rt.Exhausted(name)
		if !e.Full {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		msg := "full: its codec has no text for the next id; widen the codec"
		if len(e.Keys) > 0 {
			msg = "keys full: " + strings.Join(e.Keys, ", ")
			if e.More > 0 {
				msg += fmt.Sprintf(" and %d more", e.More)
			}
		}
		out[name] = msg
	}
	return out
}

// capacityView is a row of the status page's capacity table.
type capacityView struct {
	Name, Left, Of, RunsOut, LayoutEnds, Slots string
	Full                                       bool
}

// capacityViews returns the capacity rows of the status page: one per generator
// that has a figure, from the same reads as the metrics. The time left is at this
// server's current rate of the generator.
func (s *Server) capacityViews() []capacityView {
	var rows []capacityView
	for _, h := range s.capacity.Headroom() {
		v := capacityView{Name: h.Generator, Full: h.Exhausted}
		if h.Capacity > 0 {
			v.Of = fmt.Sprint(h.Capacity)
			if h.PeriodKey != "" {
				v.Of += " in period " + h.PeriodKey
			}
			switch {
			case h.Read:
				v.Left = fmt.Sprint(h.IDsLeft)
				v.RunsOut = s.runsOut(h)
			case s.gens[h.Generator] != nil && s.gens[h.Generator].info.Keyed:
				v.Left = "per key"
			default:
				v.Left = "not read yet"
			}
		}
		if !h.LayoutEnds.IsZero() {
			v.LayoutEnds = h.LayoutEnds.Format(time.DateOnly)
		}
		if h.Namespace != "" {
			v.Slots = fmt.Sprintf("%d of %d free in %s", h.SlotsFree, h.SlotsLimit, h.Namespace)
		}
		if v.Full || v.Of != "" || v.LayoutEnds != "" || v.Slots != "" {
			rows = append(rows, v)
		}
	}
	return rows
}

// runsOut says when h's ids run out at this server's current rate of its
// generator.
func (s *Server) runsOut(h metrics.Headroom) string {
	if h.IDsLeft == 0 {
		return "now: full"
	}
	var rate float64
	if g := s.gens[h.Generator]; g != nil {
		for _, st := range s.segmentStats(g) {
			rate += st.Rate
		}
	}
	if rate <= 0 {
		return "not at the current rate (none)"
	}
	left := time.Duration(float64(h.IDsLeft) / rate * float64(time.Second))
	if left > 100*365*24*time.Hour {
		return "not within a century"
	}
	return fmt.Sprintf("in %v, %s", left.Round(time.Second), s.now().Add(left).UTC().Format(time.RFC3339))
}
