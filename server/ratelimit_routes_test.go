package server

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc/status"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
	"github.com/cosid-go/cosid/store"
)

// rateCall takes n ids through one route, of key of the keyed "biz" on a route
// that names a key, and returns the answer: its HTTP status (a Connect or gRPC
// code as the status Connect gives it: resource_exhausted is 429) and its message.
type rateCall func(t *testing.T, key string, n int64) (int, string)

// rateRoute is one id route of one API, as the rate limit sees it.
type rateRoute struct {
	name    string
	keyed   bool // the route names a key of biz, which may be new
	counted bool // the route takes n ids; else one a call
	open    func(t *testing.T, s *Server) rateCall
}

// httpRateRoute is a route of s's HTTP API: target with {key} and {n} replaced.
func httpRateRoute(target string) func(*testing.T, *Server) rateCall {
	return func(_ *testing.T, s *Server) rateCall {
		return func(t *testing.T, key string, n int64) (int, string) {
			path := strings.NewReplacer("{key}", key, "{n}", strconv.FormatInt(n, 10)).Replace(target)
			status, _, body := do(t, s, "GET", path, "")
			return status, body
		}
	}
}

// connectStatus is the HTTP status of a Connect call's error, and its message.
func connectStatus(err error) (int, string) {
	switch connect.CodeOf(err) {
	case connect.CodeResourceExhausted:
		return http.StatusTooManyRequests, err.Error()
	case connect.CodeFailedPrecondition:
		return http.StatusConflict, err.Error()
	}
	if err != nil {
		return http.StatusInternalServerError, err.Error()
	}
	return http.StatusOK, ""
}

// rpcRoutes are the three methods of IdService through the client of a transport:
// Connect's, or grpc-go's on the listener of serve.
func rpcRoutes() []rateRoute {
	viaConnect := func(s *Server, t *testing.T) cosidv1connect.IdServiceClient {
		return cosidv1connect.NewIdServiceClient(http.DefaultClient, serveRPC(t, s))
	}
	var rs []rateRoute
	rs = append(rs,
		rateRoute{"Connect Next", true, true, func(t *testing.T, s *Server) rateCall {
			c := viaConnect(s, t)
			return func(t *testing.T, key string, n int64) (int, string) {
				_, err := c.Next(t.Context(), connect.NewRequest(&cosidv1.NextRequest{Name: "biz", Key: key, Count: n}))
				return connectStatus(err)
			}
		}},
		rateRoute{"Connect NextRange", true, true, func(t *testing.T, s *Server) rateCall {
			c := viaConnect(s, t)
			return func(t *testing.T, key string, n int64) (int, string) {
				_, err := c.NextRange(t.Context(), connect.NewRequest(&cosidv1.NextRangeRequest{Name: "biz", Key: key, Count: n}))
				return connectStatus(err)
			}
		}},
		rateRoute{"Connect StreamRanges", true, true, func(t *testing.T, s *Server) rateCall {
			c := viaConnect(s, t)
			return func(t *testing.T, key string, n int64) (int, string) {
				st, err := c.StreamRanges(t.Context(), connect.NewRequest(&cosidv1.StreamRangesRequest{Name: "biz", Key: key, Size: n, MaxRanges: 1}))
				if err != nil {
					return connectStatus(err)
				}
				defer st.Close()
				for st.Receive() {
				}
				return connectStatus(st.Err())
			}
		}},
	)
	for _, l := range listeners {
		client := func(t *testing.T, s *Server) cosidv1.IdServiceClient {
			return cosidv1.NewIdServiceClient(dialGRPC(t, l.serve(t, s)))
		}
		rs = append(rs,
			rateRoute{"gRPC Next on " + l.name, true, true, func(t *testing.T, s *Server) rateCall {
				c := client(t, s)
				return func(t *testing.T, key string, n int64) (int, string) {
					_, err := c.Next(t.Context(), &cosidv1.NextRequest{Name: "biz", Key: key, Count: n})
					return grpcStatus(err)
				}
			}},
			rateRoute{"gRPC NextRange on " + l.name, true, true, func(t *testing.T, s *Server) rateCall {
				c := client(t, s)
				return func(t *testing.T, key string, n int64) (int, string) {
					_, err := c.NextRange(t.Context(), &cosidv1.NextRangeRequest{Name: "biz", Key: key, Count: n})
					return grpcStatus(err)
				}
			}},
			rateRoute{"gRPC StreamRanges on " + l.name, true, true, func(t *testing.T, s *Server) rateCall {
				c := client(t, s)
				return func(t *testing.T, key string, n int64) (int, string) {
					st, err := c.StreamRanges(t.Context(), &cosidv1.StreamRangesRequest{Name: "biz", Key: key, Size: n, MaxRanges: 1})
					for err == nil {
						_, err = st.Recv()
					}
					if errors.Is(err, io.EOF) {
						err = nil
					}
					return grpcStatus(err)
				}
			}},
			rateRoute{"gRPC ReadRanges on " + l.name, true, true, func(t *testing.T, s *Server) rateCall {
				c := client(t, s)
				return func(t *testing.T, key string, n int64) (int, string) {
					return grpcStatus(readAll(t.Context(), c, &cosidv1.ReadRangesRequest{Name: "biz", Key: key, Size: n, Want: 1}))
				}
			}},
		)
	}
	return rs
}

