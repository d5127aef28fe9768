package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// dialGRPC returns a grpc-go client of the server at base (http://host:port) over
// h2c, closed when t ends.
func dialGRPC(t testing.TB, base string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(strings.TrimPrefix(base, "http://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// streamRanges is the StreamRanges call of a grpc-go client, which has no generated
// stub here: the method's path and the messages are enough.
func streamRanges(ctx context.Context, conn *grpc.ClientConn, req *cosidv1.StreamRangesRequest) (grpc.ClientStream, error) {
	s, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, cosidv1connect.IdServiceStreamRangesProcedure)
	if err != nil {
		return nil, err
	}
	if err := s.SendMsg(req); err != nil {
		return nil, err
	}
	return s, s.CloseSend()
}

// TestGRPC_Next_OverH2C checks that a grpc-go client takes ids over unencrypted
// HTTP/2 from both listeners (the HTTP one when WithH2C is on).
func TestGRPC_Next_OverH2C(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			conn := dialGRPC(t, l.serve(t, newServer(t, nil, WithH2C(true))))
			var res cosidv1.NextResponse
			if err := conn.Invoke(t.Context(), cosidv1connect.IdServiceNextProcedure, &cosidv1.NextRequest{Name: "order", Count: 5}, &res); err != nil {
				t.Fatal(err)
			}
			if len(res.Ids) != 5 {
				t.Fatalf("ids = %q, want 5", res.Ids)
			}
		})
	}
}

// TestGRPC_H2COff_Refused checks that without WithH2C the server speaks no
// unencrypted HTTP/2, so a gRPC client over h2c fails: the setting is what turns it on.
func TestGRPC_H2COff_Refused(t *testing.T) {
	conn := dialGRPC(t, serveRPC(t, newServer(t, nil)))
	var res cosidv1.NextResponse
	err := conn.Invoke(t.Context(), cosidv1connect.IdServiceNextProcedure, &cosidv1.NextRequest{Name: "order"}, &res)
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("err = %v, want Unavailable (no h2c)", err)
	}
}

// TestGRPC_Auth_MissingAndWrongToken checks the roles over gRPC: the ids token
// does not open StoreService, nor the store token IdService.
func TestGRPC_Auth_MissingAndWrongToken(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) { checkAuth(t, l) })
	}
}

func checkAuth(t *testing.T, l listener) {
	conn := dialGRPC(t, l.serve(t, newServer(t, nil, WithH2C(true), WithRoleToken(RoleIDs, "ids-t"), WithRoleToken(RoleStore, "store-t"))))
	calls := []struct {
		name       string
		call       func(ctx context.Context) error
		token      string
		wrongToken string
	}{
		{"IdService.Next", func(ctx context.Context) error {
			return conn.Invoke(ctx, cosidv1connect.IdServiceNextProcedure, &cosidv1.NextRequest{Name: "order"}, new(cosidv1.NextResponse))
		}, "ids-t", "store-t"},
		{"IdService.ReadRanges", func(ctx context.Context) error {
			return readAll(ctx, cosidv1.NewIdServiceClient(conn), &cosidv1.ReadRangesRequest{Name: "order", Size: 1, Want: 1})
		}, "ids-t", "store-t"},
		{"StoreService.Reserve", func(ctx context.Context) error {
			return conn.Invoke(ctx, cosidv1connect.StoreServiceReserveProcedure, &cosidv1.ReserveRequest{Key: "g", Size: 1}, new(cosidv1.ReserveResponse))
		}, "store-t", "ids-t"},
		{"StoreService.GiveBack", func(ctx context.Context) error {
			return conn.Invoke(ctx, cosidv1connect.StoreServiceGiveBackProcedure, &cosidv1.GiveBackRequest{Key: "g", Start: 1, End: 2}, new(cosidv1.GiveBackResponse))
		}, "store-t", "ids-t"},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			if err := c.call(t.Context()); status.Code(err) != codes.Unauthenticated {
				t.Errorf("no token: %v, want Unauthenticated", err)
			}
			for _, token := range []string{"wrong", c.wrongToken} {
				ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+token)
				if err := c.call(ctx); status.Code(err) != codes.Unauthenticated {
					t.Errorf("token %q: %v, want Unauthenticated", token, err)
				}
			}
			ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer "+c.token)
			if err := c.call(ctx); err != nil {
				t.Errorf("the role's token: %v", err)
			}
		})
	}
}

// TestGRPC_StreamRanges_NoDuplicates checks that the ranges of two streams and the
// ids of Next calls taken meanwhile never overlap, and that a stream the client
// cancels ends.
func TestGRPC_StreamRanges_NoDuplicates(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) { checkStreamRanges(t, l) })
	}
}

