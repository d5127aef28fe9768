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
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/cosid-go/cosid"
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
	storeID atomic.Pointer[string]                              // the served store's identity, once read: storeIdentity
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
	// capacity reads what the generators have left, for the status page
	// (WithCapacity).
	capacity *metrics.CapacityReader
	tracing  trace.TracerProvider // WithTracing; nil: none
	started  time.Time
	now      func() time.Time // the clock of a 4.x revert's last time

	mux      *http.ServeMux
	patterns []string                // the patterns mount registered, in the order of routes
	rpc      map[string]http.Handler // the Connect handlers, by their path: connectHandlers
	nextRole Role                    // of patternNext, which ServeHTTP matches itself
	fastNext bool                    // ServeHTTP may serve patternNext without the mux

	limits    Limits // the caps of the network routes (WithLimits); zero fields: DefaultLimits
	compat4x  bool   // serve the 4.x segment and machine API (WithCompat4x)
	created4x keySet // the 4.x segment keys this server made or found
	machines  machines4x
	h2c       bool         // serve HTTP/2 without TLS (WithH2C)
	streams   atomic.Int64 // the StreamRanges and ReadRanges calls open: openStream

	storeIDs   sync.Map   // the identities of the generators' stores, by store name: generatorStoreID
	leaf       leafConfig // WithLeaf
	leafKeys   keySet     // the Leaf biz_tags found in the store
	tinyid     string     // WithTinyid
	tinyidKeys keySet     // the tinyid bizTypes found in the store

	rate *rateLimiter // the rate of each caller's ids (WithRateLimit); nil: none
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
	if s.capacity == nil {
		s.capacity = metrics.NewCapacityReader(metrics.RuntimeCapacity(rt))
	}
	if err := s.checkCompat(); err != nil {
		return nil, err
	}
	for _, info := range rt.Generators() {
		s.names = append(s.names, info.Name)
	}
	s.rpc = s.connectHandlers()
	if err := s.mount(routes); err != nil {
		return nil, err
	}
	return s, nil
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
		HTTP2:             &http.HTTP2Config{MaxConcurrentStreams: maxStreams},
	}
}

// uptime is the time since s was made, on the monotonic clock: a request's latency
// is the difference of two, one clock reading each, where time.Now reads the clock
// twice (the wall clock and the monotonic one), on some VMs a cost to notice.
func (s *Server) uptime() time.Duration { return time.Since(s.started) }

// readTimeout bounds the reading of a request, its headers and its body.
const readTimeout = 5 * time.Second
