package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"

	"github.com/cosid-go/cosid/store/httpstore/wire"

	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// routes is every route of a Server, each with its policy beside its pattern: the
// role whose token it needs, and its flags. Nothing else registers a route (mount),
// and nothing reads a route's policy from its path, so a route under a new prefix
// gets the policy its row gives, or does not compile without one.
var routes = []route{
	// Health, readiness and monitoring.
	{"GET /healthz", roleOpen, 0, (*Server).healthz},
	{"GET /readyz", roleOpen, 0, (*Server).readyz}, // details only with the monitor token
	{"GET /metrics", RoleMonitor, 0, (*Server).serveMetrics},
	{"GET /{$}", RoleMonitor, 0, (*Server).status},

	// The ids (/v1): v1_ids.go.
	{"GET /v1/generators", RoleIDs, 0, (*Server).inventory},
	{patternNext, RoleIDs, issuesIDs, (*Server).nextRoute},
	{"GET /v1/generators/{name}/range", RoleIDs, issuesIDs, (*Server).nextRange},
	{"GET /v1/generators/{name}/decode", RoleIDs, 0, (*Server).decode},

	// The store API of httpstore (/v1/store): v1_store.go.
	{"POST " + wire.PathReserve, RoleStore, audited, (*Server).reserve},
	{"POST " + wire.PathSeal, RoleStore, audited, (*Server).seal},
	{"POST " + wire.PathGiveBack, RoleStore, audited, (*Server).giveBack},
	{"POST " + wire.PathAcquire, RoleStore, audited, (*Server).acquire},
	{"POST " + wire.PathRenew, RoleStore, audited, (*Server).renew},
	{"POST " + wire.PathRelease, RoleStore, audited, (*Server).release},
	{"GET " + wire.PathPing, RoleStore, audited, (*Server).storePing},

	// The admin API of the operator's commands: v1_admin.go. Never Delete: its
	// contract is offline only.
	{"POST " + wire.PathKeys, RoleAdmin, audited | withAdminToken, (*Server).adminKeys},
	{"POST " + wire.PathRaise, RoleAdmin, audited | withAdminToken, (*Server).adminRaise},
	{"POST " + wire.PathSlots, RoleAdmin, audited | withAdminToken, (*Server).adminSlots},
	{"POST " + wire.PathLeaseOf, RoleAdmin, audited | withAdminToken, (*Server).adminLeaseOf},
	{"POST " + wire.PathRaiseFloor, RoleAdmin, audited | withAdminToken, (*Server).adminRaiseFloor},

	// The Connect API (gRPC, gRPC-Web, Connect) and gRPC's health and reflection:
	// connect.go. Health is open, as /healthz is: a load balancer has no token.
	// Reflection tells the public schema, but lists the services: the ids token.
	{"/" + cosidv1connect.IdServiceName + "/", RoleIDs, rpc, (*Server).serveRPC},
	{"/" + cosidv1connect.StoreServiceName + "/", RoleStore, rpc | audited, (*Server).serveRPC},
	{"/" + grpchealth.HealthV1ServiceName + "/", roleOpen, rpc, (*Server).serveRPC},
	{"/" + grpcreflect.ReflectV1ServiceName + "/", RoleIDs, rpc, (*Server).serveRPC},
	{"/" + grpcreflect.ReflectV1AlphaServiceName + "/", RoleIDs, rpc, (*Server).serveRPC},

	// CosId 4.x's API: compat4x.go. Its ids always; its segment and machine API,
	// which 4.x clients call without a token, only with WithCompat4x.
	{"GET /ids/{name}", RoleIDs, issuesIDs, (*Server).id4x},
	{"GET /ids/as-string/{name}", RoleIDs, issuesIDs, (*Server).idAsString4x},
	{"POST /segments/distributor/{namespace}/{name}", roleOpen, audited | form4x | withCompat4x, (*Server).createSegment4x},
	{"PATCH /segments/{namespace}/{name}", roleOpen, audited | form4x | withCompat4x, (*Server).nextMaxID4x},
	{"POST /machines/{namespace}", roleOpen, audited | form4x | withCompat4x, (*Server).distribute4x},
	{"PATCH /machines/{namespace}", roleOpen, audited | form4x | withCompat4x, (*Server).guard4x},
	{"DELETE /machines/{namespace}", roleOpen, audited | form4x | withCompat4x, (*Server).revert4x},

	// Meituan Leaf's and Didi tinyid's APIs: compat_leaf.go, compat_tinyid.go, each
	// only with its option (WithLeaf, WithTinyid). tinyid's clients send the token
	// as a query parameter.
	{"GET /api/segment/get/{key}", RoleIDs, issuesIDs | formLeaf | withLeaf, (*Server).leafSegment},
	{"GET /api/snowflake/get/{key}", RoleIDs, issuesIDs | formLeaf | withLeaf, (*Server).leafSnowflake},
	{"GET /decodeSnowflakeId", RoleIDs, formLeaf | withLeaf, (*Server).leafDecode},
	{"GET /tinyid/id/nextId", RoleIDs, issuesIDs | formTinyid | withTinyid | tokenInQuery, (*Server).tinyidNext},
	{"GET /tinyid/id/nextIdSimple", RoleIDs, issuesIDs | formTinyidSimple | withTinyid | tokenInQuery, (*Server).tinyidNextSimple},
}

