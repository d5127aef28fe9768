package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
)

// Meituan Leaf's API, as Leaf's leaf-server answers it (LeafController and
// LeafMonitorController): GET /api/segment/get/{key} answers the next id of the
// biz_tag key as plain text, GET /api/snowflake/get/{key} the next Snowflake id
// (Leaf ignores the key), GET /decodeSnowflakeId?snowflakeId=N the parts of an id.
// A failure is Leaf's: a 500 whose JSON is Spring Boot 1.5's error body, with the
// message Result{id=-2, status=EXCEPTION} for a biz_tag that does not exist.

// Leaf's error ids (SegmentIDGenImpl): a key that does not exist, and both segments
// of a key unloaded, which a store that cannot be reached leaves.
const (
	leafKeyNotExists = -2
	leafSegmentsNull = -3
)

// leafConfig is what WithLeaf set.
type leafConfig struct {
	segment, snowflake string
}

// WithLeaf serves Meituan Leaf's routes: the biz_tag keys of /api/segment/get/{key}
// are the keys of segment, a keyed segment generator, and /api/snowflake/get/{key}
// and /decodeSnowflakeId serve snowflake, a Snowflake generator; either may be "".
// As in Leaf, a biz_tag that does not exist in the store is an error, not a new
// sequence: cosid migrate from-leaf makes Leaf's, and an id of the key taken over
// /v1 makes a new one. The routes need the ids role's token, as every id route.
func WithLeaf(segment, snowflake string) Option {
	return func(s *Server) { s.leaf = leafConfig{segment, snowflake} }
}

// checkCompat checks the generators of WithLeaf and WithTinyid against rt's.
func (s *Server) checkCompat() error {
	infos := map[string]cosid.GeneratorInfo{}
	for _, info := range s.rt.Generators() {
		infos[info.Name] = info
	}
	keyedSegment := func(option, name string) error {
		info, ok := infos[name]
		switch {
		case name == "":
			return nil
		case !ok:
			return fmt.Errorf("server: %s: no generator %q", option, name)
		case info.Strategy != cosid.StrategySegment || !info.Keyed:
			return fmt.Errorf("server: %s: generator %q is not a keyed segment generator (strategy: segment, keyed: true), whose keys the routes name", option, name)
		}
		return nil
	}
	if err := keyedSegment("WithLeaf", s.leaf.segment); err != nil {
		return err
	}
	if err := keyedSegment("WithTinyid", s.tinyid); err != nil {
		return err
	}
	if name := s.leaf.snowflake; name != "" {
		info, ok := infos[name]
		if !ok {
			return fmt.Errorf("server: WithLeaf: no generator %q", name)
		}
		if info.Strategy != cosid.StrategySnowflake || !info.IntIDs {
			return fmt.Errorf("server: WithLeaf: generator %q is not a snowflake generator, whose ids Leaf's snowflake route serves", name)
		}
	}
	return nil
}

// errLeaf is a failure answered as Leaf answers it: Result{id=ID, status=EXCEPTION}.
type errLeaf struct {
	id  int64
	err error // what the log gets
}

func (e *errLeaf) Error() string { return fmt.Sprintf("Result{id=%d, status=EXCEPTION}", e.id) }
func (e *errLeaf) Unwrap() error { return e.err }

// failLeaf answers err in Leaf's form: Spring Boot 1.5's error body of a
// LeafServerException, a 500. A bad request (an id route's HEAD, a repeated
// parameter) keeps its status, as Spring's own refusals do.
func (s *Server) failLeaf(w http.ResponseWriter, r *http.Request, err error) {
	var (
		le *errLeaf
		ae *apiError
		re *rateError
	)
	status, exception, msg := http.StatusInternalServerError, "com.sankuai.inf.leaf.server.exception.LeafServerException", ""
	switch {
	case errors.As(err, &re):
		status, msg = http.StatusTooManyRequests, re.msg
		w.Header().Set("Retry-After", re.retryAfter())
	case errors.As(err, &le):
		msg = le.Error()
		if le.err != nil {
			s.logger.Warn("server: Leaf route failed", "path", r.URL.Path, "answer", msg, "err", le.err)
		}
	case errors.As(err, &ae):
		status, exception, msg = ae.status, "org.springframework.web.bind.MissingServletRequestParameterException", ae.msg
	default:
		msg = (&errLeaf{id: leafSegmentsNull}).Error()
		s.logger.Warn("server: Leaf route failed", "path", r.URL.Path, "err", err)
	}
	body, _ := json.Marshal(struct {
		Timestamp int64  `json:"timestamp"`
		Status    int    `json:"status"`
		Error     string `json:"error"`
		Exception string `json:"exception"`
		Message   string `json:"message"`
		Path      string `json:"path"`
	}{s.now().UnixMilli(), status, http.StatusText(status), exception, msg, r.URL.Path})
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.WriteHeader(status)
	w.Write(body)
}

