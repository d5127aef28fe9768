package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/cosid-go/cosid/store"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
)

// serveGRPC serves s over GRPCServer (h2c) on a loopback port until t ends and
// returns its base URL, as serveRPC does for HTTPServer.
func serveGRPC(t testing.TB, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := s.GRPCServer()
	done := make(chan error, 1)
	go func() { done <- gs.Serve(ln) }()
	t.Cleanup(func() {
		gs.Stop()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// listener is one of the two listeners of the gRPC protocol: HTTPServer's
// (connect-go on net/http's HTTP/2, with WithH2C) and GRPCServer's (grpc-go).
type listener struct {
	name  string
	serve func(t testing.TB, s *Server) string
}

// listeners is every listener the gRPC tests run on: each behaviour of the gRPC
// protocol is the same on both.
var listeners = []listener{{"http", serveRPC}, {"grpc-go", serveGRPC}}

// withAuth returns ctx sending "Bearer token" in the call's metadata.
func withAuth(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

// TestGRPC_StoreService_Audited checks, on both listeners, that the store calls go
// to the audit log with their role and outcome, and that no message is logged: a
// lease's incarnation never reaches the log.
func TestGRPC_StoreService_Audited(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			var log bytes.Buffer
			var mu sync.Mutex
			logger := slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &log}, nil))
			conn := dialGRPC(t, l.serve(t, newServer(t, nil, WithH2C(true), WithLogger(logger))))
			st := cosidv1.NewStoreServiceClient(conn)
			acq, err := st.Acquire(t.Context(), &cosidv1.AcquireRequest{Namespace: "au", OwnerKey: "o", Limit: 2, Ttl: durationpb.New(time.Minute)})
			if err != nil {
				t.Fatal(err)
			}
			var trailer metadata.MD
			_, err = st.Reserve(t.Context(), &cosidv1.ReserveRequest{Key: "au", Size: DefaultLimits().MaxReserve + 1}, grpc.Trailer(&trailer))
			if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "cosid.serve.limits.max-reserve") {
				t.Fatalf("a reserve over the limit: %v, want InvalidArgument naming the setting", err)
			}
			if got := trailer.Get(cosidCode); len(got) != 1 || got[0] != "invalid_argument" {
				t.Errorf("trailer %s = %q, want invalid_argument", cosidCode, got)
			}
			mu.Lock()
			out := log.String()
			mu.Unlock()
			for _, want := range []string{
				`route=/cosid.v1.StoreService/`,
				`role=store`,
				`outcome="invalid_argument: size 1048577 is over this server's limit`,
			} {
				if !strings.Contains(out, want) {
					t.Errorf("audit log lacks %s:\n%s", want, out)
				}
			}
			if inc := acq.Lease.GetIncarnation(); strings.Contains(out, inc) {
				t.Errorf("audit log has the incarnation %q:\n%s", inc, out)
			}
		})
	}
}

// TestGRPC_Metrics_CountEachCall checks, on both listeners, that a call counts under
// its service's route, a refused one with its status.
func TestGRPC_Metrics_CountEachCall(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			s := newMetricsServer(t, WithH2C(true), WithRoleToken(RoleIDs, "ids-t"))
			conn := dialGRPC(t, l.serve(t, s))
			ids := cosidv1.NewIdServiceClient(conn)
			if _, err := ids.Next(withAuth(t.Context(), "ids-t"), &cosidv1.NextRequest{Name: "order"}); err != nil {
				t.Fatal(err)
			}
			if _, err := ids.Next(t.Context(), &cosidv1.NextRequest{Name: "order"}); status.Code(err) != codes.Unauthenticated {
				t.Fatalf("no token: %v, want Unauthenticated", err)
			}
			// net/http's side counts the 200 of a gRPC answer whatever its status;
			// grpc-go's counts the status as the Connect protocol answers it.
			want := []string{`cosid_http_requests_total{code="200",route="/cosid.v1.IdService/"} 2`}
			if l.name == "grpc-go" {
				want = []string{`cosid_http_requests_total{code="200",route="/cosid.v1.IdService/"} 1`,
					`cosid_http_requests_total{code="401",route="/cosid.v1.IdService/"} 1`}
			}
			checkMetrics(t, s, want)
		})
	}
}

// panicking is a store whose Reserve panics: a handler's bug.
type panicking struct{ downStore }

func (panicking) Reserve(context.Context, string, int64, int64) (store.Range, error) { panic("boom") }

