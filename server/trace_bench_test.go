package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/server"
)

// nullWriter is a ResponseWriter that keeps nothing.
type nullWriter struct{ h http.Header }

func (w *nullWriter) Header() http.Header         { return w.h }
func (w *nullWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nullWriter) WriteHeader(int)             {}

// BenchmarkTracing_Next serves single ids through HTTPServer's handler without
// tracing (the default, the baseline) and with it: a span per request, sampled,
// with no exporter, so that the cost is the instrumentation's.
func BenchmarkTracing_Next(b *testing.B) {
	cfg, err := cosid.ParseConfig([]byte("cosid:\n  stores: { mem: { type: memory } }\n  generators: { order: { strategy: segment, store: mem } }\n"))
	if err != nil {
		b.Fatal(err)
	}
	rt, err := cosid.Open(context.Background(), cfg, cosid.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	for _, bc := range []struct {
		name string
		opts []server.Option
	}{
		{"off", nil},
		{"on", []server.Option{server.WithTracing(tp)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv, err := server.New(rt, append([]server.Option{server.WithLogger(nil)}, bc.opts...)...)
			if err != nil {
				b.Fatal(err)
			}
			h := srv.HTTPServer("127.0.0.1:8686").Handler
			req := httptest.NewRequest(http.MethodGet, "/v1/generators/order/next", nil)
			req.Host = "localhost"
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				w := &nullWriter{h: http.Header{}}
				for pb.Next() {
					clear(w.h)
					h.ServeHTTP(w, req)
				}
			})
		})
	}
}
