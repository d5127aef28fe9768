package server

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// serveBareGRPC serves, with grpc-go's own server, an IdService whose Next answers
// a constant: the baseline of a gRPC call on loopback. It returns the address.
func serveBareGRPC(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	constant := &cosidv1.NextResponse{Ids: []string{"42"}}
	gs := grpc.NewServer()
	gs.RegisterService(&grpc.ServiceDesc{
		ServiceName: cosidv1connect.IdServiceName,
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "Next", Handler: func(_ any, _ context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			var req cosidv1.NextRequest
			if err := dec(&req); err != nil {
				return nil, err
			}
			return constant, nil
		}}},
	}, struct{}{})
	go gs.Serve(ln)
	b.Cleanup(gs.Stop)
	return ln.Addr().String()
}

// serveBareConnect serves, with connect-go on net/http's h2c as the server does, a
// Next that answers a constant and nothing else: what connect-go and net/http cost
// apart from the server's handler chain. It returns the address.
func serveBareConnect(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	constant := &cosidv1.NextResponse{Ids: []string{"42"}}
	mux := http.NewServeMux()
	mux.Handle(cosidv1connect.IdServiceNextProcedure, connect.NewUnaryHandler(cosidv1connect.IdServiceNextProcedure,
		func(context.Context, *connect.Request[cosidv1.NextRequest]) (*connect.Response[cosidv1.NextResponse], error) {
			return connect.NewResponse(constant), nil
		}))
	hs := &http.Server{Handler: mux, Protocols: new(http.Protocols)}
	hs.Protocols.SetHTTP1(true)
	hs.Protocols.SetUnencryptedHTTP2(true)
	go hs.Serve(ln)
	b.Cleanup(func() { hs.Close() })
	return ln.Addr().String()
}

// BenchmarkGRPCNext calls Next for one id over gRPC on loopback (h2c), from one
// grpc-go client with as many calls in flight as RunParallel runs: cosid is the
// gRPC listener as cosid serve runs it (GRPCServer: the whole chain of
// interceptors, metrics, the token of the ids role), bare is grpc-go's server
// answering a constant, the baseline; cosid-http is the same server's HTTP listener
// (connect-go on net/http), and connect-bare connect-go on net/http answering a
// constant, the floor of serving gRPC with connect-go.
func BenchmarkGRPCNext(b *testing.B) {
	const token = "a-token-of-48-bytes-0123456789abcdef0123456789ab"
	s := newMetricsServer(b, WithH2C(true), WithRoleToken(RoleIDs, token))
	targets := []struct{ name, addr string }{
		{"cosid", serveGRPC(b, s)[len("http://"):]},
		{"bare", serveBareGRPC(b)},
		{"cosid-http", serveRPC(b, s)[len("http://"):]},
		{"connect-bare", serveBareConnect(b)},
	}
	for _, tg := range targets {
		b.Run(tg.name, func(b *testing.B) {
			conn := dialGRPC(b, "http://"+tg.addr)
			req := &cosidv1.NextRequest{Name: "order"}
			auth := grpc.PerRPCCredsCallOption{Creds: staticToken("Bearer " + token)}
			b.ReportAllocs()
			b.SetParallelism(16)
			b.RunParallel(func(pb *testing.PB) {
				var res cosidv1.NextResponse
				for pb.Next() {
					if err := conn.Invoke(context.Background(), cosidv1connect.IdServiceNextProcedure, req, &res, auth); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}

// staticToken sends one authorization header on every call, as a client with a
// bearer token does.
type staticToken string

func (t staticToken) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": string(t)}, nil
}
func (staticToken) RequireTransportSecurity() bool { return false }

// BenchmarkStreamRanges takes b.N ranges of one StreamRanges call to one grpc-go
// client over h2c, and reports the ids a second; inprocess is the baseline, the same
// ranges taken from the segment generator in the server's process.
func BenchmarkStreamRanges(b *testing.B) {
	for _, size := range []int64{MaxCount, 100_000} {
		name := "size=" + strconv.FormatInt(size, 10)
		s := newServer(b, nil, WithH2C(true))
		b.Run(name+"/grpc", func(b *testing.B) {
			conn := dialGRPC(b, serveGRPC(b, s))
			b.ReportAllocs()
			start := time.Now()
			st, err := streamRanges(b.Context(), conn, &cosidv1.StreamRangesRequest{Name: "order", Size: size, MaxRanges: int64(b.N)})
			if err != nil {
				b.Fatal(err)
			}
			var m cosidv1.StreamRangesResponse
			for range b.N {
				if err := st.RecvMsg(&m); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(int64(b.N)*size)/time.Since(start).Seconds(), "ids/s")
		})
		b.Run(name+"/inprocess", func(b *testing.B) {
			g, src, err := s.lookup("order", "")
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			start := time.Now()
			for range b.N {
				if _, err := takeRange(b.Context(), g, src, size); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(int64(b.N)*size)/time.Since(start).Seconds(), "ids/s")
		})
	}
}
