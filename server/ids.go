package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/codec"
	"github.com/cosid-go/cosid/store"
)

// What every API that hands out ids shares (/v1, Connect, 4.x): the lookup of a
// generator's Source, ids in ranges or one by one, and their allocation-free text.

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
	if i := g.info; i.Stride > 1 {
		return badRequest("generator %q has stride %d (residue %d): its ids are every %d-th number, not consecutive ranges; ask for ids (next) instead",
			i.Name, i.Stride, i.Residue, i.Stride)
	}
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
		if got := rg.End - rg.Start; got < n {
			// The runtime capped the range at the codec's width: the ids asked
			// for are not all there, and the ones that are become a gap.
			return fmt.Errorf("cosid: generator %q: %w: %d ids asked for and %d left within the codec's width (the last, %d, is handed out); the codec has no text for more ids of this key: widen the codec (a larger width in cosid.generators.%s.codec)",
				g.info.Name, cosid.ErrExhausted, n, got, rg.End-1, g.info.Name)
		}
		if g.decimal {
			w.decimals(rg.Start, rg.End)
			return nil
		}
		for v := rg.Start; v < rg.End; v++ {
			text, err := g.codec.Encode(v)
			if err != nil {
				return codecFull(g.info.Name, err)
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
