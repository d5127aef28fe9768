package server

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cosid-go/cosid/store/httpstore/wire"
)

func TestAuth_BearerToken(t *testing.T) {
	s := newServer(t, nil, WithToken("s3cret"))
	tests := []struct {
		name, path string
		header     []string
		status     int
	}{
		{"no header", "/v1/generators", nil, 401},
		{"wrong token", "/v1/generators", []string{"Authorization", "Bearer s3cre"}, 401},
		{"longer token", "/v1/generators", []string{"Authorization", "Bearer s3cret!"}, 401},
		{"basic scheme", "/v1/generators", []string{"Authorization", "Basic s3cret"}, 401},
		{"token without scheme", "/v1/generators", []string{"Authorization", "s3cret"}, 401},
		{"right token", "/v1/generators", []string{"Authorization", "Bearer s3cret"}, 200},
		{"metrics needs it", "/metrics", nil, 401},
		{"unknown route needs it", "/nope", nil, 401},
		{"healthz does not", "/healthz", nil, 200},
	}
	var bodies []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := do(t, s, "GET", tt.path, "", tt.header...)
			if status != tt.status {
				t.Fatalf("%d %s, want %d", status, body, tt.status)
			}
			if status == 401 {
				checkError(t, status, h, body, 401, wire.CodeUnauthorized, "token")
				if h.Get("WWW-Authenticate") == "" {
					t.Error("no WWW-Authenticate")
				}
				bodies = append(bodies, body)
			}
		})
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("401 bodies differ, telling what was wrong: %q vs %q", b, bodies[0])
		}
	}
}

func TestBodyLimit(t *testing.T) {
	s := newServer(t, nil, WithBodyLimit(100))
	body := `{"key":"` + strings.Repeat("k", 100) + `","size":1}`
	status, h, got := do(t, s, "POST", wire.PathReserve, body)
	checkError(t, status, h, got, 413, wire.CodeTooLarge, "100 bytes")
	if status, _, got := do(t, s, "POST", wire.PathReserve, `{"key":"k","size":1}`); status != 200 {
		t.Errorf("a small body: %d %s", status, got)
	}
}

// TestPanic_NoPanicEscapes makes a handler panic: the client gets a 500 JSON error,
// the log gets the stack, and the server goes on.
func TestPanic_NoPanicEscapes(t *testing.T) {
	var log bytes.Buffer
	s := newServer(t, nil, WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	if err := s.mount([]route{{"GET /panic", RoleIDs, 0, func(*Server, http.ResponseWriter, *http.Request) error { panic("boom") }}}); err != nil {
		t.Fatal(err)
	}
	status, h, body := do(t, s, "GET", "/panic", "")
	checkError(t, status, h, body, 500, wire.CodeInternal, "log")
	if !strings.Contains(log.String(), "boom") {
		t.Errorf("log %q does not hold the panic", log.String())
	}
	if status, _, _ := do(t, s, "GET", "/healthz", ""); status != 200 {
		t.Errorf("healthz after a panic: %d", status)
	}
}

func TestHealthAndReadiness(t *testing.T) {
	healthy := true
	s := newServer(t, nil, WithReadiness("db", func(*http.Request) error {
		if healthy {
			return nil
		}
		return errors.New("db: connection refused")
	}))
	clock := time.Unix(1e9, 0)
	s.now = func() time.Time { return clock }
	if status, _, body := do(t, s, "GET", "/healthz", ""); status != 200 || !strings.Contains(body, "ok") {
		t.Errorf("healthz: %d %s", status, body)
	}
	if status, _, body := do(t, s, "GET", "/readyz", ""); status != 200 || !strings.Contains(body, `"db":"ok"`) {
		t.Errorf("readyz while healthy: %d %s", status, body)
	}
	healthy = false
	clock = clock.Add(readyEvery)
	status, h, body := do(t, s, "GET", "/readyz", "")
	if status != 503 || !strings.Contains(body, `"db":"unavailable`) || h.Get("Retry-After") == "" {
		t.Errorf("readyz while down: %d %s", status, body)
	}
	if status, _, _ := do(t, s, "GET", "/healthz", ""); status != 200 {
		t.Errorf("healthz while the store is down: %d, want 200: the process is up", status)
	}
}

func TestHTTPServer_HasTimeouts(t *testing.T) {
	hs := newServer(t, nil).HTTPServer("127.0.0.1:0")
	if hs.ReadHeaderTimeout == 0 || hs.ReadTimeout == 0 || hs.WriteTimeout == 0 || hs.IdleTimeout == 0 {
		t.Errorf("timeouts %v %v %v %v: a slow client could hold a connection", hs.ReadHeaderTimeout, hs.ReadTimeout, hs.WriteTimeout, hs.IdleTimeout)
	}
	if hs.ReadHeaderTimeout != hs.ReadTimeout {
		t.Errorf("ReadHeaderTimeout %v, ReadTimeout %v: net/http sets a second read deadline a request when they differ", hs.ReadHeaderTimeout, hs.ReadTimeout)
	}
}

func TestMetrics_RequestsCounted(t *testing.T) {
	s := newMetricsServer(t)
	do(t, s, "GET", "/v1/generators/order/next", "")
	do(t, s, "GET", "/v1/generators/nope/next", "")
	do(t, s, "GET", "/nowhere", "")
	checkMetrics(t, s, []string{
		`cosid_http_requests_total{code="200",route="GET /v1/generators/{name}/next"} 1`,
		`cosid_http_requests_total{code="404",route="GET /v1/generators/{name}/next"} 1`,
		`cosid_http_requests_total{code="404",route="unmatched"} 1`,
	})
}

func TestMetrics_NoneIs404(t *testing.T) {
	status, h, body := do(t, newServer(t, nil), "GET", "/metrics", "")
	checkError(t, status, h, body, 404, wire.CodeNotFound, "metrics")
}
