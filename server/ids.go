package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/store"
)

// MaxCount is the most ids one request of /next or /range asks for.
const MaxCount = 10_000

// generator is a configured generator as this server serves it: what its strategy
// can do (info) and how its int64 ids are written. The runtime builds the generator
// itself on its first use.
type generator struct {
	used    atomic.Bool // this server has served the generator's ids: it is built
	info    cosid.GeneratorInfo
	codec   codec.Codec // the text of int64 ids (info.IntIDs); nil else
	decimal bool        // codec writes plain decimal: ids are appended without it
}

// generators returns rt's generators by name.
func generators(rt *cosid.Runtime) map[string]*generator {
	gens := map[string]*generator{}
	for _, info := range rt.Generators() {
		g := &generator{info: info}
		if info.IntIDs {
			g.codec, _ = rt.Codec(info.Name)
			g.decimal = isDecimal(g.codec)
		}
		gens[info.Name] = g
	}
	return gens
}

func (s *Server) generatorNamed(name string) (*generator, error) {
	if g := s.gens[name]; g != nil {
		return g, nil
	}
	configured := "none"
	if len(s.names) > 0 {
		configured = strings.Join(s.names, ", ")
	}
	return nil, fmt.Errorf("%w %q; configured: %s", cosid.ErrUnknownGenerator, name, configured)
}

// lookup resolves a generator's name and a key ("" for none) to the Source that
// serves their ids, with this server's view of the generator, for every API that
// hands out ids. The runtime's Source refuses what is wrong with them, so that all
// APIs refuse the same calls alike: an unknown name (cosid.ErrUnknownGenerator,
// 404), a keyed generator without a key, a key to one that is not keyed, and a key
// that cosid.CheckKey refuses (400, see badKey).
func (s *Server) lookup(name, key string) (*generator, cosid.Source, error) {
	src, err := s.rt.Source(name, key)
	if err != nil {
		return nil, src, err
	}
	g := s.gens[name]
	g.used.Store(true)
	return g, src, nil
}

// badKey reports whether err is the runtime's refusal of a key, or of its absence:
// a bad request.
func badKey(err error) bool {
	return errors.Is(err, cosid.ErrKeyRequired) || errors.Is(err, cosid.ErrNotKeyed) || errors.Is(err, cosid.ErrInvalidKey)
}

// emptyKey is the error of a query's key= without a value: a key is named or left
// out, never empty.
func emptyKey() error {
	return badRequest("key: %v, or leave out key", cosid.CheckKey(""))
}

