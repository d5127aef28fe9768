package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/codec"
)

// MaxCount is the most ids one request of /next or /range asks for.
const MaxCount = 10_000

// generator is a configured generator with its text forms. The runtime builds the
// generator itself on its first use, so it is looked up on every request.
type generator struct {
	used    atomic.Bool // this server has served the generator's ids: it is built
	info    cosid.GeneratorInfo
	codec   codec.Codec        // segment and snowflake
	grouped codec.GroupedCodec // periodic-segment
}

// generators returns rt's generators by name.
func generators(rt *cosid.Runtime) map[string]*generator {
	gens := map[string]*generator{}
	for _, info := range rt.Generators() {
		g := &generator{info: info}
		g.codec, _ = rt.Codec(info.Name)
		g.grouped, _ = rt.GroupedCodec(info.Name)
		gens[info.Name] = g
	}
	return gens
}

func (s *Server) generator(r *http.Request) (*generator, error) {
	name := r.PathValue("name")
	if g := s.gens[name]; g != nil {
		return g, nil
	}
	_, err := s.rt.Next(name) // the runtime's error names the configured generators
	if err == nil {
		return nil, &apiError{http.StatusNotFound, "unknown_generator", "unknown generator " + strconv.Quote(name)}
	}
	return nil, err
}

// count reads the count parameter: 1–MaxCount, default 1.
func count(r *http.Request) (int64, error) {
	v := r.URL.Query().Get("count")
	if v == "" {
		return 1, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 || n > MaxCount {
		return 0, badRequest("count %q: want a whole number from 1 to %d", v, MaxCount)
	}
	return n, nil
}

// appendNext appends the texts of g's next n ids to buf with each. A segment's ids
// come as one range; the others come one by one from the runtime, which also
// replaces a Snowflake generator that lost its lease.
func (s *Server) appendNext(g *generator, buf *bytes.Buffer, n int64, each func(buf *bytes.Buffer, text string)) error {
	g.used.Store(true)
	if g.info.Strategy == strategySegment {
		seg, err := s.rt.Segment(g.info.Name)
		if err != nil {
			return err
		}
		rg, err := seg.NextRange(n)
		if err != nil {
			return err
		}
		for v := rg.Start; v < rg.End; v++ {
			text, err := g.codec.Encode(v)
			if err != nil {
				return err
			}
			each(buf, text)
		}
		return nil
	}
	for range n {
		text, err := s.rt.Next(g.info.Name)
		if err != nil {
			return err
		}
		each(buf, text)
	}
	return nil
}

// The strategies whose generators the server treats apart.
const (
	strategySegment   = "segment"
	strategySnowflake = "snowflake"
)

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func line(buf *bytes.Buffer, text string) {
	buf.WriteString(text)
	buf.WriteByte('\n')
}

func jsonItem(buf *bytes.Buffer, text string) {
	if buf.Len() > len(`{"ids":[`) {
		buf.WriteByte(',')
	}
	b, _ := json.Marshal(text) // a string always encodes
	buf.Write(b)
}

// wantsJSON reports whether the client asked for JSON.
func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}

// next serves GET /v1/generators/{name}/next?count=N.
func (s *Server) next(w http.ResponseWriter, r *http.Request) error {
	g, err := s.generator(r)
	if err != nil {
		return err
	}
	n, err := count(r)
	if err != nil {
		return err
	}
	buf := buffers.Get().(*bytes.Buffer)
	defer func() {
		buf.Reset()
		buffers.Put(buf)
	}()
	ct := "text/plain; charset=utf-8"
	if wantsJSON(r) {
		ct = "application/json"
		buf.WriteString(`{"ids":[`)
		err = s.appendNext(g, buf, n, jsonItem)
		buf.WriteString("]}\n")
	} else {
		err = s.appendNext(g, buf, n, line)
	}
	if err != nil {
		return err
	}
	h := w.Header()
	h["Content-Type"] = []string{ct}
	h["Cache-Control"] = []string{"no-store"}
	_, err = w.Write(buf.Bytes())
	return err
}

// nextRange serves GET /v1/generators/{name}/range?count=N.
func (s *Server) nextRange(w http.ResponseWriter, r *http.Request) error {
	g, err := s.generator(r)
	if err != nil {
		return err
	}
	if g.info.Strategy != strategySegment {
		return badRequest("generator %q is a %s generator; only a segment generator hands out ranges", g.info.Name, g.info.Strategy)
	}
	n, err := count(r)
	if err != nil {
		return err
	}
	g.used.Store(true)
	seg, err := s.rt.Segment(g.info.Name)
	if err != nil {
		return err
	}
	rg, err := seg.NextRange(n)
	if err != nil {
		return err
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
}

// inventory serves GET /v1/generators.
func (s *Server) inventory(w http.ResponseWriter, _ *http.Request) error {
	out := struct {
		Generators []generatorJSON `json:"generators"`
	}{Generators: []generatorJSON{}}
	for _, name := range s.names {
		g := s.gens[name]
		out.Generators = append(out.Generators, generatorJSON{Name: name, Strategy: g.info.Strategy, Key: g.info.Key, Store: g.info.Store})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// decoded is the answer of /decode.
type decoded struct {
	Period   string `json:"period,omitempty"`
	Value    string `json:"value"`
	Time     string `json:"time,omitempty"`
	Machine  *int   `json:"machine,omitempty"`
	Sequence *int   `json:"sequence,omitempty"`
}

// decode serves GET /v1/generators/{name}/decode?text=….
func (s *Server) decode(w http.ResponseWriter, r *http.Request) error {
	g, err := s.generator(r)
	if err != nil {
		return err
	}
	if !r.URL.Query().Has("text") {
		return badRequest("text is missing: want ?text=an id of %q", g.info.Name)
	}
	text := r.URL.Query().Get("text")
	var out decoded
	if g.grouped != nil {
		id, err := g.grouped.Decode(text)
		if err != nil {
			return badRequest("text %q: %v", text, err)
		}
		out = decoded{Period: id.Period, Value: strconv.FormatInt(id.Value, 10)}
	} else {
		v, err := g.codec.Decode(text)
		if err != nil {
			return badRequest("text %q: %v", text, err)
		}
		out.Value = strconv.FormatInt(v, 10)
		if g.info.Strategy == strategySnowflake {
			snow, err := s.rt.Snowflake(g.info.Name)
			if err != nil {
				return err
			}
			st := snow.Layout().Parse(v)
			out.Time = st.Time.UTC().Format(time.RFC3339Nano)
			out.Machine, out.Sequence = &st.Machine, &st.Sequence
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