// rpcMethods are the methods of a Connect service whose policy adds to its
// service's row, by their paths: the streams.
var rpcMethods = map[string]routeFlags{
	cosidv1connect.IdServiceStreamRangesProcedure: serverStream,
	cosidv1connect.IdServiceReadRangesProcedure:   serverStream | clientStream,
}

// routeParams are the query parameters of the /v1 routes that take any. A /v1
// route takes those of its entry and no others, none without an entry: a parameter
// it does not take (?cnt=5) would be ignored, and the caller served other than it
// asked. The other routes read no query but 4.x's, whose clients may send more
// than 4.x reads; they refuse only an ambiguous query (checkQuery).
var routeParams = map[string][]string{
	patternNext:                        idParams,
	"GET /v1/generators/{name}/range":  idParams,
	"GET /v1/generators/{name}/decode": {"key", "text"},
}

// idParams are the query parameters of /next and /range.
var idParams = []string{"count", "key"}

// query returns the query parameters rt takes, and whether it refuses others.
func (rt route) query() ([]string, bool) {
	if p, ok := routeParams[rt.pattern]; ok {
		return p, true
	}
	return nil, strings.Contains(rt.pattern, " /v1/")
}

// issuesIDsAt reports whether the route that serves a GET of r's path hands out
// ids: a 405 of its path offers GET alone, as its HEAD is refused.
func (s *Server) issuesIDsAt(r *http.Request) bool {
	get := r.Clone(r.Context())
	get.Method = http.MethodGet
	_, pattern := s.mux.Handler(get)
	for _, rt := range routes {
		if rt.pattern == pattern {
			return rt.flags&issuesIDs != 0
		}
	}
	return false
}

// route is a route of the server: its pattern (of http.ServeMux; a Connect
// service's path prefix), the role whose token it needs, its flags and its handler.
type route struct {
	pattern string
	role    Role
	flags   routeFlags
	serve   func(s *Server, w http.ResponseWriter, r *http.Request) error
}

// routeFlags are what a route does beside answering.
type routeFlags uint16