// leafSegment serves GET /api/segment/get/{key}.
func (s *Server) leafSegment(w http.ResponseWriter, r *http.Request) error {
	src, err := s.knownKeySource(r.Context(), s.leaf.segment, r.PathValue("key"), &s.leafKeys)
	if err != nil {
		return err
	}
	if err := s.charge(r, src, 1); err != nil {
		return err
	}
	v, err := src.NextInt(r.Context())
	if err != nil {
		return &errLeaf{leafSegmentsNull, err}
	}
	return writeText(w, strconv.FormatInt(v, 10))
}

// leafSnowflake serves GET /api/snowflake/get/{key}: Leaf's snowflake ignores the key.
func (s *Server) leafSnowflake(w http.ResponseWriter, r *http.Request) error {
	_, src, err := s.lookup(s.leaf.snowflake, "")
	if err != nil {
		return &errLeaf{leafSegmentsNull, err}
	}
	if err := s.charge(r, src, 1); err != nil {
		return err
	}
	v, err := src.NextInt(r.Context())
	if err != nil {
		return &errLeaf{leafSegmentsNull, err}
	}
	return writeText(w, strconv.FormatInt(v, 10))
}

// leafDecode serves GET /decodeSnowflakeId?snowflakeId=N as Leaf does: the id's
// time in Unix ms and local time, worker and sequence, by the layout of the Leaf
// snowflake generator (Leaf's own is Twitter's: epoch 1288834974657, 10 worker and
// 12 sequence bits); {"errorMsg": …} for a text that is not a number.
func (s *Server) leafDecode(w http.ResponseWriter, r *http.Request) error {
	text, ok := r.URL.Query()["snowflakeId"]
	if !ok {
		return badRequest("Required String parameter 'snowflakeId' is not present")
	}
	l, _ := s.rt.Layout(s.leaf.snowflake)
	id, err := strconv.ParseInt(text[0], 10, 64)
	var out []byte
	if err != nil {
		// Leaf's own words: "an error decoding the snowflake id".
		out, _ = json.Marshal(map[string]string{"errorMsg": "snowflake Id反解析发生异常!"})
	} else {
		p := l.Parse(id)
		ms := p.Time.UnixMilli()
		// Leaf writes a Java HashMap, whose order is its buckets': workerId,
		// sequenceId, timestamp.
		out = fmt.Appendf(nil, `{"workerId":%q,"sequenceId":%q,"timestamp":%q}`,
			strconv.Itoa(p.Machine), strconv.Itoa(p.Sequence),
			fmt.Sprintf("%d(%s)", ms, time.UnixMilli(ms).Format("2006-01-02 15:04:05.000")))
	}
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	_, err = w.Write(out)
	return err
}

// knownKeySource returns the Source of key of the keyed template name when the
// store holds the key (found once, then remembered in known), or the error of a key
// that does not exist: Leaf and tinyid hand out ids only of the keys an operator
// made, so that a mistyped key is an error, not a new sequence from 1.
func (s *Server) knownKeySource(ctx context.Context, name, key string, known *keySet) (cosid.Source, error) {
	_, src, err := s.lookup(name, key)
	if err != nil {
		return src, &errLeaf{leafKeyNotExists, nil}
	}
	if known.has(key) {
		return src, nil
	}
	info := s.gens[name].info
	st, err := s.rt.Store(ctx, info.Store)
	if err != nil {
		return src, &errLeaf{leafSegmentsNull, err}
	}
	if a, ok := st.(store.Admin); ok {
		storeKey := info.Key + "/" + key
		page, err := a.Keys(ctx, storeKey, "", 1)
		if err != nil {
			return src, &errLeaf{leafSegmentsNull, err}
		}
		if len(page) == 0 || page[0].Key != storeKey {
			return src, &errLeaf{leafKeyNotExists, nil}
		}
	}
	known.add(key)
	return src, nil
}

// writeText writes text as Spring writes a controller's String.
func writeText(w http.ResponseWriter, text string) error {
	w.Header().Set("Content-Type", "text/plain;charset=UTF-8")
	_, err := w.Write([]byte(text))
	return err
}
