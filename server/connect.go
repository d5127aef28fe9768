package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/store/httpstore/wire"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// MaxStreamRange is the most ids one range of StreamRanges may hold: a bulk loader
// that wants more asks for more ranges.
const MaxStreamRange = 1 << 20

// maxSendBytes caps one message this server sends over the Connect API: the largest
// is a Next of MaxCount ids of a long codec, well under it.
const maxSendBytes = 4 << 20

// streamWriteTimeout is how long one message of a server stream may take to write:
// the http.Server's WriteTimeout would end a stream that lasts longer than it, so a
// stream's deadline moves on with every message instead.
const streamWriteTimeout = 30 * time.Second

// WithH2C serves HTTP/2 without TLS (h2c, prior knowledge) beside HTTP/1.1 on the
// http.Server of HTTPServer: what a gRPC client that dials without TLS speaks
// (cosid.serve.h2c in the configuration; off by default). Over TLS, HTTP/2 is
// served without it.
func WithH2C(on bool) Option { return func(s *Server) { s.h2c = on } }

// protocols returns the protocols of HTTPServer's http.Server: nil (the default:
// HTTP/1.1, and HTTP/2 over TLS) unless h2c is on.
func (s *Server) protocols() *http.Protocols {
	if !s.h2c {
		return nil
	}
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetHTTP2(true)
	p.SetUnencryptedHTTP2(true)
	return p
}

// connectRoutes mounts the Connect API (IdService, StoreService), gRPC health and
// reflection on the server's mux: the same handler chain as /v1, so the body limit,
// cross-origin rules, metrics and panic recovery of ServeHTTP apply, and each
// service needs the token of its role.
func (s *Server) connectRoutes() {
	opts := []connect.HandlerOption{
		connect.WithReadMaxBytes(int(min(s.limit, 1<<30))),
		connect.WithSendMaxBytes(maxSendBytes),
		connect.WithInterceptors(rpcErrors{s: s}),
	}
	path, h := cosidv1connect.NewIdServiceHandler(&idService{s: s}, opts...)
	s.handleRPC(path, RoleIDs, h)
	path, h = cosidv1connect.NewStoreServiceHandler(&storeService{s: s}, opts...)
	s.handleRPC(path, RoleStore, h)
	// Health is open, as /healthz and /readyz are: a load balancer has no token.
	path, h = grpchealth.NewHandler(healthChecker{s: s}, connect.WithReadMaxBytes(int(min(s.limit, 1<<30))))
	s.handleRPC(path, roleOpen, h)
	// Reflection tells the schema, which is public, but lists the services: it takes
	// the ids role's token, which grpcurl sends with -H.
	reflector := grpcreflect.NewStaticReflector(cosidv1connect.IdServiceName, cosidv1connect.StoreServiceName, grpchealth.HealthV1ServiceName)
	path, h = grpcreflect.NewHandlerV1(reflector, connect.WithReadMaxBytes(int(min(s.limit, 1<<30))))
	s.handleRPC(path, RoleIDs, h)
	path, h = grpcreflect.NewHandlerV1Alpha(reflector, connect.WithReadMaxBytes(int(min(s.limit, 1<<30))))
	s.handleRPC(path, RoleIDs, h)
}

// rpcOutcome carries the error of an audited call out of its handler to the audit
// log, which sees only a 200 of a gRPC answer.
type rpcOutcome struct{ err error }

type rpcOutcomeKey struct{}

