// Package server is CosId's HTTP API, an http.Handler over a *cosid.Runtime: the ids
// of its generators (/v1/generators/…), the store API that package httpstore calls
// (/v1/store/…), CosId 4.x's proxy-server API, health, readiness, Prometheus metrics
// and a status page. A Server keeps no state of its own: many servers on one store
// may answer any request.
//
//	rt, err := cosid.Load(ctx, "cosid.yaml")
//	…
//	srv := server.New(rt, server.WithStore(st))
//	hs := srv.HTTPServer("127.0.0.1:8686")
//	err = hs.ListenAndServe()
package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/internal/wire"
	"github.com/cosid-go/cosid/metrics"
	"github.com/cosid-go/cosid/store"
)

// DefaultBodyLimit is the largest request body a Server reads without WithBodyLimit.
const DefaultBodyLimit = 64 << 10

// Server is the HTTP API of a Runtime. It is safe for concurrent use.
type Server struct {
	rt      *cosid.Runtime
	gens    map[string]*generator
	names   []string
	store   func(ctx context.Context) (store.RangeStore, error) // nil: no store API
	token   [sha256.Size]byte
	auth    bool
	limit   int64
	logger  *slog.Logger
	checks  []check
	metrics *metrics.Metrics
	promH   http.Handler
	started time.Time
	now     func() time.Time // the clock of a 4.x revert's last time
	mux     *http.ServeMux

	created4x sync.Map // the 4.x segment keys this server made or found
	machines  machines4x
}

// check is a readiness check of WithReadiness.
type check struct {
	name string
	fn   func(r *http.Request) error
}

// Option configures a Server.
type Option func(*Server)

// WithStore serves st over the store API (/v1/store/…) and the CosId 4.x segment and
// machine API. Without it those routes answer 404.
func WithStore(st store.RangeStore) Option {
	return WithStoreFunc(func(context.Context) (store.RangeStore, error) { return st, nil })
}

// WithStoreFunc serves the store that open returns, as WithStore does; open is called
// on every request of those routes, so it may open the store late and answer an
// error while it is down, as cosid.Runtime.Store does.
func WithStoreFunc(open func(ctx context.Context) (store.RangeStore, error)) Option {
	return func(s *Server) { s.store = open }
}

// WithToken turns on bearer-token auth: every route but /healthz answers 401 unless
// the request carries "Authorization: Bearer token". An empty token turns it off.
func WithToken(token string) Option {
	return func(s *Server) {
		s.auth = token != ""
		s.token = sha256.Sum256([]byte(token))
	}
}

// WithBodyLimit sets the largest request body, in bytes (default DefaultBodyLimit);
// a larger one is answered 413.
func WithBodyLimit(n int64) Option { return func(s *Server) { s.limit = n } }

// WithLogger sets the logger of failed requests and panics (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.logger = l } }

// WithReadiness adds a check that /readyz runs: ready means every check returned nil
// within the request's context.
func WithReadiness(name string, fn func(r *http.Request) error) Option {
	return func(s *Server) { s.checks = append(s.checks, check{name, fn}) }
}

// WithMetrics counts the requests in m, and serves /metrics with h, the handler of
// the registry that m was registered with (promhttp.HandlerFor).
func WithMetrics(m *metrics.Metrics, h http.Handler) Option {
	return func(s *Server) { s.metrics, s.promH = m, h }
}

// New returns the Server of rt's generators.
func New(rt *cosid.Runtime, opts ...Option) *Server {
	s := &Server{rt: rt, limit: DefaultBodyLimit, logger: slog.Default(), started: time.Now(), now: time.Now, mux: http.NewServeMux()}
	for _, opt := range opts {
		opt(s)
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.gens = generators(rt)
	for _, info := range rt.Generators() {
		s.names = append(s.names, info.Name)
	}
	s.routes()
	return s
}

func (s *Server) routes() {
	s.handle("GET /healthz", s.healthz)
	s.handle("GET /readyz", s.readyz)
	s.handle("GET /metrics", s.serveMetrics)
	s.handle("GET /{$}", s.status)
	s.handle("GET /v1/generators", s.inventory)
	s.handle(patternNext, func(w http.ResponseWriter, r *http.Request) error { return s.next(w, r, r.PathValue("name")) })
	s.handle("GET /v1/generators/{name}/range", s.nextRange)
	s.handle("GET /v1/generators/{name}/decode", s.decode)
	s.handle("POST "+wire.PathReserve, s.reserve)
	s.handle("POST "+wire.PathSeal, s.seal)
	s.handle("POST "+wire.PathAcquire, s.acquire)
	s.handle("POST "+wire.PathRenew, s.renew)
	s.handle("POST "+wire.PathRelease, s.release)
	s.handle("GET "+wire.PathPing, s.storePing)
	s.routes4x()
	s.adminRoutes()
}

// handle registers h under pattern; the pattern is the route of the metrics.
func (s *Server) handle(pattern string, h func(w http.ResponseWriter, r *http.Request) error) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.fail(w, r, err)
		}
	})
}