// TestGRPC_Panic_Recovered makes a handler panic on both listeners: the caller gets
// an error, the log gets the panic, and the server goes on.
func TestGRPC_Panic_Recovered(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			var log bytes.Buffer
			var mu sync.Mutex
			s := newServer(t, panicking{}, WithH2C(true), WithLogger(slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &log}, nil))))
			conn := dialGRPC(t, l.serve(t, s))
			if _, err := cosidv1.NewStoreServiceClient(conn).Reserve(t.Context(), &cosidv1.ReserveRequest{Key: "k", Size: 1}); status.Code(err) == codes.OK {
				t.Fatal("a panicking call answered OK")
			}
			mu.Lock()
			logged := strings.Contains(log.String(), "boom")
			mu.Unlock()
			if !logged {
				t.Errorf("log %q does not hold the panic", log.String())
			}
			if _, err := cosidv1.NewIdServiceClient(conn).Next(t.Context(), &cosidv1.NextRequest{Name: "order"}); err != nil {
				t.Errorf("a call after the panic: %v", err)
			}
		})
	}
}

// TestGRPC_MessageLimit_Refused checks, on both listeners, that a request over the
// body limit is refused as ResourceExhausted, and one under it is answered.
func TestGRPC_MessageLimit_Refused(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			conn := dialGRPC(t, l.serve(t, newServer(t, nil, WithH2C(true), WithBodyLimit(256))))
			ids := cosidv1.NewIdServiceClient(conn)
			if _, err := ids.Next(t.Context(), &cosidv1.NextRequest{Name: "order", Key: strings.Repeat("k", 300)}); status.Code(err) != codes.ResourceExhausted {
				t.Errorf("a message over the limit: %v, want ResourceExhausted", err)
			}
			if _, err := ids.Next(t.Context(), &cosidv1.NextRequest{Name: "order"}); err != nil {
				t.Errorf("a message under the limit: %v", err)
			}
		})
	}
}

// TestGRPC_MaxStreams_Announced checks that both listeners announce the same most
// calls in flight on one connection (SETTINGS_MAX_CONCURRENT_STREAMS), which a
// client then keeps to.
func TestGRPC_MaxStreams_Announced(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			base := l.serve(t, newServer(t, nil, WithH2C(true)))
			c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
				t.Fatal(err)
			}
			fr := http2.NewFramer(c, c)
			if err := fr.WriteSettings(); err != nil {
				t.Fatal(err)
			}
			f, err := fr.ReadFrame()
			if err != nil {
				t.Fatal(err)
			}
			sf, ok := f.(*http2.SettingsFrame)
			if !ok {
				t.Fatalf("first frame %v, want SETTINGS", f)
			}
			if v, ok := sf.Value(http2.SettingMaxConcurrentStreams); !ok || v != maxStreams {
				t.Errorf("max concurrent streams = %d (set %v), want %d", v, ok, maxStreams)
			}
		})
	}
}

// TestGRPC_Tracing_SpanOfEachCall checks that a call to the gRPC listener is a
// server span, the child of the trace context its metadata carries.
func TestGRPC_Tracing_SpanOfEachCall(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	conn := dialGRPC(t, serveGRPC(t, newServer(t, nil, WithTracing(tp))))
	ctx, parent := tp.Tracer("test").Start(t.Context(), "client")
	carrier := propagation.MapCarrier{}
	Propagator.Inject(ctx, carrier)
	for k, v := range carrier {
		ctx = metadata.AppendToOutgoingContext(ctx, k, v)
	}
	ids := cosidv1.NewIdServiceClient(conn)
	if _, err := ids.Next(ctx, &cosidv1.NextRequest{Name: "order"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ids.Next(ctx, &cosidv1.NextRequest{Name: "nope"}); status.Code(err) != codes.NotFound {
		t.Fatalf("an unknown generator: %v, want NotFound", err)
	}
	parent.End()
	var got []string
	for _, sp := range exp.GetSpans() {
		if sp.Name != "cosid.v1.IdService/Next" {
			continue
		}
		if sp.SpanKind != trace.SpanKindServer || sp.Parent.SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %s: kind %v, parent %v; want a server span, the client's child", sp.Name, sp.SpanKind, sp.Parent.SpanID())
		}
		for _, a := range sp.Attributes {
			if a.Key == "rpc.grpc.status_code" {
				got = append(got, a.Value.String())
			}
		}
	}
	if strings.Join(got, ",") != "0,5" {
		t.Errorf("the spans' status codes = %q, want 0 (OK) and 5 (NotFound)", got)
	}
}

// TestGRPC_GRPCServer_OverTLS checks that GRPCServer serves TLS with the
// certificates given as its credentials.
func TestGRPC_GRPCServer_OverTLS(t *testing.T) {
	ts := httptest.NewUnstartedServer(http.NotFoundHandler()) // its certificate
	ts.StartTLS()
	t.Cleanup(ts.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := newServer(t, nil).GRPCServer(grpc.Creds(credentials.NewTLS(ts.TLS)))
	go gs.Serve(ln)
	t.Cleanup(gs.Stop)
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	conn, err := grpc.NewClient(ln.Addr().String(),
		grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	res, err := cosidv1.NewIdServiceClient(conn).Next(t.Context(), &cosidv1.NextRequest{Name: "order", Count: 2})
	if err != nil || len(res.GetIds()) != 2 {
		t.Fatalf("Next over TLS: %v, %v; want 2 ids", res, err)
	}
}
