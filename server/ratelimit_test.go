package server

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cosidv1 "github.com/cosid-go/cosid/proto/cosid/v1"
	"github.com/cosid-go/cosid/proto/cosid/v1/cosidv1connect"
)

// rateClock is the clock of a test's rate limiter: it moves only when told.
type rateClock struct{ ns atomic.Int64 }

func newRateClock() *rateClock {
	c := &rateClock{}
	c.ns.Store(time.Date(2026, 12, 7, 6, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *rateClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *rateClock) add(d time.Duration)     { c.ns.Add(int64(d)) }
func (c *rateClock) limit(s *Server) *Server { s.rate.now = c.now; return s }

// rateServer serves compatConfig (a keyed "biz", a segment "plain", a Snowflake
// "leafsf") with Leaf's and tinyid's routes and l, on a clock of its own.
func rateServer(t *testing.T, l RateLimit, opts ...Option) (*Server, *rateClock) {
	t.Helper()
	c := newRateClock()
	opts = append([]Option{WithLeaf("biz", "leafsf"), WithTinyid("biz"), WithH2C(true), WithLogger(nil), WithRateLimit(l)}, opts...)
	return c.limit(compatServer(t, opts...)), c
}

// TestRateLimit_EachAPI_429RetryAfter checks that every route that hands out ids
// takes from the caller's rate, a request of n ids costing n, and that past it the
// caller is refused with 429 and Retry-After, naming the setting that lifts it.
func TestRateLimit_EachAPI_429RetryAfter(t *testing.T) {
	tests := []struct {
		name, path string
		cost       int
	}{
		{"/v1 next, fast path", "/v1/generators/plain/next?count=3", 3},
		{"/v1 next, through the mux", "/v1/generators/pl%61in/next?count=2", 2},
		{"/v1 range", "/v1/generators/plain/range?count=3", 3},
		{"/v1 next of a key", "/v1/generators/biz/next?key=test&count=3", 3},
		{"4.x /ids", "/ids/plain", 1},
		{"4.x /ids/as-string", "/ids/as-string/plain", 1},
		{"Leaf segment", "/api/segment/get/leaf-segment-test", 1},
		{"Leaf snowflake", "/api/snowflake/get/any", 1},
		{"tinyid nextId", "/tinyid/id/nextId?bizType=test&batchSize=3", 3},
		{"tinyid nextIdSimple", "/tinyid/id/nextIdSimple?bizType=test&batchSize=2", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, clock := rateServer(t, RateLimit{IDsPerSecond: 1, Burst: 3})
			if rest := 3 - tc.cost; rest > 0 {
				// The rest of the burst, taken on another route: one rate a caller.
				if status, _, body := do(t, s, "GET", fmt.Sprintf("/v1/generators/plain/next?count=%d", rest), ""); status != 200 {
					t.Fatalf("the first %d ids = %d %s", rest, status, body)
				}
			}
			if status, _, body := do(t, s, "GET", tc.path, ""); status != 200 {
				t.Fatalf("GET %s, the end of the burst = %d %s, want 200", tc.path, status, body)
			}
			status, h, body := do(t, s, "GET", tc.path, "")
			if status != http.StatusTooManyRequests || h.Get("Retry-After") != fmt.Sprint(tc.cost) || !strings.Contains(body, settingRate) {
				t.Fatalf("GET %s past the rate = %d Retry-After %q %s; want 429, Retry-After %d, naming %s", tc.path, status, h.Get("Retry-After"), body, tc.cost, settingRate)
			}
			clock.add(time.Duration(tc.cost) * time.Second)
			if status, _, body := do(t, s, "GET", tc.path, ""); status != 200 {
				t.Fatalf("GET %s %d s later = %d %s, want 200", tc.path, tc.cost, status, body)
			}
		})
	}
}

// TestRateLimit_RetryAfter_RoundedUp checks that Retry-After is the wait in whole
// seconds, rounded up: 2.5 s is 3.
func TestRateLimit_RetryAfter_RoundedUp(t *testing.T) {
	s, _ := rateServer(t, RateLimit{IDsPerSecond: 0.4, Burst: 1})
	do(t, s, "GET", "/v1/generators/plain/next", "")
	status, h, body := do(t, s, "GET", "/v1/generators/plain/next", "")
	if status != http.StatusTooManyRequests || h.Get("Retry-After") != "3" {
		t.Fatalf("= %d Retry-After %q %s; want 429 after 3 s", status, h.Get("Retry-After"), body)
	}
}

// TestRateLimit_Connect_ResourceExhausted checks that the Connect API's Next,
// NextRange and StreamRanges take from the caller's rate, and answer
// resource_exhausted past it, naming the setting.
func TestRateLimit_Connect_ResourceExhausted(t *testing.T) {
	s, clock := rateServer(t, RateLimit{IDsPerSecond: 1, Burst: 3})
	c := cosidv1connect.NewIdServiceClient(http.DefaultClient, serveRPC(t, s))
	ctx := t.Context()
	if _, err := c.NextRange(ctx, connect.NewRequest(&cosidv1.NextRangeRequest{Name: "plain", Count: 2})); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Next(ctx, connect.NewRequest(&cosidv1.NextRequest{Name: "plain"})); err != nil {
		t.Fatal(err)
	}
	_, err := c.Next(ctx, connect.NewRequest(&cosidv1.NextRequest{Name: "plain"}))
	if connect.CodeOf(err) != connect.CodeResourceExhausted || !strings.Contains(err.Error(), settingRate) {
		t.Fatalf("Next past the rate: %v; want resource_exhausted naming %s", err, settingRate)
	}
	clock.add(3 * time.Second)
	stream, err := c.StreamRanges(ctx, connect.NewRequest(&cosidv1.StreamRangesRequest{Name: "plain", Size: 2}))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for stream.Receive() {
		n++
	}
	if n != 1 || connect.CodeOf(stream.Err()) != connect.CodeResourceExhausted {
		t.Fatalf("StreamRanges of 2 a range with a burst of 3: %d ranges, then %v; want 1, then resource_exhausted", n, stream.Err())
	}
}

// TestRateLimit_GRPC_ResourceExhausted checks the same of grpc-go clients on both
// listeners.
func TestRateLimit_GRPC_ResourceExhausted(t *testing.T) {
	for _, l := range listeners {
		t.Run(l.name, func(t *testing.T) {
			s, _ := rateServer(t, RateLimit{IDsPerSecond: 1, Burst: 3})
			conn := dialGRPC(t, l.serve(t, s))
			var res cosidv1.NextResponse
			if err := conn.Invoke(t.Context(), cosidv1connect.IdServiceNextProcedure, &cosidv1.NextRequest{Name: "plain", Count: 3}, &res); err != nil {
				t.Fatal(err)
			}
			err := conn.Invoke(t.Context(), cosidv1connect.IdServiceNextRangeProcedure, &cosidv1.NextRangeRequest{Name: "plain"}, new(cosidv1.NextRangeResponse))
			if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), settingRate) {
				t.Fatalf("NextRange past the rate: %v; want ResourceExhausted naming %s", err, settingRate)
			}
		})
	}
}

