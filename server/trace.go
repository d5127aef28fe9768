package server

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Propagator is the trace context a traced server reads from its requests and a
// traced transport writes into its own: W3C traceparent and tracestate, and W3C
// baggage.
var Propagator propagation.TextMapPropagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// WithTracing makes a span of tp for every request that HTTPServer's server
// answers, named by its method and route (GET /v1/generators/{name}/next), a
// child of the trace context the request carries (Propagator). nil, as without
// it, traces nothing and costs nothing. The store calls have spans of their own
// where the store is wrapped by TraceStore.
func WithTracing(tp trace.TracerProvider) Option { return func(s *Server) { s.tracing = tp } }

// traced wraps h with the request spans of WithTracing, when it is set.
func (s *Server) traced(h http.Handler) http.Handler {
	if s.tracing == nil {
		return h
	}
	routed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		if route := httpRoute(r.Pattern); route != "" {
			trace.SpanFromContext(r.Context()).SetAttributes(attribute.String("http.route", route))
		}
	})
	return otelhttp.NewHandler(routed, "cosid serve",
		otelhttp.WithTracerProvider(s.tracing), otelhttp.WithPropagators(Propagator),
		otelhttp.WithMeterProvider(noop.NewMeterProvider()))
}

// httpRoute is the path of a mux pattern such as "GET /v1/generators/{name}/next".
func httpRoute(pattern string) string {
	for i := range len(pattern) {
		if pattern[i] == '/' {
			return pattern[i:]
		}
	}
	return ""
}

// TraceTransport returns the wrapper of a transport whose requests are client spans
// of tp carrying their trace context (Propagator): for
// httpstore.SetTransportWrapper, so that a store call's trace goes on in the server
// it reaches.
func TraceTransport(tp trace.TracerProvider) func(http.RoundTripper) http.RoundTripper {
	return func(rt http.RoundTripper) http.RoundTripper {
		return otelhttp.NewTransport(rt, otelhttp.WithTracerProvider(tp), otelhttp.WithPropagators(Propagator),
			otelhttp.WithMeterProvider(noop.NewMeterProvider()))
	}
}
