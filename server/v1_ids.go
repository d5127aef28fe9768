package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// The ids routes of /v1: next, range, the inventory and decode.

// emptyKey is the error of a query's key= without a value: a key is named or left
// out, never empty.
func emptyKey() error {
	return badRequest("key: %v, or leave out key", cosid.CheckKey(""))
}

// params reads the parameters of /next and /range: count, 1–MaxCount (default 1),
// and key (none: ""). A query that checkQuery refuses is refused: a ';', a
// parameter twice, one the routes do not take, or one without a value; it would
// serve another count or key than the one meant.
func params(r *http.Request) (n int64, key string, err error) {
	raw := r.URL.RawQuery
	var c string
	if k, v, ok := onePair(raw); ok && v != "" && (k == "count" || k == "key") {
		// The usual query, one pair, read without ParseQuery's map.
		if k == "count" {
			c = v
		} else {
			key = v
		}
	} else if raw != "" {
		values, err := checkQuery(raw, idParams, true)
		if err != nil {
			return 0, "", err
		}
		c, key = values.Get("count"), values.Get("key")
	}
	if c == "" {
		return 1, key, nil
	}
	n, err = strconv.ParseInt(c, 10, 64)
	if err != nil || n < 1 || n > MaxCount {
		return 0, "", badRequest("count %q: want a whole number from 1 to %d", c, MaxCount)
	}
	return n, key, nil
}

// wantsJSON reports whether the client asked for JSON.
func wantsJSON(r *http.Request) bool {
	// The key is canonical already: Header.Get would only spend time making it so.
	accept := r.Header["Accept"]
	return len(accept) > 0 && strings.Contains(accept[0], "application/json")
}

// nextRoute is the handler of patternNext in the route table: next, with the name
// the mux matched. ServeHTTP calls next itself for the paths it matches faster.
func (s *Server) nextRoute(w http.ResponseWriter, r *http.Request) error {
	return s.next(w, r, r.PathValue("name"))
}

// next serves GET /v1/generators/{name}/next?count=N, and ?key=K&count=N of a keyed
// generator.
func (s *Server) next(w http.ResponseWriter, r *http.Request, name string) error {
	n, key, err := params(r)
	if err != nil {
		return err
	}
	g, src, err := s.lookup(name, key)
	if err != nil {
		return err
	}
	if err := s.charge(r, src, n); err != nil {
		return err
	}
	pooled := buffers.Get().(*[]byte)
	iw := idWriter{buf: (*pooled)[:0], asJSON: wantsJSON(r)}
	ct := contentText
	if iw.asJSON {
		ct = contentJSON
		iw.buf = append(iw.buf, `{"ids":[`...)
	}
	err = appendNext(r.Context(), g, src, &iw, n)
	if err == nil {
		if iw.asJSON {
			iw.buf = append(iw.buf, "]}\n"...)
		}
		w.Header()["Content-Type"] = ct // Cache-Control: no-store is set by the caller
		if _, werr := w.Write(iw.buf); werr != nil {
			// The client went away: its ids are a gap (S4), the answer is begun, and
			// neither the store nor the caller has anything more to hear of it.
			s.logger.Debug("server: the client left before its ids were written", "path", r.URL.Path, "err", werr)
		}
	}
	*pooled = iw.buf
	buffers.Put(pooled)
	return err
}

// nextRange serves GET /v1/generators/{name}/range?count=N, and ?key=K&count=N of a
// keyed generator.
func (s *Server) nextRange(w http.ResponseWriter, r *http.Request) error {
	n, key, err := params(r)
	if err != nil {
		return err
	}
	g, src, err := s.lookup(r.PathValue("name"), key)
	if err != nil {
		return err
	}
	if err := s.charge(r, src, n); err != nil {
		return err
	}
	rg, err := takeRange(r.Context(), g, src, n)
	if err != nil {
		return err
	}
	if id := s.generatorStoreID(r.Context(), g); id != "" {
		w.Header().Set(wire.HeaderStoreID, id)
	}
	writeJSON(w, http.StatusOK, map[string]string{"start": strconv.FormatInt(rg.Start, 10), "end": strconv.FormatInt(rg.End, 10)})
	return nil
}

// generatorJSON is an entry of GET /v1/generators.
type generatorJSON struct {
	Name     string `json:"name"`
	Strategy string `json:"strategy"`
	Key      string `json:"key"`
	Store    string `json:"store,omitempty"`
	State    string `json:"state"` // idle (not served yet), serving, or failing: the last error
	// Keyed is a template of a sequence per key; LiveKeys counts its keys open now.
	Keyed    bool `json:"keyed,omitempty"`
	LiveKeys *int `json:"liveKeys,omitempty"`
}

// inventory serves GET /v1/generators.
func (s *Server) inventory(w http.ResponseWriter, r *http.Request) error {
	out := struct {
		Generators []generatorJSON `json:"generators"`
	}{Generators: []generatorJSON{}}
	for _, name := range s.names {
		g := s.gens[name]
		gj := generatorJSON{Name: name, Strategy: g.info.Strategy.String(), Key: g.info.Key,
			Store: g.info.Store, State: s.state(r.Context(), g), Keyed: g.info.Keyed}
		if g.info.Keyed {
			live := s.rt.Stats(name).Keys.Live
			gj.LiveKeys = &live
		}
		out.Generators = append(out.Generators, gj)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// state tells whether g is idle (this server has not served it, so it may not be
// built), serving, or failing with the last error of a reservation.
func (s *Server) state(ctx context.Context, g *generator) string {
	if !g.used.Load() {
		return "idle"
	}
	if err := s.rt.Build(ctx, g.info.Name); err != nil {
		return "failing: " + err.Error()
	}
	for _, st := range s.segmentStats(g) {
		if st.LastError != nil {
			return "failing: " + st.LastError.Error()
		}
	}
	return "serving"
}

// decoded is the answer of /decode.
type decoded struct {
	Period string `json:"period,omitempty"`
	Value  string `json:"value,omitempty"` // none for an id that is text only

	Time     string `json:"time,omitempty"`
	Machine  *int   `json:"machine,omitempty"`
	Sequence *int   `json:"sequence,omitempty"`
}

// decode serves GET /v1/generators/{name}/decode?text=…. Every key of a keyed
// generator has the template's codec, so its key may be left out; one given is
// checked, as /next checks it.
func (s *Server) decode(w http.ResponseWriter, r *http.Request) error {
	g, err := s.generatorNamed(r.PathValue("name"))
	if err != nil {
		return err
	}
	if key := r.URL.Query(); key.Has("key") {
		if k := key.Get("key"); k == "" {
			return emptyKey()
		} else if _, err := s.rt.Source(g.info.Name, k); err != nil {
			return err
		}
	}
	if !r.URL.Query().Has("text") {
		return badRequest("text is missing: want ?text=an id of %q", g.info.Name)
	}
	text := r.URL.Query().Get("text")
	d, err := s.rt.Decode(g.info.Name, text)
	if err != nil {
		return badRequest("text %q: %v", text, err)
	}
	out := decoded{Period: d.Period}
	if !d.TextOnly {
		out.Value = strconv.FormatInt(d.Value, 10)
	}
	if st := d.Snowflake; st != nil {
		out.Time = st.Time.UTC().Format(time.RFC3339Nano)
		out.Machine, out.Sequence = &st.Machine, &st.Sequence
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