// TestRateLimit_PerCaller_Isolation checks that a caller at its limit leaves the
// others served: without an ids token a caller is a remote host, with one it is
// the token.
func TestRateLimit_PerCaller_Isolation(t *testing.T) {
	s, clock := rateServer(t, RateLimit{IDsPerSecond: 1, Burst: 2})
	from := func(addr string) int {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", "/v1/generators/plain/next?count=2", nil)
		req.RemoteAddr = addr
		rec := newRecorderFor(s, req)
		return rec
	}
	if got := from("192.0.2.1:1000"); got != 200 {
		t.Fatalf("A's burst = %d", got)
	}
	if got := from("192.0.2.1:2000"); got != http.StatusTooManyRequests {
		t.Fatalf("A again, from another port = %d, want 429: the host is the caller", got)
	}
	if got := from("192.0.2.2:1000"); got != 200 {
		t.Fatalf("B while A is at its limit = %d, want 200", got)
	}
	if got := from("[2001:db8::1]:1000"); got != 200 {
		t.Fatalf("C (IPv6) = %d, want 200", got)
	}
	clock.add(2 * time.Second)
	if got := from("192.0.2.1:1000"); got != 200 {
		t.Fatalf("A two seconds later = %d, want 200", got)
	}

	const token = "ids-t0ken-0123456789"
	st, _ := rateServer(t, RateLimit{IDsPerSecond: 1, Burst: 2}, WithRoleToken(RoleIDs, token))
	auth := []string{"Authorization", "Bearer " + token}
	for i, addr := range []string{"192.0.2.1:1", "192.0.2.2:1"} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", "/v1/generators/plain/next", nil)
		req.RemoteAddr = addr
		req.Header.Set(auth[0], auth[1])
		if got := newRecorderFor(st, req); got != 200 {
			t.Fatalf("the token's id %d from %s = %d, want 200", i, addr, got)
		}
	}
	if status, _, _ := do(t, st, "GET", "/v1/generators/plain/next", "", auth...); status != http.StatusTooManyRequests {
		t.Fatalf("the token's third id = %d, want 429: the token is the caller, from any address", status)
	}
}