// grpcStatus is the HTTP status of a gRPC call's error, as connectStatus's.
func grpcStatus(err error) (int, string) {
	if err == nil {
		return http.StatusOK, ""
	}
	return connectStatus(connect.NewError(connect.Code(status.Code(err)), errors.New(status.Convert(err).Message())))
}

// everyIDRoute is every route of every API that hands out ids.
func everyIDRoute() []rateRoute {
	return append([]rateRoute{
		{"/v1 next, fast path", true, true, httpRateRoute("/v1/generators/biz/next?key={key}&count={n}")},
		{"/v1 next, through the mux", true, true, httpRateRoute("/v1/generators/b%69z/next?key={key}&count={n}")},
		{"/v1 next, not keyed", false, true, httpRateRoute("/v1/generators/plain/next?count={n}")},
		{"/v1 range", true, true, httpRateRoute("/v1/generators/biz/range?key={key}&count={n}")},
		{"4.x /ids", false, false, httpRateRoute("/ids/plain")},
		{"4.x /ids/as-string", false, false, httpRateRoute("/ids/as-string/plain")},
		{"Leaf segment", true, false, httpRateRoute("/api/segment/get/{key}")},
		{"Leaf snowflake", false, false, httpRateRoute("/api/snowflake/get/any")},
		{"tinyid nextId", true, true, httpRateRoute("/tinyid/id/nextId?bizType={key}&batchSize={n}")},
		{"tinyid nextIdSimple", true, true, httpRateRoute("/tinyid/id/nextIdSimple?bizType={key}&batchSize={n}")},
	}, rpcRoutes()...)
}

// TestRateLimit_EveryIDRoute_ChargesIDsAndNewKeys checks, for every route of every
// API that hands out ids (/v1, 4.x, Leaf, tinyid, and IdService through Connect
// and through grpc-go on both listeners), that it takes its ids from the caller's
// rate, and that its first use of a key not open on the server takes one of the
// caller's new keys: past either the caller is refused (429, resource_exhausted),
// naming the setting that lifts it, and a key it has open costs no new key.
func TestRateLimit_EveryIDRoute_ChargesIDsAndNewKeys(t *testing.T) {
	for _, rt := range everyIDRoute() {
		t.Run(rt.name, func(t *testing.T) {
			s, clock := rateServer(t, RateLimit{IDsPerSecond: 1, Burst: 3, NewKeysPerSecond: 1})
			// Keys the store holds, as Leaf's and tinyid's routes serve only those.
			st, err := s.rt.Store(t.Context(), "mem")
			if err != nil {
				t.Fatal(err)
			}
			for _, key := range []string{"k1", "k2", "k3"} {
				if _, err := st.(store.Admin).RaiseTo(t.Context(), "test/biz/"+key, 2); err != nil {
					t.Fatal(err)
				}
			}
			call := rt.open(t, s)
			n := int64(3)
			if !rt.counted {
				// The rest of the burst, taken on another route: one rate a caller.
				if status, _, body := do(t, s, "GET", "/v1/generators/plain/next?count=2", ""); status != 200 {
					t.Fatalf("the first 2 ids = %d %s", status, body)
				}
				n = 1
			}
			if status, msg := call(t, "k1", n); status != 200 {
				t.Fatalf("the end of the burst = %d %s, want 200", status, msg)
			}
			if status, msg := call(t, "k1", 1); status != http.StatusTooManyRequests || !strings.Contains(msg, settingRate) {
				t.Fatalf("one id past the burst = %d %s; want 429 naming %s", status, msg, settingRate)
			}
			if !rt.keyed {
				return
			}
			clock.add(time.Minute) // both buckets full again
			if status, msg := call(t, "k2", 1); status != 200 {
				t.Fatalf("a new key, the new keys' burst of 1 = %d %s, want 200", status, msg)
			}
			if status, msg := call(t, "k3", 1); status != http.StatusTooManyRequests || !strings.Contains(msg, settingNewKeysRate) {
				t.Fatalf("another new key in the second = %d %s; want 429 naming %s", status, msg, settingNewKeysRate)
			}
			if status, msg := call(t, "k1", 1); status != 200 {
				t.Fatalf("a key open on the server, its ids within the rate = %d %s; want 200: it costs no new key", status, msg)
			}
		})
	}
}
