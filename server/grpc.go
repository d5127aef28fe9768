package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
)

// The gRPC protocol of the Connect API served by grpc-go's own server, on a
// listener of its own: faster than gRPC through connect-go on net/http's HTTP/2.
// The services are the Connect handlers' own (idService, storeService,
// healthChecker) behind thin adapters, and the interceptors give every call the
// policy the route table gives its service on the HTTP listener.

// maxStreams is the most calls one HTTP/2 connection has in flight, on both
// listeners (grpc-go's MaxConcurrentStreams, http.Server's HTTP2 one): below
// net/http's default of 250, so that a few connections cannot open thousands of
// streams; cosid.serve.limits.max-streams caps the StreamRanges and ReadRanges
// calls of all connections together.
const maxStreams = 100

// GRPCServer returns grpc-go's server of the gRPC protocol of s: IdService,
// StoreService, gRPC health and reflection, each call with the policy of its
// service's route (the role's token, the audit log), panic recovery, metrics,
// tracing (WithTracing), the body limit as the largest message, and at most 100
// calls in flight on a connection. opts come after the server's own options: TLS
// credentials (grpc.Creds), for one. Serve it on a listener of its own; Connect,
// gRPC-Web and gRPC itself stay on HTTPServer's.
func (s *Server) GRPCServer(opts ...grpc.ServerOption) *grpc.Server {
	c := &grpcChain{s: s, policy: map[string]route{}}
	base := []grpc.ServerOption{
		grpc.MaxRecvMsgSize(int(min(s.limit, 1<<30))),
		grpc.MaxSendMsgSize(maxSendBytes),
		grpc.MaxConcurrentStreams(maxStreams),
		grpc.ConnectionTimeout(readTimeout),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: 2 * time.Minute}), // HTTPServer's IdleTimeout,
		grpc.ChainUnaryInterceptor(c.unary),
		grpc.ChainStreamInterceptor(c.stream),
	}
	gs := grpc.NewServer(append(base, opts...)...)
	ids := &idService{s: s}
	cosidv1.RegisterIdServiceServer(gs, grpcIDs{i: ids})
	cosidv1.RegisterStoreServiceServer(gs, grpcStore{ss: &storeService{s: s}})
	healthpb.RegisterHealthServer(gs, grpcHealth{h: healthChecker{s: s}})
	reflection.Register(gs)
	// Every method takes the policy of its service's row of the route table, as
	// its path does on the HTTP listener; a service without a row is refused.
	for svc, info := range gs.GetServiceInfo() {
		for _, rt := range routes {
			if rt.flags&rpc != 0 && rt.pattern == "/"+svc+"/" {
				for _, m := range info.Methods {
					c.policy[rt.pattern+m.Name] = rt
				}
			}
		}
	}
	return gs
}

// grpcChain is the interceptors of GRPCServer.
type grpcChain struct {
	s      *Server
	policy map[string]route // by full method name; written before serving
}

func (c *grpcChain) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (res any, err error) {
	err = c.call(ctx, info.FullMethod, func(ctx context.Context) error {
		var herr error
		res, herr = handler(ctx, req)
		return herr
	})
	return res, err
}

func (c *grpcChain) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return c.call(ss.Context(), info.FullMethod, func(ctx context.Context) error {
		if ctx != ss.Context() {
			ss = &ctxStream{ServerStream: ss, ctx: ctx}
		}
		return handler(srv, ss)
	})
}

// ctxStream is a server stream with the context of a span.
type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (c *ctxStream) Context() context.Context { return c.ctx }

// call runs one call of method with its policy, as ServeHTTP and rpcPolicy run a
// request: the span, metrics, panic recovery, the audit log, the role's token, then
// run, whose error is answered as a status with the API's code in the trailer.
func (c *grpcChain) call(ctx context.Context, method string, run func(context.Context) error) (err error) {
	s := c.s
	rt, known := c.policy[method]
	var start time.Duration
	if s.metrics != nil {
		start = s.uptime()
	}
	var span *grpcSpan
	if s.tracing != nil {
		ctx, span = s.startGRPCSpan(ctx, method)
	}
	var outcome string // the Connect form of the error, for the audit log
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("server: gRPC handler panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
			err = status.Error(codes.Internal, "the server failed on this call; see its log")
			outcome = err.Error()
		}
		code := status.Code(err)
		if s.metrics != nil {
			s.metrics.ObserveHTTP(rt.pattern, httpStatusOf(code), s.uptime()-start)
		}
		if known && rt.flags&audited != 0 {
			s.auditGRPC(ctx, method, rt.role, code, outcome)
		}
		span.end(code, err)
	}()
	if !known {
		return status.Errorf(codes.Unimplemented, "no method %s on this server", method)
	}
	if !s.allowedToken(rt.role, firstMD(ctx, "authorization")) {
		err = status.Error(codes.Unauthenticated, "a valid bearer token is required")
		outcome = err.Error()
		return err
	}
	if rt.role == RoleIDs {
		ctx = s.withCaller(ctx, grpcRemote(ctx))
	}
	if err = run(ctx); err != nil {
		outcome, err = s.grpcError(ctx, method, err)
	}
	return err
}

