package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store"
)

// CosId 4.x's proxy-server API: what cosid-proxy's ProxyIdSegmentDistributor and
// ProxyMachineIdDistributor call. Its answers are 4.x's: a bare JSON number, an
// empty 200, or an error body {"code","msg","errors"} whose code the 4.x client reads
// (M-01 overflow, M-02 not found, M-03 lost).

// error4x is the error body of the 4.x API.
type error4x struct {
	Code   string `json:"code"`
	Msg    string `json:"msg"`
	Errors []any  `json:"errors"`
}

// The error codes of 4.x's machine API.
const (
	codeOverflow = "M-01"
	codeNotFound = "M-02"
	codeLost     = "M-03"
)

// OwnerKeyPrefix4x begins the owner key of every slot lease made through the 4.x
// machine API: instance id "host-a" leases as owner "cosid4x:host-a". The 4.x API
// looks up only such leases, and the store API's acquire refuses the prefix, so a
// 4.x call, which proves nothing of its caller, can neither revert, guard nor be
// handed the lease of a Go generator or of an httpstore process.
const OwnerKeyPrefix4x = cosid.OwnerKeyPrefix4x

// WithCompat4x serves CosId 4.x's segment and machine API (/segments/…,
// /machines/…) over the store of WithStore. 4.x clients send no token, so these
// routes take none: serve them only on a private network. Whoever reaches them can
// revert any 4.x instance's machine id, but no lease of a Go generator
// (OwnerKeyPrefix4x). The 4.x id routes /ids/… are served either way.
func WithCompat4x() Option { return func(s *Server) { s.compat4x = true } }

// err4x is an error answered with its 4.x status and code.
type err4x struct {
	status int
	code   string
	err    error
}

func (e *err4x) Error() string { return e.err.Error() }

func bad4x(err error) error { return &err4x{http.StatusBadRequest, "400", err} }