// ServeHTTP implements http.Handler: auth, the body limit, panic recovery, metrics,
// and JSON errors for unknown routes and methods.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var start time.Time
	if s.metrics != nil {
		start = time.Now()
	}
	rec := recorders.Get().(*recorder)
	*rec = recorder{ResponseWriter: w, status: http.StatusOK}
	// pattern is the route of the metrics. Once the mux has routed r (routed), it is
	// r.Pattern, which the mux sets: the mux routes a request once, not to ask.
	var pattern string
	routed := false
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.logger.Error("server: handler panicked", "method", r.Method, "path", r.URL.Path, "panic", p, "stack", string(debug.Stack()))
			if !rec.wrote {
				writeError(rec, http.StatusInternalServerError, wire.CodeInternal, "the server failed on this request; see its log")
			}
		}
		if s.metrics != nil {
			route := pattern
			if routed && r.RequestURI != "*" {
				route = r.Pattern
			}
			if route == "" {
				route = "unmatched"
			}
			s.metrics.ObserveHTTP(route, rec.status, time.Since(start))
		}
		*rec = recorder{} // holds no writer or request for the pool
		recorders.Put(rec)
	}()
	if s.auth && r.URL.Path != "/healthz" && !s.authorized(r) {
		_, pattern = s.mux.Handler(r)
		rec.Header().Set("WWW-Authenticate", `Bearer realm="cosid"`)
		writeError(rec, http.StatusUnauthorized, wire.CodeUnauthorized, "a valid bearer token is required")
		return
	}
	// A request without a body has nothing to limit.
	if r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(rec, r.Body, s.limit)
	}
	if name, ok := nextName(r); ok {
		pattern = patternNext
		r.Pattern = patternNext
		if err := s.next(rec, r, name); err != nil {
			s.fail(rec, r, err)
		}
		return
	}
	routed = true
	rec.routing = r
	s.mux.ServeHTTP(rec, r)
}

func (s *Server) authorized(r *http.Request) bool {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	got := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(got[:], s.token[:]) == 1 && ok
}

// HTTPServer returns an http.Server of s on addr with the timeouts a public service
// needs: a slow client cannot hold a connection open.
func (s *Server) HTTPServer(addr string) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           s,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
}

// recorders holds the recorders of finished requests: a handler does not keep its
// ResponseWriter past its return.
var recorders = sync.Pool{New: func() any { return new(recorder) }}

// recorder remembers the status of an answer, for metrics and panics. While routing is
// set, the mux routes that request: an answer of the mux itself (no route matched,
// so routing.Pattern is empty), its plain-text 404 or 405, is replaced by a JSON error.
type recorder struct {
	http.ResponseWriter
	status   int
	wrote    bool
	routing  *http.Request
	replaced bool // the mux's answer was replaced: its body is dropped
}

func (r *recorder) WriteHeader(code int) {
	if r.routing != nil && r.routing.Pattern == "" {
		r.replace(code)
		return
	}
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.replaced {
		return len(b), nil
	}
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

// replace answers the JSON error of the mux's code instead of the mux's own answer.
func (r *recorder) replace(code int) {
	r.routing = nil // the error below is this server's answer, written as it is
	r.Header().Del("X-Content-Type-Options")
	switch code {
	case http.StatusMethodNotAllowed:
		writeError(r, code, wire.CodeMethodNotAllowed, "method "+http.StatusText(code)+"; allowed: "+r.Header().Get("Allow"))
	default:
		writeError(r, code, wire.CodeNotFound, "no such route; see GET /v1/generators")
	}
	r.replaced = true
}

// apiError is an error with its status and code.
type apiError struct {
	status int
	code   string
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &apiError{http.StatusBadRequest, wire.CodeInvalidArgument, fmt.Sprintf(format, args...)}
}

// fail answers err: an *apiError as it says, a body over the limit 413, an unknown
// generator 404, a store's error by its sentinel (wire.Classify).
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		writeError(w, ae.status, ae.code, ae.msg)
	case errors.As(err, &tooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, wire.CodeTooLarge, fmt.Sprintf("the request body is over the limit of %d bytes", tooLarge.Limit))
	case errors.Is(err, cosid.ErrUnknownGenerator):
		writeError(w, http.StatusNotFound, wire.CodeUnknownGenerator, err.Error())
	default:
		status, code := wire.Classify(err)
		if status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
			s.logger.Warn("server: store unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
		}
		writeError(w, status, code, err.Error())
	}
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, wire.Error{Code: code, Message: msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"code":"internal","message":"cannot encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// decodeBody decodes the JSON body of r into v: one object, no unknown fields.
func decodeBody(r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return badRequest("Content-Type %q: want application/json", ct)
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return err
		}
		return badRequest("the body is not the JSON this route takes: %v", err)
	}
	if dec.More() {
		return badRequest("the body holds more than one JSON value")
	}
	return nil
}