const (
	// issuesIDs: the route hands out ids. A HEAD, which would take ids and drop
	// them, is refused (a GET pattern also matches HEAD).
	issuesIDs routeFlags = 1 << iota
	// audited: every call goes to the audit log, a refused one too: the routes
	// that change a store.
	audited
	// rpc: a Connect service, answered by the Connect handler of its path; its
	// refusals are written in the protocol of the call, which a gRPC client reads.
	rpc
	// form4x: the route's errors take CosId 4.x's form (fail4x).
	form4x
	// withCompat4x: served only with WithCompat4x.
	withCompat4x
	// withAdminToken: served only when the admin role has a token.
	withAdminToken
	// formLeaf, formTinyid, formTinyidSimple: the route's errors take the form of
	// Leaf (failLeaf), of tinyid's nextId or of its nextIdSimple (failTinyid).
	formLeaf
	formTinyid
	formTinyidSimple
	// withLeaf, withTinyid: served only with WithLeaf's segment or snowflake
	// generator (the route's handler names which), or with WithTinyid.
	withLeaf
	withTinyid
	// tokenInQuery: the role's token may come as the query parameter token, as
	// tinyid's clients send it, besides the Authorization header.
	tokenInQuery
	// serverStream (rpcMethods): a method that streams its answer, whose writes
	// move a deadline stream-idle on (streamWriter), so that a client that stops
	// reading is cut and a stream outlives the server's write timeout.
	serverStream
	// clientStream (rpcMethods): a method whose client streams its messages as
	// long as the call lasts. The body limit bounds each message (connect-go's
	// read limit), not the body, and the call needs HTTP/2.
	clientStream
)

// serves reports whether s serves rt: a route of the 4.x segment and machine API
// only with WithCompat4x, one of the admin API only with an admin token.
func (s *Server) serves(rt route) bool {
	switch {
	case rt.flags&withCompat4x != 0 && !s.compat4x:
		return false
	case rt.flags&withAdminToken != 0 && !s.tokens[RoleAdmin].set:
		return false
	case rt.flags&withTinyid != 0 && s.tinyid == "":
		return false
	case rt.flags&withLeaf != 0:
		if strings.HasPrefix(rt.pattern, "GET /api/segment/") {
			return s.leaf.segment != ""
		}
		return s.leaf.snowflake != ""
	}
	return true
}

// mount registers the routes of table that s serves on its mux, each with its
// policy: it is the only place that registers a route. The /next route's policy is
// also what ServeHTTP's fast path of it applies.
func (s *Server) mount(table []route) error {
	for _, rt := range table {
		if !s.serves(rt) {
			continue
		}
		if rt.flags&rpc != 0 && s.rpc[rt.pattern] == nil {
			return fmt.Errorf("server: the route %q is a Connect service that has no handler", rt.pattern)
		}
		s.patterns = append(s.patterns, rt.pattern)
		if rt.pattern == patternNext {
			s.fastNext = rt.flags&audited == 0 // the fast path audits nothing
			s.nextRole = rt.role
		}
		if rt.flags&rpc != 0 {
			s.mux.HandleFunc(rt.pattern, s.rpcPolicy(rt))
			continue
		}
		s.mux.HandleFunc(rt.pattern, s.policy(rt))
	}
	return nil
}

// policy returns the handler of rt: no caching, the audit log, the role's token,
// HEAD refused on a route that issues ids, a strict query, then rt's handler, whose
// error is answered as JSON (or in 4.x's form).
func (s *Server) policy(rt route) http.HandlerFunc {
	fail := s.fail
	switch {
	case rt.flags&form4x != 0:
		fail = s.fail4x
	case rt.flags&formLeaf != 0:
		fail = s.failLeaf
	case rt.flags&formTinyid != 0:
		fail = s.failTinyid(false)
	case rt.flags&formTinyidSimple != 0:
		fail = s.failTinyid(true)
	}
	allowed, strict := rt.query()
	return func(w http.ResponseWriter, r *http.Request) {
		// Nothing this server answers may be served again from a cache: most
		// answers carry ids or the state of a store.
		w.Header()["Cache-Control"] = noStore
		var err error
		if rt.flags&audited != 0 {
			// A refused call is logged too: an attempt is what an audit is for.
			a := s.startAudit(r, rt.role)
			defer func() { a.end(w, err) }()
		}
		if !s.allowed(r, rt.role) && (rt.flags&tokenInQuery == 0 || !s.matches(rt.role, r.URL.Query().Get("token"))) {
			if rt.flags&(formTinyid|formTinyidSimple) != 0 {
				fail(w, r, errTinyidToken)
				return
			}
			unauthorized(w, r, rt.role)
			return
		}
		if rt.flags&issuesIDs != 0 && r.Method == http.MethodHead {
			w.Header().Set("Allow", http.MethodGet)
			writeError(w, http.StatusMethodNotAllowed, wire.CodeMethodNotAllowed,
				"method HEAD not allowed; allowed: GET (a HEAD would take ids and drop them)")
			return
		}
		if _, err = checkQuery(r.URL.RawQuery, allowed, strict); err != nil {
			s.fail(w, r, err)
			return
		}
		if rt.role == RoleStore {
			s.setStoreID(w, r)
		}
		if err = rt.serve(s, w, r); err != nil {
			fail(w, r, err)
		}
	}
}