// params reads the parameters of /next and /range: count, 1–MaxCount (default 1),
// and key (none: ""). A query with a ';', or with a parameter twice, is refused: it
// would serve another count or key than the one meant; so is an empty key.
func params(r *http.Request) (n int64, key string, err error) {
	raw := r.URL.RawQuery
	var c string
	if strings.IndexByte(raw, ';') >= 0 || strings.IndexByte(raw, '&') >= 0 {
		if err := checkQuery(raw); err != nil {
			return 0, "", err
		}
		values, _ := url.ParseQuery(raw) // checkQuery parsed it
		c, key = values.Get("count"), values.Get("key")
		if _, ok := values["key"]; ok && key == "" {
			return 0, "", emptyKey()
		}
	} else {
		c, _ = queryValue(raw, "count")
		var ok bool
		if key, ok = queryValue(raw, "key"); ok && key == "" {
			return 0, "", emptyKey()
		}
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

// isDecimal reports whether c writes every id as strconv.FormatInt does, judged by
// values of every length from 1 to 19 digits: a prefix, a suffix, another radix or a
// padded width shows in one of them.
func isDecimal(c codec.Codec) bool {
	for v := int64(1); ; v = v*10 + 7 {
		text, err := c.Encode(v - 1)
		if err != nil || text != strconv.FormatInt(v-1, 10) {
			return false
		}
		if v > math.MaxInt64/10 {
			text, err := c.Encode(math.MaxInt64)
			return err == nil && text == strconv.FormatInt(math.MaxInt64, 10)
		}
	}
}

// texts returns the texts of the next n ids of src, of g, for the APIs that answer
// a list (Connect's Next).
func texts(ctx context.Context, g *generator, src cosid.Source, n int64) ([]string, error) {
	pooled := buffers.Get().(*[]byte)
	iw := idWriter{buf: (*pooled)[:0]}
	err := appendNext(ctx, g, src, &iw, n)
	var ids []string
	if err == nil {
		// One string holds every id: each of ids is a piece of it.
		text := string(iw.buf)
		ids = make([]string, 0, iw.n)
		for range iw.n {
			line, rest, _ := strings.Cut(text, "\n")
			ids, text = append(ids, line), rest
		}
	}
	*pooled = iw.buf
	buffers.Put(pooled)
	return ids, err
}

// noRanges is the error of a range asked of g, which hands out no ranges.
func noRanges(g *generator) error {
	return badRequest("generator %q is a %s generator, whose ids come one at a time, not in ranges; ask for ids (next) instead", g.info.Name, g.info.Strategy)
}

// takeRange takes n consecutive ids of src, of g, which must hand out ranges.
func takeRange(ctx context.Context, g *generator, src cosid.Source, n int64) (store.Range, error) {
	if !g.info.Ranges {
		return store.Range{}, noRanges(g)
	}
	return src.NextRange(ctx, n)
}

// appendNext appends the texts of the next n ids of src, of g, to w. A generator
// that hands out ranges gives them as one; the others one by one, from the runtime,
// which also replaces a Snowflake generator that lost its lease.
func appendNext(ctx context.Context, g *generator, src cosid.Source, w *idWriter, n int64) error {
	if g.info.Ranges {
		rg, err := src.NextRange(ctx, n)
		if err != nil {
			return err
		}
		if g.decimal {
			w.decimals(rg.Start, rg.End)
			return nil
		}
		for v := rg.Start; v < rg.End; v++ {
			text, err := g.codec.Encode(v)
			if err != nil {
				return err
			}
			w.text(text)
		}
		return nil
	}
	for range n {
		text, err := src.Next(ctx)
		if err != nil {
			return err
		}
		w.text(text)
	}
	return nil
}

// buffers holds the bodies of /next, each as long as the longest it has held.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

// The header values of /next, shared by every answer: the header takes them as they
// are, and nothing writes into a header value.
var (
	contentText = []string{"text/plain; charset=utf-8"}
	contentJSON = []string{"application/json"}
	noStore     = []string{"no-store"}
)

// idWriter appends ids to a buffer: one a line, or as the strings of a JSON array.
type idWriter struct {
	buf    []byte
	asJSON bool
	n      int
}

func (w *idWriter) sep() {
	if w.asJSON && w.n > 0 {
		w.buf = append(w.buf, ',')
	}
	w.n++
}

// text appends the text of an id.
func (w *idWriter) text(text string) {
	w.sep()
	if !w.asJSON {
		w.buf = append(append(w.buf, text...), '\n')
		return
	}
	if !jsonPlain(text) {
		b, _ := json.Marshal(text) // a string always encodes
		w.buf = append(w.buf, b...)
		return
	}
	w.buf = append(append(append(w.buf, '"'), text...), '"')
}

// jsonPlain reports whether json.Marshal writes s as it is between quotes: printable
// ASCII that it neither escapes nor, being HTML-safe, turns into \u escapes.
func jsonPlain(s string) bool {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// decimals appends the ids from start up to end in decimal, as
// text(strconv.FormatInt(v, 10)) would for each, without a string: it formats the
// first and counts the digits up from there.
func (w *idWriter) decimals(start, end int64) {
	var digits [20]byte
	if start < 0 {
		for v := start; v < end; v++ {
			w.digits(strconv.AppendInt(digits[:0], v, 10))
		}
		return
	}
	if start >= end {
		return
	}
	d := strconv.AppendInt(digits[:0], start, 10)
	w.digits(d)
	for v := start + 1; v < end; v++ {
		d = increment(d)
		w.digits(d)
	}
}

// digits appends the id whose decimal is d.
func (w *idWriter) digits(d []byte) {
	w.sep()
	if w.asJSON {
		w.buf = append(append(append(w.buf, '"'), d...), '"')
		return
	}
	w.buf = append(append(w.buf, d...), '\n')
}

// increment adds one to the decimal d, of digits only, in place where it keeps its
// length.
func increment(d []byte) []byte {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i] != '9' {
			d[i]++
			return d
		}
		d[i] = '0'
	}
	d = append(d, '0')
	d[0] = '1'
	return d
}

// wantsJSON reports whether the client asked for JSON.
func wantsJSON(r *http.Request) bool {
	// The key is canonical already: Header.Get would only spend time making it so.
	accept := r.Header["Accept"]
	return len(accept) > 0 && strings.Contains(accept[0], "application/json")
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
	rg, err := takeRange(r.Context(), g, src, n)
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
	Period   string `json:"period,omitempty"`
	Value    string `json:"value"`
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
	out := decoded{Period: d.Period, Value: strconv.FormatInt(d.Value, 10)}
	if st := d.Snowflake; st != nil {
		out.Time = st.Time.UTC().Format(time.RFC3339Nano)
		out.Machine, out.Sequence = &st.Machine, &st.Sequence
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