func checkStreamRanges(t *testing.T, l listener) {
	conn := dialGRPC(t, l.serve(t, newServer(t, nil, WithH2C(true))))
	type span struct{ start, end int64 }
	var mu sync.Mutex
	var spans []span
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			s, err := streamRanges(t.Context(), conn, &cosidv1.StreamRangesRequest{Name: "order", Size: 1000, MaxRanges: 300})
			if err != nil {
				t.Error(err)
				return
			}
			n := 0
			for {
				var m cosidv1.StreamRangesResponse
				err := s.RecvMsg(&m)
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Error(err)
					return
				}
				if m.End-m.Start != 1000 {
					t.Errorf("range [%d, %d): want 1000 ids", m.Start, m.End)
				}
				mu.Lock()
				spans = append(spans, span{m.Start, m.End})
				mu.Unlock()
				n++
			}
			if n != 300 {
				t.Errorf("%d ranges, want max_ranges 300", n)
			}
		})
	}
	wg.Go(func() {
		for range 200 {
			var res cosidv1.NextResponse
			if err := conn.Invoke(t.Context(), cosidv1connect.IdServiceNextRangeProcedure, &cosidv1.NextRangeRequest{Name: "order", Count: 7}, &res); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Go(func() {
		for range 200 {
			var res cosidv1.NextRangeResponse
			if err := conn.Invoke(t.Context(), cosidv1connect.IdServiceNextRangeProcedure, &cosidv1.NextRangeRequest{Name: "order", Count: 7}, &res); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			spans = append(spans, span{res.Start, res.End})
			mu.Unlock()
		}
	})
	wg.Wait()
	slices.SortFunc(spans, func(a, b span) int { return int(a.start - b.start) })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			t.Fatalf("ranges [%d, %d) and [%d, %d) overlap", spans[i-1].start, spans[i-1].end, spans[i].start, spans[i].end)
		}
	}
	if len(spans) != 2*300+200 {
		t.Fatalf("%d ranges, want %d", len(spans), 2*300+200)
	}

	// A stream without max_ranges runs until the client stops.
	ctx, cancel := context.WithCancel(t.Context())
	s, err := streamRanges(ctx, conn, &cosidv1.StreamRangesRequest{Name: "order", Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		if err := s.RecvMsg(new(cosidv1.StreamRangesResponse)); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	for {
		if err := s.RecvMsg(new(cosidv1.StreamRangesResponse)); err != nil {
			if status.Code(err) != codes.Canceled {
				t.Fatalf("after cancel: %v, want Canceled", err)
			}
			break
		}
	}
}

// TestGRPC_HealthAndReflection checks the gRPC health service (open, serving while
// the readiness checks pass) and reflection, which lists the services.
func TestGRPC_HealthAndReflection(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) { checkHealthAndReflection(t, l) })
	}
}

func checkHealthAndReflection(t *testing.T, l listener) {
	s := newServer(t, nil, WithH2C(true), WithRoleToken(RoleIDs, "ids-t"),
		WithReadiness("ok", func(*http.Request) error { return nil }))
	conn := dialGRPC(t, l.serve(t, s))
	health := healthpb.NewHealthClient(conn)
	res, err := health.Check(t.Context(), &healthpb.HealthCheckRequest{Service: cosidv1connect.IdServiceName})
	if err != nil || res.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health = %v, %v; want SERVING without a token", res, err)
	}
	down := newServer(t, nil, WithH2C(true), WithReadiness("store", func(*http.Request) error { return errors.New("down") }))
	res, err = healthpb.NewHealthClient(dialGRPC(t, l.serve(t, down))).Check(t.Context(), &healthpb.HealthCheckRequest{})
	if err != nil || res.Status != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("health of a server not ready = %v, %v; want NOT_SERVING", res, err)
	}
	if _, err := health.Check(t.Context(), &healthpb.HealthCheckRequest{Service: "nope.Service"}); status.Code(err) != codes.NotFound {
		t.Fatalf("health of an unknown service: %v, want NotFound", err)
	}

	refl := reflectpb.NewServerReflectionClient(conn)
	list := func(ctx context.Context) ([]string, error) {
		st, err := refl.ServerReflectionInfo(ctx)
		if err != nil {
			return nil, err
		}
		if err := st.Send(&reflectpb.ServerReflectionRequest{MessageRequest: &reflectpb.ServerReflectionRequest_ListServices{}}); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		res, err := st.Recv()
		if err != nil {
			return nil, err
		}
		var names []string
		for _, svc := range res.GetListServicesResponse().GetService() {
			names = append(names, svc.Name)
		}
		return names, st.CloseSend()
	}
	if _, err := list(t.Context()); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("reflection without a token: %v, want Unauthenticated", err)
	}
	if _, err := list(withAuth(t.Context(), "wrong")); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("reflection with a wrong token: %v, want Unauthenticated", err)
	}
	names, err := list(withAuth(t.Context(), "ids-t"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(names, cosidv1connect.IdServiceName) || !slices.Contains(names, cosidv1connect.StoreServiceName) {
		t.Fatalf("services = %q, want both of cosid.v1", names)
	}
}

// TestGRPC_StreamRanges_OutlivesWriteTimeout checks that a stream lasts longer than
// the http.Server's WriteTimeout, which would otherwise reset it: each message moves
// the deadline on.
func TestGRPC_StreamRanges_OutlivesWriteTimeout(t *testing.T) {
	s := newServer(t, nil, WithH2C(true))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := s.HTTPServer(ln.Addr().String())
	hs.WriteTimeout = 100 * time.Millisecond
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	conn := dialGRPC(t, "http://"+ln.Addr().String())
	st, err := streamRanges(t.Context(), conn, &cosidv1.StreamRangesRequest{Name: "order", Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	n := 0
	for time.Since(start) < 4*hs.WriteTimeout {
		if err := st.RecvMsg(new(cosidv1.StreamRangesResponse)); err != nil {
			t.Fatalf("after %v and %d ranges: %v", time.Since(start), n, err)
		}
		n++
	}
}

// TestGRPC_Next_OverTLS checks that a grpc-go client takes ids over HTTP/2 with TLS,
// which needs no h2c.
func TestGRPC_Next_OverTLS(t *testing.T) {
	ts := httptest.NewUnstartedServer(newServer(t, nil))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	t.Cleanup(ts.Close)
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	conn, err := grpc.NewClient(strings.TrimPrefix(ts.URL, "https://"),
		grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var res cosidv1.NextResponse
	if err := conn.Invoke(t.Context(), cosidv1connect.IdServiceNextProcedure, &cosidv1.NextRequest{Name: "order", Count: 2}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Ids) != 2 {
		t.Fatalf("ids = %q, want 2", res.Ids)
	}
}