// rpcOutcome carries the error of an audited call out of its handler to the audit
// log, which sees only a 200 of a gRPC answer.
type rpcOutcome struct{ err error }

type rpcOutcomeKey struct{}

// rpcPolicy returns the handler of rt, a Connect service: no caching, the audit log
// (without the body: a binary message would show a lease's incarnation, which the
// audit log never holds), the role's token, refused in the protocol of the call.
func (s *Server) rpcPolicy(rt route) http.HandlerFunc {
	errw := connect.NewErrorWriter()
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Cache-Control"] = noStore
		if rt.flags&audited != 0 {
			a := &auditCall{s: s, r: r, role: rt.role}
			out := &rpcOutcome{}
			r = r.WithContext(context.WithValue(r.Context(), rpcOutcomeKey{}, out))
			defer func() { a.end(w, out.err) }()
		}
		if !s.allowed(r, rt.role) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cosid"`)
			err := connect.NewError(connect.CodeUnauthenticated, errors.New("a valid bearer token is required"))
			if errw.IsSupported(r) {
				errw.Write(w, r, err)
				return
			}
			unauthorized(w, r, rt.role)
			return
		}
		if rt.role == RoleStore {
			s.setStoreID(w, r)
		}
		if rt.role == RoleIDs {
			r = r.WithContext(s.withCaller(r.Context(), r.RemoteAddr))
		}
		method := rpcMethods[r.URL.Path]
		if method&clientStream != 0 && r.ProtoMajor < 2 {
			// connect-go answers 505 without a word of what gives HTTP/2.
			errw.Write(w, r, connect.NewError(connect.CodeUnimplemented, fmt.Errorf(
				"%s streams both ways, which needs HTTP/2, and this call came over HTTP/%d.%d: call the gRPC listener (%s), or this one over TLS or with %s on; over HTTP/1.1, StreamRanges streams ranges",
				r.URL.Path, r.ProtoMajor, r.ProtoMinor, settingGRPCAddr, settingH2C)))
			return
		}
		if method&serverStream != 0 {
			sw := &streamWriter{ResponseWriter: w, rc: http.NewResponseController(w), idle: s.caps().StreamIdle}
			// What net/http writes once the handler returns (gRPC's trailers, the
			// end of an HTTP/1.1 body) gets a deadline of its own.
			defer sw.deadline()
			w = sw
			r = r.WithContext(context.WithValue(r.Context(), streamWriterKey{}, sw))
		}
		if err := rt.serve(s, w, r); err != nil {
			s.fail(w, r, err)
		}
	}
}

// serveRPC answers a call of a Connect service with the handler of its path.
func (s *Server) serveRPC(w http.ResponseWriter, r *http.Request) error {
	h, ok := s.rpc[r.Pattern]
	if !ok {
		return fmt.Errorf("server: no Connect handler for the route %q", r.Pattern)
	}
	h.ServeHTTP(w, r)
	return nil
}
