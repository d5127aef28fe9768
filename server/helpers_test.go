package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/cosid-go/cosid"
	"github.com/cosid-go/cosid/metrics"
	"github.com/cosid-go/cosid/store"
	"github.com/cosid-go/cosid/store/memstore"
)

// testConfig has a generator of every strategy on a memory store.
const testConfig = `
cosid:
  namespace: test
  stores:
    mem: { type: memory }
  generators:
    order: { strategy: segment, store: mem, step: 10 }
    code:
      strategy: segment
      store: mem
      codec: [ { prefix: { value: "C-" } }, { radix: { radix: 10, width: 6, pad-start: true } } ]
    bill:
      strategy: periodic-segment
      store: mem
      period: YEAR_MONTH_DAY
      zone: UTC
    event: { strategy: snowflake, store: mem, owner-key: test-host }
    trace: { strategy: cosid-generator, store: mem, owner-key: test-host }
`

// openRuntime opens testConfig and closes it when t ends.
func openRuntime(t testing.TB) *cosid.Runtime {
	t.Helper()
	return openConfig(t, testConfig)
}

// openConfig opens the configuration text and closes it when t ends.
func openConfig(t testing.TB, text string) *cosid.Runtime {
	t.Helper()
	cfg, err := cosid.ParseConfig([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cosid.Open(t.Context(), cfg, cosid.WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	return rt
}

// newServer returns a Server of testConfig that serves st (a new memstore when nil).
func newServer(t testing.TB, st store.RangeStore, opts ...Option) *Server {
	t.Helper()
	if st == nil {
		st = memstore.New()
	}
	opts = append([]Option{WithStore(st), WithLogger(nil)}, opts...)
	return mustNew(t, openRuntime(t), opts...)
}

// mustNew is New, failing t on an error: the one place the tests build a Server.
func mustNew(t testing.TB, rt *cosid.Runtime, opts ...Option) *Server {
	t.Helper()
	s, err := New(rt, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// do sends a request to h and returns the answer's status, headers and body. A
// request with a body has Content-Type: application/json unless header sets it (an
// empty value: no such header).
func do(t testing.TB, h http.Handler, method, target, body string, header ...string) (int, http.Header, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequestWithContext(t.Context(), method, target, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json") // unless header says otherwise
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Header(), rec.Body.String()
}

// downStore is a store whose backend is down: every call fails with errDown.
type downStore struct{}

var errDown = errors.New("connection refused")

func (downStore) Reserve(context.Context, string, int64, int64) (store.Range, error) {
	return store.Range{}, errDown
}
func (downStore) Seal(context.Context, string) error { return errDown }
func (downStore) Acquire(context.Context, store.LeaseRequest) (store.Lease, error) {
	return store.Lease{}, errDown
}
func (downStore) Renew(context.Context, store.Lease, time.Duration) (store.Lease, error) {
	return store.Lease{}, errDown
}
func (downStore) Release(context.Context, store.Lease, int64) error { return errDown }
func (downStore) Close() error                                      { return nil }

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// newMetricsServer returns a Server of testConfig that counts its requests and
// serves them on /metrics.
func newMetricsServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	return newServer(t, nil, append(opts, withNewMetrics(t))...)
}

// withNewMetrics is WithMetrics of a new registry, served on /metrics.
func withNewMetrics(t testing.TB) Option {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	return WithMetrics(m, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
}

// checkMetrics checks that /metrics of s, asked with header, has each line of want.
func checkMetrics(t *testing.T, s *Server, want []string, header ...string) {
	t.Helper()
	status, _, body := do(t, s, "GET", "/metrics", "", header...)
	if status != 200 {
		t.Fatalf("/metrics: %d %s", status, body)
	}
	for _, line := range want {
		if !strings.Contains(body, line) {
			t.Errorf("/metrics lacks %s", line)
		}
	}
}
