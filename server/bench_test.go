package server

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/metrics"
)

// discard is a ResponseWriter that keeps nothing, so that the benchmarks measure the
// handlers, not a recorder.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

func benchHandler(b *testing.B, h http.Handler, target string, header ...string) {
	req := httptest.NewRequest("GET", target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := &discard{h: http.Header{}}
		for pb.Next() {
			clear(w.h)
			h.ServeHTTP(w, req)
		}
	})
}

// BenchmarkConstant is the baseline: a bare handler that writes a constant.
func BenchmarkConstant(b *testing.B) {
	body := []byte("42\n")
	benchHandler(b, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(body)
	}), "/")
}

// benchConfig has generators with the default batch policy.
const benchConfig = `
cosid:
  stores:
    mem: { type: memory }
  generators:
    order: { strategy: segment, store: mem }
    code: { strategy: segment, store: mem, codec: [ { prefix: { value: "C-" } } ] }
`

func BenchmarkNext(b *testing.B) {
	cfg, err := cosid.ParseConfig([]byte(benchConfig))
	if err != nil {
		b.Fatal(err)
	}
	rt, err := cosid.Open(b.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		b.Fatal(err)
	}
	s := mustNew(b, rt, WithLogger(nil))
	// withMetrics is the server as cosid serve runs it: every request is counted.
	withMetrics := mustNew(b, rt, WithLogger(nil), WithMetrics(m, http.NotFoundHandler()))
	// withToken checks the ids role's token, one longer than a short string's
	// stack buffer, on every request.
	const token = "a-token-of-48-bytes-0123456789abcdef0123456789ab"
	withToken := mustNew(b, rt, WithLogger(nil), WithToken(token))
	// served is the handler of cosid serve on a loopback address: the host guard, the
	// metrics and the token.
	served := mustNew(b, rt, WithLogger(nil), WithToken(token), WithMetrics(m, http.NotFoundHandler())).HTTPServer("127.0.0.1:8686").Handler
	// withRate and servedRate are s and served with a rate limit that never
	// refuses, so that count=1/rate and count=1/served/rate beside count=1 and
	// count=1/served are what the limiter costs a request (issue 30 §3: under 5%).
	// Every request of a run comes from one caller, as from one busy client: the
	// remote address of withRate, the token of servedRate. Side by side:
	// go test -run '^$' -bench 'BenchmarkNext$/^count=1$' -count=5 ./server/
	never := WithRateLimit(RateLimit{IDsPerSecond: 1e12, NewKeysPerSecond: 1e12})
	withRate := mustNew(b, rt, WithLogger(nil), never)
	servedRate := mustNew(b, rt, WithLogger(nil), WithToken(token), WithMetrics(m, http.NotFoundHandler()), never).HTTPServer("127.0.0.1:8686").Handler
	for _, bc := range []struct {
		name, target string
		header       []string
	}{
		{"count=1", "/v1/generators/order/next", nil},
		{"count=1/metrics", "/v1/generators/order/next", nil},
		{"count=1/token", "/v1/generators/order/next", []string{"Authorization", "Bearer " + token}},
		{"count=1/rate", "/v1/generators/order/next", nil},
		{"count=1/served", "http://127.0.0.1:8686/v1/generators/order/next", []string{"Authorization", "Bearer " + token}},
		{"count=1/served/rate", "http://127.0.0.1:8686/v1/generators/order/next", []string{"Authorization", "Bearer " + token}},
		{"count=100", "/v1/generators/order/next?count=100", nil},
		{"count=1000", "/v1/generators/order/next?count=1000", nil},
		{"count=1000/json", "/v1/generators/order/next?count=1000", []string{"Accept", "application/json"}},
		{"count=1000/codec", "/v1/generators/code/next?count=1000", nil},
	} {
		var h http.Handler = s
		switch bc.name {
		case "count=1/served":
			h = served
		case "count=1/served/rate":
			h = servedRate
		case "count=1/rate":
			h = withRate
		case "count=1/metrics":
			h = withMetrics
		case "count=1/token":
			h = withToken
		}
		b.Run(bc.name, func(b *testing.B) { benchHandler(b, h, bc.target, bc.header...) })
	}
}

// BenchmarkLoopback serves single ids over a real loopback connection, as cosid serve
// does (HTTPServer: its timeouts and Host guard, metrics, a token), beside a bare
// net/http server answering a constant (bench/constserver), in the same run; the
// clients keep 64 connections busy, as bench/serve.sh's wrk does.
func BenchmarkLoopback(b *testing.B) {
	cfg, err := cosid.ParseConfig([]byte(benchConfig))
	if err != nil {
		b.Fatal(err)
	}
	rt, err := cosid.Open(b.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	m, err := metrics.New(prometheus.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	const token = "a-token-of-48-bytes-0123456789abcdef0123456789ab"
	body := []byte("42\n")
	constant := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write(body)
	})
	srv := mustNew(b, rt, WithLogger(nil), WithToken(token), WithMetrics(m, http.NotFoundHandler()))
	// srvRate is srv with a rate limit that never refuses: next/rate beside next is
	// what the limiter costs a request over a connection.
	srvRate := mustNew(b, rt, WithLogger(nil), WithToken(token), WithMetrics(m, http.NotFoundHandler()),
		WithRateLimit(RateLimit{IDsPerSecond: 1e12, NewKeysPerSecond: 1e12}))
	for _, bc := range []struct {
		name, path string
		server     func() *http.Server // a server is closed at the end of each run
	}{
		{"bare", "/", func() *http.Server { return &http.Server{Handler: constant} }},
		{"next", "/v1/generators/order/next", func() *http.Server { return srv.HTTPServer("127.0.0.1:0") }},
		{"next/rate", "/v1/generators/order/next", func() *http.Server { return srvRate.HTTPServer("127.0.0.1:0") }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				b.Fatal(err)
			}
			hs := bc.server()
			go hs.Serve(ln)
			defer hs.Close()
			tr := &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			url := "http://" + ln.Addr().String() + bc.path
			b.SetParallelism(64 / runtime.GOMAXPROCS(0))
			b.RunParallel(func(pb *testing.PB) {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Header.Set("Authorization", "Bearer "+token)
				for pb.Next() {
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("%s: %d", url, resp.StatusCode)
						return
					}
				}
			})
		})
	}
}
