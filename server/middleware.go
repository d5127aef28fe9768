package server

import (
	"fmt"
	"net/http"
	"path"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cosid-go/cosid/store/httpstore/wire"
)

// The chain every request takes before its route's policy (routes.go): panic
// recovery, metrics, the /next fast path, cross-origin refusal, clean paths, the
// body limit, and JSON errors in place of the mux's own.

// ServeHTTP implements http.Handler: auth, the body limit, panic recovery, metrics,
// and JSON errors for unknown routes and methods.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var start time.Duration
	if s.metrics != nil {
		start = s.uptime()
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
			s.metrics.ObserveHTTP(route, rec.status, s.uptime()-start)
		}
		*rec = recorder{} // holds no writer or request for the pool
		recorders.Put(rec)
	}()
	if name, ok := nextName(r); ok && s.fastNext {
		pattern = patternNext
		r.Pattern = patternNext
		rec.Header()["Cache-Control"] = noStore // as policy sets it on every route
		if !s.allowed(r, s.nextRole) {
			unauthorized(rec, r, s.nextRole)
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
	// A request without a body has nothing to limit; a client stream's body lasts
	// as long as its call, and the limit bounds each of its messages instead.
	if r.Body != http.NoBody && rpcMethods[r.URL.Path]&clientStream == 0 {
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
		allow := r.Header().Get("Allow")
		if r.srv.issuesIDsAt(req) {
			// The mux offers HEAD with every GET; a route that hands out ids refuses it.
			allow = strings.Join(slices.DeleteFunc(strings.Split(allow, ", "), func(m string) bool { return m == http.MethodHead }), ", ")
			r.Header().Set("Allow", allow)
		}
		writeError(r, code, wire.CodeMethodNotAllowed, "method "+req.Method+" not allowed; allowed: "+allow)
	default:
		writeError(r, code, wire.CodeNotFound, "no such route; see GET /v1/generators")
	}
	r.replaced = true
}

// Flush sends what the handler wrote so far: a stream of the Connect API sends each
// message as it is written.
func (r *recorder) Flush() { _ = r.FlushError() }

// FlushError is Flush with its error, for http.ResponseController: a flush that
// ran past the write deadline of a stream fails (streamWriter).
func (r *recorder) FlushError() error {
	r.wrote = true
	return http.NewResponseController(r.ResponseWriter).Flush()
}

// Unwrap returns the writer under r, for http.ResponseController.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
