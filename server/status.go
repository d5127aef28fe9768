package server

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/segment"
)

//go:embed status.html
var statusHTML string

var statusPage = template.Must(template.New("status").Parse(statusHTML))

// statusView is what the status page shows.
type statusView struct {
	Started, Now string
	Generators   []generatorView
	Leases       []leaseView
	Capacity     []capacityView
	Checks       []checkView
}

type generatorView struct {
	Name, Strategy, Store, Key string
	Rows                       []statsView // a segment's one, a periodic segment's current and next
	Note                       string      // why there are no rows
}

type statsView struct {
	Key, Current, Next, Batch, Rate, LastReserve, Reserves, Failures, LastError string
}

type leaseView struct {
	Generator, Namespace, Owner, Slot, Fence, Expires string
}

type checkView struct {
	Name string
	OK   bool
	Err  string
}

func viewStats(st segment.Stats) statsView {
	v := statsView{
		Key:         st.Key,
		Current:     "none yet",
		Batch:       fmt.Sprint(st.Batch),
		Rate:        fmt.Sprintf("%.1f", st.Rate),
		LastReserve: st.LastReserve.Round(time.Microsecond).String(),
		Reserves:    fmt.Sprint(st.Reserves),
		Failures:    fmt.Sprint(st.Failures),
	}
	if st.Current.Len() > 0 {
		v.Current, v.Next = st.Current.String(), fmt.Sprint(st.Next)
	}
	if st.LastError != nil {
		v.LastError = st.LastError.Error()
	}
	return v
}

// status serves GET /: one server-rendered page, no script, no external asset. It
// shows only the generators this server has served: looking at the page builds none.
func (s *Server) status(w http.ResponseWriter, r *http.Request) error {
	view := statusView{Started: s.started.UTC().Format(time.RFC3339), Now: s.now().UTC().Format(time.RFC3339)}
	for _, name := range s.names {
		g := s.gens[name]
		gv := generatorView{Name: name, Strategy: g.info.Strategy.String(), Store: g.info.Store, Key: g.info.Key}
		if !g.used.Load() {
			gv.Note = "not used yet: built on its first request"
			view.Generators = append(view.Generators, gv)
			continue
		}
		for _, st := range s.segmentStats(g) {
			gv.Rows = append(gv.Rows, viewStats(st))
		}
		if g.info.Keyed {
			keyedView(&gv, s.rt.Stats(name).Keys)
		}
		if g.info.Leases {
			gv.Note = "its machine id is leased: see its lease below"
			if l, ok := s.lease(g); ok {
				view.Leases = append(view.Leases, leaseView{Generator: name, Namespace: l.Namespace, Owner: l.OwnerKey,
					Slot: fmt.Sprint(l.Slot), Fence: fmt.Sprint(l.Fence), Expires: l.ExpiresAt.UTC().Format(time.RFC3339)})
			}
		} else if _, ok := s.rt.Layout(name); ok {
			if snow, err := s.rt.Snowflake(r.Context(), name); err == nil {
				gv.Note = fmt.Sprintf("Snowflake with the fixed machine id %d", snow.Machine())
			}
		}
		view.Generators = append(view.Generators, gv)
	}
	view.Capacity = s.capacityViews()
	for i, err := range s.results(r) {
		cv := checkView{Name: s.checks[i].name, OK: err == nil}
		if err != nil {
			cv.Err = "unavailable; the server's log has the details"
		}
		view.Checks = append(view.Checks, cv)
	}
	var buf bytes.Buffer
	if err := statusPage.Execute(&buf, view); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	_, err := w.Write(buf.Bytes())
	return err
}

// keyedView shows a keyed generator as one row for all its keys, never one a key:
// the row's counters are the sums over its keys, and its range their count.
func keyedView(gv *generatorView, ks cosid.KeyStats) {
	gv.Note = fmt.Sprintf("keyed: no key served yet (at most %d live)", ks.MaxLive)
	for i := range gv.Rows {
		gv.Rows[i].Key = gv.Key + "/{key}"
		gv.Rows[i].Current = fmt.Sprintf("keyed: %d live keys of at most %d; %d opened, %d closed for max-live-keys, %d for idle-close",
			ks.Live, ks.MaxLive, ks.Opened, ks.Evicted, ks.IdleClosed)
		gv.Rows[i].Next = ""
	}
}