// newRecorderFor serves req with s and returns the answer's status.
func newRecorderFor(s *Server, req *http.Request) int {
	rec := &statusRecorder{header: http.Header{}}
	s.ServeHTTP(rec, req)
	return rec.status
}

type statusRecorder struct {
	header http.Header
	status int
}

func (r *statusRecorder) Header() http.Header { return r.header }
func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = 200
	}
	return len(b), nil
}
func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

// TestRateLimit_CountCostsN checks that a request of n ids costs n, and that one of
// more than the burst is refused as a bad request that names the burst: no wait
// would let it through.
func TestRateLimit_CountCostsN(t *testing.T) {
	s, _ := rateServer(t, RateLimit{IDsPerSecond: 100, Burst: 10})
	if status, _, body := do(t, s, "GET", "/v1/generators/plain/next?count=11", ""); status != 400 || !strings.Contains(body, settingBurst) {
		t.Fatalf("11 ids over a burst of 10 = %d %s; want 400 naming %s", status, body, settingBurst)
	}
	if status, _, body := do(t, s, "GET", "/v1/generators/plain/range?count=10", ""); status != 200 {
		t.Fatalf("a range of 10 = %d %s", status, body)
	}
	if status, _, _ := do(t, s, "GET", "/v1/generators/plain/next", ""); status != http.StatusTooManyRequests {
		t.Fatalf("one more id after a range of 10 = %d, want 429", status)
	}
}

// TestRateLimit_NewKeysPerSecond checks that a caller opens keys not open on the
// server at most at new-keys-per-second, while the keys it has open stay served.
func TestRateLimit_NewKeysPerSecond(t *testing.T) {
	s, clock := rateServer(t, RateLimit{NewKeysPerSecond: 1})
	if status, _, body := do(t, s, "GET", "/v1/generators/biz/next?key=a", ""); status != 200 {
		t.Fatalf("key a = %d %s", status, body)
	}
	status, h, body := do(t, s, "GET", "/v1/generators/biz/next?key=b", "")
	if status != http.StatusTooManyRequests || h.Get("Retry-After") != "1" || !strings.Contains(body, settingNewKeysRate) {
		t.Fatalf("a second new key in the second = %d Retry-After %q %s; want 429 naming %s", status, h.Get("Retry-After"), body, settingNewKeysRate)
	}
	for range 5 {
		if status, _, body := do(t, s, "GET", "/v1/generators/biz/next?key=a", ""); status != 200 {
			t.Fatalf("key a, open = %d %s", status, body)
		}
	}
	clock.add(time.Second)
	if status, _, body := do(t, s, "GET", "/v1/generators/biz/next?key=b", ""); status != 200 {
		t.Fatalf("key b a second later = %d %s", status, body)
	}
}

// TestRateLimit_CallerMap_Bounded checks that the rate limiter keeps at most its
// bound of callers, whatever the number of remote addresses, and that a caller
// still at its limit is not forgotten for the callers that come and go.
func TestRateLimit_CallerMap_Bounded(t *testing.T) {
	clock := newRateClock()
	rl := newRateLimiter(RateLimit{IDsPerSecond: 1, Burst: 5}, clock.now, 64)
	if err := rl.take("hot", 5, false); err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		clock.add(time.Millisecond)
		if err := rl.take(fmt.Sprintf("192.0.2.%d", i), 2, false); err != nil {
			t.Fatal(err)
		}
		if i%16 == 0 {
			// The hot caller keeps calling: refused, its state kept.
			var re *rateError
			if err := rl.take("hot", 5, false); !errors.As(err, &re) {
				t.Fatalf("call %d: the hot caller = %v, want refused", i, err)
			}
		}
		if n := rl.size(); n > 64 {
			t.Fatalf("after %d callers, %d kept; want at most 64", i+1, n)
		}
	}
}