// fail4x answers err in 4.x's form: an *err4x as it says; of a store's errors, bad
// input 400, a sealed or exhausted key 409, the rest 503.
func (s *Server) fail4x(w http.ResponseWriter, r *http.Request, err error) {
	var e *err4x
	var ae *apiError
	var re *rateError
	switch {
	case errors.As(err, &e):
	case errors.As(err, &re):
		e = &err4x{http.StatusTooManyRequests, "429", err}
		w.Header().Set("Retry-After", re.retryAfter())
	case errors.As(err, &ae):
		e = &err4x{ae.status, strconv.Itoa(ae.status), err}
	case errors.Is(err, store.ErrInvalidArgument), errors.Is(err, store.ErrNamespaceConflict):
		e = &err4x{http.StatusBadRequest, "400", err}
	case errors.Is(err, store.ErrSealed), errors.Is(err, store.ErrExhausted):
		e = &err4x{http.StatusConflict, "409", err}
	default:
		// The store's error names its host and user: the log has it (L4).
		e = &err4x{http.StatusServiceUnavailable, "503", errors.New(s.unavailable(r))}
		w.Header().Set("Retry-After", "1")
		s.logger.Warn("server: store unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	write4x(w, e.status, error4x{Code: e.code, Msg: e.err.Error(), Errors: []any{}})
}

// write4x writes v as JSON without a final newline: the 4.x client parses a bare
// number with Long.parseLong, which takes nothing after the digits.
func write4x(w http.ResponseWriter, status int, v any) {
	body, _ := json.Marshal(v) // numbers and 4.x's structs always encode
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// int64Param reads the query parameter name as a whole number ≥ min.
func int64Param(r *http.Request, name string, def, min int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < min {
		return 0, fmt.Errorf("%s %q: want a whole number ≥ %d", name, v, min)
	}
	return n, nil
}

func segmentKey4x(r *http.Request) string {
	return r.PathValue("namespace") + "/" + r.PathValue("name")
}

// createSegment4x serves POST /segments/distributor/{namespace}/{name}?offset=&step=:
// the key starts so that the first PATCH answers offset+step. It reserves the single
// value offset, which 4.x never hands out (a client owns (maxId−step, maxId]); a key
// that exists is left as it is, apart from that one value.
func (s *Server) createSegment4x(w http.ResponseWriter, r *http.Request) error {
	offset, err := int64Param(r, "offset", 0, 0)
	if err != nil {
		return bad4x(err)
	}
	step, err := int64Param(r, "step", 1, 1)
	if err != nil {
		return bad4x(err)
	}
	if err := s.caps().checkReserve("step", step); err != nil {
		return err
	}
	key := segmentKey4x(r)
	if s.created4x.has(key) {
		return nil
	}
	st, err := s.rangeStore(r.Context())
	if err != nil {
		return err
	}
	if _, err := st.Reserve(r.Context(), key, 1, offset); err != nil {
		return err
	}
	s.created4x.add(key)
	return nil
}

// nextMaxID4x serves PATCH /segments/{namespace}/{name}?step=: the new max id, as a
// bare JSON number. A key never created starts at offset 0.
func (s *Server) nextMaxID4x(w http.ResponseWriter, r *http.Request) error {
	step, err := int64Param(r, "step", -1, 1)
	if err != nil || step < 0 {
		return bad4x(fmt.Errorf("step: want a whole number ≥ 1 (%v)", err))
	}
	if err := s.caps().checkReserve("step", step); err != nil {
		return err
	}
	st, err := s.rangeStore(r.Context())
	if err != nil {
		return err
	}
	rg, err := st.Reserve(r.Context(), segmentKey4x(r), step, 1)
	if err != nil {
		return err
	}
	write4x(w, http.StatusOK, rg.End-1)
	return nil
}

// id4x serves GET /ids/{name}: the next id of a generator of int64 ids, as a bare
// JSON number.
func (s *Server) id4x(w http.ResponseWriter, r *http.Request) error {
	g, src, err := s.lookup4x(r)
	if err != nil {
		return err
	}
	if !g.info.IntIDs {
		return badRequest("generator %q is a %s generator, whose ids are text: use /ids/as-string/%s", g.info.Name, g.info.Strategy, g.info.Name)
	}
	if err := s.charge(r, src, 1); err != nil {
		return err
	}
	v, err := src.NextInt(r.Context())
	if err != nil {
		return err
	}
	write4x(w, http.StatusOK, v)
	return nil
}

// idAsString4x serves GET /ids/as-string/{name}: the text of the next id, as plain
// text.
func (s *Server) idAsString4x(w http.ResponseWriter, r *http.Request) error {
	_, src, err := s.lookup4x(r)
	if err != nil {
		return err
	}
	if err := s.charge(r, src, 1); err != nil {
		return err
	}
	text, err := src.Next(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, err = w.Write([]byte(text))
	return err
}

// lookup4x resolves the generator of a 4.x id route. 4.x names no key: a keyed
// generator is refused, with the /v1 route that serves its keys.
func (s *Server) lookup4x(r *http.Request) (*generator, cosid.Source, error) {
	name := r.PathValue("name")
	g, src, err := s.lookup(name, "")
	if errors.Is(err, cosid.ErrKeyRequired) {
		return nil, src, badRequest("generator %q is keyed, a sequence per key, and 4.x's /ids routes name no key: use /v1/generators/%s/next?key=K", name, name)
	}
	return g, src, err
}

// keySet is a set of at most MaxMachines4x strings; past it the oldest is forgotten.
type keySet struct {
	mu    sync.Mutex
	keys  map[string]struct{}
	order []string
}

func (k *keySet) has(key string) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.keys[key]
	return ok
}

func (k *keySet) add(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.keys == nil {
		k.keys = map[string]struct{}{}
	}
	if _, ok := k.keys[key]; ok {
		return
	}
	k.keys[key] = struct{}{}
	k.order = append(k.order, key)
	if len(k.order) > MaxMachines4x {
		delete(k.keys, k.order[0])
		k.order = k.order[1:]
	}
}

func (k *keySet) len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.keys)
}
