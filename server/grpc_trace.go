package server

import (
	"context"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// grpcSpan is the span of a gRPC call (WithTracing); nil when tracing is off.
type grpcSpan struct{ span trace.Span }

// startGRPCSpan starts the server span of a call of method, a child of the trace
// context of its metadata (Propagator), named and labelled as OpenTelemetry's
// conventions of RPC spans say.
func (s *Server) startGRPCSpan(ctx context.Context, method string) (context.Context, *grpcSpan) {
	md, _ := metadata.FromIncomingContext(ctx)
	ctx = Propagator.Extract(ctx, mdCarrier(md))
	name := strings.TrimPrefix(method, "/")
	svc, m, _ := strings.Cut(name, "/")
	ctx, span := s.tracing.Tracer(tracerName).Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("rpc.system", "grpc"), attribute.String("rpc.service", svc), attribute.String("rpc.method", m)))
	return ctx, &grpcSpan{span: span}
}

// end ends the span with the call's code: an error of the server's (a 5xx of the
// Connect protocol) marks it, as a 5xx marks the span of an HTTP request.
func (g *grpcSpan) end(code codes.Code, err error) {
	if g == nil {
		return
	}
	g.span.SetAttributes(attribute.Int("rpc.grpc.status_code", int(code)))
	if httpStatusOf(code) >= 500 {
		g.span.SetStatus(otelcodes.Error, status.Convert(err).Message())
	}
	g.span.End()
}

// mdCarrier reads a trace context from gRPC metadata.
type mdCarrier metadata.MD

func (c mdCarrier) Get(key string) string {
	if v := metadata.MD(c).Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c mdCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c mdCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