// TestRateLimit_OffByDefault checks that a server without WithRateLimit, or with
// a zero RateLimit, limits nothing.
func TestRateLimit_OffByDefault(t *testing.T) {
	for name, opts := range map[string][]Option{"no option": nil, "zero": {WithRateLimit(RateLimit{})}} {
		t.Run(name, func(t *testing.T) {
			s := compatServer(t, opts...)
			if s.rate != nil {
				t.Fatal("a rate limiter without a rate")
			}
			for range 20 {
				if status, _, body := do(t, s, "GET", "/v1/generators/plain/next?count=10000", ""); status != 200 {
					t.Fatalf("= %d %s", status, body)
				}
			}
		})
	}
}

// TestWithRateLimit_BadValues checks that New refuses a rate no limiter can have.
func TestWithRateLimit_BadValues(t *testing.T) {
	nan := 0.0
	nan /= nan
	for _, l := range []RateLimit{{IDsPerSecond: -1}, {IDsPerSecond: nan}, {NewKeysPerSecond: -2}, {IDsPerSecond: 1, Burst: -1}} {
		if _, err := New(openRuntime(t), WithRateLimit(l)); err == nil || !strings.Contains(err.Error(), "WithRateLimit") {
			t.Errorf("New with %+v: %v, want an error of WithRateLimit", l, err)
		}
	}
}

// TestRateLimit_TakenAhead_NeverPastTheBucket checks that the ids a busy caller's
// requests take ahead of their own (10 ms of the rate) come out of its bucket: in
// one instant the caller gets exactly its burst, one id a call, from one goroutine
// or many; a second later exactly one second's worth more.
func TestRateLimit_TakenAhead_NeverPastTheBucket(t *testing.T) {
	for _, workers := range []int{1, 8} {
		t.Run(fmt.Sprintf("%d goroutines", workers), func(t *testing.T) {
			clock := newRateClock()
			rl := newRateLimiter(RateLimit{IDsPerSecond: 1000, Burst: 2000}, clock.now, 64)
			if rl.ahead != 10 {
				t.Fatalf("ahead = %d, want 10 (10 ms of 1000 a second)", rl.ahead)
			}
			drain := func() int64 {
				var got atomic.Int64
				var wg sync.WaitGroup
				for range workers {
					wg.Go(func() {
						for rl.take("192.0.2.1", 1, false) == nil {
							got.Add(1)
						}
					})
				}
				wg.Wait()
				// What a goroutine left ahead when it was refused, taken now.
				for rl.take("192.0.2.1", 1, false) == nil {
					got.Add(1)
				}
				return got.Load()
			}
			if got := drain(); got != 2000 {
				t.Fatalf("ids in one instant = %d, want the burst, 2000", got)
			}
			clock.add(time.Second)
			if got := drain(); got != 1000 {
				t.Fatalf("ids a second later = %d, want 1000", got)
			}
		})
	}
}

// TestRateLimit_ForgottenCaller_FoundAnew checks that a caller the limiter forgot
// (shrink) is not found again in its cache of the last caller: its next call gets
// the one new, full bucket, and the calls after it that bucket, not the old one.
func TestRateLimit_ForgottenCaller_FoundAnew(t *testing.T) {
	clock := newRateClock()
	rl := newRateLimiter(RateLimit{IDsPerSecond: 1, Burst: 2}, clock.now, 64)
	if err := rl.take("192.0.2.1", 2, false); err != nil {
		t.Fatal(err)
	}
	if err := rl.take("192.0.2.1", 1, false); err == nil {
		t.Fatal("a third id of a burst of 2: allowed") // and the caller is now the last found
	}
	v, _ := rl.callers.Load("192.0.2.1")
	rl.forget("192.0.2.1", v.(*callerRate))
	if err := rl.take("192.0.2.1", 2, false); err != nil {
		t.Fatalf("the forgotten caller's burst = %v, want a new full bucket", err)
	}
	if err := rl.take("192.0.2.1", 1, false); err == nil {
		t.Fatal("an id past the new bucket's burst: allowed")
	}
	if n := rl.size(); n != 1 {
		t.Fatalf("callers kept = %d, want 1", n)
	}
}
