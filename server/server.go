// Package server is CosId's HTTP API, an http.Handler over a *cosid.Runtime: the ids
// of its generators (/v1/generators/…), the store API that package httpstore calls
// (/v1/store/…), CosId 4.x's proxy-server API, health, readiness, Prometheus metrics
// and a status page. A Server keeps no state of its own: many servers on one store
// may answer any request.
//
//	rt, err := cosid.Load(ctx, "cosid.yaml")
//	…
//	srv, err := server.New(rt, server.WithStore(st), server.WithToken(token))
//	…
//	hs := srv.HTTPServer("127.0.0.1:8686")
//	err = hs.ListenAndServe()
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/metrics"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// DefaultBodyLimit is the largest request body a Server reads without WithBodyLimit.
const DefaultBodyLimit = 64 << 10

// Server is the HTTP API of a Runtime. It is safe for concurrent use.
type Server struct {
	rt      *cosid.Runtime
	gens    map[string]*generator
	names   []string
	store   func(ctx context.Context) (store.RangeStore, error) // nil: no store API
	tokens  [numRoles]roleToken
	auth    bool  // some role has a token
	optErr  error // what the options got wrong, New's error
	limit   int64
	logger  *slog.Logger
	checks  []*check
	hosts   []string // WithAllowedHosts
	cop     *http.CrossOriginProtection
	metrics *metrics.Metrics
	promH   http.Handler
	tracing trace.TracerProvider // WithTracing; nil: none
	started time.Time
	now     func() time.Time // the clock of a 4.x revert's last time
	mux     *http.ServeMux

	limits    Limits // the caps of the network routes (WithLimits); zero fields: DefaultLimits
	compat4x  bool   // serve the 4.x segment and machine API (WithCompat4x)
	created4x keySet // the 4.x segment keys this server made or found
	machines  machines4x
	h2c       bool // serve HTTP/2 without TLS (WithH2C)
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

// WithBodyLimit sets the largest request body, in bytes (default DefaultBodyLimit);
// a larger one is answered 413.
func WithBodyLimit(n int64) Option { return func(s *Server) { s.limit = n } }

// WithLogger sets the logger of failed requests and panics (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.logger = l } }

// WithReadiness adds a check that /readyz runs: ready means every check returned nil
// within the request's context.
func WithReadiness(name string, fn func(r *http.Request) error) Option {
	return func(s *Server) { s.checks = append(s.checks, &check{name: name, fn: fn}) }
}

// WithMetrics counts the requests in m, and serves /metrics with h, the handler of
// the registry that m was registered with (promhttp.HandlerFor).
func WithMetrics(m *metrics.Metrics, h http.Handler) Option {
	return func(s *Server) { s.metrics, s.promH = m, h }
}

// WithAllowedHosts adds host names (or addresses) that a server bound to a loopback
// address answers besides the loopback ones (see HTTPServer): the names a reverse
// proxy or a port forward sends in the Host header.
func WithAllowedHosts(hosts ...string) Option {
	return func(s *Server) { s.hosts = append(s.hosts, hosts...) }
}

// New returns the Server of rt's generators, or what its options got wrong (an
// empty token, for one).
func New(rt *cosid.Runtime, opts ...Option) (*Server, error) {
	s := &Server{rt: rt, limit: DefaultBodyLimit, logger: slog.Default(), started: time.Now(), now: time.Now, mux: http.NewServeMux(),
		cop: http.NewCrossOriginProtection()}
	for _, opt := range opts {
		opt(s)
	}
	if s.optErr != nil {
		return nil, s.optErr
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	s.gens = generators(rt)
	for _, info := range rt.Generators() {
		s.names = append(s.names, info.Name)
	}
	s.routes()
	return s, nil
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
	s.connectRoutes()
}

// handle registers h under pattern; the pattern is the route of the metrics, and
// tells the route's role (routeRole), whether it hands out ids (issuesIDs) and
// whether its calls go to the audit log (audited). Every route gets these checks from
// here, so a route added later has them too.
func (s *Server) handle(pattern string, h func(w http.ResponseWriter, r *http.Request) error) {
	role, ids, audit := routeRole(pattern), issuesIDs(pattern), audited(pattern)
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		// Nothing this server answers may be served again from a cache: most
		// answers carry ids or the state of a store.
		w.Header()["Cache-Control"] = noStore
		var err error
		if audit {
			// A refused call is logged too: an attempt is what an audit is for.
			a := s.startAudit(r, role)
			defer func() { a.end(w, err) }()
		}
		if !s.allowed(r, role) {
			unauthorized(w, r, role)
			return
		}
		if ids && r.Method == http.MethodHead {
			w.Header().Set("Allow", http.MethodGet)
			writeError(w, http.StatusMethodNotAllowed, wire.CodeMethodNotAllowed,
				"method HEAD not allowed; allowed: GET (a HEAD would take ids and drop them)")
			return
		}
		if err = checkQuery(r.URL.RawQuery); err != nil {
			s.fail(w, r, err)
			return
		}
		if err = h(w, r); err != nil {
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
	*rec = recorder{ResponseWriter: w, status: http.StatusOK, srv: s}
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
	if name, ok := nextName(r); ok {
		pattern = patternNext
		r.Pattern = patternNext
		rec.Header()["Cache-Control"] = noStore // as handle sets it on every route
		if !s.allowed(r, RoleIDs) {
			unauthorized(rec, r, RoleIDs)
			return
		}
		if err := s.next(rec, r, name); err != nil {
			s.fail(rec, r, err)
		}
		return
	}
	// A browser's cross-site request that changes something (a no-cors POST needs
	// no preflight) is refused before any route: see http.CrossOriginProtection.
	// Clients that are not browsers send neither Origin nor Sec-Fetch-Site and pass.
	if err := s.cop.Check(r); err != nil {
		writeError(rec, http.StatusForbidden, wire.CodeForbidden, "a cross-origin request from a browser is refused: "+err.Error())
		return
	}
	if clean := cleanPath(r.URL.Path); clean != r.URL.Path && r.RequestURI != "*" {
		if !s.anyToken(r) {
			unauthorized(rec, r, RoleIDs)
			return
		}
		writeError(rec, http.StatusBadRequest, wire.CodeInvalidArgument, fmt.Sprintf("the path %q is not clean; ask for %q", r.URL.Path, clean))
		return
	}
	// A request without a body has nothing to limit.
	if r.Body != http.NoBody {
		r.Body = http.MaxBytesReader(rec, r.Body, s.limit)
	}
	routed = true
	rec.routing = r
	s.mux.ServeHTTP(rec, r)
}

// cleanPath is the path that the mux would redirect p to, as it cleans it: without
// "." and ".." elements or repeated slashes, with a trailing slash kept.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// HTTPServer returns an http.Server of s on addr with the timeouts a public service
// needs: a slow client cannot hold a connection open. When addr is a loopback
// address, the server answers only a Host header naming a loopback address or
// localhost, or one of WithAllowedHosts: a web page whose name an attacker points at
// 127.0.0.1 (DNS rebinding) is refused. Its error log, the TLS handshake errors
// among it, is rate-limited.
func (s *Server) HTTPServer(addr string) *http.Server {
	var h http.Handler = s
	if IsLoopback(addr) {
		h = &hostGuard{s: s}
	}
	h = s.traced(h) // WithTracing
	return &http.Server{
		Addr:    addr,
		Handler: h,
		// The same bound for the headers as for the whole request (the bodies here
		// are small): net/http then sets a connection's read deadline once a request,
		// not twice, which on the id route is a measurable part of a request's cost.
		ReadHeaderTimeout: readTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          newErrorLog(s.logger, time.Now),
		Protocols:         s.protocols(),
	}
}

// readTimeout bounds the reading of a request, its headers and its body.
const readTimeout = 5 * time.Second

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
	srv      *Server
	errMsg   string // the message of the error answered, for the audit log
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
	req := r.routing
	r.routing = nil // the error below is this server's answer, written as it is
	r.Header().Del("X-Content-Type-Options")
	switch {
	case !r.srv.anyToken(req):
		// A request without a token learns nothing of the routes.
		r.Header().Del("Allow")
		unauthorized(r, req, RoleIDs)
	case code == http.StatusMethodNotAllowed:
		writeError(r, code, wire.CodeMethodNotAllowed, "method "+req.Method+" not allowed; allowed: "+r.Header().Get("Allow"))
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
	case badKey(err):
		writeError(w, http.StatusBadRequest, wire.CodeInvalidArgument, err.Error())
	default:
		status, code := wire.Classify(err)
		msg := err.Error()
		if status == http.StatusServiceUnavailable {
			// The error names the store's host, user and database: the log has
			// it, the caller learns only which store failed.
			w.Header().Set("Retry-After", "1")
			s.logger.Warn("server: store unavailable", "method", r.Method, "path", r.URL.Path, "err", err)
			msg = s.unavailable(r)
		}
		writeError(w, status, code, msg)
	}
}

// unavailable is the message of a 503: which store of r's route failed, without
// what the store's error says of it.
func (s *Server) unavailable(r *http.Request) string {
	name := r.PathValue("name")
	if n, ok := nextName(r); ok {
		name = n
	}
	if g := s.gens[name]; g != nil && g.info.Store != "" {
		return fmt.Sprintf("the store %q of generator %q is unavailable; the server's log has the details", g.info.Store, name)
	}
	if strings.HasPrefix(r.URL.Path, "/v1/store/") {
		return "the served store is unavailable; the server's log has the details"
	}
	return "a store is unavailable; the server's log has the details"
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	if rec, ok := w.(*recorder); ok {
		rec.errMsg = msg
	}
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