// firstMD returns the first value of the incoming metadata key, "" without one.
func firstMD(ctx context.Context, key string) string {
	if v := metadata.ValueFromIncomingContext(ctx, key); len(v) > 0 {
		return v[0]
	}
	return ""
}

// grpcError returns err as the status the caller gets, the API's error code in the
// cosid-code trailer as the Connect handlers send it, and the error's Connect form
// for the audit log.
func (s *Server) grpcError(ctx context.Context, method string, err error) (outcome string, _ error) {
	if _, ok := status.FromError(err); ok {
		return err.Error(), err // grpc-go's own: a stream the client ended
	}
	cerr := s.toConnectError(ctx, method, err)
	if wcode := cerr.Meta().Get(cosidCode); wcode != "" {
		_ = grpc.SetTrailer(ctx, metadata.Pairs(cosidCode, wcode))
	}
	return cerr.Error(), status.Error(codes.Code(cerr.Code()), cerr.Message())
}

// httpStatusOf is the HTTP status a call answered with code has in the metrics: the
// status the Connect protocol answers it with.
func httpStatusOf(code codes.Code) int {
	switch code {
	case codes.OK:
		return 200
	case codes.InvalidArgument, codes.OutOfRange:
		return 400
	case codes.Unauthenticated:
		return 401
	case codes.PermissionDenied:
		return 403
	case codes.NotFound:
		return 404
	case codes.AlreadyExists, codes.Aborted:
		return 409
	case codes.FailedPrecondition:
		return 412
	case codes.ResourceExhausted:
		return 429
	case codes.Canceled:
		return 499
	case codes.Unimplemented:
		return 501
	case codes.Unavailable:
		return 503
	case codes.DeadlineExceeded:
		return 504
	}
	return 500
}

// auditGRPC logs a call of an audited service, as auditCall.end logs one of the
// HTTP listener: without the message, which would show a lease's incarnation.
func (s *Server) auditGRPC(ctx context.Context, method string, role Role, code codes.Code, outcome string) {
	remote := ""
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		remote = p.Addr.String()
	}
	attrs := []any{"route", method, "role", role.String(), "remote", remote}
	if f := firstMD(ctx, "x-forwarded-for"); f != "" {
		attrs = append(attrs, "forwarded-for", f)
	}
	if outcome == "" {
		outcome = "ok"
	}
	attrs = append(attrs, "transport", "grpc", "status", httpStatusOf(code), "outcome", outcome)
	level := slog.LevelInfo
	if code != codes.OK {
		level = slog.LevelWarn
	}
	s.logger.Log(ctx, level, "cosid audit", attrs...)
}

// unaryCall answers a unary call of grpc-go with h, the Connect handler's method.
// The headers h sets are the answer's header metadata, so that a gRPC client reads
// what a Connect client does (the Cosid-Store-Id of a range).
func unaryCall[Req, Res any](ctx context.Context, req *Req, h func(context.Context, *connect.Request[Req]) (*connect.Response[Res], error)) (*Res, error) {
	res, err := h(ctx, connect.NewRequest(req))
	if err != nil {
		return nil, err
	}
	if len(res.Header()) > 0 {
		md := metadata.MD{}
		for k, v := range res.Header() {
			md.Append(k, v...)
		}
		if err := grpc.SetHeader(ctx, md); err != nil {
			return nil, fmt.Errorf("the answer's header metadata: %w", err)
		}
	}
	return res.Msg, nil
}

// grpcIDs is IdService for grpc-go: idService's methods.
type grpcIDs struct {
	cosidv1.UnimplementedIdServiceServer
	i *idService
}

func (g grpcIDs) Next(ctx context.Context, req *cosidv1.NextRequest) (*cosidv1.NextResponse, error) {
	return unaryCall(ctx, req, g.i.Next)
}

func (g grpcIDs) NextRange(ctx context.Context, req *cosidv1.NextRangeRequest) (*cosidv1.NextRangeResponse, error) {
	return unaryCall(ctx, req, g.i.NextRange)
}