// handleRPC registers the handler of a service's path, as handle does a route: no
// caching, the role's token, the audit log for the store role. The refusals are
// written in the protocol of the call (gRPC, gRPC-Web or Connect), which a gRPC
// client reads.
func (s *Server) handleRPC(path string, role Role, h http.Handler) {
	audit := role == RoleStore
	errw := connect.NewErrorWriter()
	s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Cache-Control"] = noStore
		if audit {
			// The body is not logged: a binary message would show a lease's
			// incarnation, which the audit log never holds.
			a := &auditCall{s: s, r: r, role: role}
			out := &rpcOutcome{}
			r = r.WithContext(context.WithValue(r.Context(), rpcOutcomeKey{}, out))
			defer func() { a.end(w, out.err) }()
		}
		if !s.allowed(r, role) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="cosid"`)
			err := connect.NewError(connect.CodeUnauthenticated, errors.New("a valid bearer token is required"))
			if errw.IsSupported(r) {
				errw.Write(w, r, err)
				return
			}
			unauthorized(w, r, role)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/StreamRanges") {
			w = &streamWriter{ResponseWriter: w, rc: http.NewResponseController(w)}
		}
		h.ServeHTTP(w, r)
	})
}

// streamWriter moves the write deadline of a server stream on with every write.
type streamWriter struct {
	http.ResponseWriter
	rc *http.ResponseController
}

func (w *streamWriter) Write(p []byte) (int, error) {
	// A writer without deadlines (a test's recorder) streams without one.
	_ = w.rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	return w.ResponseWriter.Write(p)
}

func (w *streamWriter) Flush() {
	_ = w.rc.Flush()
}

func (w *streamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush sends what the handler wrote so far: a stream of the Connect API sends each
// message as it is written.
func (r *recorder) Flush() {
	r.wrote = true
	_ = http.NewResponseController(r.ResponseWriter).Flush()
}

// Unwrap returns the writer under r, for http.ResponseController.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// rpcCount reads the count of a Next or NextRange: 0 is 1, as a missing ?count is.
func rpcCount(n int64) (int64, error) {
	if n == 0 {
		return 1, nil
	}
	if n < 1 || n > MaxCount {
		return 0, badRequest("count %d: want a whole number from 1 to %d", n, MaxCount)
	}
	return n, nil
}

// counted resolves the generator, key and count of a Next or NextRange, as /next and
// /range read theirs.
func (s *Server) counted(name, key string, count int64) (*generator, cosid.Source, int64, error) {
	g, src, err := s.lookup(name, key)
	if err != nil {
		return nil, src, 0, err
	}
	n, err := rpcCount(count)
	return g, src, n, err
}

// idService implements cosidv1connect.IdServiceHandler over the server's generators.
type idService struct{ s *Server }

func (i *idService) Next(ctx context.Context, req *connect.Request[cosidv1.NextRequest]) (*connect.Response[cosidv1.NextResponse], error) {
	g, src, n, err := i.s.counted(req.Msg.GetName(), req.Msg.GetKey(), req.Msg.GetCount())
	if err != nil {
		return nil, err
	}
	ids, err := texts(ctx, g, src, n)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&cosidv1.NextResponse{Ids: ids}), nil
}

func (i *idService) NextRange(ctx context.Context, req *connect.Request[cosidv1.NextRangeRequest]) (*connect.Response[cosidv1.NextRangeResponse], error) {
	g, src, n, err := i.s.counted(req.Msg.GetName(), req.Msg.GetKey(), req.Msg.GetCount())
	if err != nil {
		return nil, err
	}
	rg, err := takeRange(ctx, g, src, n)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&cosidv1.NextRangeResponse{Start: rg.Start, End: rg.End}), nil
}

func (i *idService) StreamRanges(ctx context.Context, req *connect.Request[cosidv1.StreamRangesRequest], stream *connect.ServerStream[cosidv1.StreamRangesResponse]) error {
	g, src, err := i.s.lookup(req.Msg.GetName(), req.Msg.GetKey())
	if err != nil {
		return err
	}
	size, most := req.Msg.GetSize(), req.Msg.GetMaxRanges()
	if size < 1 || size > MaxStreamRange {
		return badRequest("size %d: want the ids of a range, from 1 to %d", size, MaxStreamRange)
	}
	if most < 0 {
		return badRequest("max_ranges %d: want 0 (until the client stops) or more", most)
	}
	if !g.info.Ranges {
		return noRanges(g)
	}
	msg := new(cosidv1.StreamRangesResponse)
	for sent := int64(0); most == 0 || sent < most; sent++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		rg, err := src.NextRange(ctx, size)
		if err != nil {
			return err
		}
		msg.Start, msg.End = rg.Start, rg.End
		if err := stream.Send(msg); err != nil {
			// The client stopped: the range taken is a gap, as a dropped answer
			// of /range is.
			return err
		}
	}
	return nil
}

func (i *idService) Decode(_ context.Context, req *connect.Request[cosidv1.DecodeRequest]) (*connect.Response[cosidv1.DecodeResponse], error) {
	g, err := i.s.generatorNamed(req.Msg.GetName())
	if err != nil {
		return nil, err
	}
	text := req.Msg.GetText()
	d, err := i.s.rt.Decode(g.info.Name, text)
	if err != nil {
		return nil, badRequest("text %q: %v", text, err)
	}
	out := &cosidv1.DecodeResponse{Value: d.Value, Period: d.Period}
	if st := d.Snowflake; st != nil {
		out.Time = timestamp(st.Time)
		m, q := int32(st.Machine), int32(st.Sequence)
		out.Machine, out.Sequence = &m, &q
	}
	return connect.NewResponse(out), nil
}

func (i *idService) ListGenerators(ctx context.Context, _ *connect.Request[cosidv1.ListGeneratorsRequest]) (*connect.Response[cosidv1.ListGeneratorsResponse], error) {
	out := &cosidv1.ListGeneratorsResponse{Generators: make([]*cosidv1.Generator, 0, len(i.s.names))}
	for _, name := range i.s.names {
		g := i.s.gens[name]
		out.Generators = append(out.Generators, &cosidv1.Generator{Name: name, Strategy: g.info.Strategy.String(),
			Key: g.info.Key, Store: g.info.Store, State: i.s.state(ctx, g)})
	}
	return connect.NewResponse(out), nil
}

// healthChecker answers gRPC health checks as /readyz does: serving when every
// readiness check passes, for the server ("") and each of its services.
type healthChecker struct{ s *Server }

func (h healthChecker) Check(ctx context.Context, req *grpchealth.CheckRequest) (*grpchealth.CheckResponse, error) {
	switch req.Service {
	case "", cosidv1connect.IdServiceName, cosidv1connect.StoreServiceName:
	default:
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("no service %q; this server has %s and %s",
			req.Service, cosidv1connect.IdServiceName, cosidv1connect.StoreServiceName))
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, "/readyz", http.NoBody)
	if err != nil {
		return nil, err
	}
	for _, err := range h.s.results(r) {
		if err != nil {
			return &grpchealth.CheckResponse{Status: grpchealth.StatusNotServing}, nil
		}
	}
	return &grpchealth.CheckResponse{Status: grpchealth.StatusServing}, nil
}

// rpcErrors turns the errors of the handlers into Connect errors, as fail does for
// /v1: the code of the status, the API's error code in the cosid-code metadata.
type rpcErrors struct{ s *Server }

func (e rpcErrors) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		res, err := next(ctx, req)
		if err != nil {
			err = e.s.rpcError(ctx, req.Spec().Procedure, err)
		}
		return res, err
	}
}

func (rpcErrors) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

func (e rpcErrors) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		err := next(ctx, conn)
		if err != nil {
			err = e.s.rpcError(ctx, conn.Spec().Procedure, err)
		}
		return err
	}
}

// cosidCode is the metadata key of the API's error code (wire.Code…) of an error.
const cosidCode = "cosid-code"

// rpcError returns err as the Connect error the caller gets, and records it for the
// audit log.
func (s *Server) rpcError(ctx context.Context, procedure string, err error) error {
	cerr := s.toConnectError(ctx, procedure, err)
	if out, ok := ctx.Value(rpcOutcomeKey{}).(*rpcOutcome); ok {
		out.err = cerr
	}
	return cerr
}

func (s *Server) toConnectError(ctx context.Context, procedure string, err error) *connect.Error {
	var cerr *connect.Error
	if errors.As(err, &cerr) {
		return cerr // connect's own: a bad message, a stream the client ended
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return connect.NewError(connect.CodeOf(ctx.Err()), err)
	}
	var ae *apiError
	var tooLarge *http.MaxBytesError
	var code connect.Code
	var wcode, msg string
	switch {
	case errors.As(err, &ae):
		code, wcode, msg = codeOfStatus(ae.status), ae.code, ae.msg
	case errors.As(err, &tooLarge):
		code, wcode, msg = connect.CodeResourceExhausted, wire.CodeTooLarge, fmt.Sprintf("the request is over the limit of %d bytes", tooLarge.Limit)
	case errors.Is(err, cosid.ErrUnknownGenerator):
		code, wcode, msg = connect.CodeNotFound, wire.CodeUnknownGenerator, err.Error()
	case badKey(err):
		code, wcode, msg = connect.CodeInvalidArgument, wire.CodeInvalidArgument, err.Error()
	default:
		var status int
		status, wcode = wire.Classify(err)
		code, msg = codeOfStatus(status), err.Error()
		switch wcode {
		case wire.CodeExhausted, wire.CodeNoFreeSlot:
			code = connect.CodeResourceExhausted
		case wire.CodeNotSetUp:
			code = connect.CodeFailedPrecondition
		case wire.CodeUnavailable:
			// The error names the store's host, user and database: the log has it.
			s.logger.Warn("server: store unavailable", "procedure", procedure, "err", err)
			msg = "a store is unavailable; the server's log has the details"
		}
	}
	cerr = connect.NewError(code, errors.New(msg))
	cerr.Meta().Set(cosidCode, wcode)
	return cerr
}

// codeOfStatus is the Connect code of an HTTP status of the API.
func codeOfStatus(status int) connect.Code {
	switch status {
	case http.StatusBadRequest, http.StatusUnsupportedMediaType:
		return connect.CodeInvalidArgument
	case http.StatusUnauthorized:
		return connect.CodeUnauthenticated
	case http.StatusForbidden:
		return connect.CodePermissionDenied
	case http.StatusNotFound:
		return connect.CodeNotFound
	case http.StatusConflict:
		return connect.CodeFailedPrecondition
	case http.StatusRequestEntityTooLarge:
		return connect.CodeResourceExhausted
	case http.StatusNotImplemented:
		return connect.CodeUnimplemented
	case http.StatusServiceUnavailable:
		return connect.CodeUnavailable
	}
	return connect.CodeInternal
}