// StreamRanges answers with idService's streamRanges, whose sends are cut after
// stream-idle by returning: grpc-go has no write deadline.
func (g grpcIDs) StreamRanges(req *cosidv1.StreamRangesRequest, st grpc.ServerStreamingServer[cosidv1.StreamRangesResponse]) error {
	err := watchSends(g.i.s.caps().StreamIdle, st.Send, func(send func(*cosidv1.StreamRangesResponse) error) error {
		return g.i.streamRanges(st.Context(), req, send)
	})
	if errors.Is(err, errStreamIdle) {
		return g.i.s.streamCut(st.Context(), "StreamRanges", req.GetName())
	}
	return err
}

// ReadRanges answers with idService's readRanges, whose sends are cut after
// stream-idle as StreamRanges' are.
func (g grpcIDs) ReadRanges(st grpc.BidiStreamingServer[cosidv1.ReadRangesRequest, cosidv1.ReadRangesResponse]) error {
	var name atomic.Pointer[string] // the generator, for the log of a cut
	recv := func() (*cosidv1.ReadRangesRequest, error) {
		m, err := st.Recv()
		if err == nil && name.Load() == nil {
			name.Store(&m.Name)
		}
		return m, err
	}
	err := watchSends(g.i.s.caps().StreamIdle, st.Send, func(send func(*cosidv1.ReadRangesResponse) error) error {
		return g.i.readRanges(st.Context(), recv, send)
	})
	if errors.Is(err, errStreamIdle) {
		generator := ""
		if n := name.Load(); n != nil {
			generator = *n
		}
		return g.i.s.streamCut(st.Context(), "ReadRanges", generator)
	}
	return err
}

func (g grpcIDs) Decode(ctx context.Context, req *cosidv1.DecodeRequest) (*cosidv1.DecodeResponse, error) {
	return unaryCall(ctx, req, g.i.Decode)
}

func (g grpcIDs) ListGenerators(ctx context.Context, req *cosidv1.ListGeneratorsRequest) (*cosidv1.ListGeneratorsResponse, error) {
	return unaryCall(ctx, req, g.i.ListGenerators)
}

// grpcStore is StoreService for grpc-go: storeService's methods.
type grpcStore struct {
	cosidv1.UnimplementedStoreServiceServer
	ss *storeService
}

func (g grpcStore) Reserve(ctx context.Context, req *cosidv1.ReserveRequest) (*cosidv1.ReserveResponse, error) {
	return unaryCall(ctx, req, g.ss.Reserve)
}

func (g grpcStore) Seal(ctx context.Context, req *cosidv1.SealRequest) (*cosidv1.SealResponse, error) {
	return unaryCall(ctx, req, g.ss.Seal)
}

func (g grpcStore) GiveBack(ctx context.Context, req *cosidv1.GiveBackRequest) (*cosidv1.GiveBackResponse, error) {
	return unaryCall(ctx, req, g.ss.GiveBack)
}

func (g grpcStore) Acquire(ctx context.Context, req *cosidv1.AcquireRequest) (*cosidv1.AcquireResponse, error) {
	return unaryCall(ctx, req, g.ss.Acquire)
}

func (g grpcStore) Renew(ctx context.Context, req *cosidv1.RenewRequest) (*cosidv1.RenewResponse, error) {
	return unaryCall(ctx, req, g.ss.Renew)
}

func (g grpcStore) Release(ctx context.Context, req *cosidv1.ReleaseRequest) (*cosidv1.ReleaseResponse, error) {
	return unaryCall(ctx, req, g.ss.Release)
}

// grpcHealth is gRPC health for grpc-go: healthChecker's Check. Watch is
// unimplemented, as connect's grpchealth answers it.
type grpcHealth struct {
	healthpb.UnimplementedHealthServer
	h healthChecker
}

func (g grpcHealth) Check(ctx context.Context, req *healthpb.HealthCheckRequest) (*healthpb.HealthCheckResponse, error) {
	res, err := g.h.Check(ctx, &grpchealth.CheckRequest{Service: req.GetService()})
	if err != nil {
		return nil, err
	}
	return &healthpb.HealthCheckResponse{Status: healthpb.HealthCheckResponse_ServingStatus(res.Status)}, nil
}

func (grpcHealth) Watch(*healthpb.HealthCheckRequest, grpc.ServerStreamingServer[healthpb.HealthCheckResponse]) error {
	return connect.NewError(connect.CodeUnimplemented, errors.New("watch is not served: poll Check"))
}
